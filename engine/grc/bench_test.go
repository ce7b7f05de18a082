package grc

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// BenchmarkDecodeGRC measures decode speed with weights compressed to rank
// k — Q/K/V alone, and every slot (Q/K/V, O, FFN gate+up,
// FFN down by SVD) — against the uncompressed model in the same run (the
// "ratio" metric: compressed tok/s over uncompressed tok/s), on kjv and on
// the SmolLM2-135M shape. "bytes-ratio" is the compressed slots' bytes per
// token over the originals'; "energy" the mean energy kept over blocks and
// slots.
func BenchmarkDecodeGRC(b *testing.B) {
	dir := b.TempDir()
	cases := []struct {
		name  string
		path  func() string
		ranks []int
	}{
		{"kjv-q8_0", func() string { return fixtures.Path(b, "kjv/kjv-q8_0.gguf") }, []int{64, 128, 192, 256}},
		{"smollm2-135m-shape-Q8_0", func() string {
			p := filepath.Join(dir, "smollm2-q8_0.gguf")
			if err := synth.Write(p, synth.SmolLM2(), tensor.Q8_0); err != nil {
				b.Fatal(err)
			}
			return p
		}, []int{128, 256, 384, 576}},
	}
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	for _, c := range cases {
		m, err := model.Open(c.path())
		if err != nil {
			b.Fatal(err)
		}
		s, err := m.NewStateOn(min(m.CtxLen, 256), cpu.New(k))
		if err != nil {
			b.Fatal(err)
		}
		logits := make([]float32, m.Vocab)
		tok := []int32{5}
		// decode times 64 tokens from an empty cache, best of 2.
		decode := func() float64 {
			best := math.Inf(1)
			for range 2 {
				s.Reset()
				t0 := time.Now()
				for range 64 {
					if err := s.Forward(tok, logits); err != nil {
						b.Fatal(err)
					}
				}
				best = math.Min(best, time.Since(t0).Seconds()/64)
			}
			return best
		}
		for range 3 { // warm the mapped weights
			decode()
		}
		for _, slots := range []Slots{QKV, AllSlots} {
			gb, err := NewBuilder(m, slots)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range c.ranks {
				g, err := gb.Build(r)
				if err != nil {
					b.Fatal(err)
				}
				var e float64
				sum := g.Summary()
				for _, sl := range sum {
					e += sl.MeanEnergy
				}
				b.Run(fmt.Sprintf("%s/%s/k=%d", c.name, strings.ReplaceAll(slots.String(), ",", "+"), r), func(b *testing.B) {
					// Five alternating rounds, medians: other load on a
					// shared machine drifts slowly, and pairing each
					// compressed run with an uncompressed one beside it
					// cancels most of it.
					var full, comp, ratio []float64
					for b.Loop() {
						full, comp, ratio = full[:0], comp[:0], ratio[:0]
						for range 5 {
							if err := s.SetProjections(nil); err != nil {
								b.Fatal(err)
							}
							f := decode()
							if err := s.SetProjections(g); err != nil {
								b.Fatal(err)
							}
							c := decode()
							full, comp, ratio = append(full, f), append(comp, c), append(ratio, f/c)
						}
					}
					b.ReportMetric(1/median(comp), "tok/s")
					b.ReportMetric(1/median(full), "full-tok/s")
					b.ReportMetric(median(ratio), "ratio")
					b.ReportMetric(float64(g.BytesAfter)/float64(g.BytesBefore), "bytes-ratio")
					b.ReportMetric(e/float64(len(sum)), "energy")
				})
			}
		}
		m.Close()
	}
}

// median of a few values (sorts v).
func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
