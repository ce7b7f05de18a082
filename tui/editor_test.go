package tui

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func keyOf(s string) tea.KeyMsg {
	for t, name := range map[tea.KeyType]string{tea.KeyLeft: "left", tea.KeyRight: "right", tea.KeyUp: "up", tea.KeyDown: "down",
		tea.KeyHome: "home", tea.KeyEnd: "end", tea.KeyBackspace: "backspace", tea.KeyDelete: "delete",
		tea.KeyCtrlW: "ctrl+w", tea.KeyCtrlK: "ctrl+k", tea.KeyCtrlU: "ctrl+u", tea.KeyCtrlA: "ctrl+a", tea.KeyCtrlE: "ctrl+e"} {
		if name == s {
			return tea.KeyMsg{Type: t}
		}
	}
	panic("no key " + s)
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestEditorEditing(t *testing.T) {
	e := newEditor("")
	e.setSize(40, 3)
	for _, k := range []tea.KeyMsg{runes("hello"), {Type: tea.KeySpace, Runes: []rune{' '}}, runes("world")} {
		e.update(k)
	}
	steps := []struct {
		key  string
		want string // value with | at the cursor
	}{
		{"left", "hello worl|d"},
		{"ctrl+w", "hello |d"},
		{"home", "|hello d"},
		{"delete", "|ello d"},
		{"end", "ello d|"},
		{"backspace", "ello |"},
		{"ctrl+a", "|ello "},
		{"ctrl+k", "|"},
	}
	for _, s := range steps {
		e.update(keyOf(s.key))
		got := string(e.buf[:e.cur]) + "|" + string(e.buf[e.cur:])
		if got != s.want {
			t.Fatalf("after %s: %q, want %q", s.key, got, s.want)
		}
	}
	e.update(runes("a\r\nb\rc\x00d\te"))
	if got := e.value(); got != "a\nb\ncd\te" {
		t.Fatalf("control characters: %q", got)
	}
	e.update(keyOf("up"))
	e.update(keyOf("ctrl+u"))
	if got := e.value(); got != "a\n\ncd\te" && got != "a\nb\ncd\te" {
		t.Fatalf("up, ctrl+u: %q", got)
	}
}

// fullWrap is the wrap of a fresh editor holding the same text.
func fullWrap(e *editor) []row {
	f := newEditor("")
	f.width, f.height = e.width, e.height
	f.buf = slices.Clone(e.buf)
	return slices.Clone(f.wrap())
}

// The incremental wrap always equals a wrap from scratch, whatever the
// edits, and every row fits the width.
func TestEditorWrapIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab cd efgh\n 漢字\tx")
	for trial := range 200 {
		e := newEditor("")
		e.setSize(4+rng.IntN(20), 3)
		for step := range 60 {
			switch rng.IntN(6) {
			case 0, 1, 2:
				n := 1 + rng.IntN(30)
				rs := make([]rune, n)
				for i := range rs {
					rs[i] = alphabet[rng.IntN(len(alphabet))]
				}
				e.insert(rs)
			case 3:
				a := rng.IntN(len(e.buf) + 1)
				e.remove(a, a+rng.IntN(8))
			case 4:
				e.cur = rng.IntN(len(e.buf) + 1)
			case 5:
				if rng.IntN(10) == 0 {
					e.setSize(4+rng.IntN(20), 3)
				}
			}
			got := slices.Clone(e.wrap())
			want := fullWrap(&e)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d step %d: incremental %v, full %v for %q", trial, step, got, want, string(e.buf))
			}
			w := max(e.width-1, 1)
			for _, r := range got {
				if c := colOf(e.buf, r.start, r.end); c > w && r.end-r.start > 1 {
					t.Fatalf("row %v is %d cells, width %d: %q", r, c, w, string(e.buf[r.start:r.end]))
				}
			}
			_ = e.view() // never panics, whatever the cursor
		}
	}
}

// The window follows the cursor: the end of a long text is what shows.
func TestEditorViewFollowsCursor(t *testing.T) {
	e := newEditor("say something")
	e.setSize(22, 3)
	if v := ansi.Strip(e.view()); !strings.Contains(v, "say something") {
		t.Fatalf("placeholder missing: %q", v)
	}
	e.insertString(words(60))
	v := ansi.Strip(e.view())
	if !strings.Contains(v, "word59") || strings.Contains(v, "word0 ") {
		t.Fatalf("view does not follow the cursor:\n%s", v)
	}
	if n := strings.Count(v, "\n") + 1; n != 3 {
		t.Fatalf("%d rows, want 3", n)
	}
	e.update(tea.KeyMsg{Type: tea.KeyCtrlHome})
	if v := ansi.Strip(e.view()); !strings.HasPrefix(v, "› word0 ") {
		t.Fatalf("ctrl+home: %q", v)
	}
}
