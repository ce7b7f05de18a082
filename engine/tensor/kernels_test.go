package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

var kernelTypes = []Type{F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, IQ4_XS, MXFP4, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M, TQ1_0, TQ2_0}

// randomWeights returns rows×cols weights of type t made of random bytes,
// with every block scale set to a sane random value, so that all code bits,
// packed-scale bits and high bits of every layout are exercised (a quantiser
// would leave some patterns unused).
func randomWeights(rng *rand.Rand, t Type, rows, cols int) []byte {
	rb, err := t.RowBytes(uint64(cols))
	if err != nil {
		panic(err)
	}
	b := make([]byte, int(rb)*rows)
	switch t {
	case F32:
		for i := 0; i < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(rng.NormFloat64())))
		}
		return b
	case F16, BF16:
		for i := 0; i < len(b); i += 2 {
			v := float32(rng.NormFloat64())
			h := F32ToF16(v)
			if t == BF16 {
				h = F32ToBF16(v)
			}
			binary.LittleEndian.PutUint16(b[i:], h)
		}
		return b
	}
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	bs := t.BlockBytes()
	scale := func(blk []byte, off int) {
		binary.LittleEndian.PutUint16(blk[off:], F32ToF16(float32(0.001+0.02*rng.Float64())))
	}
	for off := 0; off < len(b); off += bs {
		blk := b[off : off+bs]
		switch t {
		case Q8_0, Q4_0:
			scale(blk, 0)
		case Q5_0, IQ4_NL:
			scale(blk, 0)
		case Q4_1, Q5_1:
			scale(blk, 0)
			scale(blk, 2)
		case Q4_K, Q5_K:
			scale(blk, 0)
			scale(blk, 2)
		case Q6_K:
			scale(blk, 208)
		case Q2_K:
			scale(blk, 80)
			scale(blk, 82)
		case Q3_K:
			scale(blk, 108)
		case IQ4_XS, IQ1_S:
			scale(blk, 0)
		case IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S:
			scale(blk, 0)
		case TQ1_0:
			scale(blk, 52)
		case TQ2_0:
			scale(blk, 64)
		case IQ1_M:
			h := F32ToF16(float32(0.001 + 0.02*rng.Float64()))
			for k := range 4 {
				blk[49+2*k] = blk[49+2*k]&0x0F | byte(h>>(4*k))<<4
			}
		case MXFP4:
			// Scales 2^−10…2^−5: weights up to 12·2^−5, as IQ4_NL's
			// 0.001…0.021 times levels up to 127 reach 2.7.
			blk[0] = byte(118 + rng.IntN(6))
		}
	}
	return b
}

func randomVec(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// refDot is the float64 reference: dequantise the row, then dot it with x.
// It also returns Σ|w·x|, the scale rounding errors are measured against.
func refDot(t *testing.T, typ Type, row []byte, x []float32) (dot, mag float64) {
	t.Helper()
	w := make([]float32, len(x))
	if err := Dequantize(typ, w, row); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		p := float64(w[i]) * float64(x[i])
		dot += p
		mag += math.Abs(p)
	}
	return dot, mag
}

// actValues returns the float activations the integer kernels actually see:
// x after 8-bit block quantisation.
func actValues(x []float32) []float32 { return actValuesFor(F32, x) }

// actValuesFor is actValues for the products of type t: MXFP4's read
// float16 scales (actBuf.roundScales).
func actValuesFor(t Type, x []float32) []float32 {
	var buf actBuf
	buf.ensure(1, len(x))
	a := buf.row(0, len(x))
	quantizeAct(a, x)
	if f16Scales(t) {
		buf.roundScales(1, len(x))
	}
	out := make([]float32, len(x))
	for i, q := range a.qs {
		out[i] = a.d[i/QK] * float32(q)
	}
	return out
}

func shapesFor(t Type) []int {
	if t.BlockLen() == 1 {
		return []int{1, 7, 8, 172, 256, 1000}
	}
	if t.BlockLen() == QKK {
		return []int{256, 768, 2048}
	}
	return []int{32, 96, 512}
}

// TestDotPathsAgree runs every kernel path (portable Go, and the assembly on
// CPUs that have it) against a float64 dequantise-then-dot reference.
func TestDotPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := NewPool(2)
	defer pool.Close()
	paths := []*Kernels{newKernels(pool, false), newKernels(pool, true)}
	t.Logf("kernel paths: %s, %s", paths[0].Path(), paths[1].Path())
	for _, typ := range kernelTypes {
		for _, cols := range shapesFor(typ) {
			t.Run(fmt.Sprintf("%s/%d", typ, cols), func(t *testing.T) {
				const rows = 19
				data := randomWeights(rng, typ, rows, cols)
				w, err := NewMatrix(typ, rows, cols, data)
				if err != nil {
					t.Fatal(err)
				}
				x := randomVec(rng, cols)
				xseen := x
				if usesAct(typ) {
					xseen = actValuesFor(typ, x)
				}
				for _, k := range paths {
					y := make([]float32, rows)
					k.MatVec(y, w, x)
					for r := range rows {
						// Against the activations the kernel was given, only
						// float summation order differs.
						want, mag := refDot(t, typ, w.Row(r), xseen)
						if d := math.Abs(float64(y[r]) - want); d > 1e-5*mag+1e-30 {
							t.Errorf("%s row %d: got %g, want %g (|diff| %g > 1e-5·%g)", k.Path(), r, y[r], want, d, mag)
						}
						// Against the exact activations, the 8-bit rounding of x
						// (≤ amax/254 per element, amax of its block) is allowed.
						exact, mag2 := refDot(t, typ, w.Row(r), x)
						if d := math.Abs(float64(y[r]) - exact); d > actBound(t, typ, w.Row(r), x)+1e-5*mag2 {
							t.Errorf("%s row %d: got %g, exact %g: |diff| %g beyond activation rounding", k.Path(), r, y[r], exact, d)
						}
					}
				}
			})
		}
	}
}

// actBound is the worst case the 8-bit activation rounding can move a dot:
// Σ|w_i|·amax_b/254 over blocks b, since each code is off by at most half a step.
func actBound(t *testing.T, typ Type, row []byte, x []float32) float64 {
	if !usesAct(typ) {
		return 0
	}
	w := make([]float32, len(x))
	if err := Dequantize(typ, w, row); err != nil {
		t.Fatal(err)
	}
	var bound float64
	for b := 0; b < len(x); b += QK {
		var amax, sw float64
		for i := b; i < b+QK; i++ {
			amax = max(amax, math.Abs(float64(x[i])))
			sw += math.Abs(float64(w[i]))
		}
		bound += sw * amax / 254 * 1.0001
	}
	return bound
}

// TestMatMulEqualsMatVec: prefill must give each token exactly what decode
// would, bit for bit, or a prompt's logits would depend on how it was batched.
func TestMatMulEqualsMatVec(t *testing.T) {
	// Every prefill path this CPU can run: the VNNI kernels where it has
	// them, and the AVX2 ones in any case.
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(nil, true, vnni)
		t.Logf("prefill path %q (decode %s)", k.PrefillPath(), k.Path())
		testMatMulEqualsMatVec(t, k)
		k.Close()
	}
}

func testMatMulEqualsMatVec(t *testing.T, k *Kernels) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, typ := range kernelTypes {
		cols := 256
		for _, rows := range []int{1, 63, 64, 130} {
			for _, n := range []int{2, 3, 5, 7, 33} {
				w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if err != nil {
					t.Fatal(err)
				}
				x := randomVec(rng, n*cols)
				// A Q4_0 matrix both as read from the file and packed
				// (its packed rows and its unpacked tail).
				for _, w := range slices.Compact([]*Matrix{w, k.Pack(w)}) {
					checkMatMulEqualsMatVec(t, k, w, x, n)
				}
			}
		}
	}
	// Packed Q4_0 and Q8_0 with odd and single-block rows (the kernels'
	// tail block).
	for _, typ := range []Type{Q4_0, Q8_0} {
		for _, cols := range []int{32, 96, 160} {
			for _, rows := range []int{16, 48, 79} {
				w, _ := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if w = k.Pack(w); w.Packed() == 0 && k.prows[typ] != nil {
					t.Fatalf("%d×%d %s not packed", rows, cols, typ)
				}
				for _, n := range []int{3, 6, 9} {
					checkMatMulEqualsMatVec(t, k, w, randomVec(rng, n*cols), n)
				}
			}
		}
	}
	// Packed Q4_1 and Q4_K (AVX-512 VNNI only), with unpacked tail rows.
	for _, typ := range []Type{Q4_1, Q4_K} {
		for _, cols := range []int{256, 768} {
			for _, rows := range []int{16, 79, 130} {
				w, _ := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if w = k.Pack(w); w.Packed() == 0 && k.prows[typ] != nil {
					t.Fatalf("%d×%d %s not packed", rows, cols, typ)
				}
				for _, n := range []int{3, 6, 9, 70} {
					checkMatMulEqualsMatVec(t, k, w, randomVec(rng, n*cols), n)
				}
			}
		}
	}
}

// checkMatMulEqualsMatVec fails unless MatMul gives each of the n tokens
// in x exactly what MatVec gives it.
func checkMatMulEqualsMatVec(t *testing.T, k *Kernels, w *Matrix, x []float32, n int) {
	t.Helper()
	rows, cols := w.Rows, w.Cols
	got := make([]float32, n*rows)
	k.MatMul(got, w, x, n)
	want := make([]float32, rows)
	for i := range n {
		k.MatVec(want, w, x[i*cols:(i+1)*cols])
		for r := range rows {
			if got[i*rows+r] != want[r] {
				t.Fatalf("%s %s %d×%d (%d rows packed), n=%d: token %d row %d: matmul %g, matvec %g", k.PrefillPath(), w.Type, rows, cols, w.Packed(), n, i, r, got[i*rows+r], want[r])
			}
		}
	}
}

// TestThreadCountInvariant: results must not depend on how rows are split.
func TestThreadCountInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p1, p3 := NewPool(1), NewPool(3)
	defer p1.Close()
	defer p3.Close()
	k1, k3 := NewKernels(p1), NewKernels(p3)
	for _, typ := range kernelTypes {
		w, _ := NewMatrix(typ, 101, 512, randomWeights(rng, typ, 101, 512))
		w = k1.Pack(w) // Q4_0, Q8_0: 96 rows in groups that 3 threads' ranges cut
		x := randomVec(rng, 512)
		a, b := make([]float32, 101), make([]float32, 101)
		k1.MatVec(a, w, x)
		k3.MatVec(b, w, x)
		for r := range a {
			if a[r] != b[r] {
				t.Fatalf("%s row %d: 1 thread %g, 3 threads %g", typ, r, a[r], b[r])
			}
		}
	}
}

func TestKernelsAllocateNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	k := NewKernels(nil)
	defer k.Close()
	for _, typ := range kernelTypes {
		w, _ := NewMatrix(typ, 300, 512, randomWeights(rng, typ, 300, 512))
		w = k.Pack(w)
		x := randomVec(rng, 4*512)
		y := make([]float32, 4*300)
		k.MatMul(y, w, x, 4) // grow scratch once
		if n := testing.AllocsPerRun(20, func() { k.MatVec(y[:300], w, x[:512]) }); n != 0 {
			t.Errorf("%s MatVec: %v allocations per call", typ, n)
		}
		if n := testing.AllocsPerRun(20, func() { k.MatMul(y, w, x, 4) }); n != 0 {
			t.Errorf("%s MatMul: %v allocations per call", typ, n)
		}
	}
}

func TestNewMatrixRejectsBadShapes(t *testing.T) {
	cases := []struct {
		typ        Type
		rows, cols int
		n          int
	}{
		{Q4_K, 2, 100, 2 * 144}, // 100 is not a multiple of 256
		{Q8_0, 2, 64, 2*68 - 1}, // one byte short
		{F32, 0, 4, 0},
		{Q8_1, 1, 32, 36}, // known type without a kernel
		{Type(99), 1, 1, 4},
	}
	for _, c := range cases {
		if _, err := NewMatrix(c.typ, c.rows, c.cols, make([]byte, c.n)); err == nil {
			t.Errorf("NewMatrix(%s, %d, %d, %d bytes) accepted", c.typ, c.rows, c.cols, c.n)
		}
	}
}

func TestQuantizeActEdgeCases(t *testing.T) {
	k := NewKernels(nil)
	defer k.Close()
	rng := rand.New(rand.NewPCG(9, 10))
	w, _ := NewMatrix(Q8_0, 3, 64, randomWeights(rng, Q8_0, 3, 64))
	y := make([]float32, 3)
	k.MatVec(y, w, make([]float32, 64))
	for _, v := range y {
		if v != 0 {
			t.Fatalf("zero input gave %v", y)
		}
	}
	x := randomVec(rng, 64)
	x[40] = float32(math.NaN())
	k.MatVec(y, w, x)
	for _, v := range y {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("NaN input must show in every output, got %v", y)
		}
	}
}

type countTask struct{ hits []atomic.Int32 }

func (c *countTask) Run(lo, hi int) {
	for i := lo; i < hi; i++ {
		c.hits[i].Add(1)
	}
}

func TestPoolCoversEveryIndexOnce(t *testing.T) {
	for _, size := range []int{1, 2, 3, 8} {
		p := NewPool(size)
		for _, n := range []int{0, 1, 2, 7, 100} {
			c := &countTask{hits: make([]atomic.Int32, n)}
			p.Run(n, c)
			for i := range c.hits {
				if h := c.hits[i].Load(); h != 1 {
					t.Fatalf("pool %d, n=%d: index %d ran %d times", size, n, i, h)
				}
			}
		}
		p.Close()
	}
}

func TestPoolConcurrentRuns(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	done := make(chan *countTask)
	for range 4 {
		go func() {
			c := &countTask{hits: make([]atomic.Int32, 1000)}
			for range 50 {
				p.Run(1000, c)
			}
			done <- c
		}()
	}
	for range 4 {
		c := <-done
		for i := range c.hits {
			if h := c.hits[i].Load(); h != 50 {
				t.Fatalf("index %d ran %d times, want 50", i, h)
			}
		}
	}
}

func TestDotAndAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 7, 8, 33, 128} {
		a, b := randomVec(rng, n), randomVec(rng, n+3)
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := Dot(a, b); math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
			t.Fatalf("Dot n=%d: %g, want %g", n, got, want)
		}
		y := slices.Clone(b)
		Axpy(0.5, a, y)
		for i := range a {
			if y[i] != b[i]+0.5*a[i] {
				t.Fatalf("Axpy n=%d: y[%d]=%g", n, i, y[i])
			}
		}
	}
}

// TestMatVecsEqualsMatVec: a fused call gives each product exactly what a
// separate MatVec would, across mixed types, and allocates nothing.
func TestMatVecsEqualsMatVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	k := NewKernels(nil)
	defer k.Close()
	types := []Type{Q8_0, F16, Q4_K}
	rows := []int{37, 5, 64}
	ws := make([]*Matrix, 3)
	for i, typ := range types {
		ws[i], _ = NewMatrix(typ, rows[i], 512, randomWeights(rng, typ, rows[i], 512))
	}
	x := randomVec(rng, 512)
	got := [][]float32{make([]float32, 37), make([]float32, 5), make([]float32, 64)}
	k.MatVecs(x, MatVecOp{got[0], ws[0]}, MatVecOp{got[1], ws[1]}, MatVecOp{got[2], ws[2]})
	for i, w := range ws {
		want := make([]float32, w.Rows)
		k.MatVec(want, w, x)
		if !slices.Equal(got[i], want) {
			t.Fatalf("product %d (%s): fused %v, alone %v", i, w.Type, got[i][:4], want[:4])
		}
	}
	if n := testing.AllocsPerRun(20, func() {
		k.MatVecs(x, MatVecOp{got[0], ws[0]}, MatVecOp{got[1], ws[1]}, MatVecOp{got[2], ws[2]})
	}); n != 0 {
		t.Fatalf("MatVecs: %v allocations per call", n)
	}
}

func TestDotRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, n := range []int{8, 12, 64} {
		x := randomVec(rng, n)
		m := randomVec(rng, 7*n)
		out := make([]float32, 7)
		DotRows(m, x, out)
		for i := range out {
			want := Dot(m[i*n:(i+1)*n], x)
			if math.Abs(float64(out[i]-want)) > 1e-5*(1+math.Abs(float64(want))) {
				t.Fatalf("n=%d row %d: %g, want %g", n, i, out[i], want)
			}
		}
	}
}

// TestPoolParksAndWakes lets the workers outlast their polling time and park
// between runs, then checks that a run still reaches every one of them, and
// that Close stops parked and polling workers alike.
func TestPoolParksAndWakes(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, idle := range []time.Duration{0, spinFor / 2, 3 * spinFor} {
		p := NewPool(4)
		for round := range 3 {
			c := &countTask{hits: make([]atomic.Int32, 64)}
			p.Run(64, c)
			for i := range c.hits {
				if h := c.hits[i].Load(); h != 1 {
					t.Fatalf("idle %v, round %d: index %d ran %d times", idle, round, i, h)
				}
			}
			time.Sleep(idle)
		}
		p.Close()
	}
	// The workers exit asynchronously after Close; give them a moment.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after closing the pools, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWeightedSumEqualsAxpys: the attention's weighted sum must be what
// clearing the output and adding the rows with Axpy gives, bit for bit, for
// head widths on and off the kernel's 64- and 8-column steps.
func TestWeightedSumEqualsAxpys(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{8, 64, 72, 128, 3, 13} {
		for _, keys := range []int{0, 1, 5, 300} {
			v := randomVec(rng, keys*n)
			w := randomVec(rng, keys)
			want := make([]float32, n)
			for j := range keys {
				Axpy(w[j], v[j*n:(j+1)*n], want)
			}
			got := randomVec(rng, n) // stale contents must not leak in
			WeightedSum(got, v, w)
			for c := range want {
				if got[c] != want[c] {
					t.Fatalf("n=%d keys=%d: column %d: %g, Axpy loop %g", n, keys, c, got[c], want[c])
				}
			}
		}
	}
}
