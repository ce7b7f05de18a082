package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/session"
)

// The conversation tree in the chat: /edit, /regen, /branch, /rewind,
// /forward and /export. Messages are numbered as the user counts them: "message 2" is
// the user's second message in the branch shown.

// Brancher is the conversation tree as the TUI drives it
// (*session.Conversation implements it).
type Brancher interface {
	Branches
	Edit(ctx context.Context, id int, text string, emit func(session.Event)) (session.Turn, error)
	Export(w io.Writer, format string, all bool) error
}

// brancher is the session's conversation tree, if it keeps one.
func (f features) brancher() (Brancher, bool) {
	return part[Brancher](f.sess, func(p parted) any { return p.Conversation() })
}

func branchCommands() []slashCommand {
	return []slashCommand{
		{name: "/edit", args: "[N]", help: "edit your message N (default: the last); enter sends it as a new branch", idle: true, run: cmdEdit},
		{name: "/regen", help: "answer the last message again (the old reply stays as a version)", idle: true, run: cmdRegen},
		{name: "/branch", args: "[N] prev|next", help: "switch to another version of the last reply, or of your message N", idle: true, run: cmdBranch},
		{name: "/rewind", args: "N", help: "go back to before your message N (/forward undoes it)", idle: true, run: cmdRewind},
		{name: "/forward", help: "undo /rewind: back to where the conversation was", idle: true, run: cmdForward, unlisted: true},
		{name: "/export", args: "md|json|jsonl FILE [--all]", help: "write the branch (or every branch) to FILE", idle: true, run: cmdExport},
	}
}

// userCount is how many messages of the user's the branch holds.
func userCount(b Branches) int {
	n := 0
	for _, msg := range b.Branch() {
		if msg.Role == session.RoleUser {
			n++
		}
	}
	return n
}

// messageArg reads a message number N, or the last when arg is "".
func messageArg(b Branches, arg string) (session.BranchMessage, string) {
	n := userCount(b)
	if n == 0 {
		return session.BranchMessage{}, "there is no message of yours in this conversation yet"
	}
	if arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 || v > n {
			return session.BranchMessage{}, fmt.Sprintf("%q is not one of your messages: 1 to %d", arg, n)
		}
		n = v
	}
	msg, _ := session.UserMessage(b.Branch(), n)
	return msg, ""
}

// cmdEdit puts one of the user's messages back in the input: enter sends
// it as an edit, esc leaves the edit.
func cmdEdit(m *Model, arg string) tea.Cmd {
	b, ok := m.parts.brancher()
	if !ok || m.info.Mode == session.ModeCompletion {
		m.chat.add(entryError, "this conversation cannot be edited (completion mode is one running text)")
		return nil
	}
	msg, bad := messageArg(b, strings.TrimSpace(arg))
	if bad != "" {
		m.chat.add(entryError, bad)
		return nil
	}
	m.editing = msg.ID
	m.input.giveBack(msg.Content)
	m.status = fmt.Sprintf("editing your message %d — enter sends it as a new branch, esc or ctrl+c leaves it", messageNumber(b, msg.ID))
	return nil
}

// cmdRegen is ctrl+r as a command.
func cmdRegen(m *Model, _ string) tea.Cmd { return m.regenerate() }

// cmdBranch switches versions: /branch next (the last reply's), /branch 2
// prev (your second message's).
func cmdBranch(m *Model, arg string) tea.Cmd {
	b, ok := m.parts.brancher()
	if !ok || m.info.Mode == session.ModeCompletion {
		m.chat.add(entryError, "this conversation has no branches (completion mode is one running text)")
		return nil
	}
	f := strings.Fields(arg)
	usage := "usage: /branch prev|next (the last reply's versions) or /branch N prev|next (your message N's)"
	if len(f) == 0 || len(f) > 2 {
		m.chat.add(entryInfo, usage)
		return nil
	}
	dir := f[len(f)-1]
	delta := map[string]int{"prev": -1, "next": 1}[dir]
	if delta == 0 {
		m.chat.add(entryInfo, usage)
		return nil
	}
	var target session.BranchMessage
	if len(f) == 2 {
		msg, bad := messageArg(b, f[0])
		if bad != "" {
			m.chat.add(entryError, bad)
			return nil
		}
		target = msg
	} else {
		br := b.Branch()
		if len(br) == 0 || br[len(br)-1].Role != session.RoleAssistant {
			m.chat.add(entryError, "there is no reply to switch")
			return nil
		}
		target = br[len(br)-1]
	}
	if target.Siblings < 2 {
		what := "the last reply has"
		if len(f) == 2 {
			what = "message " + f[0] + " has"
		}
		m.chat.add(entryInfo, what+" one version only: /edit and /regen make others")
		return nil
	}
	if err := b.Switch(target.ID, delta); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	m.rewound = nil
	return m.branchMoved()
}

// rewindMark is what /forward needs after a /rewind: the branch's last
// node before it (to) and after it (at). /forward goes back only while the
// branch still ends where the rewind left it: a message sent there starts
// another branch, which /branch N prev|next switches between.
type rewindMark struct{ at, to int }

// lastID is the id of the last message on branch (-1: none).
func lastID(branch []session.BranchMessage) int {
	if len(branch) == 0 {
		return -1
	}
	return branch[len(branch)-1].ID
}

// cmdRewind ends the branch before the user's message N.
func cmdRewind(m *Model, arg string) tea.Cmd {
	b, ok := m.parts.brancher()
	if !ok || m.info.Mode == session.ModeCompletion {
		m.chat.add(entryError, "this conversation cannot be rewound (completion mode is one running text)")
		return nil
	}
	if strings.TrimSpace(arg) == "" {
		m.chat.add(entryInfo, "usage: /rewind N — back to before your message N; the rest stays as a branch (/forward returns to it)")
		return nil
	}
	msg, bad := messageArg(b, strings.TrimSpace(arg))
	if bad != "" {
		m.chat.add(entryError, bad)
		return nil
	}
	before := lastID(b.Branch())
	to := before
	if r := m.rewound; r != nil && r.at == before {
		to = r.to // a rewind after a rewind: /forward goes back past both
	}
	if err := b.Rewind(msg.ID); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	m.rewound = &rewindMark{at: lastID(b.Branch()), to: to}
	cmd := m.branchMoved()
	m.chat.add(entryInfo, fmt.Sprintf("rewound to before your message %s — /forward returns to where the conversation was; a message sent now starts another branch beside it (/branch %s prev|next switches)",
		strings.TrimSpace(arg), strings.TrimSpace(arg)))
	return cmd
}

// cmdForward undoes /rewind: the branch ends again where it ended before.
func cmdForward(m *Model, _ string) tea.Cmd {
	b, ok := m.parts.brancher()
	if !ok || m.info.Mode == session.ModeCompletion {
		m.chat.add(entryError, "this conversation cannot be rewound (completion mode is one running text)")
		return nil
	}
	r := m.rewound
	if r == nil || lastID(b.Branch()) != r.at {
		m.rewound = nil
		m.chat.add(entryInfo, "nothing to go forward to: /forward returns after a /rewind, until a message is sent there (then /branch N prev|next switches between the versions)")
		return nil
	}
	if err := b.Rewind(r.to); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	m.rewound = nil
	cmd := m.branchMoved()
	m.chat.add(entryInfo, "back to where the conversation was before /rewind")
	return cmd
}

// branchMoved shows the branch now in use and saves it.
func (m *Model) branchMoved() tea.Cmd {
	m.files.showTranscript(m.info.Mode)
	m.refreshContext()
	return m.files.autosave(nil)
}

// cmdExport writes the conversation to a file.
func cmdExport(m *Model, arg string) tea.Cmd {
	b, ok := m.parts.brancher()
	if !ok {
		m.chat.add(entryError, "this engine cannot export its conversation")
		return nil
	}
	words, err := splitArgs(arg)
	if err != nil {
		m.chat.add(entryError, "/export: "+err.Error())
		return nil
	}
	var all bool
	var rest []string
	for _, f := range words {
		if f == "--all" {
			all = true
			continue
		}
		rest = append(rest, f)
	}
	if len(rest) != 2 {
		m.chat.add(entryInfo, `usage: /export md|json|jsonl FILE [--all] — the branch shown, or with --all every branch; a FILE with spaces in quotes ("my chat.md")`)
		return nil
	}
	format, path := rest[0], rest[1]
	if session.CheckExportFormat(format) != nil {
		m.chat.add(entryError, fmt.Sprintf("unknown format %q: %s", format, session.ExportFormats))
		return nil
	}
	return m.gate.startJob("exporting "+path, false, func(context.Context, func(string)) tea.Msg {
		return exportDoneMsg{path: path, err: exportTo(b, path, format, all)}
	})
}

// exportTo writes the export to a new file at path (an existing file is
// not overwritten: the user names another).
func exportTo(b Brancher, path, format string, all bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		// Said in words: Go's "open PATH: file exists" is said of a
		// folder too.
		if info, serr := os.Stat(path); serr == nil && info.IsDir() {
			return fmt.Errorf("%s is a folder — name a file in it", path)
		}
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists — nothing was written; name another file", path)
		}
		return err
	}
	if err := b.Export(f, format, all); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// exportDoneMsg is the end of an /export.
type exportDoneMsg struct {
	path string
	err  error
}

// note is what the chat says of the export's end.
func (msg exportDoneMsg) note() (entryKind, string) {
	if msg.err != nil {
		return entryError, "export failed: " + msg.err.Error()
	}
	return entryInfo, "exported to " + msg.path
}

// branchLabel is what the chat shows beside a message of the branch: the
// user's message number, and ‹ k/n › where there are other versions.
func branchLabel(msg session.BranchMessage, n int) string {
	var parts []string
	if msg.Role == session.RoleUser {
		parts = append(parts, fmt.Sprintf("message %d", n))
	}
	if msg.Siblings > 1 {
		parts = append(parts, fmt.Sprintf("‹ %d/%d ›", msg.Sibling+1, msg.Siblings))
		// Versions of a reply differ by how they were made: say how.
		if d := msg.Made; d != nil && msg.Role == session.RoleAssistant {
			// The seed the reply was sampled from (Turn.Seed): /set
			// seed with it, then /regen, writes it again. A greedy
			// reply drew nothing from it.
			how := fmt.Sprintf("temp %g · seed %d", d.Temperature, d.Seed)
			if d.Temperature == 0 {
				how = "temp 0 · greedy"
			}
			if d.Rank > 0 {
				how += fmt.Sprintf(" · rank %d", d.Rank)
			}
			if d.Snipe != "" {
				how += " · snipe " + d.Snipe
			}
			if d.OGDAlpha > 0 {
				how += fmt.Sprintf(" · α %g", d.OGDAlpha)
			}
			if d.Stop == "retrieved" {
				how = "from memory"
			}
			parts = append(parts, how)
		}
	}
	return strings.Join(parts, " ")
}

// editLabel is the label of an edit of node id: the message number it
// takes the place of.
func editLabel(b Branches, id int) string {
	if n := messageNumber(b, id); n > 0 {
		return fmt.Sprintf("message %d (edited)", n)
	}
	return "edited"
}

// messageNumber is the number of the user's message id on the branch
// shown (0: not on it).
func messageNumber(b Branches, id int) int {
	n := 0
	for _, msg := range b.Branch() {
		if msg.Role == session.RoleUser {
			n++
			if msg.ID == id {
				return n
			}
		}
	}
	return 0
}

// leaveEdit ends an /edit without sending anything (esc, ctrl+c): its
// text leaves the input, and the status line says that the message keeps
// its text and that what is typed next is a new message — not, silently,
// a new version of the one that was being edited.
func (m *Model) leaveEdit() {
	what := "edit"
	if b, ok := m.parts.brancher(); ok {
		if n := messageNumber(b, m.editing); n > 0 {
			what = fmt.Sprintf("edit of message %d", n)
		}
	}
	m.editing = -1
	m.input.reset()
	m.status = what + " left — the conversation did not change; the next message is a new one"
}

// madeVersion reports whether the last message the user sent on the branch
// shown has other versions: it was sent where one already stood.
func (m *Model) madeVersion() bool {
	b, ok := m.parts.brancher()
	if !ok || m.info.Mode != session.ModeChat {
		return false
	}
	br := b.Branch()
	for i := len(br) - 1; i >= 0; i-- {
		if br[i].Role == session.RoleUser {
			return br[i].Siblings > 1
		}
	}
	return false
}
