package tensor

import (
	"encoding/binary"
	"fmt"

	"math/rand/v2"
	"testing"
)

// packedIQSet is one packed layout of an IQ type with its kernels.
type packedIQSet struct {
	name       string
	pack       func(dst, src []byte, nsb, g0, g1 int)
	blockBytes int // a group's bytes per super-block
	rows       packedRowsFn
	gemm4      packedGemm4Fn
}

// packedIQ3XXSSets are the packed IQ3_XXS layouts this CPU runs: the VNNI
// one (VBMI lookups) and the AVX2 one (signs folded into the index).
func packedIQ3XXSSets() []packedIQSet {
	var s []packedIQSet
	if hasIQZ {
		s = append(s, packedIQSet{"vnni", packIQ3XXS, packIQ3XXSBlockBytes, rowsPackedIQ3XXS, gemm4PackedIQ3XXS})
	}
	if hasAVX2 {
		s = append(s, packedIQSet{"avx2", packIQ3XXSAVX2, 2 * packIQ3XXSA8Bytes, rowsPackedIQ3XXSAVX2, gemm4PackedIQ3XXSAVX2})
	}
	return s
}

// TestPackedIQ3XXS checks the packed IQ3_XXS kernels (VNNI and AVX2, each
// where the CPU runs them) bit for bit: the
// decode kernel against the GGUF-layout AVX2 kernel row by row (the packed
// layouts keep its arithmetic, packiq3xxs.go), the four-token kernel
// against the decode kernel per token, over one to nine super-blocks a row
// and one to three groups, and both close to the float64 dot of the
// dequantised row. The packer writes into a buffer full of 0xff, so that a
// byte it fails to set shows. The extreme case walks every grid index
// (each entry of the kernels' lookup tables) with scale 15 and activation
// codes 127 (tokens 0, 2) and −127 (tokens 1, 3), where the integer sums
// are largest; the NaN case gives one row a NaN scale.
func TestPackedIQ3XXS(t *testing.T) {
	sets := packedIQ3XXSSets()
	if len(sets) == 0 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups int
		extreme, nan bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, false, false})
		}
	}
	shapes = append(shapes, shape{768, 3, true, false}, shape{512, 2, false, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, set := range sets {
		for _, c := range shapes {
			t.Run(fmt.Sprintf("%s/%dx%d/extreme=%v/nan=%v", set.name, c.groups*16, c.cols, c.extreme, c.nan), func(t *testing.T) {
				testPackedIQ3XXS(t, rng, set, kg.rows[IQ3_XXS], c.cols, c.groups, c.extreme, c.nan)
			})
		}
	}
}

// testPackedIQ3XXS is one case of TestPackedIQ3XXS for set, gguf the
// GGUF-layout kernel.
func testPackedIQ3XXS(t *testing.T, rng *rand.Rand, set packedIQSet, gguf rowsFn, cols, groups int, extreme, nan bool) {
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, IQ3_XXS, rows, cols)
	x := randomVec(rng, 4*cols)
	if extreme {
		n := 0
		for b := 0; b < len(data); b += iq3xxsBytes {
			blk := data[b : b+iq3xxsBytes]
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			for i := 2; i < 66; i++ {
				blk[i] = byte(n)
				n++
			}
			for j := range 8 {
				blk[66+4*j+3] |= 0xf0 // scale 15
			}
		}
		for i := range x {
			x[i] = float32(1 - 2*(i/cols%2))
		}
	}
	rb := nsb * iq3xxsBytes
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+iq3xxsBytes*(nsb-1):], 0x7e00)
	}
	p := packFilled(set.pack, data, nsb, groups, set.blockBytes)
	checkPackedKernels(t, IQ3_XXS, gguf, set.rows, set.gemm4, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackedIQ3XXSMatrix: Kernels.Pack packs an IQ3_XXS matrix of at least
// one group on the VNNI kernels where the CPU has them (its leading
// Rows&^15 rows, Data left alone, 98 bytes a row and super-block) and on
// the AVX2 ones (VNNI off: 106 bytes), MatVec gives the unpacked
// matrix's numbers bit for bit on every row, and MatMul gives each token
// what MatVec gives it, through the packed prefill kernel, the padded
// group of three, the decode kernel for a tail of tokens and the
// GGUF-layout kernels for the tail rows; a NaN input shows in its token's
// outputs only.
func TestPackedIQ3XXSMatrix(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	pool := NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(83, 84))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(pool, true, vnni)
		for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}, {512, 33}} {
			checkPackedMatrix(t, k, rng, IQ3_XXS, c.rows, c.cols)
		}
	}
}

// BenchmarkPackedIQ3XXS times IQ3_XXS's kernels, each packed layout the
// CPU runs against the GGUF layout (benchPackedOn).
func BenchmarkPackedIQ3XXS(b *testing.B) {
	for _, set := range packedIQ3XXSSets() {
		b.Run(set.name, func(b *testing.B) {
			benchPackedOn(b, IQ3_XXS, iq3xxsBytes, set.blockBytes, set.pack, set.rows, set.gemm4)
		})
	}
}

// BenchmarkIQ3XXSTriad is BenchmarkTQTriad's measurement for IQ3_XXS:
// decode, GGUF layout against packed, alternated with the STREAM triad.
func BenchmarkIQ3XXSTriad(b *testing.B) { benchTriadTypes(b, IQ3_XXS) }
