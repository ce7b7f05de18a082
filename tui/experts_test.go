package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// fakeMoE is a fake session of a mixture of experts: 48 MoE layers (block
// 0 is dense) of 128 experts, 8 per token; expert 37 of layer 12 is the
// hot one.
type fakeMoE struct {
	*fakeSession
	maps int // Map calls
}

const (
	fakeLayers  = 48
	fakeExperts = 128
)

func fakeExpertMap() session.ExpertMap {
	m := session.ExpertMap{Experts: fakeExperts, Used: 8, Window: 64, Tokens: 64, Pos: 99, Entropy: 2.31, MeanEntropy: 2.45, MaxEntropy: 3}
	for l := 1; l <= fakeLayers; l++ {
		m.Layers = append(m.Layers, l)
	}
	m.Fired = make([]float32, fakeLayers*fakeExperts)
	for i := range fakeLayers {
		for j := range 8 {
			m.Fired[i*fakeExperts+(i*5+j*16)%fakeExperts] = 0.1
		}
	}
	m.Fired[11*fakeExperts+37] = 0.9 // layer 12
	for i, l := range m.Layers {
		r := session.ExpertRoute{Layer: l}
		for j := range 8 {
			r.Experts = append(r.Experts, int32((i+j*16)%fakeExperts))
			r.Weights = append(r.Weights, 0.05)
		}
		if l == 12 {
			r.Experts[0], r.Weights[0] = 37, 0.41
		}
		if l == 3 {
			r.Experts[0], r.Weights[0] = 5, 0.38
		}
		m.Current = append(m.Current, r)
	}
	m.Off = []session.ExpertRef{{Layer: -1, Expert: 9}}
	return m
}

func (f *fakeMoE) MoE() bool { return true }

func (f *fakeMoE) Map(m *session.ExpertMap) error {
	f.mu.Lock()
	f.maps++
	f.mu.Unlock()
	*m = fakeExpertMap()
	return nil
}

func (f *fakeMoE) Counts() (session.ExpertCounts, error) {
	m := fakeExpertMap()
	c := session.ExpertCounts{Layers: m.Layers, Experts: fakeExperts, Used: 8, Tokens: 200, Counts: make([]int64, len(m.Fired))}
	for i, v := range m.Fired {
		c.Counts[i] = int64(v * 200)
	}
	return c, nil
}

// TestExpertsPane: the side pane names the current token's heaviest
// experts and its entropy, lists what is switched off, and draws the heat
// map within the column, the hot expert darkest in its bin.
func TestExpertsPane(t *testing.T) {
	em := fakeExpertMap()
	p := expertsPane{m: &em}
	w := sideWidth - 4
	lines := p.lines(w)
	text := strings.Join(lines, "\n")
	for _, want := range []string{"12:37 0.41", "3:5 0.38", "2.31/3.00 bits", "μ 2.45", "*:9", "last 64 tokens"} {
		if !strings.Contains(text, want) {
			t.Errorf("pane lacks %q:\n%s", want, text)
		}
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("a line of %d cells in a %d-cell pane: %q", ansi.StringWidth(l), w, l)
		}
	}
	rows := heat(&em, w, 8)
	if len(rows) != 8 {
		t.Fatalf("%d heat rows for 48 layers in 8, want 8:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	// Layers bin by 6: layer 12 (the 12th MoE layer) is in the second row
	// (layers 7–12); the experts bin by 5 (128 in 26 columns), so 37 is
	// in column 7.
	row := []rune(rows[1])
	bar := strings.IndexRune(rows[1], '|')
	if got := row[bar+1+37/5]; got != '█' {
		t.Errorf("the hot expert's cell is %q, want █:\n%s", got, strings.Join(rows, "\n"))
	}
	if strings.ContainsRune(rows[0], '█') {
		t.Errorf("a cool row has the hottest shade: %q", rows[0])
	}
	if s := p.summary(); !strings.Contains(s, "2.31/3.00") {
		t.Errorf("summary %q", s)
	}
	empty := expertsPane{m: &session.ExpertMap{Pos: -1}}
	if l := strings.Join(empty.lines(w), "\n"); !strings.Contains(l, "no token routed yet") {
		t.Errorf("an empty pane: %q", l)
	}
}

// TestExpertMapView: the full map gives every layer a row and every
// expert a column when the area holds them, and bins (saying so) when it
// does not; no line is wider than the area.
func TestExpertMapView(t *testing.T) {
	em := fakeExpertMap()
	p := expertsPane{m: &em, big: true}
	for _, c := range []struct {
		w, h     int
		note     string
		rows     int
		unbinned bool
	}{
		{200, 60, "", 48, true},
		{100, 30, "a cell: 2 experts × 3 layers", 16, false},
	} {
		v := p.view(c.w, c.h)
		lines := strings.Split(v, "\n")
		if len(lines) > c.h {
			t.Errorf("%d×%d: the view has %d lines", c.w, c.h, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > c.w {
				t.Errorf("%d×%d: a line of %d cells: %q", c.w, c.h, ansi.StringWidth(l), ansi.Strip(l))
			}
		}
		plain := ansi.Strip(v)
		if c.note != "" && !strings.Contains(plain, c.note) {
			t.Errorf("%d×%d: no %q:\n%s", c.w, c.h, c.note, plain)
		}
		if c.unbinned && strings.Contains(plain, "a cell: ") {
			t.Errorf("%d×%d: binned though it fits:\n%s", c.w, c.h, plain)
		}
		n := 0
		for _, l := range lines {
			if strings.Contains(l, "|") && !strings.Contains(l, "layer|") {
				n++
			}
		}
		if n != c.rows {
			t.Errorf("%d×%d: %d heat rows, want %d:\n%s", c.w, c.h, n, c.rows, plain)
		}
	}
}

// TestExpertsInTheTUI: a mixture-of-experts session gets the Experts pane,
// /experts prints the conversation's counts, /experts map puts the map in
// the chat's place and takes it away again; a dense one says it has no
// experts.
func TestExpertsInTheTUI(t *testing.T) {
	e := &fakeMoE{fakeSession: newFake()}
	tm := start(t, e, 140, 50)
	typeLine(tm, "/experts")
	waitFor(t, tm, "never chosen")
	m := finish(t, tm)
	listing := lastEntry(t, m, entryInfo)
	if !strings.Contains(listing, "overall  12:37 90%") || !strings.Contains(listing, "over the conversation's 200 tokens") {
		t.Errorf("the listing lacks the overall top:\n%s", listing)
	}
	if !strings.Contains(listing, "\n12       37 90%") {
		t.Errorf("layer 12's line lacks its hot expert:\n%s", listing)
	}
	if f := frame(m); !strings.Contains(f, "Experts") || !strings.Contains(f, "12:37 0.41") {
		t.Errorf("no Experts pane in the frame:\n%s", f)
	}
	m.runCommand("/experts map")
	if f := screen(m); !strings.Contains(f, "Expert map") || !strings.Contains(f, "48 MoE layers × 128 experts") {
		t.Errorf("/experts map shows no map:\n%s", f)
	}
	m.runCommand("/experts map")
	if f := screen(m); strings.Contains(f, "Expert map") {
		t.Errorf("/experts map twice leaves the map:\n%s", f)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for range 8 {
		if contains(wholePanes(screen(m)), "Experts") {
			break
		}
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	}
	if !contains(wholePanes(screen(m)), "Experts") {
		t.Errorf("ctrl+o never shows the Experts pane whole at 100×30:\n%s", screen(m))
	}

	d := newFake()
	tm = start(t, d, 120, 40)
	typeLine(tm, "/experts")
	waitFor(t, tm, "this model has no experts")
	m = finish(t, tm)
	if strings.Contains(screen(m), "Experts") {
		t.Errorf("a dense model has an Experts pane:\n%s", screen(m))
	}
}

// TestExpertsFedWhileStreaming: the map is read on the reply's goroutine
// while it streams (the session may be read only there), and the pane
// shows it.
func TestExpertsFedWhileStreaming(t *testing.T) {
	e := &fakeMoE{fakeSession: newFake()}
	tm := start(t, e, 140, 50)
	typeLine(tm, "hello")
	waitFor(t, tm, "fake model.")
	m := finish(t, tm)
	if m.xpp.m == nil || m.xpp.m.Pos != 99 {
		t.Errorf("the pane has no map after a reply")
	}
	e.mu.Lock()
	n := e.maps
	e.mu.Unlock()
	if n == 0 {
		t.Error("the map was never read")
	}
}
