//go:build amd64

package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// f16Specials and bf16Specials are the 16-bit weights whose arithmetic is
// easiest to get subtly wrong: infinities, quiet and signalling NaNs with
// payloads, the smallest and largest subnormals, −0 and the largest finite
// value. f32Specials are their float32 counterparts for the activations.
var (
	f16Specials  = []uint16{0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe3f, 0x0001, 0x83ff, 0x8000, 0x7bff}
	bf16Specials = []uint16{0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc5, 0x0001, 0x807f, 0x8000, 0x7f7f}
	f32Specials  = []uint32{0x7f800000, 0xff800000, 0x7fc00001, 0xffc12345, 0x7f800001, 0x00000001, 0x807fffff, 0x80000000, 0x7f7fffff}
)

// halfModes are the kinds of input TestGemm4HalfAVX512 tries, each a
// weights mode for halfWeights and an activations mode for specialVec.
var halfModes = []struct {
	name   string
	wm, xm int
}{
	{"normal", 0, 0},
	{"specials", 1, 1},
	{"bits", 2, 1},
	{"subnormal", 0, 3},
	// NaN activations against NaN weights: which payload survives
	// depends on which FMA operand holds which.
	{"nan", 2, 4},
	// −0 activations against positive weights: every product is −0.
	{"negzero", 3, 5},
}

// halfWeights returns rows×cols F16 or BF16 weights: normal random values
// (mode 0), the same with one in 64 replaced by a special value (1),
// random bit patterns, NaNs and infinities included (2), or normal values
// made positive (3).
func halfWeights(rng *rand.Rand, typ Type, rows, cols, mode int) []byte {
	b := randomWeights(rng, typ, rows, cols)
	sp := f16Specials
	if typ == BF16 {
		sp = bf16Specials
	}
	for i := 0; i < len(b); i += 2 {
		switch {
		case mode == 2:
			binary.LittleEndian.PutUint16(b[i:], uint16(rng.Uint32()))
		case mode == 3:
			b[i+1] &= 0x7f
		case mode == 1 && rng.IntN(64) == 0:
			binary.LittleEndian.PutUint16(b[i:], sp[rng.IntN(len(sp))])
		}
	}
	return b
}

// specialVec is randomVec (mode 0) with one in 64 elements a special
// float32 (1), every element scaled into the subnormal range (3), every
// element a NaN with a random payload (4), or every element −0 (5).
func specialVec(rng *rand.Rand, n, mode int) []float32 {
	x := randomVec(rng, n)
	for i := range x {
		switch {
		case mode == 3:
			x[i] *= 1e-38
		case mode == 4:
			x[i] = math.Float32frombits(0x7f800000 | rng.Uint32()&0x807fffff | 1)
		case mode == 5:
			x[i] = float32(math.Copysign(0, -1))
		case mode == 1 && rng.IntN(64) == 0:
			x[i] = math.Float32frombits(f32Specials[rng.IntN(len(f32Specials))])
		}
	}
	return x
}

// TestGemm4HalfAVX512 checks the AVX-512 F16 and BF16 prefill kernels
// against the one-token Rows kernels bit for bit (NaN payloads and the
// sign of zero included), called directly so that every row count reaches
// both the three-row and the one-row loops, and past halfRows: row lengths
// of only a tail (8, 24), one group of 32, a group plus a tail (40, 72), no
// multiple of 8 (172, the portable fallback), the 1B model's 2048 and 8192,
// and a chunk or two (halfChunk) plus a tail of 8s or a group and 8s; weights
// and activations with NaNs, infinities, subnormals and −0 mixed in. The
// outputs are strided, with sentinels between them that must survive.
func TestGemm4HalfAVX512(t *testing.T) {
	if !hasVNNI {
		t.Skip("no AVX512-VNNI: the AVX-512 prefill kernels are not installed")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	k := newKernelsVNNI(NewPool(1), true, true)
	defer k.pool.Close()
	for _, typ := range []Type{F16, BF16} {
		gemm, rowsK := k.gemm4[typ], k.rows[typ]
		for _, cols := range []int{8, 24, 32, 40, 72, 172, 2048, 8192, halfChunk + 8, 2*halfChunk + 40} {
			for _, rows := range []int{1, 2, 3, 4, 5, 7, 70} {
				for _, m := range halfModes {
					t.Run(fmt.Sprintf("%s/%dx%d/%s", typ, rows, cols, m.name), func(t *testing.T) {
						w := halfWeights(rng, typ, rows, cols, m.wm)
						x := specialVec(rng, 4*cols, m.xm)
						ostride := rows + 3
						const sentinel = 0x7fbadbad
						out := make([]float32, 4*ostride)
						for i := range out {
							out[i] = math.Float32frombits(sentinel)
						}
						gemm(w, x, act{}, rows, out, ostride)
						want := make([]float32, rows)
						for tok := range 4 {
							rowsK(w, x[tok*cols:(tok+1)*cols], act{}, want)
							for r := range ostride {
								got := math.Float32bits(out[tok*ostride+r])
								if r >= rows {
									if got != sentinel {
										t.Fatalf("token %d: wrote %#x past the last row (%d)", tok, got, r)
									}
									continue
								}
								if w := math.Float32bits(want[r]); got != w {
									t.Fatalf("token %d row %d: gemm4 %#x (%g), rows %#x (%g)", tok, r, got, out[tok*ostride+r], w, want[r])
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestMatMulHalfWide runs F16 and BF16 MatMul against MatVec on every
// prefill path at the 1B model's widths, rows spanning two tiles and a
// remainder of one and two tokens.
func TestMatMulHalfWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(nil, true, vnni)
		for _, typ := range []Type{F16, BF16} {
			for _, cols := range []int{2048, 8192} {
				const rows = 70
				w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{5, 6} {
					checkMatMulEqualsMatVec(t, k, w, randomVec(rng, n*cols), n)
				}
			}
		}
		k.Close()
	}
}

// BenchmarkGemm4Half compares the F16 and BF16 prefill kernels before
// (F16: two passes of gemm2F16x3AVX512; BF16: two of gemm2BF16AVX2) and
// after (gemm4F16AVX512, gemm4BF16AVX512) in one binary: 128 tokens through
// the 1B model's shapes, on pools of 1 and 2 threads. Each iteration times
// one MatMul of each, alternating which goes first; "old/new" is the
// median ratio of their times (above 1: the new kernel is faster), "lo"
// and "hi" its 10th and 90th percentiles, "new-ms" and "old-ms" the
// medians. ns/op is the pair.
func BenchmarkGemm4Half(b *testing.B) {
	if !hasVNNI {
		b.Skip("no AVX512-VNNI")
	}
	for _, threads := range []int{1, 2} {
		pool := NewPool(threads)
		kNew := NewKernels(pool)
		kOld := NewKernels(pool)
		kOld.gemm4[F16] = gemm4F16AVX512Asm
		kOld.gemm4[BF16] = gemm4BF16Asm
		for _, typ := range []Type{F16, BF16} {
			for _, shape := range []struct{ rows, cols int }{{2048, 2048}, {512, 2048}, {8192, 2048}, {2048, 8192}} {
				rng := rand.New(rand.NewPCG(uint64(shape.rows), uint64(shape.cols)))
				w, err := NewMatrix(typ, shape.rows, shape.cols, randomWeights(rng, typ, shape.rows, shape.cols))
				if err != nil {
					b.Fatal(err)
				}
				const n = 128
				x := randomVec(rng, n*shape.cols)
				y := make([]float32, n*shape.rows)
				b.Run(fmt.Sprintf("t%d/%s/%dx%d", threads, typ, shape.rows, shape.cols), func(b *testing.B) {
					benchOldNew(b, kOld, kNew, w, x, y, n)
				})
			}
		}
		pool.Close()
	}
}

// benchOldNew times one MatMul through kOld and one through kNew per
// iteration, the first of the pair alternating, and reports the median
// old/new time ratio with its 10th and 90th percentiles.
func benchOldNew(b *testing.B, kOld, kNew *Kernels, w *Matrix, x, y []float32, n int) {
	kOld.MatMul(y, w, x, n)
	kNew.MatMul(y, w, x, n)
	var ratios, tOld, tNew []float64
	i := 0
	for b.Loop() {
		first, second := kOld, kNew
		if i%2 == 1 {
			first, second = kNew, kOld
		}
		s0 := time.Now()
		first.MatMul(y, w, x, n)
		s1 := time.Now()
		second.MatMul(y, w, x, n)
		s2 := time.Now()
		a, c := s1.Sub(s0).Seconds(), s2.Sub(s1).Seconds()
		if i%2 == 1 {
			a, c = c, a
		}
		ratios = append(ratios, a/c)
		tOld = append(tOld, a*1e3)
		tNew = append(tNew, c*1e3)
		i++
	}
	s := slices.Clone(ratios)
	slices.Sort(s)
	b.ReportMetric(median(ratios), "old/new")
	b.ReportMetric(s[len(s)/10], "lo")
	b.ReportMetric(s[len(s)*9/10], "hi")
	b.ReportMetric(median(tNew), "new-ms")
	b.ReportMetric(median(tOld), "old-ms")
}
