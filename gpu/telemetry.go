package gpu

import (
	"errors"
	"fmt"
)

// NoTelemetry is what a user sees when there is no GPU to report on.
const NoTelemetry = "CPU — no GPU telemetry"

// ErrNoNVML reports that NVML could not be used: no NVIDIA driver or
// library, no device, or a build without cgo.
var ErrNoNVML = errors.New("gpu: NVML unavailable")

// Stats is one sample of a GPU's state. Fields a device does not report
// are zero.
type Stats struct {
	Name        string
	TempC       float64 // core temperature, °C
	PowerW      float64 // current draw, W
	PowerLimitW float64 // enforced limit, W
	SMClockMHz  int
	MemClockMHz int
	UtilPct     int    // GPU busy, percent of the last sample period
	MemUsed     uint64 // bytes
	MemTotal    uint64 // bytes
}

// Source samples telemetry. Sample may be called from any goroutine, one
// call at a time; it should return within milliseconds.
type Source interface {
	Sample() (Stats, error)
}

// Lines formats s for a narrow pane, one fact per line, each at most about
// 28 columns (the name may be longer; callers truncate).
func (s Stats) Lines() []string {
	name := s.Name
	if name == "" {
		name = "GPU"
	}
	lines := []string{name}
	lines = append(lines, fmt.Sprintf("%.0f °C · util %d%%", s.TempC, s.UtilPct))
	if s.PowerLimitW > 0 {
		lines = append(lines, fmt.Sprintf("power %.0f / %.0f W", s.PowerW, s.PowerLimitW))
	} else {
		lines = append(lines, fmt.Sprintf("power %.0f W", s.PowerW))
	}
	lines = append(lines, fmt.Sprintf("clocks SM %d · mem %d MHz", s.SMClockMHz, s.MemClockMHz))
	lines = append(lines, fmt.Sprintf("vram %s / %s GiB", gib(s.MemUsed), gib(s.MemTotal)))
	return lines
}

// Summary is Lines on one line, for narrow terminals.
func (s Stats) Summary() string {
	name := s.Name
	if name == "" {
		name = "GPU"
	}
	return fmt.Sprintf("%s %.0f°C %.0fW %s/%s GiB", name, s.TempC, s.PowerW, gib(s.MemUsed), gib(s.MemTotal))
}

func gib(b uint64) string {
	return fmt.Sprintf("%.1f", float64(b)/(1<<30))
}
