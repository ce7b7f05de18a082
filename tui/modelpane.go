package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// modelPane describes the loaded model.
type modelPane struct {
	info session.Info
}

// Update takes the session's Info when the root reads it again.
func (m *modelPane) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(infoMsg); ok {
		m.info = msg.info
	}
	return nil
}

func (m *modelPane) lines() []string {
	i := m.info
	// The CPU's kernels and threads, or the device a backend names
	// ("cuda NVIDIA H100 …"), whose kernels are its own.
	key, run := "cpu", i.Kernels
	switch {
	case i.Kernels == "" && i.Backend != "":
		key, run = "device", strings.TrimPrefix(i.Backend, "cuda ")
	case i.Threads > 0:
		run = fmt.Sprintf("%s × %d threads", i.Kernels, i.Threads)
	}
	mode := i.Mode.String()
	if i.Demo {
		mode += " (demo)"
	}
	lines := []string{
		theme.Value.Bold(true).Render(i.Name),
		kv("arch", i.Arch),
		kv("params", fmtCount(i.Params)+" · "+fmtBytes(i.FileBytes)),
		kv("quant", i.WeightType+" · ctx "+fmt.Sprint(i.ContextSize)),
	}
	lines = append(lines, mixLines(i, sideWidth-4)...)
	if i.Experts != "" {
		// A mixture of experts holds every expert and reads only the
		// chosen ones a token.
		lines = append(lines, kv("experts", i.Experts), kv("a token", "reads "+fmtBytes(i.TokenBytes)))
	}
	lines = append(lines,
		kv(key, run),
		kv("mode", mode),
		kv("rank", rankLabel(i)),
	)
	return append(lines, slotLines(i)...)
}

// mixLines are the file's types with their share of the bytes ("IQ2_XXS
// 71% · Q8_0 18% · …") when its matrices mix types, as importance-matrix
// and "dynamic" quantisations do; none for a file of one matrix type,
// which the quant line names. The types wrap under the key to fit width
// (the side column's), so none is cut off.
func mixLines(i session.Info, width int) []string {
	if i.MatrixTypes < 2 {
		return nil
	}
	const indent = "        " // kv's key width
	var lines []string
	cur := ""
	for _, t := range i.Types {
		part := t.Type + " " + percent(t.Share)
		if cur != "" && ansi.StringWidth(indent+cur+" · "+part) <= width {
			cur += " · " + part
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		cur = part
	}
	lines = append(lines, cur)
	for k := range lines {
		if k == 0 {
			lines[k] = kv("mix", lines[k])
		} else {
			lines[k] = indent + lines[k]
		}
	}
	return lines
}

// percent writes a share from 0 to 1 as a whole percentage, "<1%" for one
// that rounds to none, so no type present reads as absent.
func percent(share float64) string {
	p := math.Round(share * 100)
	if p == 0 && share > 0 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// rankLabel says whether the model runs compressed (/set rank K) and what
// the compressed slots' weights cost per token, before → after.
func rankLabel(i session.Info) string {
	if i.Rank == 0 {
		return "off"
	}
	if i.BytesBefore > 0 {
		return fmt.Sprintf("%d · %s→%s", i.Rank, fmtBytes(i.BytesBefore), fmtBytes(i.BytesAfter))
	}
	return fmt.Sprintf("%d · %.2f× bytes", i.Rank, i.RankBytes)
}

// slotLines are the energy each compressed slot keeps (mean over blocks,
// and the ranks when they differ by block).
func slotLines(i session.Info) []string {
	if i.Rank == 0 {
		return nil
	}
	out := []string{kv("slots", i.RankSpec)}
	for _, sl := range i.RankSlots {
		k := fmt.Sprintf("k%d", sl.MinK)
		if sl.MaxK != sl.MinK {
			k = fmt.Sprintf("k%d–%d", sl.MinK, sl.MaxK)
		}
		e := fmt.Sprintf("%.1f%%", 100*sl.MeanEnergy)
		if sl.Lossless > 0 {
			e += " lossless×" + fmt.Sprint(sl.Lossless)
		}
		if sl.MeanRho > 0 {
			e += fmt.Sprintf(" ρ%.1f", sl.MeanRho)
		}
		if sl.MeanK95 > 0 {
			e += fmt.Sprintf(" k95 %.0f", sl.MeanK95)
		}
		out = append(out, theme.Label.Render(fmt.Sprintf("  %-5s", sl.Slot))+fmt.Sprintf("%-9s %s", k, e))
	}
	if len(i.Mechanisms) > 0 {
		out = append(out, kv("with", strings.Join(i.Mechanisms, " · ")))
	}
	if i.KVRank > 0 {
		out = append(out, kv("kv", fmt.Sprintf("%d of %d per head · %s→%s/pos · %s saved",
			i.KVRank, i.HeadDim, fmtBytes(i.KVEntryBefore), fmtBytes(i.KVEntryAfter), fmtBytes(i.KVSaved))))
	}
	if d := i.Depth; d != nil {
		how := "detected"
		if !d.Detected {
			how = "⌊2L/3⌋"
		}
		out = append(out, kv("sink", fmt.Sprintf("block %d of %d (%s)", d.Sink, len(d.IntrinsicDim), how)))
		lo, hi := slices.Min(d.IntrinsicDim), slices.Max(d.IntrinsicDim)
		out = append(out, kv("dim", fmt.Sprintf("%d–%d by block (PCA-95)", lo, hi)))
	}
	return out
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
