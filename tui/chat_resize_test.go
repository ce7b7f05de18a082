package tui

import (
	"strconv"
	"strings"
	"testing"
)

// TestShrinkKeepsNewestInView: a chat pinned to its newest line stays
// pinned when the window shrinks, instead of hiding the newest reply until
// pgdn; one scrolled up stays where it was.
func TestShrinkKeepsNewestInView(t *testing.T) {
	c := newChatPane("model", false, "")
	c.setSize(60, 30)
	for i := range 40 {
		c.add(entryInfo, "line "+strings.Repeat("x", i%7)+" number "+strconv.Itoa(i))
	}
	c.refresh()
	if !c.vp.AtBottom() {
		t.Fatal("not at the bottom before the resize")
	}
	c.setSize(60, 12)
	if !c.vp.AtBottom() || !strings.Contains(c.vp.View(), "number 39") {
		t.Fatalf("after shrinking, the newest line is out of view:\n%s", c.vp.View())
	}
}

// TestManifoldPaneAfterCalibration: with a profile attached and no
// manifold yet, the pane does not ask for the profile /calibrate has just
// built.
func TestManifoldPaneAfterCalibration(t *testing.T) {
	p := manifoldPane{}
	if got := strings.Join(p.lines(40), "\n"); !strings.Contains(got, "needs a geometry profile") {
		t.Fatalf("no profile:\n%s", got)
	}
	p.profiled = true
	if got := strings.Join(p.lines(40), "\n"); strings.Contains(got, "needs a geometry profile") || !strings.Contains(got, "next turn") {
		t.Fatalf("with a profile:\n%s", got)
	}
}

// TestHardwareSaysWhyNoGPU: the reason the GPU was passed over gets its own
// line in the Hardware pane, not the cut-off end of the compute line.
func TestHardwareSaysWhyNoGPU(t *testing.T) {
	h := hardwarePane{compute: "cpu avx2 × 2 threads\nno CUDA GPU found"}
	got := h.lines(0)
	if len(got) < 2 || !strings.Contains(got[0], "cpu avx2 × 2 threads") || strings.Contains(got[0], "no CUDA") || !strings.Contains(got[1], "no CUDA GPU found") {
		t.Fatalf("pane lines %q", got)
	}
}
