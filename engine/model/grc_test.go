package model

import (
	"bytes"
	"math"
	"testing"
)

// TestGRCFullRankIsLossless: at k = d the compressed path reproduces the
// uncompressed logits (float rounding only) on the stories260K probe.
func TestGRCFullRankIsLossless(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	g, err := m.BuildGRC(m.Dim)
	if err != nil {
		t.Fatal(err)
	}
	for l, e := range g.Energy {
		for s, v := range e {
			if math.Abs(v-1) > 1e-5 {
				t.Fatalf("block %d slot %d keeps %.7f of its energy at full rank", l, s, v)
			}
		}
	}
	var gold stories
	readJSON(t, "stories260k/golden.json", &gold)
	plain, _ := m.NewState(0, nil)
	comp, _ := m.NewState(0, nil)
	if err := comp.SetGRC(g); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, m.Vocab), make([]float32, m.Vocab)
	for i, tok := range gold.ProbeTokens {
		if err := plain.Forward([]int32{tok}, a); err != nil {
			t.Fatal(err)
		}
		if err := comp.Forward([]int32{tok}, b); err != nil {
			t.Fatal(err)
		}
		var d float64
		for i := range a {
			d = math.Max(d, math.Abs(float64(a[i]-b[i])))
		}
		if d > 1e-4 {
			t.Errorf("position %d: full-rank GRC moves the logits by %g", i, d)
		}
	}
}

// TestGRCEnergyAndStability: kept energy grows with k for every block and
// slot, and two builds give the same bytes (sign-canonical eigenvectors).
func TestGRCEnergyAndStability(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f16.gguf")
	var prev *GRC
	for _, k := range []int{8, 24, 48} {
		g, err := m.BuildGRC(k)
		if err != nil {
			t.Fatal(err)
		}
		if g.BytesAfter >= g.BytesBefore && k <= m.Dim/4 {
			t.Errorf("k=%d: %d bytes after, %d before", k, g.BytesAfter, g.BytesBefore)
		}
		if prev != nil {
			for l := range g.Energy {
				for s := range 3 {
					if g.Energy[l][s] < prev.Energy[l][s]-1e-9 {
						t.Fatalf("block %d slot %d: energy %.6f at k=%d below %.6f at k=%d", l, s, g.Energy[l][s], k, prev.Energy[l][s], prev.K)
					}
				}
			}
		}
		prev = g
	}
	a, _ := m.BuildGRC(24)
	b, _ := m.BuildGRC(24)
	for l := range a.layers {
		if !bytes.Equal(a.layers[l].pT.Data, b.layers[l].pT.Data) || !bytes.Equal(a.layers[l].wq.Data, b.layers[l].wq.Data) {
			t.Fatalf("block %d: two builds of the basis differ", l)
		}
	}
	if _, err := m.BuildGRC(m.Dim + 1); err == nil {
		t.Fatal("a rank above the embedding width was accepted")
	}
}
