package tui

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

const waitTimeout = 20 * time.Second // generous: waitFor returns as soon as the screen shows it, and CI machines are shared

func start(t *testing.T, sess Session, w, h int, opts ...Options) *teatest.TestModel {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Version = "v0.0.0-test"
	tm := teatest.NewTestModel(t, New(sess, o), teatest.WithInitialTermSize(w, h))
	// The program outlives the test's body. Stop it before the cleanups
	// registered earlier (they run after this one) close the session it
	// still draws: a frame drawn during Close reads the states Close
	// frees (a data race -race reports). A program the test ended itself
	// is already finished.
	t.Cleanup(func() {
		tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
	})
	return tm
}

// waitFor reads the program's output until every string has appeared in it
// (ANSI sequences stripped). Output read here is consumed.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	var seen []byte
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		seen = b
		s := ansi.Strip(string(b))
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(waitTimeout), teatest.WithCheckInterval(10*time.Millisecond))
	_ = seen
}

// term follows a program's status bar across waits. The renderer
// redraws only the lines that changed, at most once a frame, so a reply
// on a fast fixture can begin and end between two frames ("generating"
// is never drawn), and the last status bar drawn is the one on screen.
type term struct {
	tm     *teatest.TestModel
	status string // the status bar last drawn
}

// wait reads the output until every string has appeared in it and, when
// idle is set, the status bar says "ready": the reply and the autosave
// after it are over.
func (sc *term) wait(t *testing.T, idle bool, want ...string) {
	t.Helper()
	teatest.WaitFor(t, sc.tm.Output(), func(b []byte) bool {
		s := ansi.Strip(string(b))
		status := sc.status
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "f1 help") || strings.Contains(l, "? help") {
				status = strings.TrimSpace(l)
			}
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		if idle && !strings.HasPrefix(status, "ready") {
			return false
		}
		sc.status = status
		return true
	}, teatest.WithDuration(waitTimeout), teatest.WithCheckInterval(10*time.Millisecond))
}

func typeLine(tm *teatest.TestModel, s string) {
	tm.Type(s)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

// finish ends the program where it stands and returns the final model with
// every generation stopped. It does not press ctrl+c, which would stop a
// reply or clear the input first (quit_test.go tests that key).
func finish(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(waitTimeout)).(*Model)
	m.Close()
	return m
}

func frame(m *Model) string { return ansi.Strip(m.View()) }

// checkFrame asserts the frame fills the terminal exactly, no line is wider
// than it, and it contains every string.
func checkFrame(t *testing.T, m *Model, w, h int, want ...string) string {
	t.Helper()
	f := frame(m)
	lines := strings.Split(f, "\n")
	if len(lines) != h {
		t.Errorf("%d×%d: frame has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("%d×%d: line %d is %d columns: %q", w, h, i, lw, l)
		}
	}
	for _, s := range want {
		if !strings.Contains(f, s) {
			t.Errorf("%d×%d: frame lacks %q:\n%s", w, h, s, f)
		}
	}
	return f
}

func TestMainView(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	waitFor(t, tm, "SmolLM2 135M Instruct", "chat mode", "Perf", "Hardware", "Model", gpu.NoTelemetry)
	m := finish(t, tm)
	checkFrame(t, m, 120, 40, "ISAGI", "v0.0.0-test", "Q8_0", "134.5M · 138.1 MiB", "ctx 2048", "avx2 × 2 threads", "0 / 2048", "›", "? f1 help · esc stop · ctrl+c ×2 quit")
}

var tokSRe = regexp.MustCompile(`\d+\.\d tok/s`)

func TestSendStreamsReply(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	typeLine(tm, "hi there")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := ansi.Strip(string(b))
		return strings.Contains(s, "fake model") && tokSRe.MatchString(s)
	}, teatest.WithDuration(waitTimeout))
	m := finish(t, tm)
	sent, _, _, _ := e.snapshot()
	if len(sent) != 1 || sent[0] != "hi there" {
		t.Fatalf("session got %q, want [\"hi there\"]", sent)
	}
	f := checkFrame(t, m, 120, 40, "you", "hi there", "42.5 tok/s", "120 ms", "310 tok/s")
	// finished answers are markdown: the ** markers are gone, the list is bulleted
	if strings.Contains(f, "**ISAGI's**") || !strings.Contains(f, "ISAGI's") || !strings.Contains(f, "• one") {
		t.Errorf("answer not rendered as markdown:\n%s", f)
	}
	if strings.Contains(f, "› hi there") {
		t.Errorf("input not cleared after sending:\n%s", f)
	}
	if m.gate.gen != nil {
		t.Error("generation still marked running")
	}
}

func TestEscCancels(t *testing.T) {
	e := newFake()
	e.pieces = strings.SplitAfter(strings.Repeat("and it was so ", 500), " ") // ~10 s at 5 ms
	e.delay = 5 * time.Millisecond
	tm := start(t, e, 120, 40)
	typeLine(tm, "go on")
	waitFor(t, tm, "it was so")
	began := time.Now()
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "stopped (esc)")
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("cancel took %v", d)
	}
	m := finish(t, tm)
	if _, _, _, cancelled := e.snapshot(); !cancelled {
		t.Error("the session never saw its context cancelled")
	}
	checkFrame(t, m, 120, 40, "stopped (esc)", "stopped")
	if m.gate.gen != nil {
		t.Error("generation still marked running after esc")
	}
}

func TestQuitMidGenerationReleasesSession(t *testing.T) {
	e := newFake()
	e.pieces = strings.SplitAfter(strings.Repeat("word ", 2000), " ")
	e.delay = 5 * time.Millisecond
	tm := start(t, e, 100, 30)
	typeLine(tm, "go")
	waitFor(t, tm, "word word")
	finish(t, tm) // Close waits for Send to return
	if _, _, _, cancelled := e.snapshot(); !cancelled {
		t.Error("quitting left the generation running")
	}
}

func TestHelpOverlay(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	tm.Type("?")
	waitFor(t, tm, "Keys", "Commands", "/set NAME VALUE")
	m := finish(t, tm)
	if !m.help.show {
		t.Fatal("help overlay not shown after ?")
	}
	if m.input.value() != "" {
		t.Errorf("? with an empty input went into it: %q", m.input.value())
	}
	want := []string{"Keys", "Commands"}
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			want = append(want, b.Help().Key, b.Help().Desc)
		}
	}
	for _, c := range commands() {
		want = append(want, c.name)
	}
	want = append(want, session.KnobNames()...)
	want = append(want, "esc or ? closes this help")
	checkFrame(t, m, 120, 40, want...)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	checkFrame(t, m, 100, 30, want...)

	// the overlay fits 80×24 too
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	checkFrame(t, m, 80, 24, "enter", "ctrl+c", "esc", "/bye", "/system TEXT", "max_tokens", "esc or ? closes this help")
	// esc closes it; ? typed after text is just a character
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("why?")})
	if m.help.show || m.input.value() != "why?" {
		t.Errorf("help %v, input %q; want closed and \"why?\"", m.help.show, m.input.value())
	}
}

func TestResize(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	tm.Type("draft")
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	waitFor(t, tm, "│ "+gpu.NoTelemetry) // narrow: panes collapse to one line
	tm.Send(tea.WindowSizeMsg{Width: 200, Height: 50})
	waitFor(t, tm, "Hardware")
	m := finish(t, tm)
	checkFrame(t, m, 200, 50, "› draft", "Perf", "Model")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	f := checkFrame(t, m, 80, 24, "› draft", "tok/s", gpu.NoTelemetry)
	if strings.Contains(f, "Hardware") {
		t.Errorf("side panes still drawn at 80 columns:\n%s", f)
	}
	for _, size := range [][2]int{{20, 6}, {1, 1}, {99, 30}, {100, 12}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		_ = m.View() // must not panic
	}
}

func TestSmallTerminalConversation(t *testing.T) {
	e := newFake()
	tm := start(t, e, 80, 24)
	typeLine(tm, "hello")
	waitFor(t, tm, "fake model")
	m := finish(t, tm)
	checkFrame(t, m, 80, 24, "hello", "fake model", "›", "42.5 tok/s")
}

func TestCompletionModeLabel(t *testing.T) {
	e := newFake()
	e.info.Name, e.info.Mode, e.info.Demo = "kjv", session.ModeCompletion, true
	tm := start(t, e, 120, 40)
	waitFor(t, tm, completionLabel, demoLabel)
	typeLine(tm, "In the beginning")
	waitFor(t, tm, "fake model")
	m := finish(t, tm)
	f := checkFrame(t, m, 120, 40, completionLabel, demoLabel, "prompt", "continuation", "In the beginning")
	if !strings.Contains(f, "**ISAGI's**") {
		t.Errorf("completion text should stay plain, not markdown:\n%s", f)
	}
	if f := frame(New(newFake(), Options{})); strings.Contains(f, completionLabel) || strings.Contains(f, demoLabel) {
		t.Errorf("chat model labelled as completion/demo:\n%s", f)
	}
}

func TestSlashCommands(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	typeLine(tm, "/set temperature 0.5")
	waitFor(t, tm, "set temperature = 0.5")
	typeLine(tm, "/set bogus 1")
	waitFor(t, tm, `unknown setting "bogus"`)
	typeLine(tm, "/system be brief")
	waitFor(t, tm, "system prompt set")
	typeLine(tm, "/show")
	waitFor(t, tm, "temperature     0.5", "system          be brief")
	typeLine(tm, "/frob")
	waitFor(t, tm, "unknown command /frob")
	typeLine(tm, "/save")
	waitFor(t, tm, "this engine cannot save sessions")
	typeLine(tm, "/clear")
	waitFor(t, tm, "conversation cleared")
	m := finish(t, tm)
	_, sets, cleared, _ := e.snapshot()
	if len(sets) != 2 || sets[0] != [2]string{"temperature", "0.5"} {
		t.Errorf("Set calls %q", sets)
	}
	if cleared != 1 {
		t.Errorf("Clear called %d times, want 1", cleared)
	}
	if e.Settings().System != "be brief" {
		t.Errorf("system %q", e.Settings().System)
	}
	if f := frame(m); strings.Contains(f, "temperature  0.5") {
		t.Errorf("/clear left the chat on screen:\n%s", f)
	}
}

func TestByeQuits(t *testing.T) {
	tm := start(t, newFake(), 100, 30)
	typeLine(tm, "/bye")
	tm.WaitFinished(t, teatest.WithFinalTimeout(waitTimeout))
}

func TestDroppedTurnsNotice(t *testing.T) {
	e := newFake()
	e.drop = 2
	tm := start(t, e, 120, 40)
	typeLine(tm, "one more")
	waitFor(t, tm, "dropped 2 oldest turns to fit the context window")
	finish(t, tm)
}

type fakeGPU struct {
	mu sync.Mutex
	n  int
}

func (f *fakeGPU) Sample() (gpu.Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return gpu.Stats{Name: "NVIDIA H100 80GB HBM3", TempC: 41, PowerW: 71, PowerLimitW: 700,
		SMClockMHz: 1980, MemClockMHz: 2619, MemUsed: 3 << 29, MemTotal: 80 << 30}, nil
}

func TestHardwareTelemetry(t *testing.T) {
	src := &fakeGPU{}
	tm := start(t, newFake(), 120, 40, Options{Telemetry: src})
	waitFor(t, tm, "NVIDIA H100 80GB HBM3", "power 71 / 700 W", "vram 1.5 / 80.0 GiB")
	began := time.Now()
	time.Sleep(1100 * time.Millisecond)
	m := finish(t, tm)
	src.mu.Lock()
	n := src.n
	src.mu.Unlock()
	// one sample at start, then at most 2 Hz
	if limit := 2 + int(time.Since(began).Seconds()*2) + 1; n > limit || n < 2 {
		t.Errorf("%d samples in %v; want 2..%d (≤ 2 Hz)", n, time.Since(began), limit)
	}
	if f := frame(m); strings.Contains(f, gpu.NoTelemetry) {
		t.Errorf("telemetry present but pane says none:\n%s", f)
	}
}

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		w    int
		want string
	}{
		{nil, 8, ""},
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 8, "▁▂▃▄▅▆▇█"},
		{[]float64{7, 7}, 8, "██"},
		{[]float64{1, 2, 3, 4, 8}, 2, "▄█"},
	} {
		if got := sparkline(c.in, c.w); got != c.want {
			t.Errorf("sparkline(%v, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// TestCapture prints a 100×30 frame of a short conversation, for README.
func TestCapture(t *testing.T) {
	e := newFake()
	e.pieces = strings.SplitAfter("In the beginning was the **token**, and the token was sampled.\n\n"+
		"1. Prefill reads your prompt.\n2. Decode writes one token at a time.\n\nPress `esc` to stop me.", " ")
	tm := start(t, e, 100, 30)
	waitFor(t, tm, "ready")
	typeLine(tm, "How does a language model answer?")
	waitFor(t, tm, "generating")
	waitFor(t, tm, "ready")
	m := finish(t, tm)
	f := checkFrame(t, m, 100, 30, "How does a language model answer?", "Decode writes")
	var b bytes.Buffer
	for _, l := range strings.Split(f, "\n") {
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	t.Logf("100×30 capture:\n%s", b.String())
}

// savingSession is a fake that also keeps session files.
type savingSession struct {
	*fakeSession
	mu    sync.Mutex
	saved []string
	file  string
}

func (s *savingSession) Save(_ context.Context, path string, _ session.SaveOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved = append(s.saved, path)
	s.file = path
	return nil
}

func (s *savingSession) Load(_ context.Context, path string, _ session.LoadOptions) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.file = path
	return []string{"skipped section \"hologram\""}, nil
}

func (s *savingSession) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

func (s *savingSession) Transcript() []session.Message {
	return []session.Message{{Role: "user", Content: "restored question"}, {Role: "assistant", Content: "restored answer"}}
}

// TestSessionsSaveLoadAutosave: a resumed conversation is shown at start;
// /save writes, later turns autosave to the same file; ctrl+s saves; /load
// shows the loaded conversation and its notes.
func TestSessionsSaveLoadAutosave(t *testing.T) {
	e := &savingSession{fakeSession: newFake()}
	tm := start(t, e, 120, 40, Options{SessionDir: "/tmp/isagi-sessions"})
	waitFor(t, tm, "restored question", "restored answer")
	typeLine(tm, "/save /tmp/x.miku")
	waitFor(t, tm, "saved to /tmp/x.miku")
	typeLine(tm, "hello")
	waitFor(t, tm, "tok/s")
	waitFor(t, tm, "ready")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	waitFor(t, tm, "saved to /tmp/x.miku")
	typeLine(tm, "/load /tmp/y.miku")
	waitFor(t, tm, "loaded /tmp/y.miku", "hologram")
	finish(t, tm)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.saved) < 3 || e.saved[0] != "/tmp/x.miku" || e.saved[1] != "/tmp/x.miku" {
		t.Fatalf("saves %v: want /save, then the autosave after the turn, then ctrl+s, all to /tmp/x.miku", e.saved)
	}
}

// TestSetRankRunsOffTheUIGoroutine: /set rank goes to the session from a
// command, and the result shows when it is done.
func TestSetRankRunsOffTheUIGoroutine(t *testing.T) {
	e := newFake()
	tm := start(t, e, 120, 40)
	typeLine(tm, "/set rank 64")
	waitFor(t, tm, "set rank = 64")
	finish(t, tm)
	_, sets, _, _ := e.snapshot()
	if len(sets) != 1 || sets[0] != [2]string{"rank", "64"} {
		t.Fatalf("session saw %v", sets)
	}
}

type hotGPU struct{}

func (hotGPU) Sample() (gpu.Stats, error) {
	return gpu.Stats{Name: "test GPU", TempC: 90, PowerW: 100}, nil
}

// TestThermalRankAfterATurn: with a thermal controller, a hot GPU moves the
// rank to its minimum after the turn, and the decision shows in the chat.
func TestThermalRankAfterATurn(t *testing.T) {
	e := newFake()
	th, err := gpu.NewThermalRank(gpu.ThermalConfig{RMin: 64, RMax: 256}, hotGPU{})
	if err != nil {
		t.Fatal(err)
	}
	tm := start(t, e, 120, 40, Options{Thermal: th})
	typeLine(tm, "hello")
	waitFor(t, tm, "thermal rank: 90 °C", "set rank = 64")
	finish(t, tm)
	_, sets, _, _ := e.snapshot()
	if len(sets) != 1 || sets[0] != [2]string{"rank", "64"} {
		t.Fatalf("session saw %v", sets)
	}
}
