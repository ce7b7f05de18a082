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

// quitState is where the quit dialogue stands.
type quitState struct {
	armed    time.Time // the first ctrl+c on an idle screen; zero: none
	asking   bool      // quitAskStatus is up, waiting for y or n
	whenFree bool      // quit once the reply or job running now ends
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
	return m.requestQuit()
}

// interrupt is ctrl+c: stop, else clear, else quit on a second press.
func (m *Model) interrupt() tea.Cmd {
	switch {
	case m.gate.gen != nil:
		m.stopReply("ctrl+c")
		return nil
	case m.gate.cancelJob():
		return nil
	case !m.input.empty():
		m.input.reset()
		m.status = "input cleared"
		return nil
	case m.q.whenFree:
		return nil // already quitting, once the job ends
	case !m.q.armed.IsZero() && m.now().Sub(m.q.armed) <= quitWindow:
		m.disarmQuit()
		return m.requestQuit()
	}
	at := m.now()
	m.q.armed = at
	m.status = quitArmedStatus
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitDisarmMsg{at} })
}

// disarmQuit closes the double-press window: any other key in between
// means the user is still working.
func (m *Model) disarmQuit() {
	if m.q.armed.IsZero() {
		return
	}
	m.q.armed = time.Time{}
	if m.status == quitArmedStatus {
		m.status = ""
	}
}

func (m *Model) onQuitDisarm(msg quitDisarmMsg) {
	if m.q.armed.Equal(msg.at) {
		m.disarmQuit()
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

// requestQuit is a quit the user asked for (a second ctrl+c, /bye). It
// waits for the engine to be free (stopping what can be stopped), then
// quits at once when there is nothing to lose, saves first when the
// session autosaves to a file, and otherwise asks.
func (m *Model) requestQuit() tea.Cmd {
	if m.gate.gen != nil {
		m.stopReply("quit")
		m.q.whenFree = true
		return nil
	}
	if m.gate.job != nil {
		m.gate.cancelJob()
		m.q.whenFree = true
		m.status = "quitting once " + m.gate.job.label + " ends…"
		return nil
	}
	m.q.whenFree = false
	s, ok := m.parts.sessions()
	if !ok || len(m.parts.transcript()) == 0 {
		// Nothing that could be saved, or nothing to save. An empty
		// conversation (after /clear) is not written over the file
		// either: the file keeps the last one.
		return m.exit()
	}
	if path := s.Path(); path != "" && !m.autosaveOff {
		return m.gate.startJob("saving "+path+" before quitting", false, func(ctx context.Context, _ func(string)) tea.Msg {
			return quitSaveMsg{path: path, err: s.Save(ctx, path, session.SaveOptions{})}
		})
	}
	m.askQuit()
	return nil
}

// resumeQuit continues a quit that waited for the engine, after a message
// that may have freed it; cmd is what that message's handler returned.
func (m *Model) resumeQuit(cmd tea.Cmd) tea.Cmd {
	if !m.q.whenFree || m.gate.ctx.Err() != nil { // not quitting, or exiting already
		return cmd
	}
	return tea.Batch(cmd, m.requestQuit()) // still busy: it waits again
}

func (m *Model) onQuitSave(msg quitSaveMsg) tea.Cmd {
	if msg.err == nil {
		return m.exit()
	}
	// Say why, as an autosave would (this also turns autosave off when
	// someone else saved the file), then let the user decide.
	cmd := m.onSaveDone(saveDoneMsg{path: msg.path, auto: true, err: msg.err})
	m.askQuit()
	return cmd
}

func (m *Model) askQuit() {
	m.q.asking = true
	m.status = quitAskStatus
}

// answerQuit handles a key while quitAskStatus is up: y quits; n, esc and
// ctrl+c keep the session; any other key keeps it too and then does what
// it always does. It reports whether the key was used up.
func (m *Model) answerQuit(msg tea.KeyMsg) (tea.Cmd, bool) {
	m.q.asking = false
	m.status = ""
	if isText(msg) {
		return nil, false
	}
	switch msg.String() {
	case "y", "Y":
		return m.exit(), true
	case "n", "N", "esc", "ctrl+c":
		m.status = "not quitting — ctrl+s saves the session"
		return nil, true
	}
	return nil, false
}

// exit ends the program: every generation and job is cancelled, and Run
// waits for the engine to be free.
func (m *Model) exit() tea.Cmd {
	m.gate.cancel()
	return tea.Quit
}

// interruptHint is what ctrl+c does now, for the status line.
func (m *Model) interruptHint() string {
	switch {
	case m.gate.gen != nil || m.gate.job != nil && m.gate.job.cancel != nil:
		return "stop"
	case !m.input.empty():
		return "clear"
	}
	return "×2 quit"
}
