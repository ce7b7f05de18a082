package geometry_test

import (
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/teh"
)

// tinyProfile is a valid 4×2 profile, the fuzzer's seed.
func tinyProfile() *geometry.Profile {
	p := &geometry.Profile{Format: geometry.ProfileFormat, D: 4, K: 2, Layer: 0, SnipeLayer: 0,
		Mu: []float64{0.1, 0.2, 0.3, 0.4}, B: mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0}),
		Model:   miku.ModelRef{File: "m.gguf", SHA256: "00", Arch: "llama"},
		Overall: geometry.Gauge{Forbidden: []int{0}, ROC: teh.ROC{Tau: 12}},
	}
	p.Categories = []geometry.Category{{Name: "privacy", Gauge: geometry.Gauge{Forbidden: []int{1}},
		Direction: []float64{1, 0, 0, 0}, Snipe: geometry.Snipe{Coords: []int{0, 1}}}}
	return p
}

// FuzzParseProfile: any bytes give a profile that the live path accepts
// or an error — never a panic.
func FuzzParseProfile(f *testing.F) {
	p := tinyProfile()
	path := f.TempDir() + "/p.miku"
	if err := p.Save(path, "fuzz"); err != nil {
		f.Fatal(err)
	}
	q, err := geometry.LoadProfile(path, 1)
	if err != nil {
		f.Fatal(err)
	}
	if q.Fingerprint() != p.Fingerprint() {
		f.Fatal("the seed profile changed in a round trip")
	}
	data := mustRead(f, path)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("MIKU"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := geometry.ParseProfile(b, 1)
		if err != nil {
			return
		}
		mon, err := geometry.NewMonitor(p)
		if err != nil {
			return
		}
		x := make([]float32, p.D)
		mon.AfterBlock(p.Layer, 0, x)
		_ = mon.Summary()
		for _, c := range p.Categories {
			_ = mon.SetSnipe(c.Name, true)
		}
		mon.AfterBlock(p.SnipeLayer, 0, x)
	})
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
