package geometry_test

import (
	"context"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/geometry"
)

// BenchmarkDecodeGeometry measures decode speed with the geometry stack
// live against the same state without it, alternating in one run so the
// machine's drift cancels, and reports the median on/off ratio:
//
//   - gauges+snipe: every TEH gauge read per token and two projectors of
//     the default maximum size (20 coordinates each);
//
//   - ogd: the Safe OGD step at α = 0.2.
//
//     go test ./geometry -run '^$' -bench DecodeGeometry -benchtime 9x
func BenchmarkDecodeGeometry(b *testing.B) {
	p := kjvProfile(b)
	s := openKJV(b)
	m := s.Geometry().CalibrationSource().Model

	b.Run("gauges+snipe", func(b *testing.B) {
		onOff(b, m, worstCaseMonitor(b, p))
	})
	b.Run("ogd", func(b *testing.B) {
		dir, src, err := geometry.Direction(p, nil)
		if err != nil {
			b.Fatal(err)
		}
		x, err := geometry.NewExplorer(p, dir, 0.2, src)
		if err != nil {
			b.Fatal(err)
		}
		onOff(b, m, x)
	})
}

// onOff alternates greedy decoding without and with hook and reports the
// medians and the median of the paired ratios.
func onOff(b *testing.B, m *model.Model, hook any) {
	st, err := m.NewStateOn(256, cpu.New(nil))
	if err != nil {
		b.Fatal(err)
	}
	run := func() float64 {
		stats, err := generate.Bench(context.Background(), st, 1, 16, 200)
		if err != nil {
			b.Fatal(err)
		}
		return stats.DecodeTokPerSec()
	}
	run() // warm up
	var ratios, off, on []float64
	hooked := func() float64 {
		remove, err := st.AddHook(hook)
		if err != nil {
			b.Fatal(err)
		}
		defer remove()
		return run()
	}
	i := 0
	for b.Loop() {
		// Alternate which goes first, so neither side always runs on a
		// machine warmed (or slowed) by the other.
		var a, c float64
		if i%2 == 0 {
			a, c = run(), hooked()
		} else {
			c, a = hooked(), run()
		}
		i++
		off, on, ratios = append(off, a), append(on, c), append(ratios, c/a)
	}
	slices.Sort(ratios)
	slices.Sort(off)
	slices.Sort(on)
	b.ReportMetric(off[len(off)/2], "tok/s-off")
	b.ReportMetric(on[len(on)/2], "tok/s-on")
	b.ReportMetric(ratios[len(ratios)/2], "on/off")
}

// worstCaseMonitor runs every gauge of p and two projectors at the
// default maximum size (20 coordinates each): the most the product does
// per token.
func worstCaseMonitor(b *testing.B, p *geometry.Profile) *geometry.Monitor {
	b.Helper()
	p2 := *p
	p2.Categories = slices.Clone(p.Categories)
	for i := range 2 {
		cs := make([]int, 20)
		for j := range cs {
			cs[j] = (20*i + j) % p.K
		}
		p2.Categories[i].Snipe.Coords = cs
	}
	mon, err := geometry.NewMonitor(&p2)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2 {
		if err := mon.SetSnipe(p2.Categories[i].Name, true); err != nil {
			b.Fatal(err)
		}
	}
	return mon
}
