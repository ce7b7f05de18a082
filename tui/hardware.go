package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/gpu"
)

// hwInterval is the telemetry poll period: 2 Hz at most.
const hwInterval = 500 * time.Millisecond

// hwMsg is one telemetry sample, taken in a command goroutine.
type hwMsg struct {
	stats gpu.Stats
	err   error
}

// hardwarePane shows GPU telemetry, or says plainly that there is none.
type hardwarePane struct {
	src   gpu.Source
	stats gpu.Stats
	err   error
	have  bool
}

// poll samples after hwInterval. With no source it never ticks.
func (h *hardwarePane) poll() tea.Cmd {
	if h.src == nil {
		return nil
	}
	src := h.src
	return tea.Tick(hwInterval, func(time.Time) tea.Msg {
		s, err := sampleSafely(src)
		return hwMsg{s, err}
	})
}

func sampleSafely(src gpu.Source) (s gpu.Stats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = gpu.ErrNoNVML
		}
	}()
	return src.Sample()
}

func (h *hardwarePane) update(m hwMsg) tea.Cmd {
	h.stats, h.err, h.have = m.stats, m.err, m.err == nil
	return h.poll()
}

func (h *hardwarePane) lines() []string {
	if !h.have && h.src != nil && h.err == nil {
		return []string{"reading GPU telemetry…"}
	}
	if !h.have {
		l := []string{gpu.NoTelemetry}
		if h.src != nil && h.err != nil {
			l = append(l, theme.Error.Render(h.err.Error()))
		}
		return l
	}
	return h.stats.Lines()
}

func (h *hardwarePane) summary() string {
	if !h.have {
		return gpu.NoTelemetry
	}
	return h.stats.Summary()
}
