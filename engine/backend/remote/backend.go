package remote

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Backend runs one State's forward pass on a cluster (backend.Backend).
// Its operations are recorded per server and sent when the host needs a
// result; an operation runs on the server that holds its weights or its
// layer's KV cache, and an activation it reads is copied there first when
// another server wrote it last.
type Backend struct {
	c *Cluster
	g []*graph // per server: what is recorded and not sent yet

	bufs []*buffer
	kvs  []*kv
	err  error // this backend's own first failure (a refused operation)

}

// buffer is an activation buffer: a copy on each server that has used it,
// with the rows whose content there is current.
type buffer struct {
	rows, width int
	on          []rmem // per server; handle 0: not allocated there yet
	valid       []span // per server
	home        int    // the server that wrote last
	host        []float32
}

// span is a range of rows [lo, hi).
type span struct{ lo, hi int }

// Rows implements backend.Buffer.
func (b *buffer) Rows() int { return b.rows }

// Width implements backend.Buffer.
func (b *buffer) Width() int { return b.width }

// kv is a KV cache: each layer's keys and values on the server that runs
// the layer, as F32 rows of KVHeads·HeadDim per position.
type kv struct {
	layers, ctx int
	a           backend.Attention
	k, v        []rmem
	srv         []int
}

// Cap implements backend.KV.
func (c *kv) Cap() int { return c.ctx }

// Name implements backend.Backend.
func (b *Backend) Name() string { return b.c.Name() }

// BatchSize implements backend.Backend. On one server, one graph per
// prompt batch keeps the requests few, and the model caps it at its own
// step. A split model takes the prompt in micro-batches (Options.
// MicroBatch), so that the servers pipeline them: while the last server
// runs its layers of one micro-batch, the first runs its layers of the
// next (read).
func (b *Backend) BatchSize() int {
	switch {
	case b.c.opts.MicroBatch > 0:
		return b.c.opts.MicroBatch
	case len(b.c.servers) == 1:
		return 512
	}
	return DefaultMicroBatch
}

// Share returns another backend on the same cluster and weights.
func (b *Backend) Share() (backend.Backend, error) { return b.c.NewBackend() }

// Domain is the cluster: its backends share its weights.
func (b *Backend) Domain() any { return b.c }

// Cluster is the cluster the backend runs on.
func (b *Backend) Cluster() *Cluster { return b.c }

// Place implements backend.Placer.
func (b *Backend) Place(layer, layers int) int { return b.c.Place(layer, layers) }

// Matrix implements backend.Backend.
func (b *Backend) Matrix(m *tensor.Matrix) (backend.Matrix, error) { return b.c.Matrix(m) }

// Vector implements backend.Backend.
func (b *Backend) Vector(v []float32) (backend.Vector, error) { return b.c.Vector(v) }

// WriteVector implements backend.VectorWriter.
func (b *Backend) WriteVector(v backend.Vector, data []float32) error {
	return b.c.WriteVector(v, data)
}

// ReleaseVector implements backend.VectorWriter.
func (b *Backend) ReleaseVector(v backend.Vector) { b.c.ReleaseVector(v) }

// Release implements backend.Releaser.
func (b *Backend) Release(m backend.Matrix) { b.c.Release(m) }

// Err implements backend.Failer: the first failure of this backend or of
// a server it uses.
func (b *Backend) Err() error {
	if b.err != nil {
		return b.err
	}
	b.c.io.Lock()
	defer b.c.io.Unlock()
	for _, s := range b.c.servers {
		if s.k.err != nil {
			return s.k.err
		}
	}
	return nil
}

// failed says whether the backend must stop doing anything.
func (b *Backend) failed() bool {
	if b.err != nil {
		return true
	}
	for _, s := range b.c.servers {
		if s.k.err != nil {
			return true
		}
	}
	return false
}

// refuse records an operation this backend cannot run.
func (b *Backend) refuse(format string, a ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("remote: "+format, a...)
	}
}

// Alloc implements backend.Backend. The buffer is allocated on a server
// when an operation first uses it there.
func (b *Backend) Alloc(rows, width int) (backend.Buffer, error) {
	if rows <= 0 || width <= 0 {
		return nil, fmt.Errorf("remote: a buffer of %d×%d", rows, width)
	}
	n := len(b.c.servers)
	buf := &buffer{rows: rows, width: width, on: make([]rmem, n), valid: make([]span, n), host: make([]float32, rows*width)}
	// Every copy starts at zero, so every server holds every row.
	for i := range buf.valid {
		buf.valid[i] = span{0, rows}
	}
	b.bufs = append(b.bufs, buf)
	return buf, nil
}

// NewKV implements backend.Backend: each layer's cache on its server, in
// float32 (the servers' graphs read no other type, so a compact a.KV is
// refused).
func (b *Backend) NewKV(layers, ctx int, a backend.Attention) (backend.KV, error) {
	if a.KV != backend.KVF32 {
		return nil, fmt.Errorf("remote: KV cache type %s is not supported: the rpc-server backend stores keys and values as f32 only", a.KV)
	}
	c := &kv{layers: layers, ctx: ctx, a: a, k: make([]rmem, layers), v: make([]rmem, layers), srv: make([]int, layers)}
	size := uint64(ctx * a.KVHeads * a.HeadDim * 4)
	b.c.io.Lock()
	defer b.c.io.Unlock()
	for l := range layers {
		c.srv[l] = b.c.serverFor(l, layers)
		k := b.c.servers[c.srv[l]].k
		for _, m := range []*rmem{&c.k[l], &c.v[l]} {
			h, base, err := k.alloc(size)
			if err != nil {
				b.freeKV(c)
				return nil, fmt.Errorf("remote: the KV cache of layer %d: %w", l, err)
			}
			*m = rmem{h, base}
		}
	}
	b.kvs = append(b.kvs, c)
	return c, nil
}

// freeKV frees a cache's allocations; the caller holds io.
func (b *Backend) freeKV(c *kv) {
	for l := range c.k {
		k := b.c.servers[c.srv[l]].k
		for _, m := range []*rmem{&c.k[l], &c.v[l]} {
			if m.handle != 0 {
				_ = k.free(m.handle)
				*m = rmem{}
			}
		}
	}
}

// Close frees the backend's buffers, caches and arenas on the servers.
// The cluster's weights stay.
func (b *Backend) Close() error {
	b.c.io.Lock()
	defer b.c.io.Unlock()
	for _, buf := range b.bufs {
		for s, m := range buf.on {
			if m.handle != 0 {
				_ = b.c.servers[s].k.free(m.handle)
			}
		}
		buf.on = make([]rmem, len(buf.on))
	}
	for _, c := range b.kvs {
		b.freeKV(c)
	}
	for _, g := range b.g {
		g.release()
	}
	b.bufs, b.kvs = nil, nil
	return nil
}

// ---- validity and transfers; the caller holds io ----

// ensure allocates buf on server s if it is not there yet.
func (b *Backend) ensure(buf *buffer, s int) bool {
	if buf.on[s].handle != 0 {
		return true
	}
	h, base, err := b.c.servers[s].k.alloc(uint64(buf.rows * buf.width * 4))
	if err != nil {
		return false
	}
	buf.on[s] = rmem{h, base}
	return true
}

// read makes rows [lo, hi) of buf current on server s, copying them from
// a server that holds them (through the host) when s does not.
func (b *Backend) read(buf *buffer, s, lo, hi int) bool {
	if !b.ensure(buf, s) {
		return false
	}
	if v := buf.valid[s]; v.lo <= lo && hi <= v.hi {
		return true
	}
	from := buf.home
	if v := buf.valid[from]; !(v.lo <= lo && hi <= v.hi) {
		for t, v := range buf.valid {
			if v.lo <= lo && hi <= v.hi {
				from = t
				break
			}
		}
	}
	rows := buf.host[lo*buf.width : hi*buf.width]
	// What s has recorded may read its old copy: it runs before the copy
	// is overwritten. It goes out now, before the wait for the rows, so
	// that s computes it while from computes what s reads: through a
	// split, the last server runs its layers of one prompt micro-batch
	// while the first runs its layers of the next. Each server still
	// runs the same graphs in the same order, so this changes when they
	// run, never what they compute.
	if !b.c.opts.InTurn {
		if b.g[s].send() != nil || b.c.servers[s].k.flush() != nil {
			return false
		}
	}
	if b.c.opts.InTurn {
		// In turn: s finishes what it has before from starts.
		if b.g[s].send() != nil {
			return false
		}
		if _, err := b.c.servers[s].k.alignment(); err != nil {
			return false
		}
	}
	if !b.get(buf, from, lo, rows) {
		return false
	}
	if !b.put(buf, s, lo, rows) {
		return false
	}
	buf.valid[s] = join(buf.valid[s], span{lo, hi})
	return true
}

// wrote records that server s wrote rows [lo, hi) of buf.
func (b *Backend) wrote(buf *buffer, s, lo, hi int) {
	for t := range buf.valid {
		if t != s {
			buf.valid[t] = cut(buf.valid[t], span{lo, hi})
		}
	}
	buf.valid[s] = join(buf.valid[s], span{lo, hi})
	buf.home = s
}

// join is a ∪ w when they touch, else w (the rows just made current).
func join(a, w span) span {
	if a.hi < w.lo || w.hi < a.lo || a.lo >= a.hi {
		return w
	}
	return span{min(a.lo, w.lo), max(a.hi, w.hi)}
}

// cut is a without w; of two pieces, the larger stays (rows dropped are
// copied again if they are read).
func cut(a, w span) span {
	if w.hi <= a.lo || a.hi <= w.lo {
		return a
	}
	left, right := span{a.lo, min(a.hi, w.lo)}, span{max(a.lo, w.hi), a.hi}
	if left.hi-left.lo >= right.hi-right.lo {
		if left.hi <= left.lo {
			return span{}
		}
		return left
	}
	return right
}

// get sends what server s has recorded and copies rows of buf from it.
func (b *Backend) get(buf *buffer, s, row0 int, dst []float32) bool {
	if len(dst) == 0 {
		return true
	}
	k := b.c.servers[s].k
	if b.g[s].send() != nil {
		return false
	}
	m := buf.on[s]
	if m.handle == 0 {
		clear(dst)
		return true
	}
	off := uint64(row0 * buf.width * 4)
	return k.getRaw(m.handle, m.base+off, f32bytes(dst)) == nil
}

// put queues rows of buf for server s (after what s has sent).
func (b *Backend) put(buf *buffer, s, row0 int, rows []float32) bool {
	if len(rows) == 0 {
		return true
	}
	if !b.ensure(buf, s) {
		return false
	}
	m := buf.on[s]
	off := uint64(row0 * buf.width * 4)
	return b.c.servers[s].k.setRaw(m.handle, m.base+off, f32bytes(rows)) == nil
}

// begin starts an operation on server s: it takes io, makes the rows the
// operation reads current there, allocates what it writes, and reserves
// its inputs and scratch. It returns false (and has released io) when the
// backend has failed.
func (b *Backend) begin(s int, in, scr uint64, reads []use, writes ...*buffer) bool {
	b.c.io.Lock()
	ok := b.prepare(s, in, scr, reads, writes)
	if !ok {
		b.c.io.Unlock()
	}
	return ok
}

func (b *Backend) prepare(s int, in, scr uint64, reads []use, writes []*buffer) bool {
	if b.failed() {
		return false
	}
	for _, r := range reads {
		if !b.read(r.b, s, r.lo, r.hi) {
			return false
		}
	}
	for _, w := range writes {
		if !b.ensure(w, s) {
			return false
		}
	}
	if b.g[s].reserve(in, scr) != nil {
		return false
	}
	return true
}

// use is rows [lo, hi) of a buffer an operation reads.
type use struct {
	b      *buffer
	lo, hi int
}

// end finishes an operation begun with begin.
func (b *Backend) end() { b.c.io.Unlock() }

// packedRows is how many rows of buf n rows of width w packed together
// cover (a scratch buffer shared by products of several widths).
func packedRows(buf *buffer, n, w int) int {
	return min(buf.rows, (n*w+buf.width-1)/buf.width)
}

// rowsLeaf is rows row0… of buf on s as a [width × n] tensor.
func (b *Backend) rowsLeaf(g *graph, buf *buffer, s, row0, n, width int) uint64 {
	m := buf.on[s]
	ne := [4]uint32{uint32(width), uint32(n), 1, 1}
	return g.leaf(typeF32, m.handle, m.base+uint64(row0*buf.width*4), ne, contiguous(ne, 4))
}

// at is the address of row row0 of buf on s.
func at(buf *buffer, s, row0 int) (handle, data uint64) {
	m := buf.on[s]
	return m.handle, m.base + uint64(row0*buf.width*4)
}

// ---- operations ----

// Embed implements backend.Backend.
func (b *Backend) Embed(dst backend.Buffer, table backend.Matrix, tokens []int32) error {
	D, W := dst.(*buffer), table.(*matrix)
	n := len(tokens)
	if n == 0 {
		return nil
	}
	if n > D.rows {
		return fmt.Errorf("remote: %d tokens into a buffer of %d rows", n, D.rows)
	}
	s := W.s
	if !b.begin(s, uint64(4*n), 0, nil, D) {
		return b.Err()
	}
	defer b.end()
	g := b.g[s]
	addr, in := g.input(uint64(4 * n))
	for i, t := range tokens {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(t))
	}
	ne := [4]uint32{uint32(n), 1, 1, 1}
	ids := g.leaf(typeI32, g.inArena.handle, addr, ne, contiguous(ne, 4))
	h, d := at(D, s, 0)
	out := [4]uint32{uint32(W.cols), uint32(n), 1, 1}
	g.node(opGetRows, h, d, out, contiguous(out, 4), W.leaf(g), ids)
	b.wrote(D, s, 0, n)
	return nil
}

// RMSNorm implements backend.Backend: RMS_NORM then MUL by w (ggml fuses
// the two on the CPU).
func (b *Backend) RMSNorm(dst, x backend.Buffer, w backend.Vector, n int, eps float32) {
	D, X, V := dst.(*buffer), x.(*buffer), w.(*vector)
	s := V.s
	if !b.begin(s, 0, 0, []use{{X, 0, n}}, D) {
		return
	}
	defer b.end()
	g := b.g[s]
	xv := b.rowsLeaf(g, X, s, 0, n, X.width)
	h, d := at(D, s, 0)
	ne := [4]uint32{uint32(X.width), uint32(n), 1, 1}
	nb := [4]uint32{4, uint32(4 * D.width), uint32(4 * D.width * n), uint32(4 * D.width * n)}
	r := g.node(opRMSNorm, h, d, ne, nb, xv)
	g.setF32(r, 0, eps)
	g.node(opMul, h, d, ne, nb, r, V.leaf(g))
	b.wrote(D, s, 0, n)
}

// HeadRMSNorm implements backend.Backend.
func (b *Backend) HeadRMSNorm(x backend.Buffer, w backend.Vector, n, heads int, eps float32) {
	X, V := x.(*buffer), w.(*vector)
	s := V.s
	if !b.begin(s, 0, 0, []use{{X, 0, n}}, X) {
		return
	}
	defer b.end()
	g := b.g[s]
	hd := V.n
	h, d := at(X, s, 0)
	ne := [4]uint32{uint32(hd), uint32(heads), uint32(n), 1}
	nb := [4]uint32{4, uint32(4 * hd), uint32(4 * X.width), uint32(4 * X.width * n)}
	xv := g.leaf(typeF32, h, d, ne, nb)
	r := g.node(opRMSNorm, h, d, ne, nb, xv)
	g.setF32(r, 0, eps)
	g.node(opMul, h, d, ne, nb, r, V.leaf(g))
	b.wrote(X, s, 0, n)
}

// Linear implements backend.Backend: dst = W·x, rows packed at W's shape.
func (b *Backend) Linear(dst backend.Buffer, w backend.Matrix, x backend.Buffer, n int) {
	D, W, X := dst.(*buffer), w.(*matrix), x.(*buffer)
	s := W.s
	if !b.begin(s, 0, 0, []use{{X, 0, packedRows(X, n, W.cols)}}, D) {
		return
	}
	defer b.end()
	b.linear(s, D, W, X, n)
}

// linear records one product; the caller has begun the operation.
func (b *Backend) linear(s int, D *buffer, W *matrix, X *buffer, n int) {
	g := b.g[s]
	xh, xd := at(X, s, 0)
	xne := [4]uint32{uint32(W.cols), uint32(n), 1, 1}
	xv := g.leaf(typeF32, xh, xd, xne, contiguous(xne, 4))
	h, d := at(D, s, 0)
	ne := [4]uint32{uint32(W.rows), uint32(n), 1, 1}
	g.node(opMulMat, h, d, ne, contiguous(ne, 4), W.leaf(g), xv)
	b.wrote(D, s, 0, packedRows(D, n, W.rows))
}

// Linears implements backend.Backend: the products of one input, recorded
// into one graph (one per server when their weights are on several).
func (b *Backend) Linears(x backend.Buffer, n int, ops ...backend.LinearOp) {
	for _, op := range ops {
		b.Linear(op.Dst, op.W, x, n)
	}
}

// AddBias implements backend.Backend.
func (b *Backend) AddBias(x backend.Buffer, bias backend.Vector, n int) {
	X, V := x.(*buffer), bias.(*vector)
	s := V.s
	if !b.begin(s, 0, 0, []use{{X, 0, n}}, X) {
		return
	}
	defer b.end()
	g := b.g[s]
	xv := b.rowsLeaf(g, X, s, 0, n, X.width)
	h, d := at(X, s, 0)
	ne := [4]uint32{uint32(X.width), uint32(n), 1, 1}
	g.node(opAdd, h, d, ne, contiguous(ne, 4), xv, V.leaf(g))
	b.wrote(X, s, 0, n)
}

// glu records GLU(op) of g and u into g.
func (b *Backend) glu(gb, ub backend.Buffer, n int, op int32) {
	G, U := gb.(*buffer), ub.(*buffer)
	s := G.home
	if !b.begin(s, 0, 0, []use{{G, 0, n}, {U, 0, n}}, G) {
		return
	}
	defer b.end()
	g := b.g[s]
	gv := b.rowsLeaf(g, G, s, 0, n, G.width)
	uv := b.rowsLeaf(g, U, s, 0, n, U.width)
	h, d := at(G, s, 0)
	ne := [4]uint32{uint32(G.width), uint32(n), 1, 1}
	id := g.node(opGLU, h, d, ne, contiguous(ne, 4), gv, uv)
	g.setI32(id, 0, op)
	g.setI32(id, 1, 0)
	b.wrote(G, s, 0, n)
}

// SwiGLU implements backend.Backend.
func (b *Backend) SwiGLU(g, u backend.Buffer, n int) { b.glu(g, u, n, gluSwiGLU) }

// GeGLU implements backend.Backend. ggml's CPU GELU reads a table of
// GELU at every float16 input (as llama.cpp computes gemma), so it
// differs from the CPU backend's by up to the input's float16 rounding.
func (b *Backend) GeGLU(g, u backend.Buffer, n int) { b.glu(g, u, n, gluGeGLU) }

// Scale implements backend.Backend.
func (b *Backend) Scale(x backend.Buffer, n int, c float32) {
	X := x.(*buffer)
	s := X.home
	if !b.begin(s, 0, 0, []use{{X, 0, n}}, X) {
		return
	}
	defer b.end()
	g := b.g[s]
	xv := b.rowsLeaf(g, X, s, 0, n, X.width)
	h, d := at(X, s, 0)
	ne := [4]uint32{uint32(X.width), uint32(n), 1, 1}
	id := g.node(opScale, h, d, ne, contiguous(ne, 4), xv)
	g.setF32(id, 0, c)
	g.setF32(id, 1, 0)
	b.wrote(X, s, 0, n)
}

// RoPE implements backend.Backend with ggml's ROPE: PosScale is the
// frequency scale; without YaRN ext_factor is 0 and Scale the magnitude,
// with it YaRN's parameters go to ggml as they are (rope_ext's ext_factor,
// attn_factor, beta_fast, beta_slow, n_ctx_orig), which is what the CPU
// backend computes from them.
func (b *Backend) RoPE(x backend.Buffer, n, heads, headDim, pos0 int, r backend.Rope) {
	X := x.(*buffer)
	s := X.home
	in := uint64(4*n) + 64
	if r.Freqs != nil {
		in += uint64(4*len(r.Freqs)) + 64
	}
	if !b.begin(s, in, 0, []use{{X, 0, n}}, X) {
		return
	}
	defer b.end()
	g := b.g[s]
	h, d := at(X, s, 0)
	ne := [4]uint32{uint32(headDim), uint32(heads), uint32(n), 1}
	nb := [4]uint32{4, uint32(4 * headDim), uint32(4 * X.width), uint32(4 * X.width * n)}
	xv := g.leaf(typeF32, h, d, ne, nb)
	pne := [4]uint32{uint32(n), 1, 1, 1}
	pos := g.leaf(typeI32, g.inArena.handle, g.positionsFor(pos0, n), pne, contiguous(pne, 4))
	var ff uint64
	if r.Freqs != nil {
		addr, ok := g.freqs[&r.Freqs[0]]
		if !ok {
			var raw []byte
			addr, raw = g.input(uint64(4 * len(r.Freqs)))
			copy(raw, f32bytes(r.Freqs))
			g.freqs[&r.Freqs[0]] = addr
		}
		fne := [4]uint32{uint32(len(r.Freqs)), 1, 1, 1}
		ff = g.leaf(typeF32, g.inArena.handle, addr, fne, contiguous(fne, 4))
	}
	id := g.node(opRope, h, d, ne, nb, xv, pos, ff)
	mode := int32(0)
	if r.Neox {
		mode = ropeNeox
	}
	g.setI32(id, 1, int32(r.Dim))
	g.setI32(id, 2, mode)
	g.setF32(id, 5, float32(r.Base))
	g.setF32(id, 6, orOne(r.PosScale))
	if y := r.YaRN; y != nil {
		g.setI32(id, 4, int32(y.OrigCtx))
		g.setF32(id, 7, y.ExtFactor)
		g.setF32(id, 8, y.AttnFactor)
		g.setF32(id, 9, y.BetaFast)
		g.setF32(id, 10, y.BetaSlow)
	} else {
		g.setI32(id, 4, 4096) // n_ctx_orig: read only by YaRN, which is off
		g.setF32(id, 7, 0)    // ext_factor
		g.setF32(id, 8, orOne(r.Scale))
		g.setF32(id, 9, 32)
		g.setF32(id, 10, 1)
	}
	b.wrote(X, s, 0, n)
}

func orOne(v float32) float32 {
	if v == 0 {
		return 1
	}
	return v
}

// StoreKV implements backend.Backend with SET_ROWS: the rows' positions
// are an input, so that decode's graph is the same at every position.
func (b *Backend) StoreKV(c backend.KV, layer, pos0, n int, k, v backend.Buffer) {
	C, K, V := c.(*kv), k.(*buffer), v.(*buffer)
	s := C.srv[layer]
	if !b.begin(s, uint64(8*n)+64, 0, []use{{K, 0, n}, {V, 0, n}}) {
		return
	}
	defer b.end()
	g := b.g[s]
	w := C.a.KVHeads * C.a.HeadDim
	ine := [4]uint32{uint32(n), 1, 1, 1}
	idx := g.leaf(typeI64, g.inArena.handle, g.rowsFor(pos0, n), ine, contiguous(ine, 8))
	cne := [4]uint32{uint32(w), uint32(C.ctx), 1, 1}
	cnb := contiguous(cne, 4)
	for _, p := range []struct {
		src *buffer
		dst rmem
	}{{K, C.k[layer]}, {V, C.v[layer]}} {
		cache := g.leaf(typeF32, p.dst.handle, p.dst.base, cne, cnb)
		rows := b.rowsLeaf(g, p.src, s, 0, n, w)
		id := g.node(opSetRows, p.dst.handle, p.dst.base, cne, cnb, rows, idx, cache)
		g.ts[id-1].viewSrc = cache
	}
}

// kvPad is the step by which the attended length grows: decode's graph
// then stays the same for kvPad tokens at a time (GRAPH_RECOMPUTE), at
// the cost of masking up to kvPad−1 positions not written yet.
const kvPad = 256

// Attend implements backend.Backend with FLASH_ATTN_EXT: grouped heads,
// the soft-cap, the sliding window (in the mask) and the sinks (its fifth
// source, as ggml_flash_attn_ext_add_sinks sets it) in one node, which
// writes the heads of each row side by side, as out holds them.
func (b *Backend) Attend(out, q backend.Buffer, c backend.KV, layer, pos0, n int, o backend.AttendOptions) {
	O, Q, C := out.(*buffer), q.(*buffer), c.(*kv)
	a := C.a
	if O.width != a.Heads*a.HeadDim {
		b.refuse("attention output of width %d, not heads×head size %d", O.width, a.Heads*a.HeadDim)
		return
	}
	s := C.srv[layer]
	var sinks *vector
	if o.Sinks != nil {
		sinks = o.Sinks.(*vector)
		switch {
		case sinks.n != a.Heads:
			b.refuse("attention sinks of %d values for %d heads", sinks.n, a.Heads)
			return
		case sinks.s != s:
			b.refuse("layer %d's attention sinks are on server %d and its KV cache on server %d", layer, sinks.s, s)
			return
		}
	}
	kvLen := min(C.ctx, (pos0+n+kvPad-1)/kvPad*kvPad)
	if !b.begin(s, uint64(2*n*kvLen)+64, 0, []use{{Q, 0, n}}, O) {
		return
	}
	defer b.end()
	g := b.g[s]
	hd := a.HeadDim
	qh, qd := at(Q, s, 0)
	qv := g.leaf(typeF32, qh, qd, [4]uint32{uint32(hd), uint32(n), uint32(a.Heads), 1},
		[4]uint32{4, uint32(4 * Q.width), uint32(4 * hd), uint32(4 * Q.width * n)})
	w := a.KVHeads * hd
	kne := [4]uint32{uint32(hd), uint32(kvLen), uint32(a.KVHeads), 1}
	knb := [4]uint32{4, uint32(4 * w), uint32(4 * hd), uint32(4 * w * kvLen)}
	kv := g.leaf(typeF32, C.k[layer].handle, C.k[layer].base, kne, knb)
	vv := g.leaf(typeF32, C.v[layer].handle, C.v[layer].base, kne, knb)
	mne := [4]uint32{uint32(kvLen), uint32(n), 1, 1}
	mask := g.leaf(typeF16, g.inArena.handle, g.maskFor(pos0, n, o.Window, kvLen), mne, contiguous(mne, 2))
	h, d := at(O, s, 0)
	ne := [4]uint32{uint32(hd), uint32(a.Heads), uint32(n), 1}
	var sk uint64 // no sinks: src[4] stays empty
	if sinks != nil {
		sk = sinks.leaf(g)
	}
	id := g.node(opFlashAttnExt, h, d, ne, contiguous(ne, 4), qv, kv, vv, mask, sk)
	scale := o.Scale
	if scale == 0 {
		scale = float32(1 / math.Sqrt(float64(hd)))
	}
	g.setF32(id, 0, scale)
	g.setF32(id, 1, 0)
	g.setF32(id, 2, o.SoftCap)
	b.wrote(O, s, 0, n)
}

// Add implements backend.Backend.
func (b *Backend) Add(dst, src backend.Buffer, n int) {
	D, S := dst.(*buffer), src.(*buffer)
	s := S.home
	if !b.begin(s, 0, 0, []use{{D, 0, n}, {S, 0, n}}, D) {
		return
	}
	defer b.end()
	g := b.g[s]
	dv := b.rowsLeaf(g, D, s, 0, n, D.width)
	sv := b.rowsLeaf(g, S, s, 0, n, S.width)
	h, d := at(D, s, 0)
	ne := [4]uint32{uint32(D.width), uint32(n), 1, 1}
	g.node(opAdd, h, d, ne, contiguous(ne, 4), dv, sv)
	b.wrote(D, s, 0, n)
}

// Project implements backend.Backend: c = B·x, then x += alpha·Bᵀc, with
// Bᵀ copied into scratch (MUL_MAT reads its first operand by rows).
func (b *Backend) Project(x backend.Buffer, row0, n int, basis backend.Matrix, alpha float32) {
	X, B := x.(*buffer), basis.(*matrix)
	if B.typ != typeF32 {
		b.refuse("a projection basis of type %s (F32 only)", tensor.Type(B.typ))
		return
	}
	if n <= 0 {
		return
	}
	s := B.s
	K, D := B.rows, B.cols
	scr := uint64(4*K*n) + uint64(4*K*D) + uint64(4*D*n) + 3*64
	if !b.begin(s, 0, scr, []use{{X, row0, row0 + n}}, X) {
		return
	}
	defer b.end()
	g := b.g[s]
	xv := b.rowsLeaf(g, X, s, row0, n, X.width)
	sh := g.scrArena.handle
	cne := [4]uint32{uint32(K), uint32(n), 1, 1}
	c := g.node(opMulMat, sh, g.scratch(uint64(4*K*n)), cne, contiguous(cne, 4), B.leaf(g), xv)
	tne := [4]uint32{uint32(K), uint32(D), 1, 1}
	bt := g.leaf(typeF32, B.mem.handle, B.mem.base, tne, [4]uint32{uint32(4 * D), 4, uint32(4 * D * K), uint32(4 * D * K)})
	taddr := g.scratch(uint64(4 * K * D))
	tdst := g.leaf(typeF32, sh, taddr, tne, contiguous(tne, 4))
	t := g.node(opCpy, sh, taddr, tne, contiguous(tne, 4), bt, tdst)
	dne := [4]uint32{uint32(D), uint32(n), 1, 1}
	daddr := g.scratch(uint64(4 * D * n))
	dm := g.node(opMulMat, sh, daddr, dne, contiguous(dne, 4), t, c)
	sc := g.node(opScale, sh, daddr, dne, contiguous(dne, 4), dm)
	g.setF32(sc, 0, alpha)
	g.setF32(sc, 1, 0)
	h, d := at(X, s, row0)
	g.node(opAdd, h, d, dne, contiguous(dne, 4), xv, sc)
	b.wrote(X, s, row0, row0+n)
}

// Host implements backend.Backend: it sends what is recorded on the
// server holding the rows and copies them back.
func (b *Backend) Host(x backend.Buffer, row0, n int) []float32 {
	X := x.(*buffer)
	rows := X.host[row0*X.width : (row0+n)*X.width]
	b.c.io.Lock()
	defer b.c.io.Unlock()
	if b.failed() {
		clear(rows)
		return rows
	}
	s := X.home
	if v := X.valid[s]; !(v.lo <= row0 && row0+n <= v.hi) {
		for t, v := range X.valid {
			if v.lo <= row0 && row0+n <= v.hi {
				s = t
				break
			}
		}
	}
	if !b.get(X, s, row0, rows) {
		clear(rows)
	}
	return rows
}

// Sync implements backend.Backend.
func (b *Backend) Sync(x backend.Buffer, row0 int, rows []float32) { b.Write(x, row0, rows) }

// Write implements backend.Backend: the rows go to the server that wrote
// the buffer last, after what it has recorded.
func (b *Backend) Write(x backend.Buffer, row0 int, rows []float32) {
	X := x.(*buffer)
	if len(rows) == 0 {
		return
	}
	n := (len(rows) + X.width - 1) / X.width
	b.c.io.Lock()
	defer b.c.io.Unlock()
	if b.failed() {
		return
	}
	s := X.home
	if b.g[s].send() != nil || !b.put(X, s, row0, rows) {
		return
	}
	if h := X.host[row0*X.width:]; len(h) > 0 && unsafe.SliceData(h) != unsafe.SliceData(rows) {
		copy(h, rows)
	}
	b.wrote(X, s, row0, row0+n)
}

// Logits implements backend.Backend: the product into scratch, then one
// round trip for the graph and the logits.
func (b *Backend) Logits(dst []float32, w backend.Matrix, x backend.Buffer, row0, n int) {
	W, X := w.(*matrix), x.(*buffer)
	s := W.s
	size := uint64(4 * W.rows * n)
	if !b.begin(s, 0, size, []use{{X, row0, row0 + n}}) {
		clear(dst)
		return
	}
	defer b.end()
	g := b.g[s]
	xv := b.rowsLeaf(g, X, s, row0, n, X.width)
	ne := [4]uint32{uint32(W.rows), uint32(n), 1, 1}
	addr := g.scratch(size)
	handle := g.scrArena.handle
	g.node(opMulMat, handle, addr, ne, contiguous(ne, 4), W.leaf(g), xv)
	if g.send() != nil || g.k.getRaw(handle, addr, f32bytes(dst[:W.rows*n])) != nil {
		clear(dst)
	}
}

// ReadKV implements backend.KVReader.
func (b *Backend) ReadKV(c backend.KV, layer, pos int, k, v []float32) {
	C := c.(*kv)
	s := C.srv[layer]
	b.c.io.Lock()
	defer b.c.io.Unlock()
	w := C.a.KVHeads * C.a.HeadDim
	if b.failed() || b.g[s].send() != nil {
		return
	}
	kk := b.c.servers[s].k
	off := uint64(pos * w * 4)
	_ = kk.getRaw(C.k[layer].handle, C.k[layer].base+off, f32bytes(k[:w]))
	_ = kk.getRaw(C.v[layer].handle, C.v[layer].base+off, f32bytes(v[:w]))
}

// Interface checks.
var (
	_ backend.Backend  = (*Backend)(nil)
	_ backend.Failer   = (*Backend)(nil)
	_ backend.Releaser = (*Backend)(nil)
	_ backend.KVReader = (*Backend)(nil)
)
