package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The checks every packed type's tests share (packtq_amd64_test.go and
// packiq*_amd64_test.go): each type's test builds its own blocks (random,
// extreme, every grid entry, a NaN scale) and hands them here.

// packFilled packs the groups of data (nsb super-blocks a row) with pack
// into a new buffer of blockBytes a group and super-block, filled with 0xff
// first so that a byte the packer fails to set shows.
func packFilled(pack func(dst, src []byte, nsb, g0, g1 int), data []byte, nsb, groups, blockBytes int) []byte {
	p := make([]byte, groups*nsb*blockBytes)
	for i := range p {
		p[i] = 0xff
	}
	pack(p, data, nsb, 0, groups)
	return p
}

// checkPackedKernels checks a packed type's kernels on p, the packed copy
// of data (groups·16 rows of typ, cols columns), for the four tokens of x:
// the decode kernel rowsFn gives the GGUF-layout kernel gguf's numbers bit
// for bit on every row and lies within 1e-5 of the magnitude of the
// float64 dot of the dequantised row (row nanRow, when not negative, has a
// NaN scale and must give NaN), and the four-token kernel gemm4 gives each
// token what rowsFn gives it, bit for bit.
func checkPackedKernels(t *testing.T, typ Type, gguf rowsFn, rowsFn packedRowsFn, gemm4 packedGemm4Fn, data, p []byte, x []float32, cols, groups, nanRow int) {
	t.Helper()
	rows := groups * packRows
	rb := len(data) / rows
	var buf actBuf
	buf.ensure(4, cols)
	for tok := range 4 {
		quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
	}
	one := make([]float32, 4*rows)
	want := make([]float32, rows)
	for tok := range 4 {
		a := buf.row(tok, cols)
		rowsFn(p, a, one[tok*rows:(tok+1)*rows])
		gguf(data, nil, a, want)
		xseen := actValues(x[tok*cols : (tok+1)*cols])
		for r := range rows {
			got := one[tok*rows+r]
			if math.Float32bits(got) != math.Float32bits(want[r]) {
				t.Fatalf("row %d token %d: packed %v, GGUF-layout kernel %v", r, tok, got, want[r])
			}
			if r == nanRow {
				if !math.IsNaN(float64(got)) {
					t.Fatalf("row %d token %d: %v with a NaN scale", r, tok, got)
				}
				continue
			}
			exact, mag := refDot(t, typ, data[r*rb:(r+1)*rb], xseen)
			if d := math.Abs(float64(got) - exact); d > 1e-5*mag+1e-30 {
				t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, got, exact, d, mag)
			}
		}
	}
	const ostride = 97
	four := make([]float32, 3*ostride+rows)
	nb := cols / QK
	a4 := act{qs: buf.qs[:4*cols], d: buf.d[:4*nb], m8: buf.m8[:4*nb]}
	gemm4(p, a4, groups, four, ostride)
	requireFourEqualsOne(t, four, one, rows, ostride)
}

// checkPackedMatrix checks a random rows×cols matrix of typ through
// Kernels.Pack: its leading Rows&^15 rows are packed, at the file's bytes a
// row (or its packLayout's), Data left alone and Pack idempotent; MatVec gives the unpacked
// matrix's numbers bit for bit on every row; MatMul gives each token what
// MatVec gives it (through the packed prefill kernel, the padded group of
// three, the decode kernel for a tail of tokens and the GGUF-layout kernels
// for the tail rows); and a NaN input shows in its token's outputs only.
func checkPackedMatrix(t *testing.T, k *Kernels, rng *rand.Rand, typ Type, rows, cols int) {
	t.Helper()
	name := fmt.Sprintf("%s %d×%d", typ, rows, cols)
	data := randomWeights(rng, typ, rows, cols)
	orig := append([]byte(nil), data...)
	w, err := NewMatrix(typ, rows, cols, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p := k.Pack(w)
	if p == w || p.Packed() != rows&^15 || k.Pack(p) != p {
		t.Fatalf("%s: Pack gave %d packed rows (same matrix %v)", name, p.Packed(), p == w)
	}
	want := p.Packed() * len(data) / rows
	if l := k.playout[typ]; l.pack != nil {
		want = p.Packed() / packRows * cols / QKK * l.sbBytes // a layout of its own
	}
	if len(p.packed) != want {
		t.Fatalf("%s: packed copy of %d bytes for %d rows of %d, want %d", name, len(p.packed), p.Packed(), len(data)/rows, want)
	}
	x := randomVec(rng, 9*cols)
	y, yw := make([]float32, rows), make([]float32, rows)
	k.MatVec(y, p, x[:cols])
	k.MatVec(yw, w, x[:cols])
	for r := range rows {
		if math.Float32bits(y[r]) != math.Float32bits(yw[r]) {
			t.Fatalf("%s row %d: packed %g, unpacked %g", name, r, y[r], yw[r])
		}
	}
	for _, n := range []int{1, 3, 4, 5, 9} {
		checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
	}
	requireUnchangedAndNaNIsolated(t, name, k, p, data, orig, x, rows, cols)
}

// nanRowIf is the row the packed types' tests give a NaN scale (5) when
// nan is set, else −1 (checkPackedKernels: none).
func nanRowIf(nan bool) int {
	if nan {
		return 5
	}
	return -1
}

// requireFourEqualsOne fails t unless every token's row of a four-token
// kernel's output (ostride floats apart) is bit for bit the one-token
// kernel's (rows floats apart).
func requireFourEqualsOne(t *testing.T, four, one []float32, rows, ostride int) {
	t.Helper()
	for tok := range 4 {
		for r := range rows {
			if got, want := four[tok*ostride+r], one[tok*rows+r]; math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("row %d token %d: four-token %v, one-token %v", r, tok, got, want)
			}
		}
	}
}

// requireUnchangedAndNaNIsolated fails t (its messages start with what)
// if packing changed the matrix's Data (orig is a copy from before), or
// if a NaN in token 1 of four does not make every output of that token
// NaN and no other token's (the NaN block's scale is NaN, its codes and
// m8 0).
func requireUnchangedAndNaNIsolated(t *testing.T, what string, k *Kernels, p *Matrix, data, orig []byte, x []float32, rows, cols int) {
	t.Helper()
	for i := range data {
		if data[i] != orig[i] {
			t.Fatalf("%s: packing changed Data at byte %d", what, i)
		}
	}
	xn := append([]float32(nil), x[:4*cols]...)
	xn[cols+40] = float32(math.NaN())
	yn := make([]float32, 4*rows)
	k.MatMul(yn, p, xn, 4)
	for i, v := range yn {
		if (i/rows == 1) != math.IsNaN(float64(v)) {
			t.Fatalf("%s: NaN in token 1: token %d row %d gives %g", what, i/rows, i%rows, v)
		}
	}
}
