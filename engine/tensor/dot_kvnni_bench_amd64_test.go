package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// kdecodeShapes are the one-token K-quant benchmark's matrices: one that
// stays in L2 (256×2048, 295 KB of Q4_K), where the kernel's arithmetic is
// all that limits it, and Llama-3.1-8B's attention and FFN shapes, cycled
// through copies totalling at least kdecodeStream bytes so every pass
// reads DRAM.
var kdecodeShapes = []struct{ rows, cols int }{{256, 2048}, {4096, 4096}, {14336, 4096}, {4096, 14336}}

const kdecodeStream = 256 << 20

// BenchmarkKQuantDecode times one-token products (MatVec) of Q4_K and
// Q6_K matrices with the VNNI decode kernels against the AVX2 ones, on 1
// and 2 threads. Each iteration runs one MatVec of each, alternating which
// goes first, over the next copy of the matrix; the benchmark reports the
// median of the new/old time ratios ("x-avx2", below 1 is faster) and both
// sides' median weight bandwidth in GB/s.
func BenchmarkKQuantDecode(b *testing.B) {
	for _, threads := range []int{1, 2} {
		pool := NewPool(threads)
		kNew := NewKernels(pool)
		kOld := NewKernels(pool)
		kOld.rows[Q4_K], kOld.rows[Q6_K] = rowsQ4KAsm, rowsQ6KAsm
		for _, typ := range []Type{Q4_K, Q6_K} {
			for _, shape := range kdecodeShapes {
				rng := rand.New(rand.NewPCG(uint64(shape.rows), uint64(typ)))
				data := randomWeights(rng, typ, shape.rows, shape.cols)
				copies := 1
				if len(data) > 2<<20 {
					copies = (kdecodeStream + len(data) - 1) / len(data)
				}
				ws := make([]*Matrix, copies)
				for i := range ws {
					d := data
					if i > 0 {
						d = append([]byte(nil), data...)
					}
					ws[i], _ = NewMatrix(typ, shape.rows, shape.cols, d)
				}
				x := randomVec(rng, shape.cols)
				y := make([]float32, shape.rows)
				b.Run(fmt.Sprintf("t%d/%s/%dx%d", threads, typ, shape.rows, shape.cols), func(b *testing.B) {
					for i := range 2 * copies {
						kNew.MatVec(y, ws[i%copies], x)
						kOld.MatVec(y, ws[i%copies], x)
					}
					var ratios, gNew, gOld []float64
					i := 0
					for b.Loop() {
						w := ws[i%copies]
						first, second := kNew, kOld
						if i%2 == 1 {
							first, second = kOld, kNew
						}
						s0 := time.Now()
						first.MatVec(y, w, x)
						s1 := time.Now()
						second.MatVec(y, w, x)
						s2 := time.Now()
						a, c := s1.Sub(s0).Seconds(), s2.Sub(s1).Seconds()
						if i%2 == 1 {
							a, c = c, a
						}
						ratios = append(ratios, a/c)
						gNew = append(gNew, float64(len(w.Data))/a/1e9)
						gOld = append(gOld, float64(len(w.Data))/c/1e9)
						i++
					}
					b.ReportMetric(median(ratios), "x-avx2")
					b.ReportMetric(median(gNew), "GB/s")
					b.ReportMetric(median(gOld), "avx2-GB/s")
				})
			}
		}
		pool.Close()
	}
}
