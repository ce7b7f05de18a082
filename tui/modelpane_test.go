package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// TestModelPaneNamesTheDevice: on a device backend the pane names the
// device (its kernels are its own), on the CPU the kernels and threads.
func TestModelPaneNamesTheDevice(t *testing.T) {
	for _, c := range []struct {
		info session.Info
		want string
	}{
		{session.Info{Backend: "cuda NVIDIA H100 80GB HBM3 (sm_90)"}, "device  NVIDIA H100 80GB HBM3 (sm_90)"},
		{session.Info{Backend: "cpu avx2 × 2 threads", Kernels: "avx2", Threads: 2}, "cpu     avx2 × 2 threads"},
	} {
		p := modelPane{info: c.info}
		got := ansi.Strip(strings.Join(p.lines(), "\n"))
		if !strings.Contains(got, c.want) {
			t.Errorf("model pane for %q:\n%s\nwant a line %q", c.info.Backend, got, c.want)
		}
	}
}
