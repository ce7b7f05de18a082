package hostq

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The decode products on integer dot products (quant.cuh's mvq_*, the
// quant_q8 kernel) against engine/tensor: the activations' quantisation
// bit for bit, every piece's integer sums and float terms bit for bit, and
// every launch shape's rows taking each piece once and adding up to the
// CPU engine's product.

// dp4aTypes are the types the mvq_ kernels compute.
var dp4aTypes = []tensor.Type{tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
	tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
	tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M}

// mvqShapes are (warps sharing a row, pieces a lane a step): the kernels'
// two, mvq_ (1, 2) and mvqk_ (4, 1), and others the lane arithmetic must
// survive.
var mvqShapes = [][2]int{{1, 2}, {4, 1}, {2, 2}, {4, 2}, {1, 1}}

// r32 rounds to float32: Go may fuse a product into an addition unless
// an explicit conversion rounds it first (the language spec), and the
// engine's terms are taken with every product rounded (amd64 fuses none).
func r32(v float32) float32 { return v }

// engineAct is engine/tensor's quantizeActGo (act.go), transcribed: the
// definition the CPU's assembly reproduces bit for bit.
func engineAct(x []float32) ([]int8, []float32, []float32) {
	q, d, s := make([]int8, len(x)), make([]float32, len(x)/32), make([]float32, len(x)/32)
	for b := range len(x) / 32 {
		xb := x[32*b : 32*b+32]
		var amax float32
		for _, v := range xb {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		if !(amax >= 0x1p-120 && amax <= math.MaxFloat32) {
			if !(amax < 0x1p-120) {
				d[b], s[b] = float32(math.NaN()), float32(math.NaN())
			}
			continue
		}
		dd := amax / 127
		id := 127 / amax
		var sum int32
		for i, v := range xb {
			c := int32(math.RoundToEven(float64(float32(v * id))))
			q[32*b+i] = int8(c)
			sum += c
		}
		d[b], s[b] = dd, float32(dd*float32(sum))
	}
	return q, d, s
}

// iq4nl is kvalues_iq4nl, IQ4_NL's and IQ4_XS's levels.
var iq4nl = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

func f16(b []byte) float32 { return tensor.F16ToF32(binary.LittleEndian.Uint16(b)) }

// k4 is engine/tensor's unpackK4 for sub-block j.
func k4(p []byte, j int) (float32, float32) {
	if j < 4 {
		return float32(p[j] & 63), float32(p[j+4] & 63)
	}
	return float32(p[j+4]&15 | (p[j-4]>>6)<<4), float32(p[j+4]>>4 | (p[j]>>6)<<4)
}

// enginePieces are engine/tensor's dot*Go (dot_go.go, dot_legacy.go)
// piece by piece: each block's (Q4_K/Q5_K: each chunk's) integer sums and
// the float terms it adds to acc and accMin.
func enginePieces(tt *testing.T, t tensor.Type, w []byte, cols int, q []int8, d, s []float32) []Piece {
	var out []Piece
	switch t {
	case tensor.Q8_0, tensor.Q4_0, tensor.Q5_0:
		for b := range cols / 32 {
			xq := q[32*b : 32*b+32]
			var sum int32
			var pc Piece
			switch t {
			case tensor.Q8_0:
				blk := w[34*b : 34*b+34]
				for i, c := range blk[2:34] {
					sum += int32(int8(c)) * int32(xq[i])
				}
				pc.Acc = r32(r32(f16(blk)*d[b]) * float32(sum))
			case tensor.Q4_0:
				blk := w[18*b : 18*b+18]
				for j, c := range blk[2:18] {
					sum += int32(c&15)*int32(xq[j]) + int32(c>>4)*int32(xq[j+16])
				}
				pc.Acc = r32(f16(blk) * (r32(d[b]*float32(sum)) - r32(8*s[b])))
			case tensor.Q5_0:
				blk := w[22*b : 22*b+22]
				qh := binary.LittleEndian.Uint32(blk[2:6])
				for j, c := range blk[6:22] {
					lo := int32(c&15) | int32(qh>>j&1)<<4
					hi := int32(c>>4) | int32(qh>>(j+16)&1)<<4
					sum += lo*int32(xq[j]) + hi*int32(xq[j+16])
				}
				pc.Acc = r32(r32(f16(blk)*d[b]) * float32(sum))
				pc.AccM = r32(f16(blk) * s[b])
			}
			pc.A = sum
			out = append(out, pc)
		}
	case tensor.Q4_K, tensor.Q5_K:
		bb, qoff := 144, 16
		if t == tensor.Q5_K {
			bb, qoff = 176, 48
		}
		for sb := range cols / 256 {
			blk := w[bb*sb : bb*sb+bb]
			dd, dmin := f16(blk), f16(blk[2:])
			for c := range 4 {
				qs := blk[qoff+32*c : qoff+32*c+32]
				j := sb*8 + 2*c
				var slo, shi int32
				for l, v := range qs {
					lo, hi := int32(v&15), int32(v>>4)
					if t == tensor.Q5_K {
						h := blk[16+l] >> (2 * c)
						lo |= int32(h&1) << 4
						hi |= int32(h&2) << 3
					}
					slo += lo * int32(q[32*j+l])
					shi += hi * int32(q[32*(j+1)+l])
				}
				sc0, m0 := k4(blk[4:16], 2*c)
				sc1, m1 := k4(blk[4:16], 2*c+1)
				out = append(out, Piece{A: slo, B: shi,
					Acc:  r32(dd * (r32(r32(sc0*d[j])*float32(slo)) + r32(r32(sc1*d[j+1])*float32(shi)))),
					AccM: r32(dmin * (r32(m0*s[j]) + r32(m1*s[j+1])))})
			}
		}
	case tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL:
		// dot_legacy.go's dotQ4_1Go, dotQ5_1Go, dotIQ4NLGo.
		bb := map[tensor.Type]int{tensor.Q4_1: 20, tensor.Q5_1: 24, tensor.IQ4_NL: 18}[t]
		for b := range cols / 32 {
			blk, xq := w[bb*b:bb*b+bb], q[32*b:32*b+32]
			var sum int32
			var pc Piece
			switch t {
			case tensor.Q4_1:
				for j, c := range blk[4:20] {
					sum += int32(c&15)*int32(xq[j]) + int32(c>>4)*int32(xq[j+16])
				}
			case tensor.Q5_1:
				qh := binary.LittleEndian.Uint32(blk[4:8])
				for j, c := range blk[8:24] {
					lo := int32(c&15) | int32(qh>>j&1)<<4
					hi := int32(c>>4) | int32(qh>>(j+16)&1)<<4
					sum += lo*int32(xq[j]) + hi*int32(xq[j+16])
				}
			case tensor.IQ4_NL:
				for j, c := range blk[2:18] {
					sum += int32(iq4nl[c&15])*int32(xq[j]) + int32(iq4nl[c>>4])*int32(xq[j+16])
				}
			}
			pc.A = sum
			pc.Acc = r32(r32(f16(blk)*d[b]) * float32(sum))
			if t != tensor.IQ4_NL {
				pc.AccM = r32(f16(blk[2:]) * s[b])
			}
			out = append(out, pc)
		}
	case tensor.IQ4_XS:
		// dot_k23.go's dotIQ4XSGo.
		for sb := range cols / 256 {
			blk := w[136*sb : 136*sb+136]
			for j := range 8 {
				b := sb*8 + j
				var sum int32
				for l, c := range blk[8+16*j : 24+16*j] {
					sum += int32(iq4nl[c&15])*int32(q[32*b+l]) + int32(iq4nl[c>>4])*int32(q[32*b+l+16])
				}
				ls := int32(blk[4+j/2]>>(4*(j%2))&15) | int32(binary.LittleEndian.Uint16(blk[2:])>>(2*j)&3)<<4 - 32
				out = append(out, Piece{A: sum, Acc: r32(r32(r32(f16(blk)*float32(ls))*d[b]) * float32(sum))})
			}
		}
	case tensor.Q2_K:
		// dot_k23.go's dotQ2KGo: A is Σ sc·Σq·xq, B is Σ m·Σxq.
		for sb := range cols / 256 {
			blk := w[84*sb : 84*sb+84]
			dd, dmin := f16(blk[80:]), f16(blk[82:])
			for j := range 8 {
				qs, shift, b := blk[16+32*(j/4):48+32*(j/4)], 2*uint(j%4), sb*8+j
				var pp, m int32
				for h := range 2 {
					sc := blk[2*j+h]
					var sq, sx int32
					for l := 16 * h; l < 16*h+16; l++ {
						sq += int32(qs[l]>>shift&3) * int32(q[32*b+l])
						sx += int32(q[32*b+l])
					}
					pp += int32(sc&15) * sq
					m += int32(sc>>4) * sx
				}
				out = append(out, Piece{A: pp, B: m, Acc: r32(d[b] * (r32(dd*float32(pp)) - r32(dmin*float32(m))))})
			}
		}
	case tensor.Q3_K:
		// dot_k23.go's dotQ3KGo, q3KScales transcribed.
		for sb := range cols / 256 {
			blk := w[110*sb : 110*sb+110]
			dd := f16(blk[108:])
			var sc [16]int32
			for k := range 16 {
				sc[k] = int32(blk[96+k%8]>>(4*(k/8))&15|(blk[104+k%4]>>(2*(k/4))&3)<<4) - 32
			}
			for j := range 8 {
				qs, shift, b := blk[32+32*(j/4):64+32*(j/4)], 2*uint(j%4), sb*8+j
				var pp int32
				for h := range 2 {
					var sq int32
					for l := 16 * h; l < 16*h+16; l++ {
						sq += (int32(qs[l]>>shift&3) + 4*int32(blk[l]>>j&1) - 4) * int32(q[32*b+l])
					}
					pp += sc[2*j+h] * sq
				}
				out = append(out, Piece{A: pp, Acc: r32(r32(dd*d[b]) * float32(pp))})
			}
		}
	case tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M:
		return iqPieces(tt, t, w, cols, q, d, s)
	case tensor.Q6_K:
		for sb := range cols / 256 {
			blk := w[210*sb : 210*sb+210]
			dd := f16(blk[208:])
			x := q[256*sb : 256*sb+256]
			for h := range 2 {
				ql, qh, xh := blk[64*h:64*h+64], blk[128+32*h:160+32*h], x[128*h:128*h+128]
				var sm [4][2]int32
				for l := range 32 {
					hb, g := qh[l], l/16
					sm[0][g] += (int32(ql[l]&15|(hb&3)<<4) - 32) * int32(xh[l])
					sm[1][g] += (int32(ql[l+32]&15|(hb>>2&3)<<4) - 32) * int32(xh[l+32])
					sm[2][g] += (int32(ql[l]>>4|(hb>>4&3)<<4) - 32) * int32(xh[l+64])
					sm[3][g] += (int32(ql[l+32]>>4|(hb>>6&3)<<4) - 32) * int32(xh[l+96])
				}
				for k := range 4 {
					b32, sc := sb*8+4*h+k, 8*h+2*k
					out = append(out, Piece{A: sm[k][0], B: sm[k][1],
						Acc: r32(r32(dd*d[b32]) * (r32(float32(int8(blk[192+sc]))*float32(sm[k][0])) + r32(float32(int8(blk[193+sc]))*float32(sm[k][1]))))})
				}
			}
		}
	}
	return out
}

func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// edgeActs are activation rows (cols a multiple of 256) of random
// normal values with edge blocks among them: zeros, values under 2⁻¹²⁰,
// ties of the rounding (amax 127, so that x·127/amax lands on k + ½),
// codes of ±127; from level 1 the largest floats (whose terms overflow),
// from level 2 NaN and ±Inf.
func edgeActs(r *rand.Rand, cols int, level int) []float32 {
	x := make([]float32, cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	edges := [][]float32{make([]float32, 32)}
	tiny := make([]float32, 32)
	tie := make([]float32, 32)
	big := make([]float32, 32)
	for i := range 32 {
		tiny[i] = float32(i-16) * 1e-38
		tie[i] = float32(i-16) + 0.5
		big[i] = float32(math.MaxFloat32/16) * float32(i-16) // −MaxFloat32 at i = 0
	}
	tie[0] = 127
	tie[1] = -127
	edges = append(edges, tiny, tie)
	if level >= 1 {
		edges = append(edges, big)
	}
	if level >= 2 {
		nan, inf := make([]float32, 32), make([]float32, 32)
		copy(nan, tie)
		copy(inf, tie)
		nan[7] = float32(math.NaN())
		inf[9] = float32(math.Inf(-1))
		edges = append(edges, nan, inf)
	}
	for k, e := range edges {
		b := (3 + 5*k) % (cols / 32)
		copy(x[32*b:], e)
	}
	return x
}

// TestQuantAct8MatchesEngine: quant_q8's codes, scales and sums are
// engine/tensor's, bit for bit, edge blocks included; and the CPU engine's
// own product with a Q8_0 identity (the asm path, whatever this CPU runs)
// sees the same activations d·q.
func TestQuantAct8MatchesEngine(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(51, 1))
	for trial := range 20 {
		cols := 256 * (1 + trial%5)
		x := edgeActs(r, cols, 2)
		q, d, s := QuantAct8(x)
		wq, wd, ws := engineAct(x)
		for i := range q {
			if q[i] != wq[i] {
				t.Fatalf("trial %d: code %d (block %d) is %d, the engine's %d", trial, i, i/32, q[i], wq[i])
			}
		}
		for b := range d {
			if !sameBits(d[b], wd[b]) || !sameBits(s[b], ws[b]) {
				t.Fatalf("trial %d: block %d has d %g s %g, the engine's %g %g", trial, b, d[b], s[b], wd[b], ws[b])
			}
		}
	}
	// The engine's kernels: an identity of Q8_0 rows (d = 1, one code 1)
	// gives row i = d_b·q_i, the activations its products meet.
	k := tensor.NewKernels(nil)
	defer k.Close()
	const cols = 512
	w := make([]byte, cols*cols/32*34)
	for i := range cols {
		blk := w[i*cols/32*34+(i/32)*34:]
		binary.LittleEndian.PutUint16(blk, 0x3c00)
		blk[2+i%32] = 1
	}
	m, err := tensor.NewMatrix(tensor.Q8_0, cols, cols, w)
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 5 {
		x := edgeActs(r, cols, 0)
		q, d, _ := QuantAct8(x)
		got := make([]float32, cols)
		k.MatVec(got, m, x)
		for i := range got {
			if want := r32(d[i/32] * float32(q[i])); !sameBits(got[i], want) {
				t.Fatalf("trial %d: the engine's product sees activation %d as %g, quant_q8 makes it %g (d %g, q %d)", trial, i, got[i], want, d[i/32], q[i])
			}
		}
	}
}

// dp4aRows are weight rows of type t: FillRandom's, and rows of one byte
// everywhere (the codes' extremes: 0x00, 0xff, 0x80, 0x7f) with finite
// scales written over the byte.
func dp4aRows(t *testing.T, typ tensor.Type, cols int, seed uint64) [][]byte {
	n := cols / typ.BlockLen() * typ.BlockBytes()
	var rows [][]byte
	for s := range uint64(3) {
		row := make([]byte, n)
		if err := tensor.FillRandom(typ, row, seed+s, 0.05); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	for _, fill := range []byte{0x00, 0xff, 0x80, 0x7f} {
		row := make([]byte, n)
		for i := range row {
			row[i] = fill
		}
		for b := 0; b < n; b += typ.BlockBytes() {
			switch typ {
			case tensor.Q6_K:
				binary.LittleEndian.PutUint16(row[b+208:], 0x2e66) // 0.1
			case tensor.Q4_K, tensor.Q5_K, tensor.Q4_1, tensor.Q5_1:
				binary.LittleEndian.PutUint16(row[b:], 0x2e66)
				binary.LittleEndian.PutUint16(row[b+2:], 0x2266) // 0.0125
			case tensor.Q2_K:
				binary.LittleEndian.PutUint16(row[b+80:], 0x2e66)
				binary.LittleEndian.PutUint16(row[b+82:], 0x2266)
			case tensor.Q3_K:
				binary.LittleEndian.PutUint16(row[b+108:], 0xae66)
			case tensor.TQ2_0:
				binary.LittleEndian.PutUint16(row[b+64:], 0xae66)
			case tensor.TQ1_0:
				binary.LittleEndian.PutUint16(row[b+52:], 0xae66)
			case tensor.IQ1_M:
				// d's nibbles are the scale words' top ones: 0xae66.
				for k, n := range []byte{6, 6, 0xe, 0xa} {
					row[b+49+2*k] = row[b+49+2*k]&0x0f | n<<4
				}
			default:
				binary.LittleEndian.PutUint16(row[b:], 0xae66) // −0.1
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestDP4APiecesMatchEngine: every piece's integer sums equal the CPU
// engine's (dot*Go's, which its assembly reproduces) and so do the float
// terms it adds, bit for bit; NaN and ±Inf activations too.
func TestDP4APiecesMatchEngine(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(51, 2))
	for _, typ := range dp4aTypes {
		for _, cols := range []int{256, 1280} {
			for ri, row := range dp4aRows(t, typ, cols, uint64(cols)) {
				for trial := range 4 {
					x := edgeActs(r, cols, max(0, trial-1))
					q, d, s := QuantAct8(x)
					got, want := Pieces(typ, row, cols, q, d, s), enginePieces(t, typ, row, cols, q, d, s)
					if len(got) != len(want) {
						t.Fatalf("%v: %d pieces, the engine's row has %d", typ, len(got), len(want))
					}
					for p := range got {
						g, w := got[p], want[p]
						if g.A != w.A || g.B != w.B || !sameBits(g.Acc, w.Acc) || !sameBits(g.AccM, w.AccM) {
							t.Fatalf("%v, %d columns, row %d, trial %d, piece %d: sums %d %d terms %g %g; the engine's %d %d, %g %g",
								typ, cols, ri, trial, p, g.A, g.B, g.Acc, g.AccM, w.A, w.B, w.Acc, w.AccM)
						}
					}
				}
			}
		}
	}
}

// TestDP4ARowMatchesEngine: in every launch shape, the mvq_ lanes take
// each piece of a row exactly once, and the row's result is the CPU
// engine's product up to the order in which the pieces' terms are added.
func TestDP4ARowMatchesEngine(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(51, 3))
	k := tensor.NewKernels(nil)
	defer k.Close()
	for _, typ := range dp4aTypes {
		for _, cols := range []int{256, 1280, 4096, 14336} {
			for ri, row := range dp4aRows(t, typ, cols, uint64(cols)+7) {
				x := edgeActs(r, cols, 0)
				q, d, s := QuantAct8(x)
				m, err := tensor.NewMatrix(typ, 1, cols, row)
				if err != nil {
					t.Fatal(err)
				}
				ref := make([]float32, 1)
				k.MatVec(ref, m, x)
				var mag float64
				for _, p := range enginePieces(t, typ, row, cols, q, d, s) {
					mag += math.Abs(float64(p.Acc)) + 16*math.Abs(float64(p.AccM))
				}
				for _, sh := range mvqShapes {
					got, visits := RowProductQ8(typ, row, cols, q, d, s, sh[0], sh[1])
					for p, v := range visits {
						if v != 1 {
							t.Fatalf("%v, %d columns, shape %v: piece %d taken %d times", typ, cols, sh, p, v)
						}
					}
					if e := math.Abs(float64(got)-float64(ref[0])) / (mag + 1e-30); !(e <= 2e-6) {
						t.Fatalf("%v, %d columns, row %d, shape %v: %g, the engine's %g (error %.2g of the terms' magnitude)", typ, cols, ri, sh, got, ref[0], e)
					}
				}
			}
		}
	}
}

// iqScale is the step of the integers the CPU engine's dot of an IQ or
// TQ type sums (dot_iq1.go, dot_iq2.go, dot_iq3.go), in which super-block
// sb's decoded weights are whole multiples, and the float d·c the
// block's term multiplies by dx: d/8 for IQ2 and IQ1 (the eighths: 2ls+1
// and 8g±1 are integers), d/4 for IQ3_XXS, d for IQ3_S and TQ.
func iqScale(t tensor.Type, blk []byte) float32 {
	switch t {
	case tensor.TQ2_0:
		return f16(blk[64:])
	case tensor.TQ1_0:
		return f16(blk[52:])
	case tensor.IQ3_S:
		return f16(blk)
	case tensor.IQ3_XXS:
		return r32(f16(blk) * 0.25)
	case tensor.IQ1_M:
		var h uint16
		for k := range 4 {
			h |= binary.LittleEndian.Uint16(blk[48+2*k:]) >> 12 << (4 * k)
		}
		return r32(tensor.F16ToF32(h) * 0.125)
	}
	return r32(f16(blk) * 0.125)
}

// iqPieces is the reference for the IQ and TQ types, whose codebooks
// engine/tensor keeps to itself: the integers its dots sum are its own
// decoded weights (tensor.Dequantize) over the step iqScale (exact: the
// decoders' products are exact, which the check below asserts), so each
// block's sum is Σ(w/step)·xq and its term (step·dx)·sum, as dot*Go add it.
func iqPieces(tt *testing.T, t tensor.Type, w []byte, cols int, q []int8, d, s []float32) []Piece {
	wf := make([]float32, cols)
	if err := tensor.Dequantize(t, wf, w); err != nil {
		tt.Fatal(err)
	}
	bb := t.BlockBytes()
	var out []Piece
	for sb := range cols / 256 {
		step := iqScale(t, w[bb*sb:bb*sb+bb])
		for j := range 8 {
			b := sb*8 + j
			var sum int32
			for l := range 32 {
				k := float64(wf[32*b+l]) / float64(step)
				if k != math.Round(k) || math.Abs(k) > 1<<12 {
					tt.Fatalf("%v: weight %d is %g, not a whole multiple of the step %g", t, 32*b+l, wf[32*b+l], step)
				}
				sum += int32(k) * int32(q[32*b+l])
			}
			out = append(out, Piece{A: sum, Acc: r32(r32(step*d[b]) * float32(sum))})
		}
	}
	return out
}
