package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedIQ3S checks the packed IQ3_S kernels bit for bit: the decode
// kernel against the GGUF-layout AVX2 kernel row by row (the packed layout
// keeps its arithmetic, packiq3s.go), the four-token kernel against the
// decode kernel per token, over one to nine super-blocks a row and one to
// three groups (odd counts run the kernel's single-group loop), and both
// close to the float64 dot of the dequantised row. One case gives its rows
// every one of the 512 grid entries (iq3sGrid16's table checked through
// the kernels). The packer
// writes into a buffer full of 0xff, so that a byte it fails to set shows.
// The extreme case gives every weight the grid entry of the largest
// magnitudes, every sign bit set and every scale 15, with activation codes
// 127 (tokens 0, 1) and −127 (tokens 2, 3), where the integer sums are
// largest; the NaN case gives one row a NaN scale.
func TestPackedIQ3S(t *testing.T) {
	if !hasIQZ {
		t.Skip("no AVX-512 VNNI, GFNI, VBMI and BITALG")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups      int
		extreme, nan, all bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, false, false, false})
		}
	}
	shapes = append(shapes, shape{768, 3, true, false, false}, shape{512, 2, false, true, false},
		shape{2304, 1, true, false, false}, shape{256, 1, false, false, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, c := range shapes {
		t.Run(fmt.Sprintf("%dx%d/extreme=%v/nan=%v/all=%v", c.groups*16, c.cols, c.extreme, c.nan, c.all), func(t *testing.T) {
			testPackedIQ3S(t, rng, kg.rows[IQ3_S], c.cols, c.groups, c.extreme, c.nan, c.all)
		})
	}
}

// testPackedIQ3S is one case of TestPackedIQ3S, gguf IQ3_S's GGUF-layout
// kernel; all gives row r's entry e the grid index (64r + e) mod 512, so
// that sixteen rows meet each entry of the codebook twice.
func testPackedIQ3S(t *testing.T, rng *rand.Rand, gguf rowsFn, cols, groups int, extreme, nan, all bool) {
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, IQ3_S, rows, cols)
	if all {
		for r := range rows {
			for sb := range nsb {
				blk := data[(r*nsb+sb)*iq3sBytes:][:iq3sBytes]
				for e := range 64 {
					idx := (64*r + e) % 512
					blk[2+e] = byte(idx)
					blk[66+e/8] = blk[66+e/8]&^(1<<(e%8)) | byte(idx>>8)<<(e%8)
				}
			}
		}
	}
	x := randomVec(rng, 4*cols)
	if extreme {
		big, most := 0, 0
		for i, g := range iq3s_grid {
			if s := int(g&0xff + g>>8&0xff + g>>16&0xff + g>>24); s > most {
				big, most = i, s
			}
		}
		for b := 0; b < len(data); b += iq3sBytes {
			blk := data[b : b+iq3sBytes]
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			for e := range 64 {
				blk[2+e] = byte(big)
			}
			for j := range 8 {
				blk[66+j] = byte(-(big >> 8) & 0xff)
			}
			for i := 74; i < iq3sBytes; i++ {
				blk[i] = 0xff // every sign negative, every scale 15
			}
		}
		for i := range x {
			x[i] = 1
			if i >= 2*cols {
				x[i] = -1
			}
		}
	}
	rb := nsb * iq3sBytes
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+iq3sBytes*(nsb-1):], 0x7e00)
	}
	p := make([]byte, groups*nsb*packIQ3SBlockBytes)
	for i := range p {
		p[i] = 0xff
	}
	packIQ3S(p, data, nsb, 0, groups)
	var buf actBuf
	buf.ensure(4, cols)
	for tok := range 4 {
		quantizeAct(buf.row(tok, cols), x[tok*cols:(tok+1)*cols])
	}
	one := make([]float32, 4*rows)
	want := make([]float32, rows)
	for tok := range 4 {
		a := buf.row(tok, cols)
		if extreme {
			for i, q := range a.qs[:cols] {
				if q != 127 && q != -127 {
					t.Fatalf("token %d: activation code %d at %d, not ±127", tok, q, i)
				}
			}
		}
		rowsPackedIQ3S(p, a, one[tok*rows:(tok+1)*rows])
		gguf(data, nil, a, want)
		xseen := actValues(x[tok*cols : (tok+1)*cols])
		for r := range rows {
			got := one[tok*rows+r]
			if math.Float32bits(got) != math.Float32bits(want[r]) {
				t.Fatalf("row %d token %d: packed %v, GGUF-layout kernel %v", r, tok, got, want[r])
			}
			if nan && r == 5 {
				if !math.IsNaN(float64(got)) {
					t.Fatalf("row %d token %d: %v with a NaN scale", r, tok, got)
				}
				continue
			}
			exact, mag := refDot(t, IQ3_S, data[r*rb:(r+1)*rb], xseen)
			if d := math.Abs(float64(got) - exact); d > 1e-5*mag+1e-30 {
				t.Fatalf("row %d token %d: %v, float64 %v (|diff| %g > 1e-5·%g)", r, tok, got, exact, d, mag)
			}
		}
	}
	const ostride = 97
	four := make([]float32, 3*ostride+rows)
	nb := cols / QK
	a4 := act{qs: buf.qs[:4*cols], d: buf.d[:4*nb], m8: buf.m8[:4*nb]}
	gemm4PackedIQ3S(p, a4, groups, four, ostride)
	for tok := range 4 {
		for r := range rows {
			if got, want := four[tok*ostride+r], one[tok*rows+r]; math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("row %d token %d: four-token %v, one-token %v", r, tok, got, want)
			}
		}
	}
}

// TestPackedIQ3SMatrix: Kernels.Pack packs an IQ3_S matrix of at least one
// group on the VNNI kernels (its leading Rows&^15 rows, Data left alone,
// 110 bytes a row and super-block), MatVec gives the unpacked matrix's
// numbers bit for bit on every row, and MatMul gives each token what
// MatVec gives it, through the packed prefill kernel, the padded group of
// three, the decode kernel for a tail of tokens and the GGUF-layout kernels
// for the tail rows; a NaN input shows in its token's outputs only.
func TestPackedIQ3SMatrix(t *testing.T) {
	if !hasIQZ {
		t.Skip("no AVX-512 VNNI, GFNI, VBMI and BITALG")
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	rng := rand.New(rand.NewPCG(83, 84))
	for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}, {512, 48}} {
		cols, rows := c.cols, c.rows
		data := randomWeights(rng, IQ3_S, rows, cols)
		orig := append([]byte(nil), data...)
		w, err := NewMatrix(IQ3_S, rows, cols, data)
		if err != nil {
			t.Fatal(err)
		}
		p := k.Pack(w)
		if p == w || p.Packed() != rows&^15 || k.Pack(p) != p {
			t.Fatalf("%d×%d: Pack gave %d packed rows (same matrix %v)", rows, cols, p.Packed(), p == w)
		}
		if len(p.packed) != p.Packed()*cols/QKK*iq3sBytes {
			t.Fatalf("%d×%d: packed copy of %d bytes for %d rows", rows, cols, len(p.packed), p.Packed())
		}
		x := randomVec(rng, 9*cols)
		y, yw := make([]float32, rows), make([]float32, rows)
		k.MatVec(y, p, x[:cols])
		k.MatVec(yw, w, x[:cols])
		for r := range rows {
			if math.Float32bits(y[r]) != math.Float32bits(yw[r]) {
				t.Fatalf("%d×%d row %d: packed %g, unpacked %g", rows, cols, r, y[r], yw[r])
			}
		}
		for _, n := range []int{1, 3, 4, 5, 9} {
			checkMatMulEqualsMatVec(t, k, p, x[:n*cols], n)
		}
		for i := range data {
			if data[i] != orig[i] {
				t.Fatalf("%d×%d: packing changed Data at byte %d", rows, cols, i)
			}
		}
		xn := append([]float32(nil), x[:4*cols]...)
		xn[cols+40] = float32(math.NaN())
		yn := make([]float32, 4*rows)
		k.MatMul(yn, p, xn, 4)
		for i, v := range yn {
			if (i/rows == 1) != math.IsNaN(float64(v)) {
				t.Fatalf("%d×%d: NaN in token 1: token %d row %d gives %g", rows, cols, i/rows, i%rows, v)
			}
		}
	}
}

// BenchmarkPackedIQ3S times IQ3_S's kernels, packed against the GGUF
// layout (benchPacked).
func BenchmarkPackedIQ3S(b *testing.B) {
	benchPacked(b, IQ3_S, iq3sBytes, packIQ3SBlockBytes, packIQ3S, rowsPackedIQ3S, gemm4PackedIQ3S)
}

// BenchmarkIQ3STriad is IQ3_S decode, GGUF layout against packed, against
// the STREAM triad of the same run (benchTriadTypes). Run with
// -benchtime=Nx (N rounds).
func BenchmarkIQ3STriad(b *testing.B) { benchTriadTypes(b, IQ3_S) }
