package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestHeadProject: HeadProject equals the naive per-head products, forward
// and transposed, for query heads grouped onto fewer blocks (perHead > 1)
// and for one block per head, on a single row (serial) and on a batch
// large enough to go to the pool; rows past n and values past heads·r of
// a wider destination are left alone; and nothing is allocated.
func TestHeadProject(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	b := New(tensor.NewKernels(tensor.NewPool(2)))
	for _, tc := range []struct{ heads, per, r, w, n int }{
		{8, 2, 16, 32, 1},  // queries onto 4 KV heads, decode
		{8, 2, 16, 32, 40}, // the same, a batch (pool)
		{4, 1, 6, 32, 3},   // KV heads, each its own block
		{6, 3, 32, 32, 64}, // r = w: a full rotation's shape
	} {
		groups := tc.heads / tc.per
		mv := make([]float32, groups*tc.r*tc.w)
		for i := range mv {
			mv[i] = rng.Float32()*2 - 1
		}
		m, _ := encode(t, tensor.F32, groups*tc.r, tc.w, mv)
		M, err := b.Matrix(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, transpose := range []bool{false, true} {
			in, out := tc.w, tc.r
			if transpose {
				in, out = tc.r, tc.w
			}
			rows := tc.n + 1
			srcB, _ := b.Alloc(rows, tc.heads*in)
			dstB, _ := b.Alloc(rows, tc.heads*out+3) // wider than the heads: a packed prefix
			src, dst := hb(srcB).data, hb(dstB).data
			for i := range src {
				src[i] = rng.Float32()*2 - 1
			}
			for i := range dst {
				dst[i] = 42
			}
			b.HeadProject(dstB, srcB, tc.n, tc.heads, tc.per, M, transpose)
			dw := hb(dstB).width
			for i := range rows {
				for h := range tc.heads {
					blk := mv[(h/tc.per)*tc.r*tc.w:]
					for o := range out {
						got := dst[i*dw+h*out+o]
						if i >= tc.n {
							if got != 42 {
								t.Fatalf("%+v transpose=%v: row %d past n written", tc, transpose, i)
							}
							continue
						}
						var want float64
						for j := range in {
							x := float64(src[i*tc.heads*in+h*in+j])
							if transpose {
								want += float64(blk[j*tc.w+o]) * x // Mᵀ: row j, column o
							} else {
								want += float64(blk[o*tc.w+j]) * x
							}
						}
						if math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
							t.Fatalf("%+v transpose=%v: row %d head %d [%d] = %g, want %g", tc, transpose, i, h, o, got, want)
						}
					}
				}
				for j := tc.heads * out; j < dw; j++ {
					if dst[i*dw+j] != 42 {
						t.Fatalf("%+v transpose=%v: value %d past the heads written", tc, transpose, j)
					}
				}
			}
			if a := testing.AllocsPerRun(10, func() { b.HeadProject(dstB, srcB, tc.n, tc.heads, tc.per, M, transpose) }); a != 0 {
				t.Fatalf("%+v: %v allocations", tc, a)
			}
		}
	}
}

// TestHeadProjectSelection: a 0/1 selection matrix through HeadProject
// copies the chosen coordinates exactly (the K side of a KV projection is
// one, and r = HeadDim must reproduce the keys bit for bit).
func TestHeadProjectSelection(t *testing.T) {
	b := New(nil)
	const heads, w = 2, 8
	keep := [heads][]int{{1, 0, 6, 7}, {2, 3, 4, 5}}
	r := len(keep[0])
	mv := make([]float32, heads*r*w)
	for h, ks := range keep {
		for j, c := range ks {
			mv[(h*r+j)*w+c] = 1
		}
	}
	m, _ := encode(t, tensor.F32, heads*r, w, mv)
	M, _ := b.Matrix(m)
	srcB, _ := b.Alloc(1, heads*w)
	dstB, _ := b.Alloc(1, heads*r)
	src := hb(srcB).data
	for i := range src {
		src[i] = float32(math.Sqrt(float64(i + 2))) // inexact values: a sum of products would round
	}
	b.HeadProject(dstB, srcB, 1, heads, 1, M, false)
	for h, ks := range keep {
		for j, c := range ks {
			if got, want := hb(dstB).data[h*r+j], src[h*w+c]; got != want {
				t.Fatalf("head %d kept %d: %g, want exactly %g", h, c, got, want)
			}
		}
	}
}
