package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// packedQ5KRef is packed Q5_K's arithmetic (packk5.go) in Go, one row at a
// time from the GGUF bytes: packedQ4KRef's, with the fifth bit of weight l
// of sub-block j taken from bit j of qh[l]. The FMA is float64's rounded to
// float32 (see packedQ4KRef).
func packedQ5KRef(row []byte, a act) float32 {
	fma := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := row[sb*q5KBytes:][:q5KBytes]
		d, dmin := f16At(blk, 0), f16At(blk, 2)
		sc, m := unpackK4(blk[4:16])
		qh := blk[16:48]
		for j := range 8 {
			J := sb*8 + j
			qs, shift := blk[48+32*(j/2):][:32], uint(4*(j%2))
			xq := a.qs[J*QK:][:QK]
			var i int32
			for l, q := range qs {
				i += int32(q>>shift&15|(qh[l]>>j&1)<<4) * int32(xq[l])
			}
			acc = fma(d*float32(sc[j])*a.d[J], float32(i), acc)
			acc = fma(-dmin*float32(m[j]), a.s[J], acc)
		}
	}
	return acc
}

// TestPackedQ5K checks the packed Q5_K kernels bit for bit: the decode
// kernel against packedQ5KRef, the four-token kernel against the decode
// kernel per token, over one to four super-blocks a row and one to three
// groups, and both close to the float64 dot of the dequantised row. The
// packer writes into a buffer full of ones, so that a byte it fails to set
// (the masks' halves are merged row by row) shows.
func TestPackedQ5K(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	rng := rand.New(rand.NewPCG(51, 52))
	for _, cols := range []int{256, 512, 768, 1024} {
		for _, groups := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%dx%d", groups*16, cols), func(t *testing.T) {
				rows, nsb := groups*packRows, cols/QKK
				data := randomWeights(rng, Q5_K, rows, cols)
				p := make([]byte, groups*nsb*packK5BlockBytes)
				for i := range p {
					p[i] = 0xff
				}
				packQ5K(p, data, nsb, 0, groups)
				var buf actBuf
				buf.ensure(4, cols)
				x := randomVec(rng, 4*cols)
				for tok := range 4 {
					quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
				}
				one := make([]float32, 4*rows)
				rb := nsb * q5KBytes
				for tok := range 4 {
					a := buf.row(tok, cols)
					rowsPackedQ5K(p, a, one[tok*rows:(tok+1)*rows])
					xseen := actValues(x[tok*cols : (tok+1)*cols])
					for r := range rows {
						row := data[r*rb : (r+1)*rb]
						got := one[tok*rows+r]
						if want := packedQ5KRef(row, a); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("row %d token %d: kernel %v, reference %v", r, tok, got, want)
						}
						exact, mag := refDot(t, Q5_K, row, xseen)
						if d := math.Abs(float64(got) - exact); d > 1e-5*mag+1e-30 {
							t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, got, exact, d, mag)
						}
					}
				}
				const ostride = 97
				four := make([]float32, 3*ostride+rows)
				nb := cols / QK
				a4 := act{qs: buf.qs[:4*cols], d: buf.d[:4*nb], s: buf.s[:4*nb]}
				gemm4PackedQ5K(p, a4, groups, four, ostride)
				requireFourEqualsOne(t, four, one, rows, ostride)
			})
		}
	}
}

// TestPackedQ5KMatrix: Kernels.Pack packs a Q5_K matrix of at least one
// group on the VNNI kernels (its leading Rows&^15 rows, Data left alone),
// MatVec gives packedQ5KRef's numbers on the packed rows and stays close to
// the float64 product on all of them, and MatMul gives each token what
// MatVec gives it, through the packed prefill kernel, the decode kernel for
// a tail of tokens and the GGUF-layout kernels for the tail rows.
func TestPackedQ5KMatrix(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	rng := rand.New(rand.NewPCG(53, 54))
	for _, cols := range []int{256, 768} {
		for _, rows := range []int{16, 79, 130} {
			data := randomWeights(rng, Q5_K, rows, cols)
			orig := append([]byte(nil), data...)
			w, _ := NewMatrix(Q5_K, rows, cols, data)
			p := k.Pack(w)
			if p == w || p.Packed() != rows&^15 || k.Pack(p) != p {
				t.Fatalf("%d×%d: Pack gave %d packed rows (same matrix %v)", rows, cols, p.Packed(), p == w)
			}
			x := randomVec(rng, 70*cols)
			var buf actBuf
			buf.ensure(1, cols)
			a := buf.row(0, cols)
			quantizeAct(a, x[:cols])
			xseen := actValues(x[:cols])
			y := make([]float32, rows)
			k.MatVec(y, p, x[:cols])
			for r := range rows {
				if r < p.Packed() {
					if want := packedQ5KRef(w.Row(r), a); y[r] != want {
						t.Fatalf("%d×%d row %d: packed %g, reference arithmetic %g", rows, cols, r, y[r], want)
					}
				}
				want, mag := refDot(t, Q5_K, w.Row(r), xseen)
				if d := math.Abs(float64(y[r]) - want); d > 1e-5*mag+1e-30 {
					t.Fatalf("%d×%d row %d: got %g, float64 %g (|diff| %g > 1e-5·%g)", rows, cols, r, y[r], want, d, mag)
				}
			}
			for _, n := range []int{1, 3, 4, 5, 9, 70} {
				checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
			}
			for i := range data {
				if data[i] != orig[i] {
					t.Fatalf("%d×%d: packing changed Data at byte %d", rows, cols, i)
				}
			}
		}
	}
}

// BenchmarkPackedQ5K times Q5_K's kernels, packed against the GGUF layout
// (benchPacked).
func BenchmarkPackedQ5K(b *testing.B) {
	benchPacked(b, Q5_K, q5KBytes, packK5BlockBytes, packQ5K, rowsPackedQ5K, gemm4PackedQ5K)
}
