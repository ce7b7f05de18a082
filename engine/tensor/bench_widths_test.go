package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkMatVecWidths runs every weight type with a kernel next to Q8_0
// on the row widths of the small models users run: 576 (SmolLM2-135M, a
// 576×1536 FFN matrix, ~1 MB in Q8_0, cache-resident), 512 in its place for
// the 256-weight super-block types, which cannot make a 576-wide row, and
// 2048 (Llama-3.2-1B, a 2048×8192 FFN matrix, ~18 MB in Q8_0). Each
// iteration times one Q8_0 MatVec and one of the type back to back on the
// same kernels, and the benchmark reports the median of their time ratios
// ("x-Q8_0", below 1 is faster) besides both medians in microseconds ("us",
// "Q8_0-us"): pairing keeps the ratio meaningful on a shared machine whose
// speed drifts between benchmarks. ns/op is the pair. The Q8_0 rows pair
// Q8_0 with itself, the measurement's noise floor.
func BenchmarkMatVecWidths(b *testing.B) {
	k := NewKernels(nil)
	defer k.Close()
	types := []Type{Q8_0, F16, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S}
	for _, shape := range []struct{ cols, rows int }{{576, 1536}, {512, 1536}, {2048, 8192}} {
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
		for _, ty := range types {
			// 576 is for the 32-value blocks, 512 for the super-blocks only.
			if shape.cols%ty.BlockLen() != 0 || (shape.cols == 512 && ty.BlockLen() < QKK && ty != Q8_0) {
				continue
			}
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
