// Package cpu is the host implementation of engine/backend: buffers are
// Go slices, products run on tensor.Kernels (Go assembly on x86-64, a
// worker pool over rows), and Host and Sync cost nothing because the
// activations already live on the host. It is the reference backend: the
// golden tests of engine/model run on it, and a device backend passes the
// same tests.
package cpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Backend runs the forward pass on the host with k's kernels and pool.
type Backend struct {
	k *tensor.Kernels
	// ops is reused by Linears so that a decode step allocates nothing.
	ops [4]tensor.MatMulOp
	cos []float32 // RoPE tables for a batch: [row][Dim/2]
	sin []float32
	// ropeFor says which batch the tables hold: every layer of a batch
	// rotates the same positions, so they are computed once.
	ropeFor ropeKey
	attn    attnTask
	glu     gluTask
	// coef and row are Project's scratch: the k coefficients B·x of a
	// row, and a dequantised basis row when the basis is not F32.
	coef, row []float32
	// aw and ac are Affine's float64 scratch when it steps: a row's
	// offset w and its k coefficients B·w.
	aw, ac []float64
	hproj  headProjTask
	ex     experts // the expert operations' scratch (experts.go)
}

// batchSize is the most rows an operation takes: the model's own prefill
// step (engine/model.MaxBatch, which this package must not import), so that
// the CPU runs prompts exactly as before the backend reported a size.
const batchSize = 256

// domain is the host's one weight domain: a host Matrix wraps the mapped
// tensor (with, for the packed types, a packed copy that every CPU
// backend's kernels read alike, or Data where they have no packed kernels
// for the type), so every CPU backend can use every other's.
type domain struct{}

// New returns a CPU backend over k (a new pool with one worker per core
// when k is nil).
func New(k *tensor.Kernels) *Backend {
	if k == nil {
		k = tensor.NewKernels(nil)
	}
	b := &Backend{k: k}
	b.attn.b = b
	return b
}

// Kernels are the kernels the backend runs on.
func (b *Backend) Kernels() *tensor.Kernels { return b.k }

// BatchSize is 256 rows, the model's prefill step.
func (b *Backend) BatchSize() int { return batchSize }

// Share returns a backend on new kernels over the same worker pool:
// kernels keep scratch space and must not run on two goroutines at once,
// while the pool serialises concurrent runs. Host weights need no sharing.
func (b *Backend) Share() (backend.Backend, error) {
	return New(tensor.NewKernels(b.k.Pool())), nil
}

// Domain is the same for every CPU backend: host weights are wrappers of
// the mapped tensors, valid on any of them.
func (b *Backend) Domain() any { return domain{} }

// Name says which kernels and how many threads run the operations.
func (b *Backend) Name() string {
	return fmt.Sprintf("cpu %s × %d threads", b.k.Path(), b.k.Pool().Size())
}

// buf is a host buffer: rows × width floats.
type buf struct {
	data  []float32
	width int
}

func (x *buf) Rows() int  { return len(x.data) / max(x.width, 1) }
func (x *buf) Width() int { return x.width }

// View is rows row0…row0+n−1 of x, sharing its memory (backend.Viewer).
func (b *Backend) View(x backend.Buffer, row0, n int) backend.Buffer {
	h := hb(x)
	return &buf{data: h.data[row0*h.width : (row0+n)*h.width : (row0+n)*h.width], width: h.width}
}

// rows returns the first n rows.
func (x *buf) rows(n int) []float32 { return x.data[:n*x.width] }

type mat struct{ m *tensor.Matrix }

func (m *mat) Shape() (int, int) { return m.m.Rows, m.m.Cols }

type vec struct{ v []float32 }

func (v *vec) Len() int { return len(v.v) }

// kv is a host KV cache laid out per KV head, [layer][kvHead][ctx][row],
// so that one head's keys are contiguous for the attention's dot products.
// A row is HeadDim values in the cache's type (a.KV): float32 in k and v,
// binary16 in kh and vh, or Q8_0 blocks; kb and vb are the same memory as
// bytes (the only storage for Q8_0), which Compact and CopyKV move a row
// of rowBytes at a time whatever the type. scores is the attention's
// scratch, a row of ctx per unit of work (a query head, or a quarter of a
// batch's rows of one; see attnTask).
type kv struct {
	k, v     []float32 // KVF32
	kh, vh   []uint16  // KVF16
	kb, vb   []byte    // every type's rows as bytes
	rowBytes int
	scores   []float32
	ctx      int
	a        backend.Attention
	// keys is Keys's scratch for a compact type: one head's keys decoded,
	// allocated at the first eviction and reused after.
	keys []float32
	// After a compaction (Compact), slot s < base of layer l's KV head g
	// holds the entry of position pos[(l·KVHeads+g)·ctx+s], and every slot
	// from base on holds position s+shift (the rows stored since follow one
	// another). Before any compaction base and shift are 0: slot = position.
	pos         []int32
	base, shift int
}

func (c *kv) Cap() int { return c.ctx }

// posOf is the position of slot s of head lg (layer·KVHeads+head).
func (c *kv) posOf(lg, s int) int {
	if s < c.base {
		return int(c.pos[lg*c.ctx+s])
	}
	return s + c.shift
}

// firstSlot is the first slot of head lg whose position is at least p
// (positions ascend with slots).
func (c *kv) firstSlot(lg, p int) int {
	if s := p - c.shift; s >= c.base {
		return s
	}
	tab := c.pos[lg*c.ctx : lg*c.ctx+c.base]
	lo, hi := 0, len(tab)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(tab[mid]) < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Host buffers and weights are the concrete types above; anything else is
// another backend's, a programming error the forward pass never makes.
func hb(x backend.Buffer) *buf      { return x.(*buf) }
func hm(m backend.Matrix) *mat      { return m.(*mat) }
func hv(v backend.Vector) []float32 { return v.(*vec).v }

// Matrix wraps m: host products read the mapped bytes directly, except
// that a Q4_0 matrix (and a Q8_0, Q4_1, Q4_K, Q5_K, Q6_K or IQ4_XS one, on CPUs
// with AVX-512 VNNI) gets a copy of its rows interleaved for the packed kernels
// (tensor.Kernels.Pack), made here once per model and about as large as
// the matrix; Data, which embedding lookups and projections read, stays
// the mapped bytes, whose pages the copy replaces are let go (they read
// back from the file).
func (b *Backend) Matrix(m *tensor.Matrix) (backend.Matrix, error) {
	if m == nil {
		return nil, fmt.Errorf("cpu: nil matrix")
	}
	return &mat{b.k.Pack(m)}, nil
}

// Vector copies v.
func (b *Backend) Vector(v []float32) (backend.Vector, error) {
	return &vec{append([]float32(nil), v...)}, nil
}

// WriteVector implements backend.VectorWriter.
func (b *Backend) WriteVector(v backend.Vector, data []float32) error {
	w := v.(*vec)
	if len(data) != len(w.v) {
		return fmt.Errorf("cpu: writing %d values into a vector of %d", len(data), len(w.v))
	}
	copy(w.v, data)
	return nil
}

// ReleaseVector implements backend.VectorWriter: the garbage collector
// frees a host vector.
func (b *Backend) ReleaseVector(backend.Vector) {}

// Alloc returns a zeroed host buffer.
func (b *Backend) Alloc(rows, width int) (backend.Buffer, error) {
	if rows <= 0 || width <= 0 || rows > math.MaxInt32/width {
		return nil, fmt.Errorf("cpu: buffer of %d × %d", rows, width)
	}
	return &buf{data: make([]float32, rows*width), width: width}, nil
}

// NewKV allocates a cache of a.KV: float32 by default, since it
// reproduces the reference logits exactly where an f16 cache flips a
// near-tie in the stories260K golden; f16 or Q8_0 when asked for, at half
// or 34/128 of the bytes (Q8_0 only for heads of a multiple of 32 values).
func (b *Backend) NewKV(layers, ctx int, a backend.Attention) (backend.KV, error) {
	if err := a.KV.CheckHeadDim(a.HeadDim); err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	n := layers * ctx * a.KVHeads * a.HeadDim
	if layers <= 0 || ctx <= 0 || a.KVHeads <= 0 || n/layers/ctx != a.KVHeads*a.HeadDim || n > 1<<33 {
		return nil, fmt.Errorf("cpu: KV cache of %d positions is too large", ctx)
	}
	c := &kv{scores: make([]float32, a.Heads*attnSplit*ctx), ctx: ctx, a: a, rowBytes: a.KV.RowBytes(a.HeadDim)}
	switch a.KV {
	case backend.KVF32:
		c.k, c.v = make([]float32, n), make([]float32, n)
		c.kb, c.vb = asBytes(c.k), asBytes(c.v)
	case backend.KVF16:
		c.kh, c.vh = make([]uint16, n), make([]uint16, n)
		c.kb, c.vb = u16Bytes(c.kh), u16Bytes(c.vh)
	case backend.KVQ8_0:
		m := n / a.HeadDim * c.rowBytes
		c.kb, c.vb = make([]byte, m), make([]byte, m)
	}
	return c, nil
}

// Embed dequantises the tokens' rows of the table. It starts every step of
// the model, so it is where the pool learns that one begins (Pool.Mark:
// under contention for the cores the pool may run the step on one thread).
func (b *Backend) Embed(dst backend.Buffer, table backend.Matrix, tokens []int32) error {
	b.k.Pool().Mark(len(tokens))
	d, t := hb(dst), hm(table).m
	D := d.width
	for i, tok := range tokens {
		if err := tensor.Dequantize(t.Type, d.data[i*D:(i+1)*D], t.Row(int(tok))); err != nil {
			return fmt.Errorf("cpu: embedding of token %d: %w", tok, err)
		}
	}
	return nil
}

// RMSNorm normalises n rows.
func (b *Backend) RMSNorm(dst, x backend.Buffer, w backend.Vector, n int, eps float32) {
	d, s, wv := hb(dst), hb(x), hv(w)
	D := s.width
	for i := range n {
		rmsnorm(d.data[i*D:(i+1)*D], s.data[i*D:(i+1)*D], wv, eps)
	}
}

// HeadRMSNorm normalises each head of n rows in place.
func (b *Backend) HeadRMSNorm(x backend.Buffer, w backend.Vector, n, heads int, eps float32) {
	s, wv := hb(x), hv(w)
	HD := len(wv)
	for i := range n {
		row := s.data[i*s.width:]
		for h := range heads {
			hx := row[h*HD : (h+1)*HD]
			rmsnorm(hx, hx, wv, eps)
		}
	}
}

// Linear is a matrix-vector product for one row, a matrix-matrix product
// for more.
func (b *Backend) Linear(dst backend.Buffer, w backend.Matrix, x backend.Buffer, n int) {
	d, m, s := hb(dst), hm(w).m, hb(x)
	if n == 1 {
		b.k.MatVec(d.data[:m.Rows], m, s.data[:m.Cols])
		return
	}
	// Rows are packed at the product's widths, which are the buffers'
	// except for the projection scratch of a compressed slot (as wide as
	// the widest rank, holding this slot's).
	b.k.MatMul(d.data[:n*m.Rows], m, s.data[:n*m.Cols], n)
}

// Linears runs the products of one input in one dispatch of the pool, the
// input quantised once (for a batch, the products' rows are packed at
// their widths, as in Linear).
func (b *Backend) Linears(x backend.Buffer, n int, ops ...backend.LinearOp) {
	if len(ops) > len(b.ops) || !sameCols(ops) {
		for _, op := range ops {
			b.Linear(op.Dst, op.W, x, n)
		}
		return
	}
	s := hb(x)
	for i, op := range ops {
		m := hm(op.W).m
		b.ops[i] = tensor.MatMulOp{Dst: hb(op.Dst).data[:n*m.Rows], W: m}
	}
	cols := hm(ops[0].W).m.Cols
	b.k.MatMuls(s.data[:n*cols], n, b.ops[:len(ops)]...)
	clear(b.ops[:]) // drop the references until the next call
}

// sameCols reports whether every product reads inputs of one width, as a
// fused call requires.
func sameCols(ops []backend.LinearOp) bool {
	for _, op := range ops[1:] {
		if hm(op.W).m.Cols != hm(ops[0].W).m.Cols {
			return false
		}
	}
	return true
}

// AddBias adds b to n rows of x.
func (b *Backend) AddBias(x backend.Buffer, bias backend.Vector, n int) {
	s, bv := hb(x), hv(bias)
	for i := range n {
		addInto(s.data[i*s.width:i*s.width+len(bv)], bv)
	}
}

// SwiGLU writes silu(g)·u into g, row by row (so that a batch's rows are
// bit for bit the rows alone), the rows of a batch split across the pool.
func (b *Backend) SwiGLU(g, u backend.Buffer, n int) {
	gb, ub := hb(g), hb(u)
	if n == 1 {
		tensor.SiLUMul(gb.data[:gb.width], ub.data[:gb.width])
		return
	}
	t := &b.glu
	t.g, t.u = gb, ub
	b.k.Pool().Run(n, t)
	t.g, t.u = nil, nil
}

// gluTask is SwiGLU over a range of a batch's rows.
type gluTask struct{ g, u *buf }

func (t *gluTask) Run(lo, hi int) {
	w := t.g.width
	for i := lo; i < hi; i++ {
		tensor.SiLUMul(t.g.data[i*w:(i+1)*w], t.u.data[i*t.u.width:i*t.u.width+w])
	}
}

// GeGLU writes gelu(g)·u into g, GELU in its tanh form.
func (b *Backend) GeGLU(g, u backend.Buffer, n int) {
	gs, us := hb(g).rows(n), hb(u).rows(n)
	us = us[:len(gs)]
	for i, v := range gs {
		gs[i] = geluTanh(v) * us[i]
	}
}

// Scale multiplies n rows of x by c.
func (b *Backend) Scale(x backend.Buffer, n int, c float32) {
	xs := hb(x).rows(n)
	for i := range xs {
		xs[i] *= c
	}
}

// RoPE rotates n rows' heads; the angle tables are computed once per row
// in float64 so that they stay exact at long positions.
func (b *Backend) RoPE(x backend.Buffer, n, heads, headDim, pos0 int, r backend.Rope) {
	s := hb(x)
	half := r.Dim / 2
	key := ropeKey{pos0: pos0, n: n, base: r.Base, dim: r.Dim, freqs: r.Freqs, scale: r.Scale, posScale: r.PosScale}
	if r.YaRN != nil {
		key.yarn, key.hasYaRN = *r.YaRN, true
	}
	if len(b.cos) < n*half {
		b.cos, b.sin = make([]float32, n*half), make([]float32, n*half)
		b.ropeFor = ropeKey{}
	}
	if !b.ropeFor.same(key) {
		for i := range n {
			ropeTables(b.cos[i*half:(i+1)*half], b.sin[i*half:(i+1)*half], pos0+i, r)
		}
		b.ropeFor = key
	}
	for i := range n {
		cs, sn := b.cos[i*half:(i+1)*half], b.sin[i*half:(i+1)*half]
		row := s.data[i*s.width:]
		for h := range heads {
			rope(row[h*headDim:(h+1)*headDim], cs, sn, r.Neox)
		}
	}
}

// StoreKV writes n rows of keys and values into the cache, head by head,
// encoded to the cache's type.
func (b *Backend) StoreKV(cache backend.KV, layer, slot0, n int, k, v backend.Buffer) {
	c, ks, vs := cache.(*kv), hb(k), hb(v)
	HD := c.a.HeadDim
	for i := range n {
		ki, vi := ks.data[i*ks.width:], vs.data[i*vs.width:]
		for g := range c.a.KVHeads {
			r := (layer*c.a.KVHeads+g)*c.ctx + slot0 + i
			c.store(r, ki[g*HD:(g+1)*HD], vi[g*HD:(g+1)*HD])
		}
	}
}

// store encodes one head's key and value into row r.
func (c *kv) store(r int, k, v []float32) {
	HD := c.a.HeadDim
	switch c.a.KV {
	case backend.KVF32:
		copy(c.k[r*HD:(r+1)*HD], k)
		copy(c.v[r*HD:(r+1)*HD], v)
	case backend.KVF16:
		tensor.EncodeF16(c.kh[r*HD:(r+1)*HD], k)
		tensor.EncodeF16(c.vh[r*HD:(r+1)*HD], v)
	case backend.KVQ8_0:
		rb := c.rowBytes
		tensor.EncodeQ8_0(c.kb[r*rb:(r+1)*rb], k)
		tensor.EncodeQ8_0(c.vb[r*rb:(r+1)*rb], v)
	}
}

// decode writes rows r0…r0+len(dst)/HeadDim−1 of keys (or of values,
// with values) to dst as float32.
func (c *kv) decode(dst []float32, r0 int, values bool) {
	HD, rb := c.a.HeadDim, c.rowBytes
	rows := len(dst) / HD
	switch c.a.KV {
	case backend.KVF32:
		src := c.k
		if values {
			src = c.v
		}
		copy(dst, src[r0*HD:(r0+rows)*HD])
	case backend.KVF16:
		src := c.kh
		if values {
			src = c.vh
		}
		tensor.DecodeF16(dst, src[r0*HD:(r0+rows)*HD])
	case backend.KVQ8_0:
		src := c.kb
		if values {
			src = c.vb
		}
		tensor.DecodeQ8_0(dst, src[r0*rb:(r0+rows)*rb])
	}
}

// ReadKV implements backend.KVReader, decoding the cache's type.
func (b *Backend) ReadKV(cache backend.KV, layer, slot int, k, v []float32) {
	c := cache.(*kv)
	HD := c.a.HeadDim
	for g := range c.a.KVHeads {
		r := (layer*c.a.KVHeads+g)*c.ctx + slot
		c.decode(k[g*HD:(g+1)*HD], r, false)
		c.decode(v[g*HD:(g+1)*HD], r, true)
	}
}

// Keys implements backend.Compactor: the cache's own memory when it holds
// float32; otherwise the keys decoded into the cache's scratch, which the
// next call overwrites (the contract's "read before the next operation").
func (b *Backend) Keys(cache backend.KV, layer, head, n int) []float32 {
	c := cache.(*kv)
	HD := c.a.HeadDim
	r := (layer*c.a.KVHeads + head) * c.ctx
	if c.a.KV == backend.KVF32 {
		return c.k[r*HD : (r+n)*HD]
	}
	if len(c.keys) < c.ctx*HD {
		c.keys = make([]float32, c.ctx*HD)
	}
	dst := c.keys[:n*HD]
	c.decode(dst, r, false)
	return dst
}

// Positions implements backend.Compactor.
func (b *Backend) Positions(cache backend.KV, layer, head int, dst []int32) {
	c := cache.(*kv)
	lg := layer*c.a.KVHeads + head
	for s := range dst {
		dst[s] = int32(c.posOf(lg, s))
	}
}

// Compact implements backend.Compactor, moving the kept rows down in
// place: a kept slot never moves up, so ascending order reads every row
// (and its position) before anything overwrites it.
func (b *Backend) Compact(cache backend.KV, n int, keep [][]int32) error {
	c := cache.(*kv)
	heads := c.layers() * c.a.KVHeads
	if n < 0 || n > c.ctx || len(keep) != heads {
		return fmt.Errorf("cpu: compacting %d slots needs %d keep lists of slots below %d, got %d", n, heads, min(n, c.ctx), len(keep))
	}
	m := len(keep[0])
	for lg, ks := range keep {
		if len(ks) != m {
			return fmt.Errorf("cpu: keep lists of %d and %d slots: every layer and head keeps as many", m, len(ks))
		}
		for j, s := range ks {
			if s < 0 || int(s) >= n || (j > 0 && s <= ks[j-1]) {
				return fmt.Errorf("cpu: keep list %d is not ascending slots below %d (slot %d at %d)", lg, n, s, j)
			}
		}
	}
	if c.pos == nil {
		c.pos = make([]int32, heads*c.ctx)
	}
	rb := c.rowBytes
	for lg, ks := range keep {
		base := lg * c.ctx
		for j, s := range ks {
			c.pos[base+j] = int32(c.posOf(lg, int(s)))
			if int(s) != j {
				// Rows move as bytes: the same for every type.
				src, dst := (base+int(s))*rb, (base+j)*rb
				copy(c.kb[dst:dst+rb], c.kb[src:src+rb])
				copy(c.vb[dst:dst+rb], c.vb[src:src+rb])
			}
		}
	}
	// Slot n held position n+shift; it is slot m now.
	c.shift += n - m
	c.base = m
	return nil
}

// CopyKV implements backend.Compactor.
func (b *Backend) CopyKV(dstKV, srcKV backend.KV, n int) error {
	d, s := dstKV.(*kv), srcKV.(*kv)
	if d.a.KV != s.a.KV {
		return fmt.Errorf("cpu: copying a KV cache of type %s into one of type %s: both must store one type", s.a.KV, d.a.KV)
	}
	if d.ctx != s.ctx || d.a != s.a || len(d.kb) != len(s.kb) || n < 0 || n > d.ctx {
		return fmt.Errorf("cpu: copying %d slots between caches of %d and %d positions (%d and %d bytes)", n, d.ctx, s.ctx, len(d.kb), len(s.kb))
	}
	rb := d.rowBytes
	for lg := range d.layers() * d.a.KVHeads {
		off := lg * d.ctx * rb
		copy(d.kb[off:off+n*rb], s.kb[off:off+n*rb])
		copy(d.vb[off:off+n*rb], s.vb[off:off+n*rb])
	}
	d.base, d.shift = s.base, s.shift
	if s.pos != nil {
		if d.pos == nil {
			d.pos = make([]int32, len(s.pos))
		}
		copy(d.pos, s.pos)
	}
	return nil
}

// Uncompact implements backend.Compactor.
func (b *Backend) Uncompact(cache backend.KV) {
	c := cache.(*kv)
	c.base, c.shift = 0, 0
}

// layers is the number of layers the cache holds.
func (c *kv) layers() int { return len(c.kb) / (c.ctx * c.a.KVHeads * c.rowBytes) }

// Attend runs causal attention, the query heads split across the pool.
func (b *Backend) Attend(out, q backend.Buffer, cache backend.KV, layer, slot0, n int, o backend.AttendOptions) {
	t := &b.attn
	t.c, t.q, t.out = cache.(*kv), hb(q), hb(out)
	t.layer, t.pos0, t.n, t.o = layer, slot0, n, o
	t.split = min(n, attnSplit)
	b.k.Pool().Run(t.c.a.Heads*t.split, t)
	t.c, t.q, t.out = nil, nil, nil
}

// Add adds n rows of src into dst.
func (b *Backend) Add(dst, src backend.Buffer, n int) {
	addInto(hb(dst).rows(n), hb(src).rows(n))
}

// Project adds alpha·Bᵀ(B·x) to each of n rows of x from row0, with the
// k coefficients B·x of a row computed first (so the update reads the row
// as it was). An F32 basis is read in place; another type is dequantised a
// row at a time into scratch. Nothing is allocated once the scratch has
// grown to the basis.
func (b *Backend) Project(x backend.Buffer, row0, n int, basis backend.Matrix, alpha float32) {
	s, B := hb(x), hm(basis).m
	k, d := B.Rows, B.Cols
	if cap(b.coef) < k {
		b.coef = make([]float32, k)
	}
	c := b.coef[:k]
	var f32 []float32
	if B.Type == tensor.F32 {
		f32 = asF32(B.Data)[:k*d]
	} else if cap(b.row) < d {
		b.row = make([]float32, d)
	}
	for i := row0; i < row0+n; i++ {
		xr := s.data[i*s.width : i*s.width+d]
		if f32 != nil {
			tensor.DotRows(f32, xr, c)
			for j, cj := range c {
				tensor.Axpy(alpha*cj, f32[j*d:(j+1)*d], xr)
			}
			continue
		}
		// A basis of another type: dequantise each row twice (for the
		// coefficients, then for the update) rather than keep k×d floats.
		row := b.row[:d]
		for j := range k {
			if tensor.Dequantize(B.Type, row, B.Row(j)) != nil {
				return // Matrix accepted only computable types
			}
			c[j] = tensor.Dot(row, xr)
		}
		for j, cj := range c {
			_ = tensor.Dequantize(B.Type, row, B.Row(j))
			tensor.Axpy(alpha*cj, row, xr)
		}
	}
}

// Host returns the rows themselves: they are host memory.
func (b *Backend) Host(x backend.Buffer, row0, n int) []float32 {
	s := hb(x)
	return s.data[row0*s.width : (row0+n)*s.width]
}

// Sync has nothing to do: Host returned the buffer's own memory (a copy
// made elsewhere is written back).
func (b *Backend) Sync(x backend.Buffer, row0 int, rows []float32) {
	s := hb(x)
	dst := s.data[row0*s.width:]
	if len(rows) > 0 && &dst[0] != &rows[0] {
		copy(dst, rows)
	}
}

// Write copies rows into x from row0.
func (b *Backend) Write(x backend.Buffer, row0 int, rows []float32) {
	s := hb(x)
	copy(s.data[row0*s.width:], rows)
}

// Logits runs the classifier straight into dst.
func (b *Backend) Logits(dst []float32, w backend.Matrix, x backend.Buffer, row0, n int) {
	m, s := hm(w).m, hb(x)
	in := s.data[row0*s.width : (row0+n)*s.width]
	if n == 1 {
		b.k.MatVec(dst[:m.Rows], m, in[:m.Cols])
		return
	}
	b.k.MatMul(dst[:n*m.Rows], m, in, n)
}

// ropeKey identifies the positions and rotation the RoPE tables hold.
type ropeKey struct {
	pos0, n, dim int
	base         float64
	freqs        []float32
	scale        float32
	posScale     float32
	// yarn is a copy of the rotation's YaRN (when hasYaRN): a caller may
	// change its YaRN between calls, so the pointer would not do.
	yarn    backend.YaRN
	hasYaRN bool
}

func (k ropeKey) same(o ropeKey) bool {
	return k.n > 0 && k.pos0 == o.pos0 && k.n == o.n && k.dim == o.dim && k.base == o.base && k.scale == o.scale && k.posScale == o.posScale &&
		k.hasYaRN == o.hasYaRN && k.yarn == o.yarn &&
		len(k.freqs) == len(o.freqs) && (len(k.freqs) == 0 || &k.freqs[0] == &o.freqs[0])
}

// asF32 views an F32 matrix's little-endian bytes as floats in place, as
// the tensor kernels read F32 weights: GGUF aligns tensor data, and x86
// tolerates misalignment anyway.
func asF32(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// asBytes views float32s as their bytes, and u16Bytes uint16s: the
// cache's rows as Compact and CopyKV move them.
func asBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 4*len(f))
}

func u16Bytes(h []uint16) []byte {
	if len(h) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), 2*len(h))
}

func addInto(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}

// Compile-time checks that Backend implements the interfaces.
var (
	_ backend.Backend = (*Backend)(nil)
	_ backend.Viewer  = (*Backend)(nil)
)
