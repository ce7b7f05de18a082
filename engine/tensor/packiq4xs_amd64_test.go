package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// packedIQ4XSRef is packed IQ4_XS's arithmetic (packiq4xs.go) in Go, one
// row at a time from the GGUF bytes: the exact integer Σ kvalue·x of each
// sub-block, taken straight from the levels (not through m8 and the +128
// the kernels add and take back), then one FMA per sub-block on a single
// chain. The FMA is float64's rounded to float32 (see packedQ4KRef).
func packedIQ4XSRef(row []byte, a act) float32 {
	fma := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq4xsBytes]byte)(row[sb*iq4xsBytes:])
		d := f16At(blk[:], 0)
		for j := range 8 {
			J := sb*8 + j
			xq := a.qs[J*QK:][:QK]
			var i int32
			for l, q := range blk[8+16*j : 8+16*j+16] {
				i += int32(iq4nlValue(q))*int32(xq[l]) + int32(iq4nlValue(q>>4))*int32(xq[l+16])
			}
			acc = fma(d*float32(iq4xsScale(blk, j))*a.d[J], float32(i), acc)
		}
	}
	return acc
}

// TestPackedIQ4XS checks the packed IQ4_XS kernels bit for bit: the decode
// kernel against packedIQ4XSRef, the four-token kernel against the decode
// kernel per token, over one to eight super-blocks a row and one to three
// groups, and both close to the float64 dot of the dequantised row. The
// packer writes into a buffer full of 0xff, so that a byte it fails to set
// shows. The last case sets every code to the level of largest magnitude
// (−127), every scale to −32 and every activation code to 127, where the
// integer sums are largest.
func TestPackedIQ4XS(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	rng := rand.New(rand.NewPCG(61, 62))
	type shape struct {
		cols, groups int
		extreme      bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2048} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, false})
		}
	}
	shapes = append(shapes, shape{768, 2, true})
	for _, c := range shapes {
		t.Run(fmt.Sprintf("%dx%d/extreme=%v", c.groups*16, c.cols, c.extreme), func(t *testing.T) {
			rows, nsb := c.groups*packRows, c.cols/QKK
			data := randomWeights(rng, IQ4_XS, rows, c.cols)
			x := randomVec(rng, 4*c.cols)
			if c.extreme {
				for b := 0; b < len(data); b += iq4xsBytes {
					blk := data[b : b+iq4xsBytes]
					binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
					clear(blk[2:]) // ls = 0: scale −32; codes 0: level −127
				}
				for i := range x {
					x[i] = 1
				}
			}
			p := make([]byte, c.groups*nsb*packXSBlockBytes)
			for i := range p {
				p[i] = 0xff
			}
			packIQ4XS(p, data, nsb, 0, c.groups)
			var buf actBuf
			buf.ensure(4, c.cols)
			for tok := range 4 {
				quantizeAct(buf.row(tok, c.cols), x[tok*c.cols:(tok+1)*c.cols])
			}
			one := make([]float32, 4*rows)
			rb := nsb * iq4xsBytes
			for tok := range 4 {
				a := buf.row(tok, c.cols)
				rowsPackedIQ4XS(p, a, one[tok*rows:(tok+1)*rows])
				xseen := actValues(x[tok*c.cols : (tok+1)*c.cols])
				for r := range rows {
					row := data[r*rb : (r+1)*rb]
					got := one[tok*rows+r]
					if want := packedIQ4XSRef(row, a); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("row %d token %d: kernel %v, reference %v", r, tok, got, want)
					}
					exact, mag := refDot(t, IQ4_XS, row, xseen)
					if d := math.Abs(float64(got) - exact); d > 1e-5*mag+1e-30 {
						t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, got, exact, d, mag)
					}
				}
			}
			const ostride = 97
			four := make([]float32, 3*ostride+rows)
			nb := c.cols / QK
			a4 := act{qs: buf.qs[:4*c.cols], d: buf.d[:4*nb], m8: buf.m8[:4*nb]}
			gemm4PackedIQ4XS(p, a4, c.groups, four, ostride)
			requireFourEqualsOne(t, four, one, rows, ostride)
		})
	}
}

// TestPackedIQ4XSMatrix: Kernels.Pack packs an IQ4_XS matrix of at least
// one group on the VNNI kernels (its leading Rows&^15 rows, Data left
// alone), MatVec gives packedIQ4XSRef's numbers on the packed rows and
// stays close to the float64 product on all of them, and MatMul gives each
// token what MatVec gives it, through the packed prefill kernel, the
// padded group of three, the decode kernel for a tail of tokens and the
// GGUF-layout kernels for the tail rows; a NaN input shows in its token's
// outputs only.
func TestPackedIQ4XSMatrix(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	rng := rand.New(rand.NewPCG(63, 64))
	for _, cols := range []int{256, 768} {
		for _, rows := range []int{16, 79, 130} {
			data := randomWeights(rng, IQ4_XS, rows, cols)
			orig := append([]byte(nil), data...)
			w, _ := NewMatrix(IQ4_XS, rows, cols, data)
			p := k.Pack(w)
			if p == w || p.Packed() != rows&^15 || k.Pack(p) != p {
				t.Fatalf("%d×%d: Pack gave %d packed rows (same matrix %v)", rows, cols, p.Packed(), p == w)
			}
			x := randomVec(rng, 9*cols)
			var buf actBuf
			buf.ensure(1, cols)
			a := buf.row(0, cols)
			quantizeAct(a, x[:cols])
			xseen := actValues(x[:cols])
			y := make([]float32, rows)
			k.MatVec(y, p, x[:cols])
			for r := range rows {
				if r < p.Packed() {
					if want := packedIQ4XSRef(w.Row(r), a); y[r] != want {
						t.Fatalf("%d×%d row %d: packed %g, reference arithmetic %g", rows, cols, r, y[r], want)
					}
				}
				want, mag := refDot(t, IQ4_XS, w.Row(r), xseen)
				if d := math.Abs(float64(y[r]) - want); d > 1e-5*mag+1e-30 {
					t.Fatalf("%d×%d row %d: got %g, float64 %g (|diff| %g > 1e-5·%g)", rows, cols, r, y[r], want, d, mag)
				}
			}
			for _, n := range []int{1, 3, 4, 5, 9} {
				checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
			}
			requireUnchangedAndNaNIsolated(t, fmt.Sprintf("%d×%d", rows, cols), k, p, data, orig, x, rows, cols)
		}
	}
}

// BenchmarkPackedIQ4XS times IQ4_XS's kernels, packed against the GGUF layout
// (benchPacked).
func BenchmarkPackedIQ4XS(b *testing.B) {
	benchPacked(b, IQ4_XS, iq4xsBytes, packXSBlockBytes, packIQ4XS, rowsPackedIQ4XS, gemm4PackedIQ4XS)
}
