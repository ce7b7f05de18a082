package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// Hardening II, item 15: grapheme clusters, the input's rule, listings.

// clusters is a ZWJ emoji sequence (one cluster, two cells) and a letter
// with a combining accent (one cluster, one cell).
const clusters = "👩\u200d💻 e\u0301"

// withColour renders in colour for the rest of the test: the cursor's
// reverse video is then in the frame, where it can split a cluster (the
// tests otherwise render without escape codes).
func withColour(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(0) // termenv.TrueColor
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
}

// Every line of the frame, as a terminal that clusters graphemes draws it
// (the escape codes gone, so a cluster split by them joins again), is as
// wide as the window — with the clusters in the model's name (the Model
// pane), the chat, and the input, whichever character the cursor is on.
func TestClustersKeepPaneBordersAligned(t *testing.T) {
	withColour(t)
	e := newFake()
	e.info.Name = "tiny " + clusters + " coder"
	m := New(e, Options{})
	defer m.Close()
	const w, h = 110, 34
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.chat.add(entryUser, "hello "+clusters)
	m.chat.add(entryInfo, strings.Repeat(clusters+" ", 20))
	m.chat.add(entryAssistant, "an answer "+strings.Repeat(clusters+" ", 20))
	m.input.ed.insertString("typed " + clusters + " " + strings.Repeat(clusters, 30))

	for _, l := range strings.Split(m.side(m.bodyHeight()), "\n") {
		if lw := ansi.StringWidth(ansi.Strip(l)); lw != sideWidth {
			t.Errorf("side pane line is %d cells, want %d: %q", lw, sideWidth, ansi.Strip(l))
		}
	}
	for cur := 0; cur <= len(m.input.ed.buf); cur++ {
		m.input.ed.cur = cur
		lines := strings.Split(m.render(), "\n")
		if len(lines) != h {
			t.Fatalf("cursor at %d: the frame has %d lines, want %d", cur, len(lines), h)
		}
		for i, l := range lines {
			if lw := ansi.StringWidth(ansi.Strip(l)); lw != w {
				t.Fatalf("cursor at %d: line %d is %d cells, want %d: %q", cur, i, lw, w, ansi.Strip(l))
			}
		}
	}
}

// The cursor steps over a cluster in one key, and backspace and delete
// take a whole cluster: half an emoji is not a character.
func TestEditorMovesByCluster(t *testing.T) {
	e := newEditor("")
	e.setSize(40, 3)
	e.insertString("a" + clusters)
	n := len(e.buf)
	steps := []int{n - 2, n - 3, 1, 0} // before é, before the space, before 👩‍💻, the start
	for _, want := range steps {
		e.update(tea.KeyMsg{Type: tea.KeyLeft})
		if e.cur != want {
			t.Fatalf("← put the cursor at %d, want %d", e.cur, want)
		}
	}
	e.update(tea.KeyMsg{Type: tea.KeyRight})
	e.update(tea.KeyMsg{Type: tea.KeyDelete})
	if got := e.value(); got != "a e\u0301" {
		t.Fatalf("delete on 👩‍💻 left %q", got)
	}
	e.cur = len(e.buf)
	e.update(tea.KeyMsg{Type: tea.KeyBackspace})
	if got := e.value(); got != "a " {
		t.Fatalf("backspace after é left %q", got)
	}
}

// An emoji with a variation selector ("☺️") is two cells, not the one its
// first rune is: the input wraps it as such, so no row runs past the
// window and none of it is cut off.
func TestInputWrapsWideClusters(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	const w = 80
	m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
	const n = 50
	m.input.ed.insertString(strings.Repeat("☺️", n))
	view := ansi.Strip(m.input.View())
	for i, l := range strings.Split(view, "\n") {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("input line %d is %d cells, the window %d: %q", i, lw, w, l)
		}
	}
	if got := strings.Count(view, "☺️"); got != n {
		t.Errorf("the input shows %d of the %d emoji typed:\n%s", got, n, view)
	}
}

// The rule above the input spans the window, whatever is typed.
func TestInputRuleSpansTheWindow(t *testing.T) {
	m := New(newFake(), Options{})
	defer m.Close()
	for _, w := range []int{60, 100, 140} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		for _, typed := range []string{"", "a few words"} {
			m.input.reset()
			m.input.ed.insertString(typed)
			rule := strings.Repeat("─", w)
			found := false
			for _, l := range strings.Split(screen(m), "\n") {
				found = found || l == rule
			}
			if !found {
				t.Errorf("%d columns, input %q: no rule of %d cells above the input:\n%s", w, typed, w, screen(m))
			}
		}
	}
}

// checkHanging checks a listing as the chat shows it at width w: its rows
// start with "  NAME" (or, for /show, NAME), and every line a row wraps to
// starts at the description column hang — at least one does.
func checkHanging(t *testing.T, shown string, w, hang int, names []string, indent string) {
	t.Helper()
	isRow := func(l string) bool {
		for _, n := range names {
			if strings.HasPrefix(l, indent+n+" ") {
				return true
			}
		}
		return false
	}
	wrapped := 0
	for _, l := range strings.Split(ansi.Strip(shown), "\n") {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line is %d cells in a %d-cell chat: %q", lw, w, l)
		}
		l = strings.TrimRight(l, " ")
		if isRow(l) || l == "" || strings.HasPrefix(l, "usage:") || strings.HasPrefix(l, "✗ usage:") || strings.HasPrefix(l, "NAME is one of") {
			continue
		}
		wrapped++
		if !strings.HasPrefix(l, strings.Repeat(" ", hang)) || l[hang] == ' ' {
			t.Errorf("a wrapped description does not continue at column %d: %q\n%s", hang, l, ansi.Strip(shown))
		}
	}
	if wrapped == 0 {
		t.Fatalf("nothing wrapped at %d cells: the test shows nothing\n%s", w, ansi.Strip(shown))
	}
}

// /set's and /show's descriptions wrap under their own column.
func TestListingsWrapUnderTheirColumn(t *testing.T) {
	e := newFake()
	e.settings.System = strings.Repeat("be brief and kind to the user ", 6)
	m := New(e, Options{})
	defer m.Close()
	const w = 72 // narrow: no side panes, the chat is the window
	m.Update(tea.WindowSizeMsg{Width: w, Height: 40})

	var names []string
	nameW, valW := 0, 0
	for _, k := range session.Knobs() {
		names = append(names, k.Name)
		nameW, valW = max(nameW, ansi.StringWidth(k.Name)), max(valW, ansi.StringWidth(k.Values))
	}
	setHang := 2 + nameW + 2 + valW + 2

	m.runCommand("/set")
	checkHanging(t, m.chat.history, w, setHang, names, "  ")
	m.chat.clear()
	m.runCommand("/set temperature") // the same listing, as an error
	checkHanging(t, m.chat.history, w, setHang, names, "  ")

	m.chat.clear()
	m.runCommand("/show")
	showHang := max(nameW, len("compression")) + 2
	checkHanging(t, m.chat.history, w, showHang, append(names, "model", "file", "mode", "compression", "system"), "")

	// and again after the window is resized
	m.Update(tea.WindowSizeMsg{Width: w - 8, Height: 40})
	checkHanging(t, m.chat.history, w-8, showHang, append(names, "model", "file", "mode", "compression", "system"), "")
}
