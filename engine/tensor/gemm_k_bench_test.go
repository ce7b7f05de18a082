package tensor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var kquantGemm4Types = []Type{Q4_K, Q5_K, Q6_K, Q2_K, Q3_K, IQ4_XS, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S}

// TestKQuantGemm4Wide: TestMatMulEqualsMatVec runs one super-block per row;
// the four-token K-quant kernels also carry accumulators, pointers and
// strides across super-blocks, so rows of 2 and 8 super-blocks are checked
// here. Among the tokens are one of zeros (zero scales and sums) and one
// of values so tiny that they fall below actTiny and quantise to zeros
// too (the quantiser's codes stay within ±127). Q2_K and Q3_K also get rows
// of 128 super-blocks, the most
// their kernels' stack frame holds, and of 129, which run token by token.
func TestKQuantGemm4Wide(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	k := NewKernels(nil)
	defer k.Close()
	for _, typ := range kquantGemm4Types {
		if hasAVX2 && k.gemm4[typ] == nil {
			t.Errorf("%s: no four-token kernel on an AVX2 CPU", typ)
		}
		widths := []int{512, 2048}
		if typ == Q2_K || typ == Q3_K {
			widths = append(widths, 128*QKK, 129*QKK)
		}
		for _, cols := range widths {
			const rows, n = 70, 9
			w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
			if err != nil {
				t.Fatal(err)
			}
			x := randomVec(rng, n*cols)
			clear(x[2*cols : 3*cols])
			for i := 5 * cols; i < 6*cols; i++ {
				x[i] *= 1e-38
			}
			got := make([]float32, n*rows)
			k.MatMul(got, w, x, n)
			want := make([]float32, rows)
			for i := range n {
				k.MatVec(want, w, x[i*cols:(i+1)*cols])
				for r := range rows {
					if got[i*rows+r] != want[r] {
						t.Fatalf("%s %d×%d, token %d row %d: matmul %g, matvec %g", typ, rows, cols, i, r, got[i*rows+r], want[r])
					}
				}
			}
		}
	}
}

// BenchmarkMatMulKQuant is prefill of 64 and 128 tokens through K-quant
// matrices of the small models' shapes (1536×512 in cache; the 1B FFN's
// 8192×2048 and 2048×8192 from DRAM), with the four-token kernels against
// the one-token Rows kernels. Each iteration times one MatMul of each back
// to back and the benchmark reports the median of their time ratios
// ("x-rows", below 1 is faster) besides both medians in milliseconds:
// pairing keeps the ratio meaningful on a shared machine. ns/op is the
// pair.
func BenchmarkMatMulKQuant(b *testing.B) {
	k4 := NewKernels(nil)
	defer k4.Close()
	k1 := NewKernels(k4.Pool())
	k1.gemm4 = [typeSlots]gemm4Fn{}
	for _, shape := range []struct{ rows, cols int }{{1536, 512}, {8192, 2048}, {2048, 8192}} {
		for _, typ := range kquantGemm4Types {
			rng := rand.New(rand.NewPCG(uint64(shape.cols), uint64(typ)))
			w, err := NewMatrix(typ, shape.rows, shape.cols, randomWeights(rng, typ, shape.rows, shape.cols))
			if err != nil {
				b.Fatal(err)
			}
			const nmax = 128
			x := randomVec(rng, nmax*shape.cols)
			y := make([]float32, nmax*shape.rows)
			for _, n := range []int{64, nmax} {
				x, y := x[:n*shape.cols], y[:n*shape.rows]
				b.Run(fmt.Sprintf("%dx%d/n%d/%s", shape.rows, shape.cols, n, typ), func(b *testing.B) {
					benchPairedMatMul(b, k4, k1, w, x, y, n)
				})
			}
		}
	}
}

// benchPairedMatMul times one MatMul through k4 (the prefill kernels) and
// one through k1 (the one-token kernels) back to back per iteration, and
// reports the median of their time ratios ("x-rows", below 1 is faster)
// and both medians in milliseconds: pairing keeps the ratio meaningful on
// a shared machine.
func benchPairedMatMul(b *testing.B, k4, k1 *Kernels, w *Matrix, x, y []float32, n int) {
	benchPaired(b, k4, k1, w, x, y, n, "rows")
}

// benchPaired is benchPairedMatMul with the second side named other: the
// ratio is "x-"+other (with its range "lo" and "hi"), the times "ms" and
// other+"-ms".
func benchPaired(b *testing.B, k, ko *Kernels, w *Matrix, x, y []float32, n int, other string) {
	k.MatMul(y, w, x, n)
	ko.MatMul(y, w, x, n)
	var ratios, t, to []float64
	for b.Loop() {
		s0 := time.Now()
		k.MatMul(y, w, x, n)
		s1 := time.Now()
		ko.MatMul(y, w, x, n)
		s2 := time.Now()
		a, c := s1.Sub(s0).Seconds(), s2.Sub(s1).Seconds()
		ratios = append(ratios, a/c)
		t = append(t, a*1e3)
		to = append(to, c*1e3)
	}
	b.ReportMetric(median(ratios), "x-"+other)
	b.ReportMetric(slices.Min(ratios), "lo")
	b.ReportMetric(slices.Max(ratios), "hi")
	b.ReportMetric(median(t), "ms")
	b.ReportMetric(median(to), other+"-ms")
}
