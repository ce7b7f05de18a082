package geometry_test

import (
	"context"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/geometry"
)

// BenchmarkDecodeGeometry measures decode speed with the geometry stack
// live — every gauge read per token and two projectors of the default
// maximum size (20 coordinates each) — against the same state without it,
// alternating in one run so the machine's drift cancels. It reports the
// median on/off ratio.
//
//	go test ./geometry -run '^$' -bench DecodeGeometry -benchtime 5x
func BenchmarkDecodeGeometry(b *testing.B) {
	p := kjvProfileB(b)
	// Two projectors at the maximum size: the worst case the product allows.
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
	s := openKJV(b)
	m := s.CalibrationSource().Model
	st, err := m.NewState(256, nil)
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
	for b.Loop() {
		a := run()
		remove, err := st.AddHook(mon)
		if err != nil {
			b.Fatal(err)
		}
		c := run()
		remove()
		off, on, ratios = append(off, a), append(on, c), append(ratios, c/a)
	}
	slices.Sort(ratios)
	slices.Sort(off)
	slices.Sort(on)
	b.ReportMetric(off[len(off)/2], "tok/s-off")
	b.ReportMetric(on[len(on)/2], "tok/s-on")
	b.ReportMetric(ratios[len(ratios)/2], "on/off")
}
