package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// MaxBatch is the most rows one operation takes: the engine's prefill step
// (model.MaxBatch), so that a prompt's products give the tensor cores (the
// mmq_ kernels) up to 256 tokens at once.
const MaxBatch = 256

// maxHeadDim is the widest head the attention kernels take (ATT_HD).
const maxHeadDim = 256

// Backend runs one State's forward pass on a Device: activations, the KV
// cache and scratch live in device memory, the weights are the Device's,
// and every operation is one kernel launch on the device's default stream,
// in order (a quantised product is two: the activations' rounding, then the
// product; decode's products of the common types quantise the input to
// int8 once and run on integer dot products, quantQ8 and productQ8). A
// decode step's launches are recorded and run as one CUDA graph once their
// sequence repeats (graph.go). The host sees activations only where the
// engine asks: Host and Sync for a hook's rows, Logits for the classifier.
// It is used by one goroutine at a time.
//
// Launch errors are sticky, as CUDA's are: the first is kept, later
// operations do nothing, and Err (and the next Embed, so the next Forward)
// reports it.
type Backend struct {
	g    *Device
	args *cu.Args
	err  error

	ids    cu.DevicePtr // MaxBatch token ids
	logits cu.DevicePtr // device scratch for the classifier's output
	nlog   int          // its capacity in floats
	projc  cu.DevicePtr // B·x of a projection, MaxBatch × maxRank
	nprojc int
	xq     cu.DevicePtr // activations on the CPU's 8-bit grid (quant_act)
	nxq    int          // its capacity in floats
	q8     cu.DevicePtr // activations as int8 codes, scales and sums (quant_q8): decode's row, or a batch's rows
	nq8    int          // its capacity in values
	// normed is the row that the last operation, a decode RMSNorm, both
	// wrote and quantised into q8 (rmsnorm_q8); held is what enter took
	// of it for the operation that follows, whose products of that row
	// then skip quant_q8. Any other operation in between drops it.
	normed, held normedRow
	freqs        map[*float32]cu.DevicePtr // RoPE divisors, uploaded once per table
	// part is the split attention's partial softmaxes (attention.go),
	// grown by NewKV to the largest cache's need (by Attend for another
	// backend's cache): npart floats.
	part  cu.DevicePtr
	npart int
	// noPart: growing part for another backend's cache failed (Attend
	// then tiles, attention.go).
	noPart bool
	// kv16 is ReadKV's host row of an f16 cache (readKV16).
	kv16 []uint16

	owned  []cu.DevicePtr // buffers and caches this backend allocated
	closed bool

	// st is the open decode step and the backend's graph (graph.go).
	st stepState
	// locked says enter made the context current on a locked thread; an
	// operation of a deferred decode step only records its launches and
	// skips that.
	locked bool
}

// NewBackend returns a backend on the device for one State.
func (g *Device) NewBackend() (*Backend, error) {
	b := &Backend{g: g, args: new(cu.Args), freqs: map[*float32]cu.DevicePtr{}}
	err := g.with(func() error {
		var err error
		b.ids, err = b.alloc(MaxBatch * 4)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	g.mu.Lock()
	g.open++
	g.mu.Unlock()
	return b, nil
}

// Device is the GPU the backend runs on.
func (b *Backend) Device() *Device { return b.g }

// Name says which GPU runs the operations.
func (b *Backend) Name() string { return "cuda " + b.g.Name() }

// BatchSize is the most rows one operation takes.
func (b *Backend) BatchSize() int { return MaxBatch }

// Share returns another backend on the same device for a State that runs
// concurrently: the weights are the Device's, so they are shared.
func (b *Backend) Share() (backend.Backend, error) { return b.g.NewBackend() }

// Domain is the Device: every backend on it accepts the others' weights.
func (b *Backend) Domain() any { return b.g }

// Err is the first device error, if any. It also ends a decode step that
// asked for no logits (the engine calls it at the end of every step): the
// launches the step recorded are issued (graph.go).
func (b *Backend) Err() error {
	if b.st.on && b.err == nil && !b.closed {
		b.g.with(b.endStepErr)
	}
	return b.err
}

// endStepErr is endStep for g.with.
func (b *Backend) endStepErr() error {
	b.endStep()
	return nil
}

// ctx runs f with the device's context current: directly inside an
// operation that made it current, else through Device.with (an operation
// of a deferred decode step that has to allocate).
func (b *Backend) ctx(f func() error) error {
	if b.locked {
		return f()
	}
	return b.g.with(f)
}

// alloc allocates device memory the backend owns.
func (b *Backend) alloc(bytes int) (p cu.DevicePtr, err error) {
	if !b.locked {
		err = b.g.with(func() error {
			p, err = b.allocCur(bytes)
			return err
		})
		return p, err
	}
	return b.allocCur(bytes)
}

// allocCur is alloc with the context current.
func (b *Backend) allocCur(bytes int) (cu.DevicePtr, error) {
	p, err := b.g.d.Alloc(uint64(bytes))
	if err != nil {
		return 0, fmt.Errorf("allocating %d bytes on %s: %w", bytes, b.g.name, err)
	}
	if err := b.g.d.MemsetD8(p, 0, uint64(bytes)); err != nil {
		b.g.d.Free(p)
		return 0, err
	}
	b.owned = append(b.owned, p)
	return p, nil
}

// Close frees what the backend allocated: buffers, caches, scratch. The
// weights it bound are the Device's: a model binds its dense weights once
// per device for every State (engine/model), so they stay until the Device
// closes; a State releases what it bound for itself (Release).
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	err := b.g.with(func() error {
		b.endStep()
		errs := []error{b.closeGraph()}
		for _, p := range b.owned {
			errs = append(errs, b.g.d.Free(p))
		}
		for _, p := range b.freqs {
			errs = append(errs, b.g.d.Free(p))
		}
		b.owned, b.freqs = nil, nil
		return errors.Join(errs...)
	})
	b.g.mu.Lock()
	b.g.open--
	b.g.mu.Unlock()
	return err
}

// enter makes the device's context current on a locked thread for one
// operation; leave undoes the lock. A failed backend does nothing. An
// operation of a deferred decode step only records launches, so it
// skips the lock (graph.go).
func (b *Backend) enter() bool {
	b.held, b.normed = b.normed, normedRow{}
	if b.err != nil || b.closed {
		return false
	}
	if b.st.deferring {
		return true
	}
	return b.lock()
}

// enterCopy is enter for an operation that copies between host and device
// or frees: a deferred decode step's launches are issued first.
func (b *Backend) enterCopy() bool {
	b.held, b.normed = normedRow{}, normedRow{}
	if b.err != nil || b.closed || !b.lock() {
		return false
	}
	b.settle()
	return true
}

// lock makes the context current on a locked thread.
func (b *Backend) lock() bool {
	runtime.LockOSThread()
	if err := b.g.d.SetCurrent(b.g.ctx); err != nil {
		b.fail("making the context current", err)
		runtime.UnlockOSThread()
		return false
	}
	b.locked = true
	return true
}

func (b *Backend) leave() {
	if b.locked {
		b.locked = false
		runtime.UnlockOSThread()
	}
}

func (b *Backend) fail(what string, err error) {
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("cuda: %s: %w", what, err)
	}
}

// launch runs f over grid × block with b.args.
func (b *Backend) launch(name string, f cu.Function, grid, block [3]uint32) {
	if b.err != nil {
		return
	}
	if b.st.deferring {
		b.record(name, f, grid, block)
		return
	}
	b.fail(name, b.g.d.Launch(f, grid, block, 0, 0, b.args))
}

// buf is device memory of rows × width floats, with a host mirror for
// Host (made on first use). A view (View) is a buf whose p points into
// another's allocation: every operation addresses a buffer from p and
// bounds it by rows, so a view needs nothing else, and only what Alloc
// made is in owned, to be freed.
type buf struct {
	p           cu.DevicePtr
	rows, width int
	host        []float32
}

func (x *buf) Rows() int  { return x.rows }
func (x *buf) Width() int { return x.width }

// View implements backend.Viewer: rows row0…row0+n−1 of x as a buffer at
// the same device memory, with a host mirror of its own (Host returns
// the view's rows, made on first use as any buffer's). A range outside x
// fails the backend rather than address memory past x's allocation; the
// buffer returned then is never launched on, as a failed backend runs
// nothing.
func (b *Backend) View(x backend.Buffer, row0, n int) backend.Buffer {
	s := db(x)
	if row0 < 0 || n < 1 || row0 > s.rows-n {
		b.fail("a view", fmt.Errorf("rows %d…%d of a buffer of %d", row0, row0+n-1, s.rows))
		return &buf{p: s.p, rows: max(n, 0), width: s.width}
	}
	return &buf{p: s.p + cu.DevicePtr(4*row0*s.width), rows: n, width: s.width}
}

// mat is a weight matrix on the device in its GGUF type, or a stack of
// experts matrices of one type and shape (ExpertMatrix): experts of them,
// stride bytes apart, rows × cols each.
type mat struct {
	p              cu.DevicePtr
	t              tensor.Type
	rows, cols, rb int
	k              productKernels
	src            *tensor.Matrix
	refs           int
	experts        int // 0 for a plain matrix
	stride         int // bytes from one expert to the next
}

func (m *mat) Shape() (int, int) { return m.rows, m.cols }

type vec struct {
	p cu.DevicePtr
	n int
}

func (v *vec) Len() int { return v.n }

// kv is a KV cache on the device, laid out as the CPU's:
// [layer][kvHead][ctx][headDim] float32, or binary16 for KVF16.
type kv struct {
	k, v cu.DevicePtr
	ctx  int
	a    backend.Attention
}

func (c *kv) Cap() int { return c.ctx }

func db(x backend.Buffer) *buf { return x.(*buf) }
func dm(m backend.Matrix) *mat { return m.(*mat) }
func dv(v backend.Vector) *vec { return v.(*vec) }

// Matrix binds m on the device: uploaded once per Device however many
// backends bind it, freed when the last one releases it.
func (b *Backend) Matrix(m *tensor.Matrix) (backend.Matrix, error) {
	if m == nil {
		return nil, errors.New("cuda: nil matrix")
	}
	w, err := b.g.bind(m)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Release implements backend.Releaser: one holder of a matrix (a State's
// replaced or closed projection) lets go of it; the device frees it when
// the last does.
func (b *Backend) Release(m backend.Matrix) {
	w := dm(m)
	if err := b.g.with(func() error { b.settle(); return b.g.release(w) }); err != nil {
		b.fail("releasing a matrix", err)
	}
}

// bind uploads m unless it is on the device already.
func (g *Device) bind(m *tensor.Matrix) (*mat, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if w, ok := g.mats[m]; ok {
		w.refs++
		return w, nil
	}
	if _, ok := typeSuffix(m.Type); !ok {
		return nil, fmt.Errorf("cuda: the kernels do not decode %s weights", m.Type)
	}
	if m.Type.BlockLen() > 1 && m.Cols%32 != 0 {
		return nil, fmt.Errorf("cuda: a %s matrix of %d columns", m.Type, m.Cols)
	}
	rb, err := m.Type.RowBytes(uint64(m.Cols))
	if err != nil || uint64(len(m.Data)) != rb*uint64(m.Rows) || m.Rows <= 0 {
		return nil, fmt.Errorf("cuda: a %d×%d %s matrix of %d bytes", m.Rows, m.Cols, m.Type, len(m.Data))
	}
	w := &mat{t: m.Type, rows: m.Rows, cols: m.Cols, rb: int(rb), k: g.k.prod[m.Type], src: m, refs: 1}
	err = g.with(func() error {
		var err error
		if w.p, err = g.d.Alloc(uint64(len(m.Data))); err != nil {
			return fmt.Errorf("cuda: %d MiB for a %d×%d %s matrix: %w", len(m.Data)>>20, m.Rows, m.Cols, m.Type, err)
		}
		if err = g.d.HtoD(w.p, unsafe.Pointer(&m.Data[0]), uint64(len(m.Data))); err != nil {
			g.d.Free(w.p)
			return fmt.Errorf("cuda: uploading a %s matrix: %w", m.Type, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.mats[m] = w
	return w, nil
}

// release drops one reference to w (context current).
func (g *Device) release(w *mat) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	w.refs--
	if w.refs > 0 || g.mats == nil {
		return nil
	}
	if w.experts > 0 {
		delete(g.stacks, stackKey{w.src, w.experts})
	} else {
		delete(g.mats, w.src)
	}
	return g.d.Free(w.p)
}

// Vector uploads a copy of v. Like a matrix it is the Device's, not this
// backend's: a model binds its norms once per device for every State, so
// they outlive the backend that bound them and go with the Device.
func (b *Backend) Vector(v []float32) (backend.Vector, error) {
	if len(v) == 0 {
		return nil, errors.New("cuda: empty vector")
	}
	var p cu.DevicePtr
	g := b.g
	err := g.with(func() error {
		var err error
		if p, err = g.d.Alloc(uint64(4 * len(v))); err != nil {
			return err
		}
		if err = g.d.HtoD(p, unsafe.Pointer(&v[0]), uint64(4*len(v))); err != nil {
			g.d.Free(p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	g.mu.Lock()
	g.vecs = append(g.vecs, p)
	g.mu.Unlock()
	return &vec{p: p, n: len(v)}, nil
}

// WriteVector implements backend.VectorWriter: the copy is ordered with
// the launches before and after it on the default stream.
func (b *Backend) WriteVector(v backend.Vector, data []float32) error {
	w := dv(v)
	if len(data) != w.n {
		return fmt.Errorf("cuda: writing %d values into a vector of %d", len(data), w.n)
	}
	g := b.g
	if err := g.with(func() error { b.settle(); return g.d.HtoD(w.p, unsafe.Pointer(&data[0]), uint64(4*len(data))) }); err != nil {
		return fmt.Errorf("cuda: writing a vector: %w", err)
	}
	return nil
}

// ReleaseVector implements backend.VectorWriter.
func (b *Backend) ReleaseVector(v backend.Vector) {
	w := dv(v)
	if w.p == 0 {
		return
	}
	g := b.g
	g.mu.Lock()
	i := slices.Index(g.vecs, w.p)
	if i >= 0 {
		g.vecs = slices.Delete(g.vecs, i, i+1)
	}
	g.mu.Unlock()
	if i < 0 {
		return // not this device's, or freed already
	}
	if err := g.with(func() error { b.settle(); return g.d.Free(w.p) }); err != nil {
		b.fail("freeing a vector", err)
	}
	w.p = 0
}

// Alloc returns a zeroed device buffer.
func (b *Backend) Alloc(rows, width int) (backend.Buffer, error) {
	if rows <= 0 || width <= 0 || rows > math.MaxInt32/width {
		return nil, fmt.Errorf("cuda: buffer of %d × %d", rows, width)
	}
	var p cu.DevicePtr
	err := b.g.with(func() error {
		var err error
		p, err = b.alloc(4 * rows * width)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	return &buf{p: p, rows: rows, width: width}, nil
}

// NewKV allocates a float32 or binary16 (KVF16) cache on the device, as
// the CPU's, and grows the split attention's scratch to its capacity
// (attention.go). Q8_0 is refused: the kernels read f32 and f16 only.
func (b *Backend) NewKV(layers, ctx int, a backend.Attention) (backend.KV, error) {
	n := layers * ctx * a.KVHeads * a.HeadDim
	switch {
	case a.KV != backend.KVF32 && a.KV != backend.KVF16:
		return nil, fmt.Errorf("cuda: KV cache type %s is not supported: the CUDA backend stores keys and values as f32 or f16", a.KV)
	case layers <= 0 || ctx <= 0 || a.KVHeads <= 0 || a.HeadDim <= 0 || n/layers/ctx != a.KVHeads*a.HeadDim || n > maxKVValues:
		return nil, fmt.Errorf("cuda: KV cache of %d positions is too large", ctx)
	case a.HeadDim > maxHeadDim:
		return nil, fmt.Errorf("cuda: heads of %d values; the attention kernel takes up to %d", a.HeadDim, maxHeadDim)
	case a.Heads%a.KVHeads != 0:
		return nil, fmt.Errorf("cuda: %d query heads do not group over %d KV heads", a.Heads, a.KVHeads)
	}
	c := &kv{ctx: ctx, a: a}
	es := kvElemBytes(a.KV)
	err := b.g.with(func() error {
		var err error
		if c.k, err = b.alloc(es * n); err != nil {
			return err
		}
		if c.v, err = b.alloc(es * n); err != nil {
			return err
		}
		return b.growPart(ctx, a)
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: KV cache: %w", err)
	}
	return c, nil
}

func blocks(n, per int) uint32 { return uint32((n + per - 1) / per) }

// Embed decodes the tokens' rows of the table on the device.
func (b *Backend) Embed(dst backend.Buffer, table backend.Matrix, tokens []int32) error {
	if b.err != nil || b.closed || !b.lock() {
		return b.err
	}
	defer b.leave()
	d, t := db(dst), dm(table)
	n := len(tokens)
	if n == 0 || n > d.rows || t.cols != d.width {
		return fmt.Errorf("cuda: embedding %d tokens of width %d into %d × %d", n, t.cols, d.rows, d.width)
	}
	for _, tok := range tokens {
		if tok < 0 || int(tok) >= t.rows {
			return fmt.Errorf("cuda: token %d outside the table of %d", tok, t.rows)
		}
	}
	ids, tok := cu.DevicePtr(0), tokens[0]
	if n == 1 {
		// A decode step: the token is its input in device memory, and
		// the step's launches may make one graph (graph.go).
		if !b.beginStep(tok) {
			return b.err
		}
		ids, tok = b.st.slots, 0
	} else {
		b.endStep()
		if n > MaxBatch {
			return fmt.Errorf("cuda: %d tokens in one batch; at most %d", n, MaxBatch)
		}
		if err := b.g.d.HtoD(b.ids, unsafe.Pointer(&tokens[0]), uint64(4*n)); err != nil {
			b.fail("copying token ids", err)
			return b.err
		}
		ids = b.ids
	}
	b.args.Reset().Ptr(t.p).I32(int32(t.rb)).I32(int32(t.cols)).Ptr(ids).I32(tok).Ptr(d.p)
	b.launch("embedding", t.k.rows, [3]uint32{uint32(n), 1, 1}, [3]uint32{128, 1, 1})
	return b.err
}

// RMSNorm normalises n rows, one block a row.
func (b *Backend) RMSNorm(dst, x backend.Buffer, w backend.Vector, n int, eps float32) {
	if !b.enter() {
		return
	}
	defer b.leave()
	d, s, wv := db(dst), db(x), dv(w)
	if n == 1 && s.width%32 == 0 && !b.g.floatDecode {
		// Decode: the products that read this row next quantise it to
		// int8 (quantQ8); rmsnorm_q8 does so in the norm's launch.
		if a, ok := b.q8Scratch(s.width); ok {
			b.args.Reset().Ptr(d.p).Ptr(s.p).Ptr(wv.p).I32(int32(s.width)).F32(eps).Ptr(a.q).Ptr(a.d).Ptr(a.s)
			b.launch("rmsnorm_q8", b.g.k.rmsnormQ8, [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1})
			b.normed = normedRow{x: d.p, a: a}
		}
		return
	}
	b.args.Reset().Ptr(d.p).I32(int32(d.width)).Ptr(s.p).I32(int32(s.width)).Ptr(wv.p).I32(int32(s.width)).F32(eps)
	b.launch("rmsnorm", b.g.k.rmsnorm, [3]uint32{uint32(n), 1, 1}, [3]uint32{256, 1, 1})
}

// HeadRMSNorm normalises each head of n rows in place, one warp a head.
func (b *Backend) HeadRMSNorm(x backend.Buffer, w backend.Vector, n, heads int, eps float32) {
	if !b.enter() {
		return
	}
	defer b.leave()
	s, wv := db(x), dv(w)
	b.args.Reset().Ptr(s.p).I32(int32(s.width)).Ptr(wv.p).I32(int32(wv.n)).F32(eps)
	b.launch("head_rmsnorm", b.g.k.headRMSNorm, [3]uint32{uint32(n), uint32(heads), 1}, [3]uint32{32, 1, 1})
}

// quantAct rounds n rows of cols activations at x to the CPU's grid for
// products of type t (MXFP4's with float16 scales, engine/tensor's
// roundScales) into the backend's scratch and returns it.
func (b *Backend) quantAct(x cu.DevicePtr, n, cols int, t tensor.Type) cu.DevicePtr {
	if need := n * cols; need > b.nxq {
		// Grown to the widest product's batch once, never per token (the
		// expert products' pairs are k rows a token).
		size := max(MaxBatch*cols, need)
		p, err := b.alloc(4 * size)
		if err != nil {
			b.fail("the activation scratch", err)
			return x
		}
		b.xq, b.nxq = p, size
	}
	half := int32(0)
	if t == tensor.MXFP4 {
		half = 1
	}
	b.args.Reset().Ptr(b.xq).Ptr(x).I32(int32(n * cols)).I32(half)
	b.elementwise("quant_act", b.g.k.quantAct, n*cols)
	return b.xq
}

// q8act is one row of activations quantised by quant_q8: cols int8
// codes, then per block of 32 the scale d and the sum d·Σq.
type q8act struct {
	q, d, s cu.DevicePtr
	cols    int
}

// quantQ8 quantises one row of cols activations at x into the backend's
// scratch, as the CPU engine quantises the input of its quantised
// products (engine/tensor's act): one launch, whose result every integer
// product of that input reads.
func (b *Backend) quantQ8(x cu.DevicePtr, cols int) (q8act, bool) {
	if h := b.held; h.x == x && h.a.cols == cols && h.x != 0 {
		// The operation before this one, RMSNorm, wrote x and its
		// quantisation in one launch (rmsnorm_q8).
		return h.a, b.err == nil
	}
	a, ok := b.q8Scratch(cols)
	if !ok {
		return a, false
	}
	b.args.Reset().Ptr(a.q).Ptr(a.d).Ptr(a.s).Ptr(x).I32(int32(cols))
	b.elementwise("quant_q8", b.g.k.quantQ8, cols)
	return a, b.err == nil
}

// normedRow is a row at x that rmsnorm_q8 wrote and quantised into a.
type normedRow struct {
	x cu.DevicePtr
	a q8act
}

// q8Scratch lays out one row of cols quantised activations in the
// backend's int8 scratch, growing it to the widest input once, never per
// token.
func (b *Backend) q8Scratch(cols int) (q8act, bool) {
	if cols > b.nq8 {
		p, err := b.alloc(cols + 8*(cols/32))
		if err != nil {
			b.fail("the int8 activation scratch", err)
			return q8act{}, false
		}
		b.q8, b.nq8 = p, cols
	}
	return q8act{q: b.q8, d: b.q8 + cu.DevicePtr(cols), s: b.q8 + cu.DevicePtr(cols+4*(cols/32)), cols: cols}, true
}

// intDecode says whether a product of m over n rows with activations on
// the grid of grid runs on integer dot products: decode (n = 1) of the
// types that have them, with float32 activation scales (an MXFP4 product
// among Linears' gives all of them float16 ones, which the mvq_ kernels
// do not read), unless a test asked for the float path.
func (b *Backend) intDecode(m *mat, n int, grid tensor.Type) bool {
	// The 16-byte loads of Q4_K/Q5_K need the row aligned: every matrix
	// is an allocation of its own (256-byte aligned), but say so.
	return n == 1 && m.k.mvq != 0 && grid != tensor.MXFP4 && !b.g.floatDecode && m.p%16 == 0
}

// intBatch says whether a product of m over n > 1 rows with activations
// on the grid of grid runs on integer products (productBatch: mvqn_ for a
// few rows, the tensor cores' mmq_ for more): the types intDecode takes,
// over all n rows quantised by quant_q8, unless a test asked for the float
// path (mm_).
func (b *Backend) intBatch(m *mat, n int, grid tensor.Type) bool {
	return n > 1 && m.k.mmq != 0 && grid != tensor.MXFP4 && !b.g.floatBatch && m.p%16 == 0
}

// intProduct says whether the product runs on integer sums at all, decode's
// (mvq_) or a batch's (mmq_).
func (b *Backend) intProduct(m *mat, n int, grid tensor.Type) bool {
	return b.intDecode(m, n, grid) || b.intBatch(m, n, grid)
}

// quantQ8Rows quantises n rows of cols activations at x (packed) for the
// integer products: quantQ8 for one row; for a batch one quant_q8 launch
// over all n·cols values into the scratch (grown to MaxBatch rows of the
// widest input once, never per step), laid out as n rows of codes, then n
// rows of scales, then n rows of sums; the result's cols is a row's.
func (b *Backend) quantQ8Rows(x cu.DevicePtr, n, cols int) (q8act, bool) {
	if n == 1 {
		return b.quantQ8(x, cols)
	}
	count := n * cols
	if count > b.nq8 {
		size := max(MaxBatch*cols, count)
		p, err := b.alloc(size + 8*(size/32))
		if err != nil {
			b.fail("the int8 activation scratch", err)
			return q8act{}, false
		}
		b.q8, b.nq8 = p, size
	}
	a := q8act{q: b.q8, d: b.q8 + cu.DevicePtr(count), s: b.q8 + cu.DevicePtr(count+4*(count/32)), cols: cols}
	b.args.Reset().Ptr(a.q).Ptr(a.d).Ptr(a.s).Ptr(x).I32(int32(count))
	b.elementwise("quant_q8", b.g.k.quantQ8, count)
	return a, b.err == nil
}

// mmqTile is the mmq_ kernels' tile: weight rows and tokens a block.
const mmqTile = 64

// mvqnMax is the most activation rows a product runs on decode's kernels
// (mvqn_, mvqnk_: matmul.cu's MVQN) rather than on the tensor cores: a
// batch of a few decoding sequences. Each of its rows gets the bits decode
// gives it alone, and the weights are read once for all of them. Measured
// on an H200 (2026-11-30), mmq_ spent 0.2–0.8 ms a matrix on an 8B layer
// whatever the token count up to 64 (its per-block float terms, not the
// memory), so 8 sequences batched decoded at 0.62× one sequence's
// aggregate; the few-row kernels' cost there waits for a GPU.
const mvqnMax = 8

// productBatch launches dst = W·x for the n > 1 rows of x quantised by
// quantQ8Rows, with mvq_rows's beta and epilogue (z then n rows of m.rows
// floats): decode's kernels for up to mvqnMax rows (the same choice of
// mvq_ or mvqk_ by the row count, so the bits are decode's), the tensor
// cores for more.
func (b *Backend) productBatch(d cu.DevicePtr, m *mat, a q8act, n int, beta float32, z cu.DevicePtr, epi int32) {
	if n > mvqnMax || m.k.mvqn == 0 {
		b.productMMQ(d, m, a, n, beta, z, epi)
		return
	}
	b.args.Reset().Ptr(m.p).I32(int32(m.rb)).I32(int32(m.rows)).I32(int32(m.cols)).Ptr(a.q).Ptr(a.d).Ptr(a.s).Ptr(d).
		I32(int32(n)).F32(beta).Ptr(z).I32(epi)
	if m.rows >= mvqMinRows {
		b.launch("product", m.k.mvqn, [3]uint32{blocks(m.rows, 4), 1, 1}, [3]uint32{128, 1, 1})
		return
	}
	b.launch("product", m.k.mvqnk, [3]uint32{uint32(m.rows), 1, 1}, [3]uint32{128, 1, 1})
}

// productMMQ launches dst = W·x for the n rows of x quantised by
// quantQ8Rows, on the tensor cores, with mvq_rows's beta and epilogue
// (z then n rows of m.rows floats).
func (b *Backend) productMMQ(d cu.DevicePtr, m *mat, a q8act, n int, beta float32, z cu.DevicePtr, epi int32) {
	b.args.Reset().Ptr(m.p).I32(int32(m.rb)).I32(int32(m.rows)).I32(int32(m.cols)).Ptr(a.q).Ptr(a.d).Ptr(a.s).Ptr(d).
		I32(int32(n)).F32(beta).Ptr(z).I32(epi)
	// Token tiles along x: the blocks that share a row tile run together
	// and read its weights from DRAM once.
	b.launch("product", m.k.mmq, [3]uint32{blocks(n, mmqTile), blocks(m.rows, mmqTile), 1}, [3]uint32{128, 1, 1})
}

// mvqMinRows is the row count from which a warp takes a row of its own
// (mvq_); below it the four warps of a block share one (mvqk_, split-K),
// so that a matrix of a few thousand rows still gives every SM of an
// H100 (132) several blocks. Not tuned on a GPU yet.
const mvqMinRows = 8192

// productQ8 launches dst = W·x for one row of x quantised by quantQ8.
func (b *Backend) productQ8(d cu.DevicePtr, m *mat, a q8act, beta float32) {
	b.productGLU(d, m, a, beta, 0, 0)
}

// productGLU is productQ8 with mvq_rows's epilogue epi: for 1 (SiLU) or 2
// (GELU) it turns the gate's row at z into act(gate)·dst as swiglu and
// geglu do; for 3 it adds dst to the row at z as add does.
func (b *Backend) productGLU(d cu.DevicePtr, m *mat, a q8act, beta float32, z cu.DevicePtr, epi int32) {
	b.args.Reset().Ptr(m.p).I32(int32(m.rb)).I32(int32(m.rows)).I32(int32(m.cols)).Ptr(a.q).Ptr(a.d).Ptr(a.s).Ptr(d).F32(beta).
		Ptr(z).I32(epi)
	if m.rows >= mvqMinRows {
		b.launch("product", m.k.mvq, [3]uint32{blocks(m.rows, 4), 1, 1}, [3]uint32{128, 1, 1})
		return
	}
	b.launch("product", m.k.mvqk, [3]uint32{uint32(m.rows), 1, 1}, [3]uint32{128, 1, 1})
}

// product launches dst = W·x for n rows (beta 1 adds to dst instead),
// rounding x to the CPU's activation grid first for a quantised W
// (decode's integer products: quantising it to int8).
func (b *Backend) product(d cu.DevicePtr, m *mat, x cu.DevicePtr, n int, beta float32) {
	if b.intDecode(m, n, m.t) {
		if a, ok := b.quantQ8(x, m.cols); ok {
			b.productQ8(d, m, a, beta)
		}
		return
	}
	if b.intBatch(m, n, m.t) {
		if a, ok := b.quantQ8Rows(x, n, m.cols); ok {
			b.productBatch(d, m, a, n, beta, 0, 0)
		}
		return
	}
	if m.k.act {
		x = b.quantAct(x, n, m.cols, m.t)
	}
	b.productOf(d, m, x, n, beta)
}

// productOf launches dst = W·x with x as given.
func (b *Backend) productOf(d cu.DevicePtr, m *mat, x cu.DevicePtr, n int, beta float32) {
	b.args.Reset().Ptr(m.p).I32(int32(m.rb)).I32(int32(m.rows)).I32(int32(m.cols)).Ptr(x).Ptr(d).I32(int32(n)).F32(beta)
	if n == 1 {
		// Decode: a block's four warps share a row (split-K), so that a
		// 2048-row matrix still keeps every SM's warps busy.
		b.launch("product", m.k.mv, [3]uint32{uint32(m.rows), 1, 1}, [3]uint32{128, 1, 1})
		return
	}
	if m.k.mmf != 0 && !b.g.floatBatch {
		// F16 and BF16 weights on the tensor cores (mmf.go).
		b.launch("product", m.k.mmf, [3]uint32{blocks(n, mmfTile), blocks(m.rows, mmfTile), 1}, [3]uint32{128, 1, 1})
		return
	}
	b.launch("product", m.k.mm, [3]uint32{blocks(m.rows, 4), blocks(n, 8), 1}, [3]uint32{128, 1, 1})
}

// Linear writes dst = W·x for n rows, packed at W's shape.
func (b *Backend) Linear(dst backend.Buffer, w backend.Matrix, x backend.Buffer, n int) {
	if !b.enter() {
		return
	}
	defer b.leave()
	b.product(db(dst).p, dm(w), db(x).p, n, 0)
}

// Linears runs the products of one input one after another: each is one
// launch, and the device runs them back to back.
func (b *Backend) Linears(x backend.Buffer, n int, ops ...backend.LinearOp) {
	if !b.enter() {
		return
	}
	defer b.leave()
	// The products share their input: it is rounded once for all the
	// quantised ones.
	// As on the CPU (engine/tensor's MatVecs), one MXFP4 product among
	// them gives every one the float16 scales it reads.
	in, q, grid := db(x).p, cu.DevicePtr(0), tensor.Type(tensor.Q8_0)
	for _, op := range ops {
		if dm(op.W).t == tensor.MXFP4 {
			grid = tensor.MXFP4
		}
	}
	// The integer products (decode's, a batch's) share one int8
	// quantisation likewise.
	var a q8act
	for _, op := range ops {
		m := dm(op.W)
		if !m.k.act {
			b.productOf(db(op.Dst).p, m, in, n, 0)
			continue
		}
		if b.intProduct(m, n, grid) {
			if a.cols != m.cols {
				var ok bool
				if a, ok = b.quantQ8Rows(in, n, m.cols); !ok {
					return
				}
			}
			if n == 1 {
				b.productQ8(db(op.Dst).p, m, a, 0)
			} else {
				b.productBatch(db(op.Dst).p, m, a, n, 0, 0, 0)
			}
			continue
		}
		if q == 0 {
			q = b.quantAct(in, n, m.cols, grid)
		}
		b.productOf(db(op.Dst).p, m, q, n, 0)
	}
}

// Gated implements backend.Gated for the integer products (decode's, and a
// batch's on the tensor cores, whose epilogue is the same): one
// quantisation of x (none after a fused RMSNorm), the gate's product into
// g, then the up product into u, whose epilogue turns g into act(g)·u as
// swiglu and geglu would: two launches where Linears and the activation
// make three (four without the norm's quantisation), bit for bit the same.
// Float weights and an MXFP4 product are not taken.
func (b *Backend) Gated(g, u backend.Buffer, wg, wu backend.Matrix, x backend.Buffer, n int, act backend.GLU) bool {
	mg, mu := dm(wg), dm(wu)
	glu := int32(1)
	if act == backend.GLUGELU {
		glu = 2
	}
	if act != backend.GLUSiLU && act != backend.GLUGELU || !b.intProduct(mg, n, mg.t) || !b.intProduct(mu, n, mu.t) ||
		mg.cols != mu.cols || mg.rows != mu.rows {
		return false
	}
	if !b.enter() {
		return true // a failed backend does nothing, as every operation
	}
	defer b.leave()
	a, ok := b.quantQ8Rows(db(x).p, n, mg.cols)
	if !ok {
		return true
	}
	gp := db(g).p
	if n > 1 {
		b.productBatch(gp, mg, a, n, 0, 0, 0)
		b.productBatch(db(u).p, mu, a, n, 0, gp, glu)
		return true
	}
	b.productQ8(gp, mg, a, 0)
	b.productGLU(db(u).p, mu, a, 0, gp, glu)
	return true
}

// LinearAdd implements backend.Residual for the integer products (decode's
// and a batch's):
// the product into y, whose epilogue adds each row to dst as add would,
// one launch where Linear and Add make two (three without the input's
// quantisation shared), bit for bit the same. Float weights and a dst
// wider than the product are not taken.
func (b *Backend) LinearAdd(dst, y backend.Buffer, w backend.Matrix, x backend.Buffer, n int) bool {
	m, d := dm(w), db(dst)
	if !b.intProduct(m, n, m.t) || d.width != m.rows {
		return false
	}
	if !b.enter() {
		return true // a failed backend does nothing, as every operation
	}
	defer b.leave()
	if a, ok := b.quantQ8Rows(db(x).p, n, m.cols); ok {
		if n > 1 {
			b.productBatch(db(y).p, m, a, n, 0, d.p, 3)
		} else {
			b.productGLU(db(y).p, m, a, 0, d.p, 3)
		}
	}
	return true
}

// elementwise launches a flat kernel over count values.
func (b *Backend) elementwise(name string, f cu.Function, count int) {
	b.launch(name, f, [3]uint32{blocks(count, 256), 1, 1}, [3]uint32{256, 1, 1})
}

// AddBias adds bias to n rows of x.
func (b *Backend) AddBias(x backend.Buffer, bias backend.Vector, n int) {
	if !b.enter() {
		return
	}
	defer b.leave()
	s, bv := db(x), dv(bias)
	b.args.Reset().Ptr(s.p).I32(int32(s.width)).Ptr(bv.p).I32(int32(bv.n)).I32(int32(n))
	b.elementwise("add_bias", b.g.k.addBias, n*bv.n)
}

// SwiGLU writes silu(g)·u into g for n rows.
func (b *Backend) SwiGLU(g, u backend.Buffer, n int) {
	b.glu("swiglu", b.g.k.swiglu, g, u, n)
}

// GeGLU writes gelu(g)·u into g for n rows (GELU as ggml's CPU evaluates it).
func (b *Backend) GeGLU(g, u backend.Buffer, n int) {
	b.glu("geglu", b.g.k.geglu, g, u, n)
}

func (b *Backend) glu(name string, f cu.Function, g, u backend.Buffer, n int) {
	if !b.enter() {
		return
	}
	defer b.leave()
	gb, ub := db(g), db(u)
	b.args.Reset().Ptr(gb.p).I32(int32(gb.width)).Ptr(ub.p).I32(int32(ub.width)).I32(int32(gb.width)).I32(int32(n))
	b.elementwise(name, f, n*gb.width)
}

// Scale multiplies n rows of x by c.
func (b *Backend) Scale(x backend.Buffer, n int, c float32) {
	if !b.enter() {
		return
	}
	defer b.leave()
	s := db(x)
	b.args.Reset().Ptr(s.p).I32(int32(n * s.width)).F32(c)
	b.elementwise("scale", b.g.k.scale, n*s.width)
}

// RoPE rotates the first heads heads of n rows, each thread one pair in
// every head.
func (b *Backend) RoPE(x backend.Buffer, n, heads, headDim, pos0 int, r backend.Rope) {
	if !b.enter() {
		return
	}
	defer b.leave()
	s := db(x)
	rp, ok := b.ropeOf(pos0, r)
	if !ok {
		return
	}
	b.args.Reset().Ptr(s.p).I32(int32(s.width)).I32(int32(heads)).I32(int32(headDim)).I32(int32(rp.pos0))
	rp.append(b.args, r)
	b.args.Ptr(rp.posp)
	b.launch("rope", b.g.k.rope, [3]uint32{uint32(n), 1, 1}, [3]uint32{uint32(max(32, (r.Dim/2+31)&^31)), 1, 1})
}

// ropeParams are a rotation's arguments as the kernels take them.
type ropeParams struct {
	fp, posp cu.DevicePtr // the divisors (or 0); the position in device memory (or 0)
	pos0     int          // 0 when posp is set, so that every step packs the same
	y        backend.YaRN
	c0, c1   float32
}

// ropeOf makes a rotation's arguments at pos0; false when YaRN's
// correction dimensions cannot be made (b failed).
func (b *Backend) ropeOf(pos0 int, r backend.Rope) (ropeParams, bool) {
	var rp ropeParams
	if len(r.Freqs) > 0 {
		rp.fp = b.freqTable(r.Freqs)
	}
	if r.YaRN != nil {
		rp.y = *r.YaRN
		var err error
		if rp.c0, rp.c1, err = yarnCorr(r); err != nil {
			b.fail("rope", err)
			return rp, false
		}
	}
	rp.posp, rp.pos0 = b.posArg(pos0), pos0
	if rp.posp != 0 {
		rp.pos0 = 0
	}
	return rp, true
}

// append adds rope's arguments from base to corr1.
func (rp *ropeParams) append(a *cu.Args, r backend.Rope) {
	a.F32(float32(r.Base)).I32(int32(r.Dim)).Ptr(rp.fp).I32(b2i(r.Neox)).F32(r.Scale).F32(r.PosScale).
		I32(b2i(r.YaRN != nil)).F32(rp.y.ExtFactor).F32(rp.y.AttnFactor).F32(rp.c0).F32(rp.c1)
}

// RoPEStoreKV implements backend.RoPEStorer: rope_store_kv rotates q and
// k and caches k and v in one launch where RoPE, RoPE and StoreKV make
// three, with rope's and store_kv's arithmetic (rope_cs, rope_turn, the
// copies), bit for bit. A cache of other heads is not taken.
func (b *Backend) RoPEStoreKV(q, k, v backend.Buffer, cache backend.KV, layer, slot, pos0, n, heads, kvHeads, headDim int, r backend.Rope) bool {
	c, ok := cache.(*kv)
	if !ok || c.a.KVHeads != kvHeads || c.a.HeadDim != headDim {
		return false
	}
	if !b.enter() {
		return true // a failed backend does nothing, as every operation
	}
	defer b.leave()
	if err := kvRows(c, slot, n, kvHeads, db(k), db(v)); err != nil {
		b.fail("storing keys and values", err)
		return true
	}
	if err := kvRows(c, slot, n, heads, db(q)); err != nil {
		b.fail("turning the queries", err)
		return true
	}
	rp, ok := b.ropeOf(pos0, r)
	if !ok {
		return true
	}
	slotp := b.posArg(slot)
	if slotp != 0 {
		slot = 0
	}
	qs, ks, vs := db(q), db(k), db(v)
	b.args.Reset().Ptr(qs.p).I32(int32(qs.width)).I32(int32(heads)).Ptr(ks.p).I32(int32(ks.width)).Ptr(vs.p).I32(int32(vs.width)).
		Ptr(c.k).Ptr(c.v).I32(int32(layer)).I32(int32(kvHeads)).I32(int32(c.ctx)).I32(int32(headDim)).I32(int32(rp.pos0)).I32(int32(slot))
	rp.append(b.args, r)
	b.args.Ptr(rp.posp).Ptr(slotp)
	name, f := "rope_store_kv", b.g.k.ropeStoreKV
	if c.a.KV == backend.KVF16 {
		name, f = "rope_store_kv_f16", b.g.k.att.ropeStoreKV16
	}
	b.launch(name, f, [3]uint32{uint32(n), 1, 1}, [3]uint32{uint32(max(128, (r.Dim/2+31)&^31)), 1, 1})
	return true
}

// yarnCorr is YaRN's correction dimensions (ggml_rope_yarn_corr_dims):
// [max(0, ⌊d(BetaFast)⌋), min(Dim−1, ⌈d(BetaSlow)⌉)] with d(β) =
// Dim·ln(OrigCtx/(β·2π))/(2·ln Base). They matter only when ExtFactor is
// not 0, and then need a training context and positive betas.
func yarnCorr(r backend.Rope) (float32, float32, error) {
	y := r.YaRN
	if y.ExtFactor == 0 {
		return 0, 0, nil
	}
	if y.OrigCtx <= 0 || y.BetaFast <= 0 || y.BetaSlow <= 0 || r.Base <= 1 {
		return 0, 0, fmt.Errorf("YaRN needs a training context, positive betas and a base above 1; got context %d, betas %g and %g, base %g", y.OrigCtx, y.BetaFast, y.BetaSlow, r.Base)
	}
	d := func(beta float32) float64 {
		return float64(r.Dim) * math.Log(float64(y.OrigCtx)/(float64(beta)*2*math.Pi)) / (2 * math.Log(r.Base))
	}
	return float32(max(0, math.Floor(d(y.BetaFast)))), float32(min(float64(r.Dim-1), math.Ceil(d(y.BetaSlow)))), nil
}

// freqTable uploads a RoPE divisor table once (the model's tables live as
// long as the model; they are few).
func (b *Backend) freqTable(f []float32) cu.DevicePtr {
	if p, ok := b.freqs[&f[0]]; ok {
		return p
	}
	var p cu.DevicePtr
	err := b.ctx(func() error {
		var err error
		if p, err = b.g.d.Alloc(uint64(4 * len(f))); err == nil {
			err = b.g.d.HtoD(p, unsafe.Pointer(&f[0]), uint64(4*len(f)))
		}
		return err
	})
	if err != nil {
		b.fail("uploading RoPE frequencies", err)
		return 0
	}
	b.freqs[&f[0]] = p
	return p
}

func b2i(v bool) int32 {
	if v {
		return 1
	}
	return 0
}

// StoreKV writes n rows of keys and values into layer's cache.
func (b *Backend) StoreKV(cache backend.KV, layer, pos0, n int, k, v backend.Buffer) {
	if !b.enter() {
		return
	}
	defer b.leave()
	c, ks, vs := cache.(*kv), db(k), db(v)
	if err := kvRows(c, pos0, n, c.a.KVHeads, ks, vs); err != nil {
		b.fail("storing keys and values", err)
		return
	}
	posp := b.posArg(pos0)
	if posp != 0 {
		pos0 = 0
	}
	b.args.Reset().Ptr(c.k).Ptr(c.v).Ptr(ks.p).I32(int32(ks.width)).Ptr(vs.p).I32(int32(vs.width)).
		I32(int32(layer)).I32(int32(c.a.KVHeads)).I32(int32(c.ctx)).I32(int32(c.a.HeadDim)).I32(int32(pos0)).Ptr(posp)
	if c.a.KV == backend.KVF16 {
		b.launch("store_kv_f16", b.g.k.att.storeKV16, [3]uint32{uint32(n), 1, 1}, [3]uint32{128, 1, 1})
		return
	}
	b.launch("store_kv", b.g.k.storeKV, [3]uint32{uint32(n), 1, 1}, [3]uint32{128, 1, 1})
}

// ReadKV implements backend.KVReader.
func (b *Backend) ReadKV(cache backend.KV, layer, pos int, k, v []float32) {
	if !b.enterCopy() {
		return
	}
	defer b.leave()
	c := cache.(*kv)
	if err := kvRows(c, pos, 1, 0); err != nil {
		b.fail("reading the KV cache", err)
		return
	}
	if w := c.a.KVHeads * c.a.HeadDim; len(k) < w || len(v) < w {
		b.fail("reading the KV cache", fmt.Errorf("%d and %d values for %d", len(k), len(v), w))
		return
	}
	HD := c.a.HeadDim
	if c.a.KV == backend.KVF16 {
		b.readKV16(c, layer, pos, k, v)
		return
	}
	for g := range c.a.KVHeads {
		off := uint64(((layer*c.a.KVHeads+g)*c.ctx + pos) * HD * 4)
		b.fail("reading the KV cache", b.g.d.DtoH(unsafe.Pointer(&k[g*HD]), c.k+cu.DevicePtr(off), uint64(4*HD)))
		b.fail("reading the KV cache", b.g.d.DtoH(unsafe.Pointer(&v[g*HD]), c.v+cu.DevicePtr(off), uint64(4*HD)))
	}
}

// Attend runs causal attention for layer: split over the keys for a few
// rows, in tiles of rows for more (attention.go).
func (b *Backend) Attend(out, q backend.Buffer, cache backend.KV, layer, pos0, n int, o backend.AttendOptions) {
	if !b.enter() {
		return
	}
	defer b.leave()
	c, qs, os := cache.(*kv), db(q), db(out)
	if err := kvRows(c, pos0, n, c.a.Heads, qs, os); err != nil {
		b.fail("attention", err)
		return
	}
	scale := o.Scale
	if scale == 0 {
		scale = float32(1 / math.Sqrt(float64(c.a.HeadDim)))
	}
	var sinks cu.DevicePtr
	if o.Sinks != nil {
		sv := dv(o.Sinks)
		if sv.n != c.a.Heads {
			b.fail("attention", fmt.Errorf("%d sink logits for %d heads", sv.n, c.a.Heads))
			return
		}
		sinks = sv.p
	}
	posp := b.posArg(pos0)
	if posp != 0 {
		pos0 = 0
	}
	b.attend(c, os, qs, layer, pos0, n, scale, o, sinks, posp)
}

// Add adds n rows of src into dst.
func (b *Backend) Add(dst, src backend.Buffer, n int) {
	if !b.enter() {
		return
	}
	defer b.leave()
	d, s := db(dst), db(src)
	b.args.Reset().Ptr(d.p).Ptr(s.p).I32(int32(n * d.width))
	b.elementwise("add", b.g.k.add, n*d.width)
}

// Project applies x ← x + alpha·Bᵀ(B·x) to rows row0…row0+n−1: c = B·x
// with the F32 product kernel, then proj_add. The k × n coefficients live
// in a device scratch grown to the largest rank asked for.
func (b *Backend) Project(x backend.Buffer, row0, n int, basis backend.Matrix, alpha float32) {
	if n <= 0 || !b.enter() {
		return
	}
	defer b.leave()
	s, B := db(x), dm(basis)
	if B.t != tensor.F32 || B.cols != s.width {
		b.fail("projection", fmt.Errorf("a basis of %d×%d %s for rows of %d; want F32 rows of the buffer's width", B.rows, B.cols, B.t, s.width))
		return
	}
	if need := B.rows * n; need > b.nprojc {
		p, err := b.alloc(4 * B.rows * MaxBatch)
		if err != nil {
			b.fail("the projection scratch", err)
			return
		}
		b.projc, b.nprojc = p, B.rows*MaxBatch
	}
	xp := s.p + cu.DevicePtr(4*row0*s.width)
	b.product(b.projc, B, xp, n, 0)
	b.args.Reset().Ptr(xp).I32(int32(s.width)).Ptr(B.p).I32(int32(B.rows)).I32(int32(B.cols)).Ptr(b.projc).F32(alpha)
	b.launch("proj_add", b.g.k.projAdd, [3]uint32{blocks(B.cols, 256), uint32(n), 1}, [3]uint32{256, 1, 1})
}

// Host copies rows row0…row0+n−1 back into the buffer's host mirror. The
// copy waits for the operations before it, which is the one point a hook
// makes the host wait.
func (b *Backend) Host(x backend.Buffer, row0, n int) []float32 {
	s := db(x)
	if s.host == nil {
		s.host = make([]float32, s.rows*s.width)
	}
	rows := s.host[row0*s.width : (row0+n)*s.width]
	if !b.enterCopy() {
		return rows
	}
	defer b.leave()
	off := cu.DevicePtr(4 * row0 * s.width)
	b.fail("copying rows to the host", b.g.d.DtoH(unsafe.Pointer(&rows[0]), s.p+off, uint64(4*len(rows))))
	return rows
}

// Sync writes rows (which Host returned, perhaps modified) back.
func (b *Backend) Sync(x backend.Buffer, row0 int, rows []float32) {
	b.Write(x, row0, rows)
}

// Write copies host rows into x from row0. Rows past x's end fail the
// backend: the copy would land past the allocation, or, through a view,
// silently in its parent's next rows.
func (b *Backend) Write(x backend.Buffer, row0 int, rows []float32) {
	if len(rows) == 0 || !b.enterCopy() {
		return
	}
	defer b.leave()
	s := db(x)
	if row0 < 0 || row0 > s.rows || len(rows) > (s.rows-row0)*s.width {
		b.fail("copying rows to the device", fmt.Errorf("%d values from row %d into a buffer of %d × %d", len(rows), row0, s.rows, s.width))
		return
	}
	off := cu.DevicePtr(4 * row0 * s.width)
	b.fail("copying rows to the device", b.g.d.HtoD(s.p+off, unsafe.Pointer(&rows[0]), uint64(4*len(rows))))
}

// Logits runs the classifier on the device and copies its n rows to dst:
// decode's one wait on the device.
func (b *Backend) Logits(dst []float32, w backend.Matrix, x backend.Buffer, row0, n int) {
	if b.err != nil || b.closed || !b.lock() {
		return
	}
	defer b.leave()
	m, s := dm(w), db(x)
	need := n * m.rows
	if need > b.nlog {
		// Grown once to the largest batch asked for, never per token.
		p, err := b.alloc(4 * need)
		if err != nil {
			b.fail("the logits buffer", err)
			return
		}
		b.logits, b.nlog = p, need
	}
	b.product(b.logits, m, s.p+cu.DevicePtr(4*row0*s.width), n, 0)
	// A decode step ends here: its launches as one graph, or plainly.
	b.finishStep()
	if b.err == nil {
		b.fail("copying the logits", b.g.d.DtoH(unsafe.Pointer(&dst[0]), b.logits, uint64(4*need)))
	}
}

// Compile-time checks.
var (
	_ backend.Backend  = (*Backend)(nil)
	_ backend.KVReader = (*Backend)(nil)
	_ backend.Releaser = (*Backend)(nil)
	_ backend.Failer   = (*Backend)(nil)
	_ backend.Viewer   = (*Backend)(nil)
)
