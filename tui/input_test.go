package tui

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
)

// typedProgram runs the TUI as a real Bubble Tea program whose terminal
// input is the bytes written to the returned writer, so the messages are
// the ones Bubble Tea's own input parser makes of them (a paste without
// bracketed paste arrives as runs of characters split at spaces).
func typedProgram(t testing.TB, sess Session) (*Model, *tea.Program, io.WriteCloser, chan error) {
	t.Helper()
	m := New(sess, Options{Version: "test"})
	pr, pw := io.Pipe()
	p := tea.NewProgram(probed{m}, tea.WithInput(pr), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, p, pw, done
}

// inputIs waits until the input box holds want (read on the UI goroutine).
func inputIs(t testing.TB, p *tea.Program, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		got := make(chan string, 1)
		n := utf8.RuneCountInString(want)
		p.Send(probeMsg(func(m *Model) {
			if len(m.input.ed.buf) < n { // don't copy a megabyte 50 times a second
				got <- ""
				return
			}
			got <- m.input.value()
		}))
		select {
		case v := <-got:
			if v == want {
				return
			}
			if len(v) > len(want) {
				t.Fatalf("input grew past the typed text: %d > %d bytes", len(v), len(want))
			}
		case <-time.After(timeout):
			t.Fatal("the program stopped answering")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := make(chan string, 1)
	p.Send(probeMsg(func(m *Model) { got <- m.input.value() }))
	v := <-got
	if len(v) > 200 {
		v = fmt.Sprintf("%q… (%d bytes)", v[:200], len(v))
	}
	t.Fatalf("input is %s, want the %d bytes typed", v, len(want))
}

func TestTypedKeyNamesAreText(t *testing.T) {
	e := newFake()
	m, p, in, done := typedProgram(t, e)
	defer p.Kill()
	const text = "press ctrl+c to copy and hit enter to send; up down home end pgup pgdown esc f1 ctrl+s ctrl+r ctrl+p alt+enter ctrl+j tab"
	if _, err := io.WriteString(in, text); err != nil {
		t.Fatal(err)
	}
	inputIs(t, p, text, 10*time.Second)
	select {
	case err := <-done:
		t.Fatalf("the program quit on typed text (err %v)", err)
	default:
	}
	sent, _, _, _ := e.snapshot()
	if len(sent) != 0 {
		t.Fatalf("typed text sent a message: %q", sent)
	}
	// A real enter still sends, and a real ctrl+c, pressed twice once the
	// reply has ended, still quits.
	io.WriteString(in, "\r")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if sent, _, _, _ := e.snapshot(); len(sent) == 1 {
			if sent[0] != text {
				t.Fatalf("sent %q, want %q", sent[0], text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("enter did not send")
		}
		time.Sleep(10 * time.Millisecond)
	}
	idle := func() bool {
		free := make(chan bool, 1)
		p.Send(probeMsg(func(m *Model) { free <- m.gate.busyWith() == "" }))
		return <-free
	}
	for !idle() {
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(in, "\x03")
	io.WriteString(in, "\x03")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl+c did not quit")
	}
	m.Close()
}

// words is n words of prose with a newline every 12 words.
func words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if i%12 == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		fmt.Fprintf(&b, "word%d", i)
	}
	return b.String()
}

// A 1 MB paste without bracketed paste lands in the input whole, and the
// memory it takes is proportional to its size. (Its speed is measured by
// BenchmarkPaste, not here.)
func TestLargePasteWithoutBracketedPaste(t *testing.T) {
	if testing.Short() {
		t.Skip("1 MB through the terminal parser")
	}
	text := words(110_000) // ~1 MB
	// Newlines arrive as LF (ctrl+j, a new line in the input), as they do
	// from most terminals' pastes; CR would be enter.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, p, in, _ := typedProgram(t, newFake())
	defer p.Kill()
	go io.WriteString(in, text)
	inputIs(t, p, text, 120*time.Second)
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d bytes pasted; live heap grew %d bytes", len(text), grew)
	// The editor keeps the text as grapheme clusters with its wrap cache,
	// about 8–12× the bytes alone; the whole-heap reading also moves by
	// megabytes with what earlier tests of the package left running. The
	// bound is there for retention that grows with the paste (every
	// intermediate state kept, quadratic copies: hundreds of MB), so it
	// leaves room for both.
	if grew > 32*int64(len(text)) {
		t.Errorf("a %d-byte paste keeps %d bytes alive (more than 32× its size)", len(text), grew)
	}
	_ = m
}

func BenchmarkPaste(b *testing.B) {
	text := words(110_000)
	b.SetBytes(int64(len(text)))
	for range b.N {
		_, p, in, _ := typedProgram(b, newFake())
		go io.WriteString(in, text)
		inputIs(b, p, text, 120*time.Second)
		p.Kill()
	}
}

// probeMsg runs a function on the UI goroutine (tests only).
type probeMsg func(*Model)

// probed is the root model with probeMsg handled.
type probed struct{ *Model }

func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if f, ok := msg.(probeMsg); ok {
		f(p.Model)
		return p, nil
	}
	_, cmd := p.Model.Update(msg)
	return p, cmd
}

// A message too long for the context window is refused with a visible
// reason and given back in the input; the chat shows a huge message in part.
func TestTooLongMessageComesBack(t *testing.T) {
	e := newFake()
	e.limit = 100
	tm := start(t, e, 120, 40)
	long := words(2000)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(long), Paste: true})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "not sent", "back in the input")
	m := finish(t, tm)
	if got := m.input.value(); got != long {
		t.Fatalf("input after a refused message holds %d bytes, want the %d sent", len(got), len(long))
	}
	if f := frame(m); !strings.Contains(f, "shown in part") {
		t.Errorf("a %d-byte message is not abbreviated in the chat:\n%s", len(long), f)
	}
}

// A completion-mode text cut to fit the window says so.
func TestTrimmedTextNotice(t *testing.T) {
	e := newFake()
	e.trim = 321
	tm := start(t, e, 120, 40)
	typeLine(tm, "hello")
	waitFor(t, tm, "(321", "tokens left out)")
	finish(t, tm)
}
