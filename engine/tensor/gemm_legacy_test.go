package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var legacyGemm4Types = []Type{Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4, BF16}

// legacyGemm4Cols are row lengths for each legacy prefill kernel's paths:
// TestMatMulEqualsMatVec's 256 is two whole groups of four blocks, so these
// add rows of fewer blocks than a group (32, 96), a group plus one or three
// leftover blocks (160, 224), and SmolLM2's 576 (eighteen blocks: four
// groups and two left over). BF16's add a tail of 8s after the 32s (40),
// and 172, which is no multiple of 8 and takes the portable dot.
func legacyGemm4Cols(t Type) []int {
	if t == BF16 {
		return []int{8, 40, 172, 576}
	}
	return []int{32, 96, 160, 224, 576}
}

// TestLegacyGemm4Wide checks the prefill kernels of Q4_1, Q5_0, Q5_1,
// IQ4_NL, MXFP4 and BF16 against their one-token kernels bit for bit, on every
// prefill path the CPU has, over row lengths that reach each kernel's
// leftover-block code and batch sizes with groups of four, a padded group
// of three and remainders of one and two. Rows span two tiles (64 + 6).
// Among the tokens are one of zeros (zero scales and sums) and one of
// values so tiny (just above actTiny) that the scales and products are
// subnormal. Results are compared as bits, so a zero's sign counts too.
func TestLegacyGemm4Wide(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(nil, true, vnni)
		for _, typ := range legacyGemm4Types {
			if hasAVX2 && k.gemm4[typ] == nil {
				t.Errorf("%s: no prefill kernel on an AVX2 CPU", typ)
			}
			for _, cols := range legacyGemm4Cols(typ) {
				const rows = 70
				w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{3, 4, 6, 7, 9} {
					t.Run(fmt.Sprintf("%s/%s/%d/n%d", k.PrefillPath(), typ, cols, n), func(t *testing.T) {
						x := randomVec(rng, n*cols)
						clear(x[1*cols : 2*cols])
						for i := 2 * cols; i < 3*cols; i++ {
							x[i] *= 1e-36
						}
						got := make([]float32, n*rows)
						k.MatMul(got, w, x, n)
						want := make([]float32, rows)
						for i := range n {
							k.MatVec(want, w, x[i*cols:(i+1)*cols])
							for r := range rows {
								if math.Float32bits(got[i*rows+r]) != math.Float32bits(want[r]) {
									t.Fatalf("token %d row %d: matmul %g, matvec %g", i, r, got[i*rows+r], want[r])
								}
							}
						}
					})
				}
			}
		}
		k.Close()
	}
}

// BenchmarkMatMulLegacy is prefill through Q4_1, Q5_0, Q5_1, IQ4_NL,
// MXFP4 and BF16 matrices of SmolLM2-135M's FFN shapes (1536×576 up, 576×1536 down)
// and a 1B model's (8192×2048, from DRAM), 64 and 128 tokens, with the
// prefill kernels against the one-token Rows kernels, paired as in
// BenchmarkMatMulKQuant: "x-rows" is the median time ratio (below 1 is
// faster), "ms" and "rows-ms" the two medians; ns/op is the pair. Built on
// a tree without the prefill kernels, both sides are the Rows kernels, so
// "ms" compares across builds too.
func BenchmarkMatMulLegacy(b *testing.B) {
	k4 := NewKernels(nil)
	defer k4.Close()
	k1 := NewKernels(k4.Pool())
	k1.gemm4 = [typeSlots]gemm4Fn{}
	for _, shape := range []struct{ rows, cols int }{{1536, 576}, {576, 1536}, {8192, 2048}} {
		for _, typ := range legacyGemm4Types {
			rng := rand.New(rand.NewPCG(uint64(shape.cols), uint64(typ)))
			w, err := NewMatrix(typ, shape.rows, shape.cols, randomWeights(rng, typ, shape.rows, shape.cols))
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range []int{64, 128} {
				x := randomVec(rng, n*shape.cols)
				y := make([]float32, n*shape.rows)
				b.Run(fmt.Sprintf("%dx%d/%s/n%d", shape.rows, shape.cols, typ, n), func(b *testing.B) {
					benchPairedMatMul(b, k4, k1, w, x, y, n)
				})
			}
		}
	}
}
