package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// Sessions is implemented by sessions that keep .miku files
// (*session.Session does). The TUI offers /save, /load, ctrl+s and
// autosave only when its session has it.
type Sessions interface {
	// Save writes the conversation to path atomically. It refuses,
	// without writing, a path that exists and is not this session's file
	// (session.ErrExists) and this session's own file when another process
	// saved it since it was loaded or saved here (miku.ErrChanged), unless
	// o.Overwrite.
	Save(ctx context.Context, path string, o session.SaveOptions) error
	// Load restores a conversation; notes say what was skipped. A
	// compression the file asks for reports its build to o.Progress and
	// stops when ctx is cancelled, changing nothing.
	Load(ctx context.Context, path string, o session.LoadOptions) (notes []string, err error)
	// Path is the session file loaded or last saved ("" if none).
	Path() string
}

// sessions is the session's .miku files, if it keeps them.
func (f features) sessions() (Sessions, bool) {
	return part[Sessions](f.sess, func(p parted) any { return p.Files() })
}

// Transcripts is implemented by conversations that show what was said
// (*session.Conversation does): a resumed session's chat, and whether
// there is anything to save at quit.
type Transcripts interface {
	// Transcript is the conversation so far.
	Transcript() []session.Message
}

// transcript is the session's conversation so far (nil when it does not
// tell).
func (f features) transcript() []session.Message {
	t, ok := part[Transcripts](f.sess, func(p parted) any { return p.Conversation() })
	if !ok {
		return nil
	}
	return t.Transcript()
}

// sessionFiles is the session-file feature: where /save, ctrl+s and
// autosave write, the saves and their outcome, and the chat's view of a
// loaded conversation. It writes through the gate, as a job, and tells
// the user in the chat; it is handed both, and the session's features.
type sessionFiles struct {
	parts features
	chat  *chatPane
	gate  *sessionGate

	dir         string // Options.SessionDir: where a new conversation's file goes
	noAutosave  bool   // Options.NoAutosave: a new conversation waits for /save
	autosaveOff bool   // the session file was saved elsewhere: do not overwrite it
}

// savePath picks where /save and ctrl+s write without an argument: the
// open session file, else a new time-stamped file in Options.SessionDir.
func (f *sessionFiles) savePath(arg string) string {
	if arg != "" {
		return arg
	}
	if s, ok := f.parts.sessions(); ok && s.Path() != "" {
		return s.Path()
	}
	return f.newSavePath("")
}

// newSavePath is a new time-stamped file in Options.SessionDir for a
// conversation that has none: one that does not exist (yet) and is not
// avoid (the file a cleared conversation was saved to, perhaps within the
// same second), "-2", "-3"… added to the name when needed.
func (f *sessionFiles) newSavePath(avoid string) string {
	dir := f.dir
	if dir == "" {
		dir = "."
	}
	stamp := time.Now().Format("2006-01-02-150405")
	path := filepath.Join(dir, stamp+".miku")
	for i := 2; i < 1000; i++ {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && !sameFile(path, avoid) {
			break
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.miku", stamp, i))
	}
	return path
}

// sameFile reports whether a and b name the same path (absolute and
// cleaned); "" is no path.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}

// saveDoneMsg is the end of a save; then runs after it (autosave's
// follow-up) whatever its outcome.
type saveDoneMsg struct {
	path  string
	auto  bool
	first bool // the first autosave of a new conversation: say where it goes
	err   error
	then  func() tea.Cmd
}

// sessionCommands are the session files': save and load.
func sessionCommands() []slashCommand {
	return []slashCommand{
		{name: "/save", args: "[FILE]", help: "save the session (.miku); then after every turn", idle: true, run: cmdSave},
		{name: "/save!", args: "FILE", help: "save over a file that is not this session's", idle: true, run: cmdSaveOver},
		{name: "/load", args: "FILE", help: "load a saved session (/load! if another model's)", idle: true, run: cmdLoad},
		{name: "/load!", args: "FILE", help: "load a session saved with another model (its conversation and knobs)", idle: true, run: cmdLoadForce, unlisted: true},
		{name: "/sessions", args: "[N]", help: "list the saved conversations, newest first; /sessions N opens one", idle: true, run: cmdSessions},
	}
}

func cmdSave(m *Model, arg string) tea.Cmd {
	path, err := pathArg(arg)
	if err != nil {
		m.chat.add(entryError, "/save: "+err.Error())
		return nil
	}
	return m.files.save(path, false)
}

// cmdSaveOver is /save! FILE: the user has said to replace the file.
func cmdSaveOver(m *Model, arg string) tea.Cmd {
	path, err := pathArg(arg)
	if err != nil {
		m.chat.add(entryError, "/save!: "+err.Error())
		return nil
	}
	if path == "" {
		m.chat.add(entryInfo, "usage: /save! FILE.miku — saves over a file that is not this session's")
		return nil
	}
	return m.files.save(path, true)
}

// save writes the session as a job (a session file may be locked for a
// moment by an `isagi run --session` on it).
func (f *sessionFiles) save(arg string, overwrite bool) tea.Cmd {
	s, ok := f.parts.sessions()
	if !ok {
		f.chat.add(entryError, "this engine cannot save sessions")
		return nil
	}
	path := f.savePath(arg)
	return f.gate.startJob("saving "+path, false, func(context.Context, func(string)) tea.Msg {
		var err error
		err = s.Save(context.Background(), path, session.SaveOptions{Overwrite: overwrite})
		return saveDoneMsg{path: path, err: err}
	})
}

// autosave writes the open session file after a turn, as a job, then runs
// then; it returns nil (and runs nothing) when there is no file.
func (f *sessionFiles) autosave(then func() tea.Cmd) tea.Cmd {
	s, ok := f.parts.sessions()
	if !ok || f.autosaveOff {
		return nil
	}
	path, first := s.Path(), false
	if path == "" {
		// A new conversation autosaves too, to a new file in the data
		// directory (/sessions lists them), once it has something to keep.
		if f.dir == "" || f.noAutosave || len(f.parts.transcript()) == 0 {
			return nil
		}
		path, first = f.newSavePath(""), true
	}
	cmd := f.gate.startJob("saving "+path, false, func(ctx context.Context, _ func(string)) tea.Msg {
		return saveDoneMsg{path: path, auto: true, first: first, err: s.Save(ctx, path, session.SaveOptions{}), then: then}
	})
	f.gate.job.autosave = true
	return cmd
}

func (f *sessionFiles) onSaveDone(msg saveDoneMsg) tea.Cmd {
	switch {
	case msg.err == nil && !msg.auto:
		f.chat.add(entryInfo, "saved to "+msg.path+" — it is saved again after every turn")
	case msg.err == nil && msg.first:
		f.chat.add(entryInfo, "this conversation autosaves to "+msg.path+" — /sessions lists the saved ones")
	case errors.Is(msg.err, session.ErrExists):
		f.chat.add(entryError, msg.path+" exists and is not this session's file — nothing was written. /save! "+msg.path+" replaces it; /save OTHER.miku keeps both.")
	case errors.Is(msg.err, miku.ErrChanged):
		// Someone else saved this file since we loaded it: saving over it
		// would silently drop their turns. Stop autosaving to it.
		f.autosaveOff = true
		f.chat.add(entryError, msg.path+" was saved by another ISAGI since this session loaded it — not overwritten, and autosave is off. /save NEW.miku keeps this conversation; /save! "+msg.path+" replaces theirs.")
	case errors.Is(msg.err, miku.ErrLocked):
		f.chat.add(entryError, "save failed: "+msg.path+" is in use by another ISAGI (an `isagi run --session` on it); try again in a moment")
	case msg.err != nil && msg.auto:
		f.chat.add(entryError, "autosave failed: "+msg.err.Error())
	case msg.err != nil:
		f.chat.add(entryError, "save failed: "+msg.err.Error())
	}
	if msg.err == nil {
		f.autosaveOff = false
	}
	if msg.then != nil {
		return msg.then()
	}
	return nil
}

// loadDoneMsg is the end of a /load.
type loadDoneMsg struct {
	path  string
	notes []string
	err   error
}

// cmdLoad loads a session file as a job: the file may carry a compression
// rank whose build takes seconds, and the UI must stay live meanwhile.
func cmdLoad(m *Model, arg string) tea.Cmd { return load(m, arg, false) }

// cmdLoadForce is /load! FILE: a file saved with another model loads its
// conversation and knobs (what the command line's --force-model does).
func cmdLoadForce(m *Model, arg string) tea.Cmd { return load(m, arg, true) }

func load(m *Model, arg string, force bool) tea.Cmd {
	s, ok := m.parts.sessions()
	if !ok {
		m.chat.add(entryError, "this engine cannot load sessions")
		return nil
	}
	arg, err := pathArg(arg)
	if err != nil {
		m.chat.add(entryError, "/load: "+err.Error())
		return nil
	}
	if arg == "" {
		m.chat.add(entryInfo, "usage: /load FILE.miku (/load! FILE.miku for one saved with another model)")
		return nil
	}
	sess := m.sess
	return m.gate.startJob("loading "+arg, true, func(ctx context.Context, progress func(string)) tea.Msg {
		notes, err := s.Load(ctx, arg, session.LoadOptions{Force: force, Progress: func(done, total int) {
			progress(fmt.Sprintf("building its compression, %d/%d blocks", done, total))
		}})
		if err == nil {
			// The TUI attaches no profile after a load: what the session
			// cannot use is told at once.
			notes = append(notes, notesOf(sess)...)
		}
		return loadDoneMsg{path: arg, notes: notes, err: err}
	})
}

func (m *Model) onLoadDone(msg loadDoneMsg) tea.Cmd {
	if errors.Is(msg.err, context.Canceled) {
		m.chat.add(entryNotice, "load cancelled — the conversation did not change")
		return nil
	}
	if errors.Is(msg.err, session.ErrOtherModel) {
		// The session's message names the command line's --force-model,
		// which the TUI does not take: say what to type here.
		m.chat.add(entryError, fmt.Sprintf("%s was saved with another model: /load! %s loads its conversation and knobs anyway (its memory and compression stay behind)", msg.path, msg.path))
		return nil
	}
	if msg.err != nil {
		m.chat.add(entryError, "load failed: "+msg.err.Error())
		return nil
	}
	m.rewound = nil // another tree
	m.files.showTranscript(m.info.Mode)
	m.refreshGeometry() // the file may bring its manifold and toggles
	m.info = m.sess.Info()
	m.model.Update(infoMsg{m.info})
	m.chat.add(entryInfo, "loaded "+msg.path)
	for _, n := range msg.notes {
		m.chat.add(entryNotice, n)
	}
	m.refreshContext()
	return nil
}

// showTranscript replaces the chat view with the session's conversation
// (after --load or /load), as a tree's branch when mode is chat.
func (f *sessionFiles) showTranscript(mode session.Mode) {
	f.chat.clear()
	if b, ok := f.parts.brancher(); ok && mode == session.ModeChat {
		n := 0
		for _, msg := range b.Branch() {
			kind := entryAssistant
			if msg.Role == session.RoleUser {
				kind = entryUser
				n++
			}
			f.chat.addLabelled(kind, msg.Content, branchLabel(msg, n))
		}
		return
	}
	for _, msg := range f.parts.transcript() {
		switch msg.Role {
		case "user":
			f.chat.add(entryUser, msg.Content)
		case session.RolePrompt:
			f.chat.add(entryUser, msg.Content)
		case "assistant", "text", session.RoleContinuation:
			f.chat.add(entryAssistant, msg.Content)
		default:
			f.chat.add(entryInfo, fmt.Sprintf("%s: %s", msg.Role, msg.Content))
		}
	}
}

// maxListed bounds /sessions' list.
const maxListed = 20

// savedSessions are the session files in the data directory, newest first.
func (f *sessionFiles) savedSessions() ([]string, error) {
	if f.dir == "" {
		return nil, errors.New("no data directory for sessions")
	}
	ents, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, err
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".miku") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(f.dir, e.Name()), info.ModTime()})
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	out := make([]string, len(files))
	for i, file := range files {
		out[i] = file.path
	}
	return out, nil
}

// cmdSessions lists the saved conversations (/sessions) or opens one
// (/sessions N).
func cmdSessions(m *Model, arg string) tea.Cmd {
	files, err := m.files.savedSessions()
	if err != nil {
		m.chat.add(entryError, "no saved sessions to list: "+err.Error())
		return nil
	}
	if arg = strings.TrimSpace(arg); arg != "" {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > min(len(files), maxListed) {
			m.chat.add(entryError, fmt.Sprintf("%q is not a number from the list (/sessions shows it)", arg))
			return nil
		}
		return load(m, files[n-1], false)
	}
	if len(files) == 0 {
		m.chat.add(entryInfo, "no saved sessions in "+m.files.dir+" yet")
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "saved sessions in %s, newest first (/sessions N opens one):", m.files.dir)
	for i, path := range files[:min(len(files), maxListed)] {
		sum, err := session.Summarize(path)
		if err != nil {
			fmt.Fprintf(&b, "\n%2d  %s  (unreadable: %v)", i+1, filepath.Base(path), err)
			continue
		}
		title := strings.Join(strings.Fields(sum.First), " ")
		if r := []rune(title); len(r) > 48 {
			title = string(r[:47]) + "…"
		}
		branches := ""
		if sum.Branches > 1 {
			branches = fmt.Sprintf(", %d branches", sum.Branches)
		}
		fmt.Fprintf(&b, "\n%2d  %s  %s · %d %s%s  %s", i+1, filepath.Base(path), sum.Updated.Local().Format("Jan 2 15:04"),
			sum.Messages, plural(sum.Messages, "message", "messages"), branches, title)
	}
	if len(files) > maxListed {
		fmt.Fprintf(&b, "\n… and %d older", len(files)-maxListed)
	}
	m.chat.add(entryInfo, b.String())
	return nil
}
