package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// maxExperts is the most experts a router may choose from: the route
// kernel stages a row of router logits in shared memory (ROUTE_MAX in
// kernels/ops.cuh).
const maxExperts = 1024

// stackKey names an expert stack on the Device: its first matrix and how
// many there are.
type stackKey struct {
	first *tensor.Matrix
	n     int
}

// route is a backend's routing of up to rows rows of k experts, in device
// memory: the ids and weights Route writes (pair p = row·k + slot), and
// for a batch the pairs grouped by expert (order, tiles; kernels/ops.cuh's
// group_pairs), which the batched products read.
type route struct {
	ids, w, order, tiles cu.DevicePtr
	rows, k              int
	// n and experts are those of the last Route: the products check that
	// they are asked for the rows and the stack the route was made for.
	n, experts int
}

func (r *route) K() int { return r.k }

// maxTiles bounds the tiles group_pairs cuts np pairs over ne experts into.
func maxTiles(np, ne int) int { return (np+7)/8 + min(ne, np) }

// ExpertMatrix uploads a stack of expert matrices as one allocation, the
// experts one after another, so that a product finds expert e at e times
// one matrix's bytes. Like Matrix, it is the Device's, bound once however
// many backends ask, and freed when the last releases it (or with the
// Device).
func (b *Backend) ExpertMatrix(ms []*tensor.Matrix) (backend.Matrix, error) {
	if len(ms) == 0 || ms[0] == nil {
		return nil, errors.New("cuda: an expert stack of no matrices")
	}
	if len(ms) > maxExperts {
		return nil, fmt.Errorf("cuda: %d experts; the router kernel takes up to %d", len(ms), maxExperts)
	}
	m0 := ms[0]
	if _, ok := typeSuffix(m0.Type); !ok {
		return nil, fmt.Errorf("cuda: the kernels do not decode %s weights", m0.Type)
	}
	if m0.Type.BlockLen() > 1 && m0.Cols%32 != 0 {
		return nil, fmt.Errorf("cuda: a %s expert matrix of %d columns", m0.Type, m0.Cols)
	}
	rb, err := m0.Type.RowBytes(uint64(m0.Cols))
	if err != nil || m0.Rows <= 0 {
		return nil, fmt.Errorf("cuda: a %d×%d %s expert matrix", m0.Rows, m0.Cols, m0.Type)
	}
	size := int(rb) * m0.Rows
	for e, m := range ms {
		if m == nil || m.Type != m0.Type || m.Rows != m0.Rows || m.Cols != m0.Cols || len(m.Data) != size {
			return nil, fmt.Errorf("cuda: expert %d of a stack is not a %d×%d %s matrix of %d bytes like expert 0", e, m0.Rows, m0.Cols, m0.Type, size)
		}
	}
	if size > 1<<31-1 {
		return nil, fmt.Errorf("cuda: an expert matrix of %d MiB; the kernels index up to 2 GiB an expert", size>>20)
	}
	g := b.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return nil, errors.New("cuda: binding experts on a closed device")
	}
	if g.stacks == nil {
		g.stacks = map[stackKey]*mat{}
	}
	key := stackKey{m0, len(ms)}
	if w, ok := g.stacks[key]; ok {
		w.refs++
		return w, nil
	}
	w := &mat{t: m0.Type, rows: m0.Rows, cols: m0.Cols, rb: int(rb), k: g.k.prod[m0.Type], src: m0, refs: 1,
		experts: len(ms), stride: size}
	err = g.with(func() error {
		var err error
		total := uint64(size) * uint64(len(ms))
		if w.p, err = g.d.Alloc(total); err != nil {
			return fmt.Errorf("cuda: %d MiB for %d %d×%d %s experts: %w", total>>20, len(ms), m0.Rows, m0.Cols, m0.Type, err)
		}
		// Experts sliced from one mapped 3-D tensor lie back to back: one
		// copy then, else one an expert.
		for e := 0; e < len(ms); {
			run := 1
			// Back to back within one allocation: the next expert starts
			// where the run ends and the first one's slice reaches over it
			// (its capacity), so that one copy never reads across two
			// allocations that merely lie side by side (checkptr, -race,
			// refuses that, and rightly). Compared as addresses: a pointer
			// past the run's end is not made.
			for e+run < len(ms) && cap(ms[e].Data) >= (run+1)*size &&
				uintptr(unsafe.Pointer(&ms[e+run].Data[0])) == uintptr(unsafe.Pointer(&ms[e].Data[0]))+uintptr(run*size) {
				run++
			}
			dst := w.p + cu.DevicePtr(e*size)
			if err = g.d.HtoD(dst, unsafe.Pointer(&ms[e].Data[0]), uint64(run*size)); err != nil {
				g.d.Free(w.p)
				return fmt.Errorf("cuda: uploading %s experts: %w", m0.Type, err)
			}
			e += run
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.stacks[key] = w
	return w, nil
}

// AllocRoute allocates a routing of up to rows rows of k experts in device
// memory, the backend's (freed by Close).
func (b *Backend) AllocRoute(rows, k int) (backend.Route, error) {
	if rows <= 0 || k <= 0 || k > maxExperts || rows > MaxBatch*64 {
		return nil, fmt.Errorf("cuda: a routing of %d rows of %d experts", rows, k)
	}
	r := &route{rows: rows, k: k}
	np := rows * k
	err := b.g.with(func() error {
		for _, a := range []struct {
			p     *cu.DevicePtr
			bytes int
		}{{&r.ids, 4 * np}, {&r.w, 4 * np}, {&r.order, 4 * np}, {&r.tiles, 4 * (1 + 3*maxTiles(np, np))}} {
			var err error
			if *a.p, err = b.alloc(a.bytes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: a routing: %w", err)
	}
	return r, nil
}

// Route chooses each of n rows' experts on the device (the route kernel, a
// block a row), and for a batch groups the pairs by expert for the
// products that follow (group_experts): nothing comes back to the host.
func (b *Backend) Route(rt backend.Route, logits backend.Buffer, n int, o backend.RouteOptions) {
	if !b.enter() {
		return
	}
	defer b.leave()
	r, l := rt.(*route), db(logits)
	ne := l.width
	switch {
	case n <= 0 || n > r.rows || n > l.rows:
		b.fail("routing", fmt.Errorf("%d rows for a routing of %d and logits of %d", n, r.rows, l.rows))
		return
	case o.K != r.k || o.K > ne:
		b.fail("routing", fmt.Errorf("choosing %d of %d experts with a routing of %d a row", o.K, ne, r.k))
		return
	case ne > maxExperts:
		b.fail("routing", fmt.Errorf("%d experts; the router kernel takes up to %d", ne, maxExperts))
		return
	case o.Gating > backend.GateSigmoid:
		b.fail("routing", fmt.Errorf("gating %d", o.Gating))
		return
	}
	var mask, sbias cu.DevicePtr
	for _, v := range []struct {
		v    backend.Vector
		p    *cu.DevicePtr
		what string
	}{{o.Mask, &mask, "mask"}, {o.SelectBias, &sbias, "selection bias"}} {
		if v.v == nil {
			continue
		}
		vv := dv(v.v)
		if vv.n != ne {
			b.fail("routing", fmt.Errorf("a %s of %d values for %d experts", v.what, vv.n, ne))
			return
		}
		*v.p = vv.p
	}
	r.n, r.experts = n, ne
	b.args.Reset().Ptr(l.p).I32(int32(l.width)).I32(int32(ne)).Ptr(mask).Ptr(sbias).I32(int32(o.Gating)).
		I32(int32(o.K)).I32(b2i(o.Norm)).F32(o.Scale).Ptr(r.ids).Ptr(r.w)
	b.launch("route", b.g.k.route, [3]uint32{uint32(n), 1, 1}, [3]uint32{128, 1, 1})
	if n > 1 {
		b.args.Reset().Ptr(r.ids).I32(int32(n * r.k)).I32(int32(ne)).Ptr(r.order).Ptr(r.tiles)
		b.launch("group_experts", b.g.k.groupExperts, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1})
	}
}

// ExpertLinears runs every op for the n rows' chosen experts, reading the
// ids from device memory. Decode (n = 1) is one launch an op over the k
// experts' rows (mvid_); a batch is one launch an op over the pairs
// grouped by expert (mmid_), each expert's weights decoded once per tile of
// up to 8 of its pairs. The input is rounded to the CPU's activation grid
// once for every quantised op, as Linears does.
func (b *Backend) ExpertLinears(rt backend.Route, x backend.Buffer, n int, perSlot bool, ops ...backend.ExpertOp) {
	if len(ops) == 0 || !b.enter() {
		return
	}
	defer b.leave()
	r, xs := rt.(*route), db(x)
	if n != r.n {
		b.fail("expert products", fmt.Errorf("%d rows, and the route was made for %d", n, r.n))
		return
	}
	np, xrows, xdiv := n*r.k, n, r.k
	if perSlot {
		xrows, xdiv = np, 1
	}
	in, q := xs.p, cu.DevicePtr(0)
	for _, op := range ops {
		m, d := dm(op.W), db(op.Dst)
		if m.experts != r.experts || d.rows < np || xs.rows < xrows {
			b.fail("expert products", fmt.Errorf("a stack of %d experts for a route over %d, %d output rows for %d pairs, %d input rows for %d",
				m.experts, r.experts, d.rows, np, xs.rows, xrows))
			return
		}
		var bias cu.DevicePtr
		bstride := 0
		if op.Bias != nil {
			bm := dm(op.Bias)
			if bm.experts != m.experts || bm.t != tensor.F32 || bm.rows != 1 || bm.cols != m.rows {
				b.fail("expert products", fmt.Errorf("biases of %d experts of %d×%d %s for %d experts of %d rows", bm.experts, bm.rows, bm.cols, bm.t, m.experts, m.rows))
				return
			}
			bias, bstride = bm.p, bm.cols
		}
		xin := in
		if m.k.act {
			if q == 0 {
				q = b.quantAct(in, xrows, m.cols, m.t)
			}
			xin = q
		}
		b.args.Reset().Ptr(m.p).I32(int32(m.stride)).I32(int32(m.rb)).I32(int32(m.rows)).I32(int32(m.cols)).
			Ptr(xin).I32(int32(xdiv))
		if n == 1 {
			b.args.Ptr(r.ids).Ptr(bias).I32(int32(bstride)).Ptr(d.p)
			b.launch("expert product", m.k.mvid, [3]uint32{uint32(m.rows), uint32(np), 1}, [3]uint32{128, 1, 1})
			continue
		}
		b.args.Ptr(r.order).Ptr(r.tiles).Ptr(bias).I32(int32(bstride)).Ptr(d.p)
		b.launch("expert product", m.k.mmid, [3]uint32{blocks(m.rows, 4), uint32(maxTiles(np, r.experts)), 1}, [3]uint32{128, 1, 1})
	}
}

// Combine writes dst row i = Σ_j w_ij · y row i·k+j for n rows, the
// weights read from the route in device memory.
func (b *Backend) Combine(dst, y backend.Buffer, rt backend.Route, n int) {
	if !b.enter() {
		return
	}
	defer b.leave()
	r, d, ys := rt.(*route), db(dst), db(y)
	if n > r.n || ys.rows < n*r.k || d.rows < n {
		b.fail("combining experts", fmt.Errorf("%d rows of a route of %d, from %d expert rows into %d", n, r.n, ys.rows, d.rows))
		return
	}
	b.args.Reset().Ptr(d.p).I32(int32(d.width)).Ptr(ys.p).I32(int32(ys.width)).Ptr(r.w).I32(int32(r.k)).
		I32(int32(d.width)).I32(int32(n))
	b.elementwise("combine", b.g.k.combine, n*d.width)
}

// SwiGLUOAI writes gpt-oss's clamped SwiGLU into g for n rows.
func (b *Backend) SwiGLUOAI(g, u backend.Buffer, n int, alpha, limit float32) {
	if !b.enter() {
		return
	}
	defer b.leave()
	gb, ub := db(g), db(u)
	b.args.Reset().Ptr(gb.p).I32(int32(gb.width)).Ptr(ub.p).I32(int32(ub.width)).I32(int32(gb.width)).I32(int32(n)).
		F32(alpha).F32(limit)
	b.elementwise("swiglu_oai", b.g.k.swigluOAI, n*gb.width)
}

// ReadRoute copies the first n rows' ids and weights to the host: the one
// wait on the device an expert map asks for.
func (b *Backend) ReadRoute(rt backend.Route, n int, ids []int32, weights []float32) {
	if n <= 0 || !b.enterCopy() {
		return
	}
	defer b.leave()
	r := rt.(*route)
	np := n * r.k
	if n > r.rows || len(ids) < np || len(weights) < np {
		b.fail("reading a route", fmt.Errorf("%d rows of %d experts into %d ids and %d weights (a routing of %d rows)", n, r.k, len(ids), len(weights), r.rows))
		return
	}
	b.fail("reading a route", b.g.d.DtoH(unsafe.Pointer(&ids[0]), r.ids, uint64(4*np)))
	b.fail("reading a route", b.g.d.DtoH(unsafe.Pointer(&weights[0]), r.w, uint64(4*np)))
}

var _ backend.Experts = (*Backend)(nil)
