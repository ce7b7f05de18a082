package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/isagi-lab/isagi/session"
)

// ctrl+c works as in llama-cli and `ollama run`: it stops what is running
// (a reply, a cancellable job), else clears the input, and only a second
// press on an idle screen quits — a reflex press must not throw away a
// conversation or a half-typed message. Quitting saves first when the
// session autosaves to a file, and asks before it drops a conversation that
// is not saved anywhere.

// quitWindow is how soon after a first ctrl+c on an idle screen the second
// must come to quit.
const quitWindow = 2 * time.Second

// Status lines of the quit dialogue.
const (
	quitArmedStatus = "press ctrl+c again to quit"
	quitAskStatus   = "quit without saving? y/n"
)

// quitDialog is the ctrl+c dialogue: where it stands, and its steps. It
// holds the root, whose state it reads to decide (is a reply streaming, is
// the input empty, is there a file to save to) and whose status line it
// speaks on.
type quitDialog struct {
	m        *Model
	now      func() time.Time // the clock of the double press; tests set it
	armed    time.Time        // the first ctrl+c on an idle screen; zero: none
	asking   bool             // quitAskStatus is up, waiting for y or n
	whenFree bool             // quit once the reply or job running now ends
}

// quitDisarmMsg ends the window opened by the ctrl+c at at.
type quitDisarmMsg struct{ at time.Time }

// quitSaveMsg is the end of the save made on the way out.
type quitSaveMsg struct {
	path string
	err  error
}

// quitCommands are the quit's own.
func quitCommands() []slashCommand {
	return []slashCommand{{name: "/bye", help: "quit", run: cmdBye}}
}

// cmdBye quits as a second ctrl+c does: saved first, or asked.
func cmdBye(m *Model, _ string) tea.Cmd {
	return m.quit.request()
}

// interrupt is ctrl+c: stop, else leave an /edit or clear, else quit on a
// second press.
func (q *quitDialog) interrupt() tea.Cmd {
	m := q.m
	switch {
	case m.gate.gen != nil:
		m.stopReply("ctrl+c")
		return nil
	case m.gate.cancelJob():
		return nil
	case m.editing >= 0:
		// Clearing the text alone would leave the edit on, and the
		// next message would replace message N without a word.
		m.leaveEdit()
		return nil
	case !m.input.empty():
		m.input.reset()
		m.status = "input cleared"
		return nil
	case q.whenFree:
		return nil // already quitting, once the job ends
	case !q.armed.IsZero() && q.now().Sub(q.armed) <= quitWindow:
		q.disarm()
		return q.request()
	}
	at := q.now()
	q.armed = at
	m.status = quitArmedStatus
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitDisarmMsg{at} })
}

// disarm closes the double-press window: any other key in between
// means the user is still working.
func (q *quitDialog) disarm() {
	if q.armed.IsZero() {
		return
	}
	q.armed = time.Time{}
	if q.m.status == quitArmedStatus {
		q.m.status = ""
	}
}

// onDisarm ends the window the press at msg.at opened, unless a later
// press opened another since.
func (q *quitDialog) onDisarm(msg quitDisarmMsg) {
	if q.armed.Equal(msg.at) {
		q.disarm()
	}
}

// stopReply cancels the streaming reply; by names the key for the note
// that follows it in the chat.
func (m *Model) stopReply(by string) {
	if m.gate.gen == nil {
		return
	}
	m.gate.gen.cancel()
	m.stopBy = by
	m.status = "stopping…"
	m.broadcast(replyStoppingMsg{})
}

// request is a quit the user asked for (a second ctrl+c, /bye). It
// waits for the session to be free (stopping what can be stopped), then
// quits at once when there is nothing to lose, saves first when the
// session autosaves to a file, and otherwise asks.
func (q *quitDialog) request() tea.Cmd {
	m := q.m
	if m.gate.gen != nil {
		m.stopReply("quit")
		q.whenFree = true
		return nil
	}
	if m.gate.job != nil {
		m.gate.cancelJob()
		q.whenFree = true
		m.status = "quitting once " + m.gate.job.label + " ends…"
		return nil
	}
	q.whenFree = false
	s, ok := m.parts.sessions()
	if !ok || len(m.parts.transcript()) == 0 {
		// Nothing that could be saved, or nothing to save. An empty
		// conversation (after /clear) is not written over the file
		// either: the file keeps the last one.
		return q.exit()
	}
	if path := s.Path(); path != "" && !m.files.autosaveOff {
		return m.gate.startJob("saving "+path+" before quitting", false, func(ctx context.Context, _ func(string)) tea.Msg {
			return quitSaveMsg{path: path, err: s.Save(ctx, path, session.SaveOptions{})}
		})
	}
	q.ask()
	return nil
}

// resume continues a quit that waited for the session, after a message
// that may have freed it; cmd is what that message's handler returned.
func (q *quitDialog) resume(cmd tea.Cmd) tea.Cmd {
	if !q.whenFree || q.m.gate.ctx.Err() != nil { // not quitting, or exiting already
		return cmd
	}
	return tea.Batch(cmd, q.request()) // still busy: it waits again
}

// onSave quits once the save on the way out is done, or asks when it
// failed.
func (q *quitDialog) onSave(msg quitSaveMsg) tea.Cmd {
	m := q.m
	if msg.err == nil {
		return q.exit()
	}
	// Say why, as an autosave would (this also turns autosave off when
	// someone else saved the file), then let the user decide.
	cmd := m.files.onSaveDone(saveDoneMsg{path: msg.path, auto: true, err: msg.err})
	q.ask()
	return cmd
}

// ask puts the question to the user: quit without saving?
func (q *quitDialog) ask() {
	q.asking = true
	q.m.status = quitAskStatus
}

// answer handles a key while quitAskStatus is up: y quits; n, esc and
// ctrl+c keep the session; any other key keeps it too and then does what
// it always does. It reports whether the key was used up.
func (q *quitDialog) answer(msg tea.KeyMsg) (tea.Cmd, bool) {
	m := q.m
	q.asking = false
	m.status = ""
	if isText(msg) {
		return nil, false
	}
	switch msg.String() {
	case "y", "Y":
		return q.exit(), true
	case "n", "N", "esc", "ctrl+c":
		m.status = "not quitting — ctrl+s saves the session"
		return nil, true
	}
	return nil, false
}

// exit ends the program: every generation and job is cancelled, and Run
// waits for the session to be free.
func (q *quitDialog) exit() tea.Cmd {
	q.m.gate.cancel()
	return tea.Quit
}

// hint is what ctrl+c does now, for the status line.
func (q *quitDialog) hint() string {
	m := q.m
	switch {
	case m.gate.gen != nil || m.gate.job != nil && m.gate.job.cancel != nil:
		return "stop"
	case m.editing >= 0:
		return "leave edit"
	case !m.input.empty():
		return "clear"
	}
	return "×2 quit"
}
