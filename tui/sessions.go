package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// Sessions is implemented by engines that keep .miku session files
// (*session.Session does). The TUI offers /save, /load, ctrl+s and
// autosave only when its engine has it.
type Sessions interface {
	// SaveFile writes the conversation to path atomically. It refuses,
	// without writing, a path that exists and is not this session's file
	// (session.ErrExists) and this session's own file when another process
	// saved it since it was loaded or saved here (miku.ErrChanged).
	SaveFile(path string) error
	// SaveFileOverwrite is SaveFile that replaces whatever is at path.
	SaveFileOverwrite(path string) error
	// LoadFile restores a conversation; notes say what was skipped.
	LoadFile(path string, force bool) (notes []string, err error)
	// File is the session file loaded or last saved ("" if none).
	File() string
	// Transcript is the conversation so far.
	Transcript() []chat.Message
}

func (m *Model) sessions() (Sessions, bool) {
	s, ok := m.engine.(Sessions)
	return s, ok
}

// savePath picks where /save and ctrl+s write without an argument: the
// open session file, else a new time-stamped file in Options.SessionDir.
func (m *Model) savePath(arg string) string {
	if arg != "" {
		return arg
	}
	if s, ok := m.sessions(); ok && s.File() != "" {
		return s.File()
	}
	return m.newSavePath("")
}

// newSavePath is a new time-stamped file in Options.SessionDir for a
// conversation that has none: one that does not exist (yet) and is not
// avoid (the file a cleared conversation was saved to, perhaps within the
// same second), "-2", "-3"… added to the name when needed.
func (m *Model) newSavePath(avoid string) string {
	dir := m.opts.SessionDir
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
	path string
	auto bool
	err  error
	then func() tea.Cmd
}

// sessionCommands are the session files': save and load.
func sessionCommands() []slashCommand {
	return []slashCommand{
		{name: "/save", args: "[FILE]", help: "save the session (.miku); then after every turn", idle: true, run: cmdSave},
		{name: "/save!", args: "FILE", help: "save over a file that is not this session's", idle: true, run: cmdSaveOver},
		{name: "/load", args: "FILE", help: "load a saved session (/load! if another model's)", idle: true, run: cmdLoad},
		{name: "/load!", args: "FILE", help: "load a session saved with another model (its conversation and knobs)", idle: true, run: cmdLoadForce, unlisted: true},
	}
}

func cmdSave(m *Model, arg string) tea.Cmd { return m.save(arg, false) }

// cmdSaveOver is /save! FILE: the user has said to replace the file.
func cmdSaveOver(m *Model, arg string) tea.Cmd {
	if arg == "" {
		m.chat.add(entryInfo, "usage: /save! FILE.miku — saves over a file that is not this session's")
		return nil
	}
	return m.save(arg, true)
}

// save writes the session as a job (a session file may be locked for a
// moment by an `isagi run --session` on it).
func (m *Model) save(arg string, overwrite bool) tea.Cmd {
	s, ok := m.sessions()
	if !ok {
		m.chat.add(entryError, "this engine cannot save sessions")
		return nil
	}
	path := m.savePath(arg)
	return m.startJob("saving "+path, false, func(context.Context, func(string)) tea.Msg {
		var err error
		if overwrite {
			err = s.SaveFileOverwrite(path)
		} else {
			err = s.SaveFile(path)
		}
		return saveDoneMsg{path: path, err: err}
	})
}

// autosave writes the open session file after a turn, as a job, then runs
// then; it returns nil (and runs nothing) when there is no file.
func (m *Model) autosave(then func() tea.Cmd) tea.Cmd {
	s, ok := m.sessions()
	if !ok || s.File() == "" || m.autosaveOff {
		return nil
	}
	path := s.File()
	return m.startJob("saving "+path, false, func(context.Context, func(string)) tea.Msg {
		return saveDoneMsg{path: path, auto: true, err: s.SaveFile(path), then: then}
	})
}

func (m *Model) onSaveDone(msg saveDoneMsg) tea.Cmd {
	switch {
	case msg.err == nil && !msg.auto:
		m.chat.add(entryInfo, "saved to "+msg.path+" — it is saved again after every turn")
	case errors.Is(msg.err, session.ErrExists):
		m.chat.add(entryError, msg.path+" exists and is not this session's file — nothing was written. /save! "+msg.path+" replaces it; /save OTHER.miku keeps both.")
	case errors.Is(msg.err, miku.ErrChanged):
		// Someone else saved this file since we loaded it: saving over it
		// would silently drop their turns. Stop autosaving to it.
		m.autosaveOff = true
		m.chat.add(entryError, msg.path+" was saved by another ISAGI since this session loaded it — not overwritten, and autosave is off. /save NEW.miku keeps this conversation; /save! "+msg.path+" replaces theirs.")
	case errors.Is(msg.err, miku.ErrLocked):
		m.chat.add(entryError, "save failed: "+msg.path+" is in use by another ISAGI (an `isagi run --session` on it); try again in a moment")
	case msg.err != nil && msg.auto:
		m.chat.add(entryError, "autosave failed: "+msg.err.Error())
	case msg.err != nil:
		m.chat.add(entryError, "save failed: "+msg.err.Error())
	}
	if msg.err == nil {
		m.autosaveOff = false
	}
	if msg.then != nil {
		return msg.then()
	}
	return nil
}

// LoadBuilder is implemented by engines whose session load can report
// progress and be cancelled: loading a session saved with a compression
// rank builds that compression (*session.Session does).
type LoadBuilder interface {
	LoadFileCtx(ctx context.Context, path string, force bool, progress func(done, total int)) (notes []string, err error)
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
	s, ok := m.sessions()
	if !ok {
		m.chat.add(entryError, "this engine cannot load sessions")
		return nil
	}
	if arg == "" {
		m.chat.add(entryInfo, "usage: /load FILE.miku (/load! FILE.miku for one saved with another model)")
		return nil
	}
	lb, cancellable := m.engine.(LoadBuilder)
	return m.startJob("loading "+arg, cancellable, func(ctx context.Context, progress func(string)) tea.Msg {
		var (
			notes []string
			err   error
		)
		if cancellable {
			notes, err = lb.LoadFileCtx(ctx, arg, force, func(done, total int) {
				progress(fmt.Sprintf("building its compression, %d/%d blocks", done, total))
			})
		} else {
			notes, err = s.LoadFile(arg, force)
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
	m.showTranscript()
	m.refreshGeometry() // the file may bring its manifold and toggles
	m.info = m.engine.Info()
	m.model.Update(infoMsg{m.info})
	m.chat.add(entryInfo, "loaded "+msg.path)
	for _, n := range msg.notes {
		m.chat.add(entryNotice, n)
	}
	m.refreshContext()
	return nil
}

// showTranscript replaces the chat view with the engine's conversation
// (after --load or /load).
func (m *Model) showTranscript() {
	s, ok := m.sessions()
	if !ok {
		return
	}
	m.chat.clear()
	for _, msg := range s.Transcript() {
		switch msg.Role {
		case "user":
			m.chat.add(entryUser, msg.Content)
		case session.RolePrompt:
			m.chat.add(entryUser, msg.Content)
		case "assistant", "text", session.RoleContinuation:
			m.chat.add(entryAssistant, msg.Content)
		default:
			m.chat.add(entryInfo, fmt.Sprintf("%s: %s", msg.Role, msg.Content))
		}
	}
}
