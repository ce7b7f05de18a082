package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// Hardening III, item 8: at 100×30, the README's own size, every side pane
// can be brought up whole with ctrl+o.

// wholePanes are the titles of the side panes shown whole in frame f: the
// title line, then lines inside the box, down to its bottom border.
func wholePanes(f string) []string {
	lines := strings.Split(f, "\n")
	var out []string
	for i, l := range lines {
		at := strings.LastIndex(l, "╭")
		if at < 0 || i+1 >= len(lines) {
			continue
		}
		col := ansi.StringWidth(l[:at])
		title := ansi.Cut(lines[i+1], col, col+sideWidth)
		title = strings.Trim(title, "│ ")
		for _, below := range lines[i+2:] {
			cell := ansi.Cut(below, col, col+1)
			if cell == "╰" {
				out = append(out, title)
				break
			}
			if cell != "│" {
				break
			}
		}
	}
	return out
}

func TestEveryPaneReachableAt100x30(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	m := New(e, Options{})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	want := []string{"Perf", "Geometry", "Manifold", "Model", "Hardware"}
	seen := map[string]bool{}
	for range 2 * len(want) {
		f := screen(m)
		for _, p := range wholePanes(f) {
			seen[p] = true
		}
		if lines := strings.Split(f, "\n"); len(lines) != 30 {
			t.Fatalf("the frame has %d lines:\n%s", len(lines), f)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	}
	for _, p := range want {
		if !seen[p] {
			t.Errorf("ctrl+o never shows the %s pane whole at 100×30 (seen %v)", p, seen)
		}
	}
	// The Geometry pane whole is its last line too.
	for range len(want) {
		if f := screen(m); contains(wholePanes(f), "Geometry") {
			if !strings.Contains(f, "refused: held-out, off→on") {
				t.Errorf("the Geometry pane is cut short:\n%s", f)
			}
			break
		}
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	}
}

// After /calibrate the Geometry pane is what the user asked for: it shows
// whole at 100×30 without a key.
func TestGeometryShownAfterCalibrateAt100x30(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake()}
	tm := start(t, e, 100, 30)
	typeLine(tm, "/calibrate")
	waitFor(t, tm, "geometry profile built in 42.0 s")
	m := finish(t, tm)
	f := screen(m)
	if !contains(wholePanes(f), "Geometry") || !strings.Contains(f, "refused: held-out, off→on") {
		t.Errorf("after /calibrate the Geometry pane is not shown whole (panes %v):\n%s", wholePanes(f), f)
	}
}

// With the demo's two-line banner and a turn's figures, the Geometry pane
// brought to the front at 100×30 gives up its legend, not a category.
func TestGeometryFrontKeepsEveryCategoryAt100x30(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	e.info.Mode, e.info.Demo = session.ModeCompletion, true
	e.gauge = func(i int) geometry.Reading { return geometry.Reading{Overall: 7.5, N: 8} }
	tm := start(t, e, 100, 30)
	sc := &term{tm: tm}
	typeLine(tm, "And God said")
	sc.wait(t, true, "- two")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
	sc.wait(t, false, "turn in", "peak token")
	m := finish(t, tm)
	f := screen(m)
	if !contains(wholePanes(f), "Geometry") {
		t.Fatalf("the Geometry pane is not whole in front:\n%s", f)
	}
	for _, c := range fakeCategories {
		if !strings.Contains(f, shortName(c)+" ") {
			t.Errorf("the Geometry pane lost %s:\n%s", c, f)
		}
	}
	if strings.Contains(f, "│ …") {
		t.Errorf("the Geometry pane was cut short:\n%s", f)
	}
}
