package tensor

import (
	"math/rand/v2"
	"testing"
)

// TestMatMulsEqualsMatVec: a fused batch of products of mixed types (a
// Q4_K_M file's Q4_K and Q6_K side by side, or a float one beside a
// quantised one) must give every product's tokens exactly what decode
// gives, including the padded group of three and batches large enough to
// quantise across the pool.
func TestMatMulsEqualsMatVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(NewPool(3), true, vnni)
		for _, types := range [][]Type{{Q4_K, Q4_K, Q6_K}, {Q8_0, F16}, {Q4_0, Q5_0, Q8_0, Q6_K}, {F32}, {Q4_0, Q4_0, Q4_0}} {
			const cols = 256
			for _, n := range []int{1, 2, 3, 7, 19} {
				ops := make([]MatMulOp, len(types))
				for i, typ := range types {
					rows := []int{64, 130, 7, 65}[i]
					w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
					if err != nil {
						t.Fatal(err)
					}
					ops[i] = MatMulOp{Dst: make([]float32, n*rows), W: k.Pack(w)}
				}
				x := randomVec(rng, n*cols)
				k.MatMuls(x, n, ops...)
				for i, op := range ops {
					rows := op.W.Rows
					want := make([]float32, rows)
					for j := range n {
						k.MatVec(want, op.W, x[j*cols:(j+1)*cols])
						for r := range rows {
							if got := op.Dst[j*rows+r]; got != want[r] {
								t.Fatalf("%s, %v, n=%d: product %d (%s) token %d row %d: %g, matvec %g", k.PrefillPath(), types, n, i, op.W.Type, j, r, got, want[r])
							}
						}
					}
				}
			}
		}
		k.pool.Close()
	}
}

// TestMatMulsAllocatesNothing: a prefill step reuses the kernels' buffers.
func TestMatMulsAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	k := NewKernels(NewPool(2))
	defer k.pool.Close()
	const n, cols = 23, 512
	var ops []MatMulOp
	for _, typ := range []Type{Q8_0, Q4_K, F16, Q4_0} {
		w, _ := NewMatrix(typ, 96, cols, randomWeights(rng, typ, 96, cols))
		ops = append(ops, MatMulOp{Dst: make([]float32, n*96), W: k.Pack(w)})
	}
	x := randomVec(rng, n*cols)
	k.MatMuls(x, n, ops...)
	if a := testing.AllocsPerRun(20, func() { k.MatMuls(x, n, ops...) }); a != 0 {
		t.Fatalf("MatMuls allocated %.0f times a call", a)
	}
}
