package model

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// counts are what a countingBackend saw, shared by a backend and its
// Shares (and so their binding domain).
type counts struct {
	matrix, vector, host, sync, embed int
	released                          []backend.Matrix
	maxRows                           int // the most rows an operation was given
	allocRows                         int // the most rows a buffer was allocated with
}

// countingBackend is the CPU backend with its calls counted; it is its
// own weight domain (its counts), frees weights (Releaser), can report a
// smaller batch and can refuse the failAt-th Matrix call.
type countingBackend struct {
	backend.Backend
	n      *counts
	batch  int // 0: the CPU's
	failAt int // 0: never
}

func newCounting() *countingBackend {
	return &countingBackend{Backend: cpu.New(nil), n: &counts{}}
}

var errRefused = errors.New("refused")

func (c *countingBackend) Matrix(m *tensor.Matrix) (backend.Matrix, error) {
	c.n.matrix++
	if c.n.matrix == c.failAt {
		return nil, errRefused
	}
	return c.Backend.Matrix(m)
}

func (c *countingBackend) Vector(v []float32) (backend.Vector, error) {
	c.n.vector++
	return c.Backend.Vector(v)
}

func (c *countingBackend) Release(m backend.Matrix) { c.n.released = append(c.n.released, m) }

func (c *countingBackend) Domain() any { return c.n }

func (c *countingBackend) Share() (backend.Backend, error) {
	inner, err := c.Backend.Share()
	if err != nil {
		return nil, err
	}
	return &countingBackend{Backend: inner, n: c.n, batch: c.batch}, nil
}

func (c *countingBackend) BatchSize() int {
	if c.batch != 0 {
		return c.batch
	}
	return c.Backend.BatchSize()
}

func (c *countingBackend) Alloc(rows, width int) (backend.Buffer, error) {
	c.n.allocRows = max(c.n.allocRows, rows)
	return c.Backend.Alloc(rows, width)
}

func (c *countingBackend) Embed(dst backend.Buffer, table backend.Matrix, tokens []int32) error {
	c.n.embed++
	c.n.maxRows = max(c.n.maxRows, len(tokens))
	return c.Backend.Embed(dst, table, tokens)
}

func (c *countingBackend) RMSNorm(dst, x backend.Buffer, w backend.Vector, n int, eps float32) {
	c.n.maxRows = max(c.n.maxRows, n)
	c.Backend.RMSNorm(dst, x, w, n, eps)
}

func (c *countingBackend) Host(b backend.Buffer, row0, n int) []float32 {
	c.n.host++
	return c.Backend.Host(b, row0, n)
}

func (c *countingBackend) Sync(b backend.Buffer, row0 int, rows []float32) {
	c.n.sync++
	c.Backend.Sync(b, row0, rows)
}

// denseMatrices is how many distinct weight matrices the model has (a tied
// classifier is the embedding table).
func denseMatrices(m *Model) int {
	seen := map[*tensor.Matrix]bool{m.tokEmbd: true, m.output: true}
	for l := range m.layers {
		b := m.Block(l)
		for _, w := range []*tensor.Matrix{b.Q, b.K, b.V, b.O, b.Gate, b.Up, b.Down} {
			seen[w] = true
		}
	}
	return len(seen)
}

// TestStatesShareTheirDomainsBinding: the model's weights are bound once
// per backend domain — a second State on the same backend, and one on a
// Share of it, bind nothing — and again for another domain; every State
// computes the same logits.
func TestStatesShareTheirDomainsBinding(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	prompt := []int32{1, 300, 400, 301}
	ref, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, m.Vocab)
	if err := ref.Forward(prompt, want); err != nil {
		t.Fatal(err)
	}

	b := newCounting()
	var states []*State
	for range 2 {
		s, err := m.NewStateOn(0, b)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	if b.n.matrix != denseMatrices(m) {
		t.Fatalf("two States bound %d matrices, want the model's %d once", b.n.matrix, denseMatrices(m))
	}
	vectors := b.n.vector
	shared, err := b.Share()
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.NewStateOn(0, shared)
	if err != nil {
		t.Fatal(err)
	}
	states = append(states, s)
	if b.n.matrix != denseMatrices(m) || b.n.vector != vectors {
		t.Fatalf("a State on a shared backend bound again: %d matrices, %d vectors", b.n.matrix, b.n.vector)
	}
	other := newCounting()
	if _, err := m.NewStateOn(0, other); err != nil {
		t.Fatal(err)
	}
	if other.n.matrix != denseMatrices(m) || other.n.vector != vectors {
		t.Fatalf("another domain bound %d matrices and %d vectors, want %d and %d", other.n.matrix, other.n.vector, denseMatrices(m), vectors)
	}
	for i, s := range states {
		got := make([]float32, m.Vocab)
		if err := s.Forward(prompt, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("state %d computes other logits than a state of its own", i)
		}
	}
}

// testProjections are hand-made model.Projections.
type testProjections []BlockProjections

func (p testProjections) Layers() int                  { return len(p) }
func (p testProjections) Block(l int) BlockProjections { return p[l] }

// f32Matrix makes an F32 matrix of rows × cols from values.
func f32Matrix(t testing.TB, rows, cols int, v []float32) *tensor.Matrix {
	t.Helper()
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	w, err := tensor.NewMatrix(tensor.F32, rows, cols, b)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// identity is a new d × d identity matrix.
func identity(t testing.TB, d int) *tensor.Matrix {
	id := make([]float32, d*d)
	for i := range d {
		id[i*d+i] = 1
	}
	return f32Matrix(t, d, d, id)
}

// identityProjections runs the Q/K/V and gate/up groups of the given
// blocks through an identity projection (x̃ = x) and the dense matrices,
// which an F32 model computes exactly as it does dense: one identity
// matrix, shared by every group.
func identityProjections(t testing.TB, m *Model, blocks ...int) testProjections {
	t.Helper()
	in := identity(t, m.Dim)
	p := make(testProjections, m.Layers)
	for _, l := range blocks {
		w := m.Block(l)
		p[l] = BlockProjections{
			QKV: &Projection{In: in, Out: []*tensor.Matrix{w.Q, w.K, w.V}},
			FFN: &Projection{In: in, Out: []*tensor.Matrix{w.Gate, w.Up}},
		}
	}
	return p
}

// TestSetProjectionsBindsOnlyProjections: SetProjections binds the
// projected matrices alone (a matrix used by several groups once), never
// the dense weights again; it releases the ones it replaces but not the
// ones the new projections use again, and Close releases the rest, once.
// A backend that refuses a matrix leaves the state as it was.
func TestSetProjectionsBindsOnlyProjections(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	if m.Layers < 2 {
		t.Fatalf("the test needs two blocks, the model has %d", m.Layers)
	}
	prompt := []int32{1, 300, 400, 301}
	b := newCounting()
	s, err := m.NewStateOn(0, b)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, m.Vocab)
	if err := s.Forward(prompt, want); err != nil {
		t.Fatal(err)
	}
	dense, vectors := b.n.matrix, b.n.vector

	// Block 0 projected: the identity and five matrices.
	p0 := identityProjections(t, m, 0)
	if err := s.SetProjections(p0); err != nil {
		t.Fatal(err)
	}
	if got := b.n.matrix - dense; got != 6 || b.n.vector != vectors {
		t.Fatalf("projecting block 0 bound %d matrices and %d vectors, want 6 and none", got, b.n.vector-vectors)
	}
	s.Reset()
	got := make([]float32, m.Vocab)
	if err := s.Forward(prompt, got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatal("an identity projection changed the logits")
	}

	// Blocks 0 and 1: block 0's matrices and the identity are kept, block
	// 1's five are new; nothing is released.
	p01 := identityProjections(t, m, 0, 1)
	p01[0] = p0[0]
	p01[1].QKV.In, p01[1].FFN.In = p0[0].QKV.In, p0[0].QKV.In
	if err := s.SetProjections(p01); err != nil {
		t.Fatal(err)
	}
	if got := b.n.matrix - dense; got != 11 || len(b.n.released) != 0 {
		t.Fatalf("adding block 1 bound %d matrices in all (want 11) and released %d (want 0)", got, len(b.n.released))
	}

	// Refused: the state keeps running p01 and releases what it bound (a
	// new identity; the second new one is refused).
	refused := identityProjections(t, m, 1)
	refused[1].FFN.In = identity(t, m.Dim)
	b.failAt = b.n.matrix + 2
	if err := s.SetProjections(refused); !errors.Is(err, errRefused) {
		t.Fatalf("a refused matrix: %v", err)
	}
	if len(b.n.released) != 1 || s.Projections() == nil || s.Projections().Block(0).QKV == nil {
		t.Fatalf("after a refusal: %d released (want the 1 bound), projections %v", len(b.n.released), s.Projections())
	}
	b.failAt, b.n.released = 0, nil

	// Back to block 1 alone: block 0's five go, the identity and block 1's
	// stay.
	before := b.n.matrix
	p1 := identityProjections(t, m, 1)
	p1[1] = p01[1]
	if err := s.SetProjections(p1); err != nil {
		t.Fatal(err)
	}
	if b.n.matrix != before || len(b.n.released) != 5 {
		t.Fatalf("dropping block 0 bound %d and released %d, want 0 and 5", b.n.matrix-before, len(b.n.released))
	}
	if err := s.SetProjections(nil); err != nil {
		t.Fatal(err)
	}
	if b.n.matrix != before || len(b.n.released) != 11 {
		t.Fatalf("dense again: bound %d and released %d in all, want 0 and 11", b.n.matrix-before, len(b.n.released))
	}
	s.Reset()
	if err := s.Forward(prompt, got); err != nil || !slices.Equal(got, want) {
		t.Fatalf("dense again: %v, logits equal %v", err, slices.Equal(got, want))
	}

	if err := s.SetProjections(p0); err != nil {
		t.Fatal(err)
	}
	b.n.released = nil
	s.Close()
	s.Close()
	if len(b.n.released) != 6 {
		t.Fatalf("Close twice released %d matrices, want the state's 6 once", len(b.n.released))
	}
	if err := s.Forward(prompt, got); err == nil {
		t.Fatal("a closed state ran")
	}
	// The dense weights are the domain's: a new State binds nothing.
	before = b.n.matrix
	if _, err := m.NewStateOn(0, b); err != nil || b.n.matrix != before {
		t.Fatalf("a new State after Close: %v, %d matrices bound", err, b.n.matrix-before)
	}
}

// roHook reads every layer and says so; wHook writes (it says nothing).
type roHook struct{ calls int }

func (h *roHook) AfterBlock(int, int, []float32) { h.calls++ }
func (h *roHook) ReadOnly() bool                 { return true }

type wHook struct{ calls int }

func (h *wHook) AfterBlock(int, int, []float32) { h.calls++ }

// atTwo is a read-only hook of layer 1 only.
type atTwo struct{ roHook }

func (h *atTwo) HookLayers() []int { return []int{1, 1} }

// TestReadOnlyHooksNeverSync: rows read by read-only hooks are copied to
// the host once per layer, however many hooks read them, and never
// written back; a writing hook writes each layer it is called at back
// once.
func TestReadOnlyHooksNeverSync(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	b := newCounting()
	s, err := m.NewStateOn(0, b)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int32{1, 300, 400, 301}
	r1, r2, two := &roHook{}, &roHook{}, &atTwo{}
	for _, h := range []any{r1, r2, two} {
		if _, err := s.AddHook(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Forward(prompt, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Forward([]int32{302}, nil); err != nil {
		t.Fatal(err)
	}
	if b.n.sync != 0 || b.n.host != 2*m.Layers {
		t.Fatalf("read-only hooks: %d syncs (want 0), %d copies to the host (want %d, one per layer and step)", b.n.sync, b.n.host, 2*m.Layers)
	}
	if r1.calls != 5*m.Layers || r2.calls != 5*m.Layers || two.calls != 5 {
		t.Fatalf("calls: %d, %d, %d at layer 1; want %d, %d, 5", r1.calls, r2.calls, two.calls, 5*m.Layers, 5*m.Layers)
	}
	w := &wHook{}
	remove, err := s.AddHook(w)
	if err != nil {
		t.Fatal(err)
	}
	b.n.host = 0
	if err := s.Forward([]int32{303}, nil); err != nil {
		t.Fatal(err)
	}
	if b.n.sync != m.Layers || b.n.host != m.Layers || w.calls != m.Layers {
		t.Fatalf("with a writer: %d syncs, %d copies, %d calls; want %d each", b.n.sync, b.n.host, w.calls, m.Layers)
	}
	remove()
	b.n.sync = 0
	if err := s.Forward([]int32{304}, nil); err != nil {
		t.Fatal(err)
	}
	if b.n.sync != 0 {
		t.Fatalf("the writer removed, %d syncs", b.n.sync)
	}
}

// TestBackendBatchSize: a backend that takes 5 rows at a time gets a
// 12-token prompt in steps of 5, 5 and 2, activations of 5 rows, and the
// same logits as the CPU's 64-row steps; Classify of more states than a
// step holds is split likewise.
func TestBackendBatchSize(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	prompt := make([]int32, 12)
	for i := range prompt {
		prompt[i] = int32(300 + 7*i)
	}
	ref, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, len(prompt)*m.Vocab)
	if err := ref.Forward(prompt, want); err != nil {
		t.Fatal(err)
	}
	b := newCounting()
	b.batch = 5
	s, err := m.NewStateOn(0, b)
	if err != nil {
		t.Fatal(err)
	}
	if s.BatchSize() != 5 || b.n.allocRows != 5 {
		t.Fatalf("batch %d, buffers of %d rows; want 5", s.BatchSize(), b.n.allocRows)
	}
	got := make([]float32, len(prompt)*m.Vocab)
	if err := s.Forward(prompt, got); err != nil {
		t.Fatal(err)
	}
	if b.n.embed != 3 || b.n.maxRows != 5 {
		t.Fatalf("%d steps of up to %d rows, want 3 of up to 5", b.n.embed, b.n.maxRows)
	}
	if d := maxDiff32(got, want); d > 1e-5 {
		t.Fatalf("logits in steps of 5 differ from one step by %g", d)
	}

	x := make([]float32, 7*m.Dim)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	want, got = make([]float32, 7*m.Vocab), make([]float32, 7*m.Vocab)
	if err := ref.Classify(x, want); err != nil {
		t.Fatal(err)
	}
	if err := s.Classify(x, got); err != nil {
		t.Fatal(err)
	}
	if b.n.maxRows != 5 || maxDiff32(got, want) > 1e-5 {
		t.Fatalf("Classify of 7 states: up to %d rows a step, logits differ by %g", b.n.maxRows, maxDiff32(got, want))
	}

	b.batch = -1
	if _, err := m.NewStateOn(0, b); err == nil {
		t.Fatal("a backend of batch size -1 was accepted")
	}
}

func maxDiff32(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}
