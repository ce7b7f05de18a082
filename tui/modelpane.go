package tui

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/session"
)

// modelPane describes the loaded model.
type modelPane struct {
	info session.Info
}

func (m *modelPane) lines() []string {
	i := m.info
	cpu := i.Kernels
	if i.Threads > 0 {
		cpu = fmt.Sprintf("%s × %d threads", i.Kernels, i.Threads)
	}
	mode := i.Mode.String()
	if i.Demo {
		mode += " (demo)"
	}
	return []string{
		theme.Value.Bold(true).Render(i.Name),
		kv("arch", i.Arch),
		kv("params", fmtCount(i.Params)+" · "+fmtBytes(i.FileBytes)),
		kv("quant", i.WeightType+" · ctx "+fmt.Sprint(i.ContextSize)),
		kv("cpu", cpu),
		kv("mode", mode),
		kv("rank", rankLabel(i)),
	}
}

// rankLabel says whether Q/K/V run compressed (/set rank K) and at what cost.
func rankLabel(i session.Info) string {
	if i.Rank == 0 {
		return "off"
	}
	return fmt.Sprintf("%d · %.1f%% energy · %.2f× qkv", i.Rank, 100*i.RankEnergy, i.RankBytes)
}

func fmtCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
