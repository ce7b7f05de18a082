package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// iq4nlEdgeScales are f16 block scales that the VNNI prefill kernel must
// carry through exactly as the one-token kernel does: NaNs with payloads,
// infinities, signed zeros, the largest finite half and the least
// subnormal one.
var iq4nlEdgeScales = []uint16{0x7e01, 0xfe3f, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x7bff, 0x0001}

// TestGemm4IQ4NLVNNI checks the AVX-512 VNNI IQ4_NL prefill kernel against
// the one-token kernel bit for bit: row lengths of one block, of fewer
// blocks than a group, of whole groups and of groups plus one to three
// leftover blocks (SmolLM2's 576 among them); row counts that are no
// multiple of four or sixteen; batches with whole groups, a padded group
// of three and remainders; blocks of extreme codes (every level −127 or
// 113 against activations of ±127), blocks whose scales are NaN, ±Inf,
// ±0, 65504 or subnormal, and tokens of zeros, of subnormal scale, of
// values near float32's top and with a NaN.
func TestGemm4IQ4NLVNNI(t *testing.T) {
	k := NewKernels(NewPool(2))
	defer k.pool.Close()
	if k.gemmU[IQ4_NL] == 0 {
		t.Skip("no AVX-512 VNNI IQ4_NL prefill kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	for _, cols := range []int{32, 64, 96, 128, 160, 224, 576, 2048} {
		for _, rows := range []int{1, 3, 5, 17, 70} {
			data := randomWeights(rng, IQ4_NL, rows, cols)
			nb := cols / QK
			for i := range rows * nb {
				blk := data[i*iq4nlBytes:][:iq4nlBytes]
				switch rng.IntN(8) {
				case 0:
					binary.LittleEndian.PutUint16(blk, iq4nlEdgeScales[rng.IntN(len(iq4nlEdgeScales))])
				case 1:
					for j := 2; j < iq4nlBytes; j++ {
						blk[j] = 0x00 // level −127 everywhere
					}
				case 2:
					for j := 2; j < iq4nlBytes; j++ {
						blk[j] = 0xff // level 113 everywhere
					}
				}
			}
			w, err := NewMatrix(IQ4_NL, rows, cols, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{4, 7, 8, 11} {
				x := randomVec(rng, n*cols)
				clear(x[0:cols])
				for i := cols; i < 2*cols; i++ {
					x[i] *= 1e-37
				}
				for i := 2 * cols; i < 3*cols; i++ {
					x[i] = float32(math.Copysign(3e38, float64(x[i])))
				}
				x[3*cols+rng.IntN(cols)] = float32(math.NaN())
				got := make([]float32, n*rows)
				k.MatMul(got, w, x, n)
				want := make([]float32, rows)
				for i := range n {
					k.MatVec(want, w, x[i*cols:(i+1)*cols])
					for r := range rows {
						if math.Float32bits(got[i*rows+r]) != math.Float32bits(want[r]) {
							t.Fatalf("%d×%d n=%d token %d row %d: matmul %g (%#x), matvec %g (%#x)", rows, cols, n, i, r,
								got[i*rows+r], math.Float32bits(got[i*rows+r]), want[r], math.Float32bits(want[r]))
						}
					}
				}
			}
		}
	}
}

// BenchmarkGemm4IQ4NL times IQ4_NL prefill at Llama-1B's and SmolLM2's
// shapes, the VNNI kernel against the AVX2 one in one binary, alternating
// the two in each iteration: "x-avx2" is the median ratio of VNNI to AVX2
// time (below 1 is faster), "lo" and "hi" its least and greatest, "ms" and
// "avx2-ms" the median times.
func BenchmarkGemm4IQ4NL(b *testing.B) {
	for _, threads := range []int{1, 2} {
		pool := NewPool(threads)
		kv := NewKernels(pool)
		ka := NewKernels(pool)
		if kv.gemmU[IQ4_NL] == 0 {
			b.Skip("no AVX-512 VNNI IQ4_NL prefill kernel on this CPU")
		}
		ka.gemm4[IQ4_NL], ka.gemmU[IQ4_NL] = gemm4IQ4NLAsm, 0
		for _, s := range []struct{ rows, cols int }{
			{2048, 2048}, {512, 2048}, {8192, 2048}, {2048, 8192},
			{576, 576}, {192, 576}, {1536, 576}, {576, 1536},
		} {
			rng := rand.New(rand.NewPCG(uint64(s.rows), uint64(s.cols)))
			w, _ := NewMatrix(IQ4_NL, s.rows, s.cols, randomWeights(rng, IQ4_NL, s.rows, s.cols))
			const n = 128
			x := randomVec(rng, n*s.cols)
			y := make([]float32, n*s.rows)
			b.Run(fmt.Sprintf("t%d/%dx%d/n%d", threads, s.rows, s.cols, n), func(b *testing.B) {
				benchPaired(b, kv, ka, w, x, y, n, "avx2")
			})
		}
		pool.Close()
	}
}
