package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// q50EdgeBlock turns a Q5_0 block into one of the cases the VNNI prefill
// kernel must carry through as the one-token kernel does, by kind: an
// extreme f16 scale (iq4nlEdgeScales: NaNs with payloads, ±Inf, ±0, 65504,
// the least subnormal), every code 0 (weight −16), every code 31, codes
// of random nibbles whose fifth bits are all set or all clear, or one
// fifth bit alone (each of the 32 in turn over the blocks); other kinds
// leave the random block as it is.
func q50EdgeBlock(rng *rand.Rand, blk []byte, kind, i int) {
	switch kind {
	case 0:
		binary.LittleEndian.PutUint16(blk, iq4nlEdgeScales[rng.IntN(len(iq4nlEdgeScales))])
	case 1:
		clear(blk[2:])
	case 2:
		for j := 2; j < q5_0Bytes; j++ {
			blk[j] = 0xff
		}
	case 3:
		binary.LittleEndian.PutUint32(blk[2:], 0xffffffff)
	case 4:
		binary.LittleEndian.PutUint32(blk[2:], 0)
	case 5:
		binary.LittleEndian.PutUint32(blk[2:], 1<<(i%32))
	}
}

// q50Tokens returns n ≥ 4 tokens of cols values for the Q5_0 tests: the
// first four one of zeros (zero scales and sums), one of values just above
// actTiny (subnormal scales and products), one of values near float32's
// top (products that overflow) and one with a NaN (a NaN block scale and
// sum); the rest random, a fifth of their blocks of ±1 only (every code
// ±127).
func q50Tokens(rng *rand.Rand, n, cols int) []float32 {
	x := randomVec(rng, n*cols)
	clear(x[0:cols])
	for i := cols; i < 2*cols; i++ {
		x[i] *= 1e-36
	}
	for i := 2 * cols; i < 3*cols; i++ {
		x[i] = float32(math.Copysign(3e38, float64(x[i])))
	}
	x[3*cols+rng.IntN(cols)] = float32(math.NaN())
	for b := 4 * cols / QK; b < n*cols/QK; b++ {
		if rng.IntN(5) == 0 {
			for i := b * QK; i < (b+1)*QK; i++ {
				x[i] = float32(math.Copysign(1, float64(x[i])))
			}
		}
	}
	return x
}

// q50Groups are the groups of four of q50Tokens' eight tokens that
// TestGemm4Q5_0VNNIKernel runs: the ordinary ones, the special ones, and
// two mixes that put each special token in another slot.
var q50Groups = [...][4]int{{4, 5, 6, 7}, {0, 1, 2, 3}, {5, 3, 6, 1}, {2, 7, 0, 4}}

// TestGemm4Q5_0VNNIKernel calls the AVX-512 VNNI Q5_0 prefill kernel
// directly and checks each of its four tokens against rowsQ5_0Asm (the
// one-token kernel the decode runs) bit for bit: every row count from 1
// to 70 (the kernel has no row blocking, so each count is its own tail),
// row lengths of one block, of fewer blocks than a group, of whole groups
// and of groups plus one to three leftover blocks (SmolLM2's 576 among
// them) and the 1B model's 2048 and 8192; weights with q50EdgeBlock's
// cases, read up to the end of their allocation; tokens with q50Tokens',
// in q50Groups, their activations prepared as MatMuls prepares them. The
// outputs go to rows of a wider stride, whose other entries must stay
// untouched.
func TestGemm4Q5_0VNNIKernel(t *testing.T) {
	k := NewKernels(NewPool(1))
	defer k.pool.Close()
	if k.gemmU[Q5_0] == 0 {
		t.Skip("no AVX-512 VNNI Q5_0 prefill kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(51, 52))
	const maxRows = 70
	for _, cols := range []int{32, 64, 96, 128, 160, 224, 576, 2048, 8192} {
		nb := cols / QK
		data := randomWeights(rng, Q5_0, maxRows, cols)
		for i := range maxRows * nb {
			q50EdgeBlock(rng, data[i*q5_0Bytes:][:q5_0Bytes], rng.IntN(10), i)
		}
		x := q50Tokens(rng, 8, cols)
		var acts [len(q50Groups)]act
		var bufs [len(q50Groups)]actBuf
		for g, toks := range q50Groups {
			b := &bufs[g]
			b.ensure(4, cols)
			for i, tok := range toks {
				quantizeAct(b.row(i, cols), x[tok*cols:][:cols])
			}
			prepActVNNI(b, 4, cols, k.gemmU[Q5_0])
			acts[g] = act{qs: b.qs[:4*cols], d: b.d[:4*nb], s: b.s[:4*nb], m8: b.m8[:4*nb],
				dT: b.dT[:4*nb], sT: b.sT[:4*nb], qX: b.qX[:4*cols]}
		}
		want := make([]float32, maxRows)
		for rows := 1; rows <= maxRows; rows++ {
			for g := range q50Groups {
				ostride := rows + 3
				got := make([]float32, 4*ostride)
				const sentinel = 0x7fc0dead
				for i := range got {
					got[i] = math.Float32frombits(sentinel)
				}
				w := data[(maxRows-rows)*nb*q5_0Bytes:] // the last rows, ending where data does
				gemm4Q5_0VNNIAsm(w, nil, acts[g], rows, got, ostride)
				for tok := range 4 {
					rowsQ5_0Asm(w, nil, bufs[g].row(tok, cols), want[:rows])
					for r := range ostride {
						bits := math.Float32bits(got[tok*ostride+r])
						if r >= rows {
							if bits != sentinel {
								t.Fatalf("%d×%d token %d: wrote %#x at row %d", rows, cols, tok, bits, r)
							}
							continue
						}
						if bits != math.Float32bits(want[r]) {
							t.Fatalf("%d×%d tokens %v, token %d row %d: gemm4 %g (%#x), rows %g (%#x)", rows, cols,
								q50Groups[g], tok, r, got[tok*ostride+r], bits, want[r], math.Float32bits(want[r]))
						}
					}
				}
			}
		}
	}
}

// TestGemm4Q5_0VNNI checks the kernel through MatMul against MatVec, bit
// for bit: batches with whole groups, a padded group of three and
// remainders, rows spanning tiles, weights and tokens as in
// TestGemm4Q5_0VNNIKernel.
func TestGemm4Q5_0VNNI(t *testing.T) {
	k := NewKernels(NewPool(2))
	defer k.pool.Close()
	if k.gemmU[Q5_0] == 0 {
		t.Skip("no AVX-512 VNNI Q5_0 prefill kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(53, 54))
	for _, cols := range []int{32, 96, 160, 224, 576, 2048} {
		for _, rows := range []int{1, 3, 5, 17, 70, 131} {
			nb := cols / QK
			data := randomWeights(rng, Q5_0, rows, cols)
			for i := range rows * nb {
				q50EdgeBlock(rng, data[i*q5_0Bytes:][:q5_0Bytes], rng.IntN(10), i)
			}
			w, err := NewMatrix(Q5_0, rows, cols, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{4, 7, 8, 11} {
				x := q50Tokens(rng, n, cols)
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

// BenchmarkGemm4Q5_0 times Q5_0 prefill of 128 tokens at Llama-1B's and
// SmolLM2's shapes, the VNNI kernel against the AVX2 one in one binary,
// alternating the two in each iteration: "x-avx2" is the median ratio of
// VNNI to AVX2 time (below 1 is faster), "lo" and "hi" its least and
// greatest, "ms" and "avx2-ms" the median times.
func BenchmarkGemm4Q5_0(b *testing.B) {
	for _, threads := range []int{1, 2} {
		pool := NewPool(threads)
		kv := NewKernels(pool)
		ka := NewKernels(pool)
		if kv.gemmU[Q5_0] == 0 {
			b.Skip("no AVX-512 VNNI Q5_0 prefill kernel on this CPU")
		}
		ka.gemm4[Q5_0], ka.gemmU[Q5_0] = gemm4Q5_0Asm, 0
		for _, s := range []struct{ rows, cols int }{
			{2048, 2048}, {512, 2048}, {8192, 2048}, {2048, 8192},
			{576, 576}, {1536, 576}, {576, 1536},
		} {
			rng := rand.New(rand.NewPCG(uint64(s.rows), uint64(s.cols)))
			w, _ := NewMatrix(Q5_0, s.rows, s.cols, randomWeights(rng, Q5_0, s.rows, s.cols))
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
