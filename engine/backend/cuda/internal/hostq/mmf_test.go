package hostq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The F16 and BF16 tile products on tensor cores (kernels/mmf.cuh, mmf.cu)
// against a float64 reference and the CPU engine: the m16n8k8 TF32
// fragment layouts, the activations' split, and whole launches run block
// by block on the host.

// TestMMFFragments: the TF32 fragment layouts give every element of A, B
// and C to one lane's register, and the host's mma through them adds the
// matrix product to D.
func TestMMFFragments(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	if !MMFCover() {
		t.Fatal("m16n8k8: the fragments do not cover the operands once each")
	}
	r := rand.New(rand.NewPCG(55, 11))
	for range 20 {
		a, b, d := make([]float32, 16*8), make([]float32, 8*8), make([]float32, 16*8)
		for i := range a {
			a[i] = tensor.F16ToF32(tensor.F32ToF16(float32(r.NormFloat64())))
		}
		for i := range b {
			b[i], _ = MMFSplit(float32(r.NormFloat64()))
		}
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		got := MMFMMA(a, b, d)
		for i := range 16 {
			for n := range 8 {
				s, mag := float64(d[8*i+n]), math.Abs(float64(d[8*i+n]))
				for k := range 8 {
					p := float64(a[8*i+k]) * float64(b[8*k+n])
					s += p
					mag += math.Abs(p)
				}
				if e := math.Abs(float64(got[8*i+n]) - s); e > 1e-6*mag {
					t.Fatalf("D[%d][%d] is %g, D + A·B's %g", i, n, got[8*i+n], s)
				}
			}
		}
	}
}

// TestMMFSplit: the activations' two parts are TF32 values (low 13 bits
// zero), hi + lo is x to 2⁻²² of it over float32's range (values past
// float16's range included; subnormals to 2⁻¹³⁶), and a weight of either half type
// times either part is exact in float32; NaN stays NaN, ±Inf is hi alone.
func TestMMFSplit(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 12))
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 1e5, -3e9, 1e-40, math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, math.Float32frombits(0x3f800fff), math.Float32frombits(0x3f801000), math.Float32frombits(0xbf801000)}
	for range 20000 {
		xs = append(xs, float32(r.NormFloat64()*math.Ldexp(1, r.IntN(200)-100)))
	}
	for _, x := range xs {
		hi, lo := MMFSplit(x)
		if math.Float32bits(hi)&0x1fff != 0 || math.Float32bits(lo)&0x1fff != 0 {
			t.Fatalf("x %g (%#x): hi %#x lo %#x are not TF32", x, math.Float32bits(x), math.Float32bits(hi), math.Float32bits(lo))
		}
		// Below 2⁻¹²⁶ the parts are float32 subnormals with 13 bits fewer.
		if e := math.Abs(float64(x) - float64(hi) - float64(lo)); e > max(math.Ldexp(math.Abs(float64(x)), -22), 0x1p-136) {
			t.Fatalf("x %g: hi %g + lo %g is %g off", x, hi, lo, e)
		}
		for range 4 {
			w16 := tensor.F16ToF32(tensor.F32ToF16(float32(r.NormFloat64())))
			wbf := tensor.BF16ToF32(tensor.F32ToBF16(float32(r.NormFloat64())))
			for _, w := range []float32{w16, wbf} {
				for _, p := range []float32{hi, lo} {
					if exact := float64(w) * float64(p); math.Abs(exact) < math.MaxFloat32 && math.Abs(exact) > 0x1p-126 && float64(w*p) != exact {
						t.Fatalf("x %g: %g × %g is not exact in float32", x, w, p)
					}
				}
			}
		}
	}
	if hi, lo := MMFSplit(float32(math.NaN())); !math.IsNaN(float64(hi)) || lo != 0 {
		t.Errorf("NaN splits into %g and %g", hi, lo)
	}
	if hi, lo := MMFSplit(float32(math.Inf(-1))); !math.IsInf(float64(hi), -1) || lo != 0 {
		t.Errorf("−Inf splits into %g and %g", hi, lo)
	}
}

// mmfActs is n rows of cols activations over a wide range of magnitudes
// (2⁻²⁰ to 2²⁰ of a normal value: beyond float16's range both ways).
func mmfActs(r *rand.Rand, n, cols int) []float32 {
	x := make([]float32, n*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(41)-20))
	}
	return x
}

// TestMMFBlocksMatchRows runs whole mmf_ launches on the host, every block
// phase by phase, for F16 and BF16 over ragged token counts, a row count
// that is no multiple of the tile and widths that end inside a step (and
// inside a 16-byte copy), along the kernel's aligned and unaligned paths:
// every result is the float64 product's and the CPU engine's to 2e-6 of
// the terms' magnitude Σ|w·x|, the paths agree bit for bit, and beta 1
// adds the product to what y held.
func TestMMFBlocksMatchRows(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 13))
	k := tensor.NewKernels(nil)
	defer k.Close()
	ns := []int{2, 3, 8, 37, 64, 67, 130}
	if testing.Short() {
		ns = []int{3, 67}
	}
	worst := 0.0
	for _, typ := range []tensor.Type{tensor.F16, tensor.BF16} {
		for _, cols := range []int{64, 100, 200, 1000} {
			const rows = 70
			rb := 2 * cols
			w := make([]byte, rows*rb)
			if err := tensor.FillRandom(typ, w, uint64(cols)+7, 0.05); err != nil {
				t.Fatal(err)
			}
			m, err := tensor.NewMatrix(typ, rows, cols, w)
			if err != nil {
				t.Fatal(err)
			}
			wf := make([]float64, rows*cols)
			for i := range wf {
				h := uint16(w[2*i]) | uint16(w[2*i+1])<<8
				if typ == tensor.F16 {
					wf[i] = float64(tensor.F16ToF32(h))
				} else {
					wf[i] = float64(tensor.BF16ToF32(h))
				}
			}
			for _, n := range ns {
				x := mmfActs(r, n, cols)
				y := make([]float32, n*rows)
				for i := range y {
					y[i] = float32(math.NaN()) // beta 0 must not read it
				}
				aligned, vec := rb%16 == 0, cols%4 == 0
				if err := MMFProduct(typ, w, rb, rows, cols, x, y, n, 0, aligned, vec, false); err != nil {
					t.Fatal(err)
				}
				if aligned || vec {
					y0 := make([]float32, len(y))
					if err := MMFProduct(typ, w, rb, rows, cols, x, y0, n, 0, false, false, false); err != nil {
						t.Fatal(err)
					}
					for i := range y {
						if !sameBits(y[i], y0[i]) {
							t.Fatalf("%v, %d × %d, %d tokens: the aligned paths give %g at %d, the plain ones %g", typ, rows, cols, n, y[i], i, y0[i])
						}
					}
				}
				ref := make([]float32, rows)
				for tok := range n {
					xt := x[tok*cols : (tok+1)*cols]
					k.MatVec(ref, m, xt)
					for row := range rows {
						var s, mag float64
						for c := range cols {
							p := wf[row*cols+c] * float64(xt[c])
							s += p
							mag += math.Abs(p)
						}
						got := float64(y[tok*rows+row])
						for _, want := range []struct {
							v   float64
							who string
						}{{s, "the float64 product's"}, {float64(ref[row]), "the CPU engine's"}} {
							e := math.Abs(got-want.v) / (mag + 1e-30)
							if !(e <= 2e-6) {
								t.Fatalf("%v, %d × %d, %d tokens: row %d token %d is %g, %s %g (error %.2g of the terms' magnitude)",
									typ, rows, cols, n, row, tok, got, want.who, want.v, e)
							}
							if want.who[4] == 'f' {
								worst = max(worst, e)
							}
						}
					}
				}
				// beta 1: the same product added to what y held.
				y1 := make([]float32, len(y))
				for i := range y1 {
					y1[i] = float32(r.NormFloat64())
				}
				old := append([]float32(nil), y1...)
				if err := MMFProduct(typ, w, rb, rows, cols, x, y1, n, 1, aligned, vec, false); err != nil {
					t.Fatal(err)
				}
				for i := range y1 {
					if want := y[i] + old[i]; !sameBits(y1[i], want) {
						t.Fatalf("%v, %d tokens: beta 1 gives %g at %d, the product %g plus %g is %g", typ, n, y1[i], i, y[i], old[i], want)
					}
				}
			}
		}
	}
	t.Logf("largest error against the float64 product: %.2g of the terms' magnitude", worst)
}

// TestMMFTruncatedSums: with every mma's sum rounded toward zero (a model
// of the tensor cores' truncating additions), a 4096-wide product over a
// tile of activations still agrees with the float64 product to the GPU
// test's 4e-6 of the terms' magnitude, the step's partial sums (mmf_flush)
// keeping the truncation's bias from growing along the row.
func TestMMFTruncatedSums(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 14))
	const rows, cols, n = 64, 4096, 64
	for _, typ := range []tensor.Type{tensor.F16, tensor.BF16} {
		w := make([]byte, rows*2*cols)
		if err := tensor.FillRandom(typ, w, 99, 0.05); err != nil {
			t.Fatal(err)
		}
		x := make([]float32, n*cols)
		for i := range x {
			// Activations of one sign in part of the rows: sums that grow
			// along the row, where a truncation's bias would add up.
			x[i] = float32(math.Abs(r.NormFloat64()))
			if i%cols < cols/2 && i/cols%2 == 0 {
				x[i] = float32(r.NormFloat64())
			}
		}
		y := make([]float32, n*rows)
		if err := MMFProduct(typ, w, 2*cols, rows, cols, x, y, n, 0, true, true, true); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for tok := range n {
			for row := range rows {
				var s, mag float64
				for c := range cols {
					h := uint16(w[2*(row*cols+c)]) | uint16(w[2*(row*cols+c)+1])<<8
					wv := tensor.F16ToF32(h)
					if typ == tensor.BF16 {
						wv = tensor.BF16ToF32(h)
					}
					p := float64(wv) * float64(x[tok*cols+c])
					s += p
					mag += math.Abs(p)
				}
				e := math.Abs(float64(y[tok*rows+row])-s) / mag
				if !(e <= 4e-6) {
					t.Fatalf("%v: row %d token %d is %g, the float64 product's %g (error %.2g of the terms' magnitude)", typ, row, tok, y[tok*rows+row], s, e)
				}
				worst = max(worst, e)
			}
		}
		t.Logf("%v: largest error with truncating sums %.2g of the terms' magnitude", typ, worst)
	}
}
