package grc

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// randomFrame is a d×k matrix with orthonormal columns (QR of a Gaussian).
func randomFrame(r *rand.Rand, d, k int) *mat.Dense {
	g := mat.NewDense(d, k, nil)
	for i := range d {
		for j := range k {
			g.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, d, 0, k))
}

// rowsOf is the k×d row-major basis whose rows are u's columns.
func rowsOf(u *mat.Dense) []float32 {
	d, k := u.Dims()
	w := make([]float32, k*d)
	for i := range k {
		for c := range d {
			w[i*d+c] = float32(u.At(c, i))
		}
	}
	return w
}

// gramError is max |W Wᵀ − I| over the k×d rows.
func gramError(w []float32, k, d int) float64 {
	worst := 0.0
	for i := range k {
		for j := range k {
			dot := 0.0
			for c := range d {
				dot += float64(w[i*d+c]) * float64(w[j*d+c])
			}
			if i == j {
				dot--
			}
			worst = math.Max(worst, math.Abs(dot))
		}
	}
	return worst
}

// largestAngleSine is sin of the largest principal angle between the
// row space of w (k×d, orthonormal rows) and the columns of u (d×k).
func largestAngleSine(w []float32, u *mat.Dense, k, d int) float64 {
	wm := mat.NewDense(k, d, nil)
	for i := range k {
		for c := range d {
			wm.Set(i, c, float64(w[i*d+c]))
		}
	}
	var wu mat.Dense
	wu.Mul(wm, u)
	var svd mat.SVD
	svd.Factorize(&wu, mat.SVDNone)
	s := svd.Values(nil)
	cos := math.Min(s[len(s)-1], 1)
	return math.Sqrt(1 - cos*cos)
}

// TestOjaStaysOrthonormal: thousands of updates with large, random and
// degenerate samples (zero, NaN, a sample along one row) keep the rows
// orthonormal to 1e-5.
func TestOjaStaysOrthonormal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const k, d = 6, 24
	u := randomFrame(r, d, k)
	start := rowsOf(u)
	o, err := NewOja(start, k, d, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, d)
	for step := range 3000 {
		for c := range x {
			x[c] = float32(10 * r.NormFloat64())
		}
		switch step % 500 {
		case 7:
			clear(x)
		case 8:
			x[3] = float32(math.NaN())
		case 9:
			b := o.Basis(nil)
			copy(x, b[2*d:3*d]) // along row 2: the step only scales it
		}
		o.Update(x)
	}
	w := o.Basis(nil)
	if e := gramError(w, k, d); e > 1e-5 {
		t.Fatalf("|W Wᵀ − I| = %g after %d updates", e, o.Steps())
	}
	if o.Steps() != 3000-2*6 {
		t.Fatalf("%d steps applied, want %d (the zero and NaN samples skipped)", o.Steps(), 3000-12)
	}
	if _, err := NewOja(make([]float32, k*d), k, d, 0.01); err == nil {
		t.Fatal("an all-zero basis was accepted")
	}
	for _, eta := range []float64{0, -0.1, math.NaN(), math.Inf(1)} {
		if _, err := NewOja(start, k, d, eta); err == nil {
			t.Fatalf("η₀ = %v was accepted", eta)
		}
	}
	for _, sh := range [][2]int{{0, d}, {k, 0}, {d + 1, d}, {k + 1, d}} {
		if _, err := NewOja(start, sh[0], sh[1], 0.01); err == nil {
			t.Fatalf("a %d×%d basis of %d values was accepted", sh[0], sh[1], len(start))
		}
	}
	dup := append([]float32(nil), start...)
	copy(dup[d:2*d], dup[:d])
	if _, err := NewOja(dup, k, d, 0.01); err == nil {
		t.Fatal("a basis with a repeated row was accepted")
	}
	nan := append([]float32(nil), start...)
	nan[5] = float32(math.Inf(-1))
	if _, err := NewOja(nan, k, d, 0.01); err == nil {
		t.Fatal("a basis with an infinite value was accepted")
	}
	// The basis is copied in, not aliased.
	o, _ = NewOja(start, k, d, 0.01)
	start[0] += 1
	if b := o.Basis(nil); b[0] == start[0] {
		t.Fatal("the Oja basis aliases the caller's slice")
	}
}

// TestOjaUpdateDoesNotAllocate: Update, Accumulate and Orthonormalise run
// in the preallocated rows (Online calls them between decode steps).
func TestOjaUpdateDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const k, d = 8, 64
	u := randomFrame(r, d, k)
	start := rowsOf(u)
	o, err := NewOja(start, k, d, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, d)
	for c := range x {
		x[c] = float32(r.NormFloat64())
	}
	if n := testing.AllocsPerRun(50, func() { o.Update(x) }); n != 0 {
		t.Fatalf("Update: %v allocations per call", n)
	}
	if n := testing.AllocsPerRun(50, func() { o.Accumulate(x); o.Orthonormalise() }); n != 0 {
		t.Fatalf("Accumulate + Orthonormalise: %v allocations per call", n)
	}
	dst := make([]float32, k*d)
	if n := testing.AllocsPerRun(50, func() { dst = o.Basis(dst) }); n != 0 {
		t.Fatalf("Basis into a large enough dst: %v allocations per call", n)
	}
}

// TestOjaCollapseKeepsPreviousRow: a step so large that every row turns to
// x makes row 1 collapse onto row 0 under Gram–Schmidt; it must keep its
// previous direction (e₁) with row 0's component removed, not some
// arbitrary one, and an overflowing step must leave the rows finite.
func TestOjaCollapseKeepsPreviousRow(t *testing.T) {
	const k, d = 2, 3
	o, err := NewOja([]float32{1, 0, 0, 0, 1, 0}, k, d, 1e15)
	if err != nil {
		t.Fatal(err)
	}
	o.Update([]float32{1, 1, 0})
	w := o.Basis(nil)
	s := float32(math.Sqrt(0.5))
	want := []float32{s, s, 0, -s, s, 0} // row 0 along x; row 1 = e₁ − (e₁·w₀)w₀, normalised
	for i := range want {
		if math.Abs(float64(w[i]-want[i])) > 1e-6 {
			t.Fatalf("after a collapsing step the rows are %v, want %v", w, want)
		}
	}
	// η₀ = 1e300 overflows w + η x (xᵀw): the rows keep their last
	// orthonormal state rather than turning infinite.
	o, err = NewOja([]float32{1, 0, 0, 0, 1, 0}, k, d, 1e300)
	if err != nil {
		t.Fatal(err)
	}
	o.Update([]float32{1e10, 1e10, 1e10})
	w = o.Basis(nil)
	for _, v := range w {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("an overflowing step left %v", w)
		}
	}
	if e := gramError(w, k, d); e > 1e-6 {
		t.Fatalf("after an overflowing step |W Wᵀ − I| = %g", e)
	}
}

// TestOjaTracksDriftingSubspace: samples from a k-dimensional subspace that
// rotates slowly, plus noise; the basis starts in an unrelated subspace
// and its largest principal angle to the current subspace falls from near
// 90° to a few degrees, and keeps up as the subspace drifts on.
func TestOjaTracksDriftingSubspace(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const k, d = 4, 32
	u := randomFrame(r, d, k)
	start := randomFrame(r, d, k)
	w0 := rowsOf(start)
	// The drift: a small rotation in the plane of u's first column and a
	// fixed direction outside u, applied to u every step.
	out := randomFrame(r, d, k+1).ColView(k)
	drift := func(u *mat.Dense, theta float64) {
		a := mat.VecDenseCopyOf(u.ColView(0))
		// Gram–Schmidt the outside direction against u.
		v := mat.VecDenseCopyOf(out)
		for j := range k {
			v.AddScaledVec(v, -mat.Dot(v, u.ColView(j)), u.ColView(j))
		}
		v.ScaleVec(1/v.Norm(2), v)
		for i := range d {
			u.Set(i, 0, math.Cos(theta)*a.AtVec(i)+math.Sin(theta)*v.AtVec(i))
		}
	}
	lambda := []float64{4, 3, 2.5, 2}
	x := make([]float32, d)
	sample := func() {
		for c := range x {
			x[c] = float32(0.05 * r.NormFloat64())
		}
		for j := range k {
			z := lambda[j] * r.NormFloat64()
			for c := range d {
				x[c] += float32(z * u.At(c, j))
			}
		}
	}
	// Per sample (Update), and in batches of 16 with one deflation each
	// (Accumulate, Orthonormalise: what Online does).
	u0 := mat.DenseCopyOf(u)
	for _, batch := range []int{1, 16} {
		u.Copy(u0)
		o, err := NewOja(w0, k, d, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		before := largestAngleSine(o.Basis(nil), u, k, d)
		for step := range 4000 {
			drift(u, 2e-4)
			sample()
			if batch == 1 {
				o.Update(x)
				continue
			}
			o.Accumulate(x)
			if step%batch == batch-1 {
				o.Orthonormalise()
			}
		}
		after := largestAngleSine(o.Basis(nil), u, k, d)
		t.Logf("batch %d: largest principal angle to the drifting subspace: sin %.3f → %.3f", batch, before, after)
		if before < 0.8 {
			t.Fatalf("the start was already close (sin %.3f): the test shows nothing", before)
		}
		if after > 0.15 {
			t.Fatalf("batch %d: the basis did not converge toward the drifted subspace: sin %.3f", batch, after)
		}
		if e := gramError(o.Basis(nil), k, d); e > 1e-5 {
			t.Fatalf("batch %d: |W Wᵀ − I| = %g", batch, e)
		}
	}
}

// TestOnline on kjv: an untouched Online is the compression; updates wait
// for four rejections counted since the last one, the queue keeps the
// newest 256 samples across blocks, only blocks with a non-zero sample move
// their version, a moved block's Q/K/V and gate/up groups are rebuilt from
// the new bases (In = the Oja rows, each Out = W·Inᵀ computed here in
// float64, stored in the compression's types) while O and down and the
// compression itself are untouched, and a State runs through it.
func TestOnline(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	gb, err := NewBuilder(m, QKV|FFN)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gb.Build(64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewOnline(nil, g, 0.5); err == nil {
		t.Fatal("NewOnline without a model was accepted")
	}
	if _, err := NewOnline(m, nil, 0.5); err == nil {
		t.Fatal("NewOnline without a compression was accepted")
	}
	if _, err := NewOnline(m, g, math.NaN()); err == nil {
		t.Fatal("NewOnline with η₀ = NaN was accepted")
	}
	o, err := NewOnline(m, g, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b []*tensor.Matrix) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	for l := range m.Layers {
		p, q := o.Block(l), g.Block(l)
		if p.QKV.In != q.QKV.In || !same(p.QKV.Out, q.QKV.Out) || p.FFN.In != q.FFN.In {
			t.Fatalf("block %d: an untouched online basis is not the compression's", l)
		}
	}
	if len(o.blocks[2].groups) != 2 {
		t.Fatalf("block 2 learns %d groups, want qkv and ffn", len(o.blocks[2].groups))
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, m.Dim)
	// 44 samples for block 1, then 256 for block 2: the queue is shared
	// across blocks, so block 1's are the oldest and all dropped.
	for i := range 300 {
		for c := range x {
			x[c] = float32(r.NormFloat64())
		}
		o.Add(1+min(i/44, 1), x)
	}
	o.Add(2, x[:m.Dim-1]) // the wrong width: ignored
	o.Add(m.Layers, x)    // not a block: ignored
	if o.Queued() != OnlineQueue {
		t.Fatalf("%d queued, want the newest %d", o.Queued(), OnlineQueue)
	}
	for range OnlineMinRejections - 1 {
		o.Reject()
	}
	if o.Update() || o.Version(2) != 0 || o.Updates() != 0 || o.Queued() != OnlineQueue {
		t.Fatal("updated before 4 rejections")
	}
	o.Reject()
	if !o.Update() || o.Version(2) != 1 || o.Version(1) != 0 || o.Queued() != 0 || o.Updates() != 1 {
		t.Fatalf("after 4 rejections: versions %d/%d, %d queued, %d updates", o.Version(1), o.Version(2), o.Queued(), o.Updates())
	}
	for _, grp := range o.blocks[2].groups {
		if grp.oja.Steps() != OnlineQueue {
			t.Fatalf("block 2 %s took %d samples, want the newest %d", groupName(grp.gi), grp.oja.Steps(), OnlineQueue)
		}
	}
	// The rejection count started again: one sample and three rejections
	// do not update; an all-zero sample moves no basis and no version.
	o.Add(3, x)
	for range OnlineMinRejections - 1 {
		o.Reject()
	}
	if o.Update() || o.Version(3) != 0 {
		t.Fatal("the rejection count was not reset by the update")
	}
	o.Reject()
	zero := make([]float32, m.Dim)
	o.Add(4, zero)
	if !o.Update() || o.Version(3) != 1 || o.Version(4) != 0 || o.Updates() != 2 {
		t.Fatalf("versions %d/%d after a real and a zero sample, %d updates", o.Version(3), o.Version(4), o.Updates())
	}
	if o.Version(-1) != 0 || o.Version(m.Layers) != 0 || o.Block(m.Layers).QKV != nil {
		t.Fatal("an index that is not a block was not answered with nothing")
	}
	p := o.Block(2)
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	gq := g.Block(2)
	if p.QKV.In == gq.QKV.In || p.FFN.In == gq.FFN.In || p.O != nil || p.Down.In != gq.Down.In || !same(p.Down.Out, gq.Down.Out) {
		t.Fatal("block 2: the learning groups were not rebuilt, or O/down changed")
	}
	// In is the new basis; each Out is W·P, checked in float64.
	k, d := p.QKV.In.Rows, p.QKV.In.Cols
	rows := make([]float32, k*d)
	if err := tensor.Dequantize(p.QKV.In.Type, rows, p.QKV.In.Data); err != nil {
		t.Fatal(err)
	}
	if e := gramError(rows, k, d); e > 1e-5 {
		t.Fatalf("rebuilt basis: |W Wᵀ − I| = %g", e)
	}
	moved := largestAngleSine(rows, frameOf(t, gq.QKV.In), k, d)
	if moved < 1e-3 {
		t.Fatalf("the basis did not move (sin %.2g)", moved)
	}
	b := m.Block(2)
	for gi, c := range []struct {
		pr   *model.Projection
		orig *model.Projection
		ws   []*tensor.Matrix
	}{{p.QKV, gq.QKV, []*tensor.Matrix{b.Q, b.K, b.V}}, {p.FFN, gq.FFN, []*tensor.Matrix{b.Gate, b.Up}}} {
		// In is the Oja basis as stored: F32 on this model, so exact.
		if c.pr.In.Type != c.orig.In.Type {
			t.Fatalf("group %d: basis stored as %v, the compression used %v", gi, c.pr.In.Type, c.orig.In.Type)
		}
		k, d := c.pr.In.Rows, c.pr.In.Cols
		rows := make([]float32, k*d)
		if err := tensor.Dequantize(c.pr.In.Type, rows, c.pr.In.Data); err != nil {
			t.Fatal(err)
		}
		want := o.blocks[2].groups[gi].oja.Basis(nil)
		for i := range rows {
			if math.Abs(float64(rows[i]-want[i])) > 1e-7 {
				t.Fatalf("group %d: In[%d] = %g, the Oja basis has %g", gi, i, rows[i], want[i])
			}
		}
		// Each Out is W·P with P = Inᵀ, in float64 from the dense weights.
		for i, w := range c.ws {
			if c.pr.Out[i].Type != c.orig.Out[i].Type || c.pr.Out[i].Rows != w.Rows || c.pr.Out[i].Cols != k {
				t.Fatalf("group %d slot %d: stored %v %d×%d", gi, i, c.pr.Out[i].Type, c.pr.Out[i].Rows, c.pr.Out[i].Cols)
			}
			dense := make([]float32, w.Rows*w.Cols)
			if err := tensor.Dequantize(w.Type, dense, w.Data); err != nil {
				t.Fatal(err)
			}
			got := make([]float32, w.Rows*k)
			if err := tensor.Dequantize(c.pr.Out[i].Type, got, c.pr.Out[i].Data); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for r := range w.Rows {
				for col := range k {
					want := 0.0
					for j := range d {
						want += float64(dense[r*d+j]) * float64(rows[col*d+j])
					}
					worst = math.Max(worst, math.Abs(want-float64(got[r*k+col])))
				}
			}
			// F32 storage: only the float32 rounding of the product.
			if worst > 1e-5 {
				t.Fatalf("group %d slot %d: projected weights differ from W·P by %g", gi, i, worst)
			}
		}
	}
	st, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetProjections(o); err != nil {
		t.Fatal(err)
	}
	if err := st.Forward([]int32{1, 300, 391}, make([]float32, m.Vocab)); err != nil {
		t.Fatal(err)
	}
	// The compression itself is untouched.
	if g.Block(2).QKV.In != gq.QKV.In {
		t.Fatal("the compression's basis changed")
	}
}

// frameOf is the d×k frame whose columns are m's rows.
func frameOf(t *testing.T, m *tensor.Matrix) *mat.Dense {
	t.Helper()
	rows := make([]float32, m.Rows*m.Cols)
	if err := tensor.Dequantize(m.Type, rows, m.Data); err != nil {
		t.Fatal(err)
	}
	u := mat.NewDense(m.Cols, m.Rows, nil)
	for i := range m.Rows {
		for c := range m.Cols {
			u.Set(c, i, float64(rows[i*m.Cols+c]))
		}
	}
	return u
}
