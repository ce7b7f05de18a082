package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
)

// Hardening II, item 3: ctrl+c works as in llama-cli and `ollama run`.

// quitted reports whether the model has begun to exit (exit cancels the
// context every generation and job runs under).
func quitted(m *Model) bool { return m.gate.ctx.Err() != nil }

var ctrlC = tea.KeyMsg{Type: tea.KeyCtrlC}

// screen is the frame as it stands now. (View may return the frame before
// a key, which a burst of keys defers.)
func screen(m *Model) string { return ansi.Strip(m.render()) }

// ctrl+c on typed text clears it; on an idle screen the first press only
// says how to quit, and the second quits. A key in between, or a second
// press after the window, starts over.
func TestCtrlCClearsThenQuitsOnSecondPress(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	clock := time.Unix(1000, 0)
	m.quit.now = func() time.Time { return clock }
	if !strings.Contains(screen(m), "ctrl+c ×2 quit") {
		t.Errorf("idle status line does not say ctrl+c twice quits:\n%s", screen(m))
	}

	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("half a thought")})
	if !strings.Contains(screen(m), "ctrl+c clear") {
		t.Errorf("status line with typed text does not say ctrl+c clears:\n%s", screen(m))
	}
	m.Update(ctrlC)
	if quitted(m) || m.input.value() != "" {
		t.Fatalf("ctrl+c on typed text: quit %v, input %q; want the input cleared and the app running", quitted(m), m.input.value())
	}

	m.Update(ctrlC)
	if quitted(m) || !strings.Contains(screen(m), "press ctrl+c again to quit") {
		t.Fatalf("first ctrl+c on an idle screen: quit %v; want it running, saying how to quit:\n%s", quitted(m), screen(m))
	}
	clock = clock.Add(quitWindow + time.Millisecond) // too late: this press starts over
	m.Update(ctrlC)
	if quitted(m) {
		t.Fatal("a second ctrl+c after the window quit")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgUp}) // the user is still working
	if strings.Contains(screen(m), "press ctrl+c again") {
		t.Errorf("another key left the quit prompt up:\n%s", screen(m))
	}
	m.Update(ctrlC)
	if quitted(m) {
		t.Fatal("ctrl+c, another key, ctrl+c quit")
	}
	clock = clock.Add(quitWindow / 2)
	m.Update(ctrlC)
	if !quitted(m) {
		t.Fatal("two ctrl+c within the window on an idle screen did not quit")
	}
}

// The window's end takes the prompt off the status line.
func TestCtrlCPromptExpires(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	at := time.Unix(1000, 0)
	m.quit.now = func() time.Time { return at }
	m.Update(ctrlC)
	m.Update(quitDisarmMsg{at})
	if m.status != "" || !m.quit.armed.IsZero() {
		t.Fatalf("after the window: status %q, armed %v", m.status, m.quit.armed)
	}
}

// During a streaming reply ctrl+c stops it, as esc does, and the app goes
// on; two more presses quit.
func TestCtrlCStopsReply(t *testing.T) {
	e := newFake()
	e.pieces = strings.SplitAfter(strings.Repeat("and it was so ", 500), " ")
	e.delay = 5 * time.Millisecond
	tm := start(t, e, 120, 40)
	typeLine(tm, "go on")
	waitFor(t, tm, "it was so", "ctrl+c stop")
	tm.Send(ctrlC)
	waitFor(t, tm, "stopped (ctrl+c)")
	if _, _, _, cancelled := e.snapshot(); !cancelled {
		t.Error("the session never saw its context cancelled")
	}
	tm.Send(ctrlC)
	waitFor(t, tm, "press ctrl+c again to quit")
	tm.Send(ctrlC)
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
}

// A session that autosaves to a file is saved on the way out.
func TestQuitSavesTheSessionFile(t *testing.T) {
	e := &savingSession{fakeSession: newFake(), file: "/tmp/resumed.miku"}
	tm := start(t, e, 120, 40)
	waitFor(t, tm, "restored answer")
	tm.Send(ctrlC)
	tm.Send(ctrlC)
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.saved) != 1 || e.saved[0] != "/tmp/resumed.miku" {
		t.Fatalf("saves on quit: %v, want /tmp/resumed.miku once", e.saved)
	}
}

// /bye quits the same way: saved first.
func TestByeSavesTheSessionFile(t *testing.T) {
	e := &savingSession{fakeSession: newFake(), file: "/tmp/resumed.miku"}
	tm := start(t, e, 120, 40)
	typeLine(tm, "/bye")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.saved) != 1 {
		t.Fatalf("saves on /bye: %v, want one", e.saved)
	}
}

// A conversation saved nowhere is not dropped without asking: n keeps it,
// y quits without writing anything.
func TestQuitAsksBeforeDroppingAnUnsavedConversation(t *testing.T) {
	e := &savingSession{fakeSession: newFake()} // a conversation, no file
	m := New(e, Options{})
	defer m.Close()
	m.Update(ctrlC)
	m.Update(ctrlC)
	if quitted(m) || !strings.Contains(screen(m), "quit without saving? y/n") {
		t.Fatalf("second ctrl+c on an unsaved conversation: quit %v; want the question:\n%s", quitted(m), screen(m))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	if quitted(m) || m.input.value() != "" || !strings.Contains(m.status, "not quitting") {
		t.Fatalf("n: quit %v, input %q, status %q", quitted(m), m.input.value(), m.status)
	}
	m.Update(ctrlC)
	m.Update(ctrlC)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if !quitted(m) {
		t.Fatal("y did not quit")
	}
	if len(e.saved) != 0 {
		t.Errorf("quitting without saving wrote %v", e.saved)
	}
}

// When the save on the way out fails (another ISAGI saved the file), the
// user is told why and asked; nothing is overwritten.
func TestQuitAsksWhenTheSaveFails(t *testing.T) {
	e := &conflictSaver{savingSession: &savingSession{fakeSession: newFake(), file: "/tmp/mine.miku"}, changed: true}
	tm := start(t, e, 140, 40)
	waitFor(t, tm, "restored answer")
	tm.Send(ctrlC)
	tm.Send(ctrlC)
	waitFor(t, tm, "was saved by another ISAGI", "quit without saving? y/n")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.saved) != 0 || len(e.over) != 0 {
		t.Fatalf("saves %v, overwrites %v: want none", e.saved, e.over)
	}
}

// ctrl+z suspends the program (Bubble Tea gives the terminal back and
// restores it on resume), and a frame drawn after the resume is whole.
func TestCtrlZSuspends(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
	found := false
	for _, msg := range run(cmd) {
		if _, ok := msg.(tea.SuspendMsg); ok {
			found = true
		}
	}
	if !found {
		t.Fatal("ctrl+z did not ask Bubble Tea to suspend")
	}
	m.Update(tea.ResumeMsg{})
	checkFrame(t, m, 80, 24, "ready")
}

// run executes cmd and the commands of any batch it returns, and returns
// their messages.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// "/?" is /help.
func TestSlashQuestionMarkIsHelp(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/?")})
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !m.help.show {
		t.Fatalf("/? did not open the help; chat: %+v", m.chat.entries)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	checkFrame(t, m, 120, 40, "/help, /?")
}
