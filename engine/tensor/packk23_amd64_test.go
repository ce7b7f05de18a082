package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// packedQ3KRef is packed Q3_K's arithmetic (packk23.go) in Go, one row at a
// time from the GGUF bytes: each block's exact integer p_b, taken straight
// from the weights' values (not through m4 and the codes' offset of 4),
// one FMA per block on the even or odd chain, even + odd. The FMA is
// float64's rounded to float32 (see packedRef).
func packedQ3KRef(row []byte, a act) float32 {
	var acc [2]float32
	for sb := range len(a.d) / 8 {
		blk := row[sb*q3KBytes:][:q3KBytes]
		d := f16At(blk, 108)
		s := q3KScales((*[12]byte)(blk[96:108]))
		for j := range 8 {
			b := sb*8 + j
			qs, shift := blk[32+32*(j/4):][:32], uint(2*(j%4))
			xq := a.qs[b*QK:][:QK]
			var p int32
			for h := range 2 {
				var sq int32
				for l := 16 * h; l < 16*h+16; l++ {
					q := int32(qs[l]>>shift&3) + 4*int32(blk[l]>>j&1) - 4
					sq += q * int32(xq[l])
				}
				p += int32(s[2*j+h]) * sq
			}
			acc[j%2] = float32(math.FMA(float64(d*a.d[b]), float64(float32(p)), float64(acc[j%2])))
		}
	}
	return acc[0] + acc[1]
}

// packedQ2KRef is packed Q2_K's arithmetic (packk23.go) in Go, one row at a
// time from the GGUF bytes (the FMA as in packedQ3KRef).
func packedQ2KRef(row []byte, a act) float32 {
	fma := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	var acc [2]float32
	for sb := range len(a.d) / 8 {
		blk := row[sb*q2KBytes:][:q2KBytes]
		d, dmin := f16At(blk, 80), f16At(blk, 82)
		for j := range 8 {
			b := sb*8 + j
			qs, shift := blk[16+32*(j/4):][:32], uint(2*(j%4))
			xq := a.qs[b*QK:][:QK]
			var p, n int32
			for h := range 2 {
				sc := blk[2*j+h]
				var sq, sx int32
				for l := 16 * h; l < 16*h+16; l++ {
					sq += int32(qs[l]>>shift&3) * int32(xq[l])
					sx += int32(xq[l])
				}
				p += int32(sc&15) * sq
				n -= int32(sc>>4) * sx
			}
			acc[j%2] = fma(d*a.d[b], float32(p), acc[j%2])
			acc[j%2] = fma(dmin*a.d[b], float32(n), acc[j%2])
		}
	}
	return acc[0] + acc[1]
}

// packedK23 is what TestPackedK23 needs of one of the two types.
type packedK23 struct {
	typ    Type
	sb, bb int // GGUF and packed bytes a super-block (column of a group)
	pack   func(dst, src []byte, nsb, g0, g1 int)
	rows   packedRowsFn
	gemm4  packedGemm4Fn
	ref    func(row []byte, a act) float32
	dOff   int // the f16 d's offset in a GGUF super-block
}

var packedK23s = []packedK23{
	{Q3_K, q3KBytes, packK3BlockBytes, packQ3K, rowsPackedQ3K, gemm4PackedQ3K, packedQ3KRef, 108},
	{Q2_K, q2KBytes, packK2BlockBytes, packQ2K, rowsPackedQ2K, gemm4PackedQ2K, packedQ2KRef, 80},
}

// TestPackedK23 checks the packed Q3_K and Q2_K kernels bit for bit: the
// decode kernel against the type's reference arithmetic, the four-token
// kernel against the decode kernel per token, over one to eight
// super-blocks a row and one to three groups, and both close to the
// float64 dot of the dequantised row. The packer writes into a buffer full
// of 0xff, so that a byte it fails to set shows. The extreme cases set
// every code byte to 0 or 0xff (Q3_K: every weight −4 or +3; Q2_K: 0 or
// 3) and every scale byte to 0 (Q3_K: −32) or 0xff (Q2_K: scale and min
// 15), with every activation code 127, where the integer sums are largest.
func TestPackedK23(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	for _, k := range packedK23s {
		t.Run(k.typ.String(), func(t *testing.T) { testPackedK23(t, k) })
	}
}

func testPackedK23(t *testing.T, k packedK23) {
	rng := rand.New(rand.NewPCG(63, uint64(k.typ)))
	type shape struct {
		cols, groups int
		fill         int // −1: random weights; else every code byte
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2048} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, -1})
		}
	}
	shapes = append(shapes, shape{768, 2, 0}, shape{768, 3, 0xff})
	for _, c := range shapes {
		t.Run(fmt.Sprintf("%dx%d/fill=%d", c.groups*16, c.cols, c.fill), func(t *testing.T) {
			rows, nsb := c.groups*packRows, c.cols/QKK
			data := randomWeights(rng, k.typ, rows, c.cols)
			x := randomVec(rng, 4*c.cols)
			if c.fill >= 0 {
				for b := 0; b < len(data); b += k.sb {
					blk := data[b : b+k.sb]
					for i := range k.dOff {
						blk[i] = byte(c.fill)
					}
					if k.typ == Q3_K {
						clear(blk[96:108]) // every scale 0 − 32
					}
					for i := k.dOff; i < k.sb; i += 2 {
						binary.LittleEndian.PutUint16(blk[i:], F32ToF16(0.5))
					}
				}
				for i := range x {
					x[i] = 1
				}
			}
			p := make([]byte, c.groups*nsb*k.bb)
			for i := range p {
				p[i] = 0xff
			}
			k.pack(p, data, nsb, 0, c.groups)
			var buf actBuf
			buf.ensure(4, c.cols)
			for i := range 4 {
				quantizeAct(buf.row(i, c.cols), x[i*c.cols:(i+1)*c.cols])
			}
			buf.prepM4(4, c.cols)
			one := make([]float32, 4*rows)
			for tok := range 4 {
				a := buf.row(tok, c.cols)
				k.rows(p, a, one[tok*rows:(tok+1)*rows])
				xseen := actValues(x[tok*c.cols : (tok+1)*c.cols])
				for r := range rows {
					w := data[r*nsb*k.sb : (r+1)*nsb*k.sb]
					got := one[tok*rows+r]
					if want := k.ref(w, a); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("token %d row %d: packed %v, reference arithmetic %v", tok, r, got, want)
					}
					if want, mag := refDot(t, k.typ, w, xseen); math.Abs(float64(got)-want) > 1e-5*mag+1e-30 {
						t.Errorf("token %d row %d: %g, float64 dot %g", tok, r, got, want)
					}
				}
			}
			const ostride = 3 + 16*3
			four := make([]float32, 3*ostride+rows)
			a4 := act{qs: buf.qs[:4*c.cols], d: buf.d[:4*c.cols/QK], m4: buf.m4M(0, 4, c.cols)}
			k.gemm4(p, a4, c.groups, four, ostride)
			requireFourEqualsOne(t, four, one, rows, ostride)
		})
	}
}

// TestPackedK23Matrix runs packed Q3_K and Q2_K through Kernels: MatVec
// and MatMul (four tokens and the padded three) agree per token, the
// unpacked tail rows run from Data, and a NaN in a token's input makes
// every output of that token NaN.
func TestPackedK23Matrix(t *testing.T) {
	k := newKernelsVNNI(NewPool(2), true, true)
	defer k.pool.Close()
	for _, typ := range []Type{Q3_K, Q2_K} {
		if k.prows[typ] == nil {
			t.Skipf("no packed %s kernels on this CPU", typ)
		}
		testPackedK23Matrix(t, k, typ)
	}
}

func testPackedK23Matrix(t *testing.T, k *Kernels, typ Type) {
	rng := rand.New(rand.NewPCG(65, uint64(typ)))
	const rows, cols = 35, 512
	w, _ := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
	p := k.Pack(w)
	if p.Packed() != 32 {
		t.Fatalf("%s: %d packed rows, want 32", typ, p.Packed())
	}
	x := randomVec(rng, 5*cols)
	for _, n := range []int{3, 4, 5} {
		checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
	}
	x[cols+40] = float32(math.NaN())
	y := make([]float32, 4*rows)
	k.MatMul(y, p, x[:4*cols], 4)
	for i, v := range y {
		if tok := i / rows; (tok == 1) != math.IsNaN(float64(v)) {
			t.Fatalf("%s token %d row %d: %g", typ, tok, i%rows, v)
		}
	}
}

// BenchmarkPackedK23 times Q3_K's and Q2_K's kernels, packed against the
// GGUF layout (benchPacked).
func BenchmarkPackedK23(b *testing.B) {
	for _, k := range packedK23s {
		b.Run(k.typ.String(), func(b *testing.B) {
			benchPacked(b, k.typ, k.sb, k.bb, k.pack, k.rows, k.gemm4)
		})
	}
}
