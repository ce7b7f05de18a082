//go:build amd64

package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits is bit equality, except that any NaN equals any NaN: which
// payload survives a sum of two NaNs is the hardware's choice, and the
// portable reference does not model it.
func sameBits(a, b float32) bool {
	if a != a && b != b {
		return true
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// TestToBF16Pairs checks the AVX-512 conversion against toBF16 and
// roundBF16 on normal values, ties, specials and random bit patterns.
func TestToBF16Pairs(t *testing.T) {
	if !hasBF16Pairs {
		t.Skip("no AVX512-BF16")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, mode := range []int{0, 1, 3, 4, 5, 6} {
		x := specialVec(rng, 4096, mode%6)
		if mode == 6 {
			for i := range x {
				x[i] = math.Float32frombits(rng.Uint32())
				if i%7 == 0 { // a tie: the low half exactly 0x8000
					x[i] = math.Float32frombits(math.Float32bits(x[i])&^0xffff | 0x8000)
				}
			}
		}
		want := make([]uint16, len(x))
		toBF16(want, x)
		got := make([]uint16, len(x))
		toBF16Arch(got, x)
		wide := make([]float32, len(x))
		roundBF16(wide, x)
		for i := range x {
			if got[i] != want[i] {
				t.Fatalf("mode %d: %#08x → %#04x, toBF16 %#04x", mode, math.Float32bits(x[i]), got[i], want[i])
			}
			if math.Float32bits(wide[i]) != uint32(want[i])<<16 {
				t.Fatalf("mode %d: roundBF16(%#08x) = %#08x, toBF16 %#04x", mode, math.Float32bits(x[i]), math.Float32bits(wide[i]), want[i])
			}
		}
	}
}

// TestBF16Pairs checks the pair kernels bit for bit: the one-token kernel
// against dotBF16PairsGo, and the four-token kernel against the one-token
// one per token, on every row count up to 70 (passes of four and the rest)
// and several widths, with special values in the weights.
func TestBF16Pairs(t *testing.T) {
	if !hasBF16Pairs {
		t.Skip("no AVX512-BF16")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, m := range []struct {
		name   string
		wm, xm int
	}{{"normal", 0, 0}, {"specials", 1, 1}, {"bits", 2, 0}, {"negzero", 3, 5}} {
		for _, cols := range []int{32, 96, 576, 2048} {
			t.Run(fmt.Sprintf("%s/%d", m.name, cols), func(t *testing.T) {
				for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 13, 64, 70} {
					w := halfWeights(rng, BF16, rows, cols, m.wm)
					h := make([]uint16, 4*cols)
					toBF16(h, specialVec(rng, 4*cols, m.xm))
					one := make([]float32, 4*rows)
					for tok := range 4 {
						a := act{h: h[tok*cols : (tok+1)*cols]}
						rowsBF16PairsAsm(w, nil, a, one[tok*rows:(tok+1)*rows])
						for r := range rows {
							want := dotBF16PairsGo(w[r*2*cols:(r+1)*2*cols], nil, a)
							if got := one[tok*rows+r]; !sameBits(got, want) {
								t.Fatalf("rows %d, row %d, token %d: kernel %v (%#08x), reference %v (%#08x)",
									rows, r, tok, got, math.Float32bits(got), want, math.Float32bits(want))
							}
						}
					}
					const ostride = 71
					four := make([]float32, 3*ostride+rows)
					gemm4BF16PairsAsm(w, nil, act{h: h}, rows, four, ostride)
					for tok := range 4 {
						for r := range rows {
							if got, want := four[tok*ostride+r], one[tok*rows+r]; !sameBits(got, want) {
								t.Fatalf("rows %d, row %d, token %d: four-token %v, one-token %v", rows, r, tok, got, want)
							}
						}
					}
				}
			})
		}
	}
}

// BenchmarkBF16Kernels compares BF16's float kernels (float32 activations,
// the path before the pair kernels and on CPUs without AVX512-BF16) with
// the pair kernels, one thread: the one-token kernels over a matrix of the
// 1B shape's FFN down projection (2048×8192, 32 MiB: from memory) and an
// L2-sized one (256×2048), and the four-token kernels over 64-row tiles.
func BenchmarkBF16Kernels(b *testing.B) {
	if !hasBF16Pairs {
		b.Skip("no AVX512-BF16")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][2]int{{2048, 8192}, {256, 2048}} {
		rows, cols := sh[0], sh[1]
		w := randomWeights(rng, BF16, rows, cols)
		x := randomVec(rng, 4*cols)
		h := make([]uint16, 4*cols)
		toBF16(h, x)
		out := make([]float32, 4*rows)
		b.Run(fmt.Sprintf("rows/float/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for range b.N {
				dotBF16RowsAVX2((*uint16)(ptr(w)), &x[0], cols, rows, &out[0])
			}
		})
		b.Run(fmt.Sprintf("rows/pairs/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for range b.N {
				dotBF16PairsRows((*uint16)(ptr(w)), &h[0], cols, rows, &out[0])
			}
		})
		b.Run(fmt.Sprintf("gemm4/float/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for range b.N {
				for r := 0; r < rows; r += 64 {
					gemm4BF16ZAsm(w[r*2*cols:], x, act{}, 64, out[r:], rows)
				}
			}
		})
		b.Run(fmt.Sprintf("gemm4/pairs/%dx%d", rows, cols), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for range b.N {
				for r := 0; r < rows; r += 64 {
					gemm4BF16PairsAsm(w[r*2*cols:], nil, act{h: h}, 64, out[r:], rows)
				}
			}
		})
	}
}
