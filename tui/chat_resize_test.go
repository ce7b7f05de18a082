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
	c := newChatPane("model", false, "", newKeyMap())
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

// TestHardwareListsServers: with --rpc, each rpc-server and its layers and
// memory get lines of their own, none run into another.
func TestHardwareListsServers(t *testing.T) {
	h := hardwarePane{compute: "rpc × 2 (a:1, b:2)\na:1\n  layers 0–14 · 3.0 GiB free of 4.0 GiB\nb:2\n  layers 15–29 · 1.0 GiB free of 2.0 GiB"}
	got := h.lines(0)
	want := []string{"a:1", "layers 0–14", "b:2", "layers 15–29"}
	if len(got) < 5 {
		t.Fatalf("pane lines %q", got)
	}
	for i, w := range want {
		if !strings.Contains(got[i+1], w) || (i%2 == 0 && strings.Contains(got[i+1], "layers")) {
			t.Errorf("line %d is %q, want %q alone", i+1, got[i+1], w)
		}
	}
}
