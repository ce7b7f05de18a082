package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkMatVecK23Widths runs Q2_K, Q3_K and IQ4_XS (and Q4_K, the K-quant
// they are usually weighed against) next to Q8_0 on the row widths of small
// and mid-sized models. Their 256-weight super-blocks cannot make a 576-wide
// row (SmolLM2-135M), so the small shape is 512×1536 in its place (~0.8 MB
// in Q8_0, cache-resident); the large one is 2048 wide, Llama-3.2-1B's
// 2048×8192 FFN matrix (~18 MB in Q8_0). As in BenchmarkMatVecLegacyWidths,
// each iteration times one Q8_0 MatVec and one of the type back to back on
// the same kernels and the benchmark reports the median of their time
// ratios ("x-Q8_0", below 1 is faster) with both medians in microseconds
// ("us", "Q8_0-us"): pairing keeps the ratio meaningful on a shared machine
// whose speed drifts between benchmarks. The Q8_0 row pairs Q8_0 with
// itself, the measurement's noise floor.
func BenchmarkMatVecK23Widths(b *testing.B) {
	k := NewKernels(nil)
	defer k.Close()
	for _, shape := range []struct{ cols, rows int }{{512, 1536}, {2048, 8192}} {
		matrix := func(ty Type) *Matrix {
			rng := rand.New(rand.NewPCG(uint64(shape.cols), uint64(ty)))
			w, err := NewMatrix(ty, shape.rows, shape.cols, randomWeights(rng, ty, shape.rows, shape.cols))
			if err != nil {
				b.Fatal(err)
			}
			return w
		}
		ref := matrix(Q8_0)
		x := randomVec(rand.New(rand.NewPCG(1, uint64(shape.cols))), shape.cols)
		y := make([]float32, shape.rows)
		for _, ty := range []Type{Q8_0, Q4_K, Q2_K, Q3_K, IQ4_XS} {
			w := matrix(ty)
			b.Run(fmt.Sprintf("%d/%s", shape.cols, ty), func(b *testing.B) {
				for range 10 {
					k.MatVec(y, ref, x)
					k.MatVec(y, w, x)
				}
				var ratios, tref, tty []float64
				for b.Loop() {
					t0 := time.Now()
					k.MatVec(y, ref, x)
					t1 := time.Now()
					k.MatVec(y, w, x)
					t2 := time.Now()
					r, t := t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds()
					ratios = append(ratios, t/r)
					tref = append(tref, r*1e6)
					tty = append(tty, t*1e6)
				}
				b.ReportMetric(median(ratios), "x-Q8_0")
				b.ReportMetric(median(tty), "us")
				b.ReportMetric(median(tref), "Q8_0-us")
			})
		}
	}
}
