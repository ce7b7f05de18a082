package geometry_test

import (
	"context"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
)

// BenchmarkMonitorToken is the live stack's cost for one token: the
// gauges read at the probe block and two 20-coordinate projectors.
func BenchmarkMonitorToken(b *testing.B) {
	p := kjvProfile(b)
	mon := worstCaseMonitor(b, p)
	x := make([]float32, p.D)
	for i := range x {
		x[i] = float32(p.Mu[i]) + float32(i%7)*0.01
	}
	b.ReportAllocs()
	for b.Loop() {
		for l := range 6 {
			mon.AfterBlock(l, 0, x)
		}
	}
}

// BenchmarkExplorerToken is the OGD step's cost for one token.
func BenchmarkExplorerToken(b *testing.B) {
	p := kjvProfile(b)
	dir, src, err := geometry.Direction(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	x, err := geometry.NewExplorer(p, dir, 0.2, src)
	if err != nil {
		b.Fatal(err)
	}
	h := make([]float32, p.D)
	for i := range h {
		h[i] = float32(p.Mu[i]) + float32(i%7)*0.01
	}
	b.ReportAllocs()
	for b.Loop() {
		for l := range 6 {
			x.AfterBlock(l, 0, h)
		}
	}
}

// BenchmarkEmbedQuery is the COG lookup's first half for one turn: the
// query read as a fresh user turn through the model (kjv-q8_0, a
// 7-token prompt) and projected on the basis.
func BenchmarkEmbedQuery(b *testing.B) {
	p := kjvProfile(b)
	s := openKJV(b)
	e, err := geometry.NewEmbedder(s.Geometry().CalibrationSource(), p)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Embed(context.Background(), "The LORD is my shepherd"); err != nil {
			b.Fatal(err)
		}
	}
}
