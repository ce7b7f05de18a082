package hostq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The tile products on tensor cores (kernels/mmq.cuh, mmq.cu) against the
// decode kernels' integer arithmetic and the CPU engine: the mma fragment
// layouts, every piece's integer sums as the decoded words form them, and
// whole launches run block by block on the host.

// TestMMAFragments: the fragment layouts give every element of the
// m16n8k16 and m16n8k32 operands to one lane's register, and the host's
// mma through them is the matrix product.
func TestMMAFragments(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 1))
	for _, k := range []int{16, 32} {
		if !MMACover(k) {
			t.Fatalf("m16n8k%d: the fragments do not cover the operands once each", k)
		}
		for range 20 {
			a, b := make([]int8, 16*32), make([]int8, 32*8)
			for i := range a {
				a[i] = int8(r.IntN(256) - 128)
			}
			for i := range b {
				b[i] = int8(r.IntN(256) - 128)
			}
			d := MMA(k, a, b)
			for i := range 16 {
				for n := range 8 {
					var s int32
					for kk := range k {
						s += int32(a[32*i+kk]) * int32(b[8*kk+n])
					}
					if d[8*i+n] != s {
						t.Fatalf("m16n8k%d: D[%d][%d] is %d, A·B's %d", k, i, n, d[8*i+n], s)
					}
				}
			}
		}
	}
}

// TestMMQPieceSumsMatchMVQ: every piece's sums A and B as the tile kernels
// form them (decoded int8 words, halves' multipliers) are mvq_isum's, and
// its float terms from the row's side decoded once (mmq_term) are
// mvq_term's, bit for bit; NaN and ±Inf activations too.
func TestMMQPieceSumsMatchMVQ(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 2))
	for _, typ := range dp4aTypes {
		for _, cols := range []int{256, 1280} {
			for ri, row := range dp4aRows(t, typ, cols, uint64(cols)+11) {
				for trial := range 3 {
					x := edgeActs(r, cols, trial)
					q, d, s := QuantAct8(x)
					for p, pc := range Pieces(typ, row, cols, q, d, s) {
						if a, b := MMQPieceSums(typ, row, q, p); a != pc.A || b != pc.B {
							t.Fatalf("%v, %d columns, row %d, trial %d, piece %d: sums %d %d, mvq_isum's %d %d", typ, cols, ri, trial, p, a, b, pc.A, pc.B)
						}
						if acc, accm := MMQPieceTerm(typ, row, d, s, p, pc.A, pc.B); !sameBits(acc, pc.Acc) || !sameBits(accm, pc.AccM) {
							t.Fatalf("%v, %d columns, row %d, trial %d, piece %d: terms %g %g, mvq_term's %g %g", typ, cols, ri, trial, p, acc, accm, pc.Acc, pc.AccM)
						}
					}
				}
			}
		}
	}
}

// mmqCols are the widths a type's tile products are tested at: for the
// 32-weight types one whose last step is a single block.
func mmqCols(typ tensor.Type) []int {
	if typ.BlockLen() == 32 {
		return []int{288, 512}
	}
	return []int{512}
}

// TestMMQBlocksMatchRows runs whole mmq_ launches on the host, every
// block phase by phase, for every type over ragged token counts and a row
// count that is no multiple of the tile: every (row, token, piece)'s
// integer sums are mvq_isum's exactly, every result is the mvq_ kernel's
// (and the CPU engine's) up to the order of the float terms' sum, and
// beta 1 adds the product to what y held.
func TestMMQBlocksMatchRows(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(55, 3))
	k := tensor.NewKernels(nil)
	defer k.Close()
	ns := []int{1, 3, 8, 37, 64, 67, 130}
	if testing.Short() {
		ns = []int{3, 67}
	}
	for _, typ := range dp4aTypes {
		for _, cols := range mmqCols(typ) {
			const rows = 70
			rb := cols / typ.BlockLen() * typ.BlockBytes()
			w := make([]byte, rows*rb)
			for i := range rows {
				if err := tensor.FillRandom(typ, w[i*rb:(i+1)*rb], uint64(1000*cols+i), 0.05); err != nil {
					t.Fatal(err)
				}
			}
			m, err := tensor.NewMatrix(typ, rows, cols, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range ns {
				x := make([]float32, 0, n*cols)
				for range n {
					x = append(x, edgeActs(r, cols, 0)...)
				}
				q, d, s := QuantAct8(x)
				y := make([]float32, n*rows)
				for i := range y {
					y[i] = float32(math.NaN()) // beta 0 must not read it
				}
				sums, err := MMQProduct(typ, w, rb, rows, cols, q, d, s, y, n, 0, true)
				if err != nil {
					t.Fatal(err)
				}
				np := cols / MVQWidth(typ)
				ref := make([]float32, rows)
				for tok := range n {
					qt, dt, st := q[tok*cols:(tok+1)*cols], d[tok*cols/32:(tok+1)*cols/32], s[tok*cols/32:(tok+1)*cols/32]
					k.MatVec(ref, m, x[tok*cols:(tok+1)*cols])
					for row := range rows {
						wr := w[row*rb : (row+1)*rb]
						var mag float64
						for p, pc := range Pieces(typ, wr, cols, qt, dt, st) {
							at := 2 * ((row*n+tok)*np + p)
							if sums[at] != pc.A || sums[at+1] != pc.B {
								t.Fatalf("%v, %d × %d, %d tokens: row %d token %d piece %d: sums %d %d, mvq_isum's %d %d",
									typ, rows, cols, n, row, tok, p, sums[at], sums[at+1], pc.A, pc.B)
							}
							mag += math.Abs(float64(pc.Acc)) + 16*math.Abs(float64(pc.AccM))
						}
						got := y[tok*rows+row]
						mvq, _ := RowProductQ8(typ, wr, cols, qt, dt, st, 1, 2)
						for _, want := range []struct {
							v   float32
							who string
						}{{mvq, "the mvq_ kernel's"}, {ref[row], "the CPU engine's"}} {
							if e := math.Abs(float64(got)-float64(want.v)) / (mag + 1e-30); !(e <= 2e-6) {
								t.Fatalf("%v, %d × %d, %d tokens: row %d token %d is %g, %s %g (error %.2g of the terms' magnitude)",
									typ, rows, cols, n, row, tok, got, want.who, want.v, e)
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
				if _, err := MMQProduct(typ, w, rb, rows, cols, q, d, s, y1, n, 1, false); err != nil {
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
}
