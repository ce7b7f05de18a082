package cuda

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
)

// One CUDA graph per decode step.
//
// The engine drives a step operation by operation (engine/model's step),
// so the backend sees a decode step as a run of calls from an Embed of one
// token to the Logits that end it. Within such a step:
//
//   - The values that change from token to token are read from device
//     memory: the token id (the embedding's ids table) and every position
//     RoPE, the cache store and the attention take (their optional posp
//     argument). They are kept in a small host array, one int32 a distinct
//     value (slot 0 the token), and copied to the device in one copy a
//     step (sendSlots). Every other argument of a decode step is the same
//     from token to token, so the step's launches are too.
//   - The launches are recorded, not issued (deferring). At Logits the
//     backend compares the step's launches with those of its graph: equal,
//     it copies the step's inputs and launches the graph, one call; not
//     equal but equal to the previous step's, it builds a graph of them
//     (one kernel node each, each after the one before, as the stream ran
//     them), instantiates it, and launches it; else it issues them one by
//     one, and keeps them to compare with the next step. While a step
//     matches the graph launch for launch nothing is kept, only compared
//     (follow); where it parts, the matching prefix becomes its record.
//
// So a graph is made on the second step of one shape, and anything that
// changes a step's launches — projections set or cleared, a steering
// vector added, a scratch buffer grown, a sequence joining a batch — shows
// as a different sequence and falls back to plain launches until the new
// shape repeats. Nothing needs to tell the backend. Truncating or evicting
// the cache changes only the positions, which are inputs: the graph stays.
//
// The attention's grid is (heads, rows) whatever the cache length, and it
// reads the length from its position, so one graph serves every context
// length: no buckets.
//
// A copy between host and device in the middle of a step (a hook reading
// a layer: Host, Write, ReadKV, ReadRoute) cannot be inside a graph: the
// launches recorded so far are issued there, the step runs on plainly,
// and so does the next; a step that runs to its Logits without such a copy
// lets the one after it try the graph again. Err, which the engine calls
// at the end of every step, issues what a step without logits recorded.
//
// The graph is launched on the default stream, like every other operation
// of the backend, so that its order with the copies before and after it
// (the step's inputs, the logits, a hook's rows) is the stream's.

// maxSlots is how many distinct step values a decode step reads from device
// memory; past it the kernels take their positions by value (and such a
// step launches differently every token, so it runs plainly).
const maxSlots = 64

// rec is one recorded launch; its arguments are vals[a0:a0+n] with their
// kinds in kinds[a0:a0+n] (cu.Args' 'p', 'i', 'u', 'f').
type rec struct {
	name        string
	f           cu.Function
	grid, block [3]uint32
	a0, n       int32
}

// launchList is a decode step's launches.
type launchList struct {
	recs  []rec
	vals  []uint64
	kinds []byte
}

func (l *launchList) reset() {
	l.recs, l.vals, l.kinds = l.recs[:0], l.vals[:0], l.kinds[:0]
}

// fit gives l room for o's launches, so that recording a step of o's
// shape allocates nothing (lists swap roles between steps).
func (l *launchList) fit(o *launchList) {
	if cap(l.recs) < len(o.recs) {
		l.recs = make([]rec, 0, len(o.recs))
	}
	if cap(l.vals) < len(o.vals) {
		l.vals, l.kinds = make([]uint64, 0, len(o.vals)), make([]byte, 0, len(o.vals))
	}
}

func (l *launchList) equal(o *launchList) bool {
	return slices.Equal(l.recs, o.recs) && slices.Equal(l.vals, o.vals) && slices.Equal(l.kinds, o.kinds)
}

// stepState is a backend's decode step and its graph.
type stepState struct {
	on        bool // a decode step is open: Embed of one token, not yet ended
	deferring bool // its launches are recorded (pend), not issued
	hit       bool // a host copy came in the middle of this step
	broke     bool // the last decode step had one: this one runs plainly
	off       bool // graphs failed on this backend: plain launches from now
	slots     cu.DevicePtr
	vals      []int32 // the step's values, slot by slot; slot 0 the token
	sent      int     // slots on the device already (plain steps copy as they go)
	// follow counts the launches of a deferred step that were the graph's
	// so far, which are then not recorded (pend stays empty); -1 once the
	// step differs, or when there is no graph.
	follow int

	pend, cand, gl launchList // this step's launches, the last plain step's, the graph's
	exec           cu.GraphExec

	// Counts, for tests and the device check: graph launches, graphs
	// built, plain decode steps.
	graphLaunches, graphsBuilt, plainSteps int
}

// GraphStats says how this backend's decode steps ran: graph launches,
// graphs built, and steps launched kernel by kernel.
func (b *Backend) GraphStats() (launches, built, plain int) {
	return b.st.graphLaunches, b.st.graphsBuilt, b.st.plainSteps
}

// graphsOK says whether this backend may run a step as a graph.
func (b *Backend) graphsOK() bool { return b.g.graphs && !b.st.off }

// beginStep opens a decode step for token (context current): it ends one
// left open, then stages the token in slot 0.
func (b *Backend) beginStep(tok int32) bool {
	b.endStep()
	st := &b.st
	if st.slots == 0 {
		p, err := b.alloc(4 * maxSlots)
		if err != nil {
			b.fail("the step inputs", err)
			return false
		}
		st.slots, st.vals = p, make([]int32, 0, maxSlots)
	}
	st.on, st.hit, st.sent = true, false, 0
	st.deferring = b.graphsOK() && !st.broke
	st.follow = -1
	if st.deferring && st.exec != 0 {
		st.follow = 0
	}
	st.vals = append(st.vals[:0], tok)
	st.pend.reset()
	if !st.deferring {
		b.sendSlots()
	}
	return b.err == nil
}

// posArg returns the device address of pos in the open step's inputs, or
// 0 outside a step (or when its slots are used up): the kernel then takes
// pos by value.
func (b *Backend) posArg(pos int) cu.DevicePtr {
	st := &b.st
	if !st.on {
		return 0
	}
	v := int32(pos)
	for i := 1; i < len(st.vals); i++ {
		if st.vals[i] == v {
			return st.slots + cu.DevicePtr(4*i)
		}
	}
	if len(st.vals) == maxSlots {
		return 0
	}
	st.vals = append(st.vals, v)
	if !st.deferring {
		b.sendSlots()
	}
	return st.slots + cu.DevicePtr(4*(len(st.vals)-1))
}

// sendSlots copies the slots not on the device yet (context current). The
// copy is ordered on the default stream after the launches before it, so
// a step's values never change under the previous step's kernels.
func (b *Backend) sendSlots() {
	st := &b.st
	if n := len(st.vals) - st.sent; n > 0 && b.err == nil {
		b.fail("copying the step inputs", b.g.d.HtoD(st.slots+cu.DevicePtr(4*st.sent), unsafe.Pointer(&st.vals[st.sent]), uint64(4*n)))
		st.sent = len(st.vals)
	}
}

// record keeps b.args' launch in the step's list.
func (b *Backend) record(name string, f cu.Function, grid, block [3]uint32) {
	if b.args.Overflow() {
		b.fail(name, fmt.Errorf("more kernel arguments than a launch holds"))
		return
	}
	st := &b.st
	if st.follow >= 0 {
		// Still the graph's step: compare, keep nothing.
		gl := &st.gl
		if i := st.follow; i < len(gl.recs) {
			r := &gl.recs[i]
			if r.f == f && r.grid == grid && r.block == block && b.args.Equal(gl.vals[r.a0:r.a0+r.n], gl.kinds[r.a0:r.a0+r.n]) {
				st.follow++
				return
			}
		}
		st.unfollow()
	}
	l := &st.pend
	a0 := len(l.vals)
	l.vals, l.kinds = b.args.AppendTo(l.vals, l.kinds)
	l.recs = append(l.recs, rec{name: name, f: f, grid: grid, block: block, a0: int32(a0), n: int32(b.args.Len())})
}

// unfollow stops comparing the step with the graph: the launches that were
// the graph's so far become the step's recorded ones.
func (st *stepState) unfollow() {
	i := st.follow
	if i < 0 {
		return // not following: pend is the step's
	}
	st.follow = -1
	st.pend.reset()
	if i == 0 {
		return
	}
	last := &st.gl.recs[i-1]
	nv := int(last.a0 + last.n)
	st.pend.recs = append(st.pend.recs, st.gl.recs[:i]...)
	st.pend.vals = append(st.pend.vals, st.gl.vals[:nv]...)
	st.pend.kinds = append(st.pend.kinds, st.gl.kinds[:nv]...)
}

// argsOf packs r's arguments into a.
func argsOf(a *cu.Args, l *launchList, r *rec) *cu.Args {
	a.Reset()
	for i := r.a0; i < r.a0+r.n; i++ {
		v := l.vals[i]
		switch l.kinds[i] {
		case 'p':
			a.Ptr(cu.DevicePtr(v))
		case 'i':
			a.I32(int32(uint32(v)))
		case 'u':
			a.U32(uint32(v))
		case 'f':
			a.F32(math.Float32frombits(uint32(v)))
		}
	}
	return a
}

// issue launches l's kernels one by one (context current).
func (b *Backend) issue(l *launchList) {
	for i := range l.recs {
		r := &l.recs[i]
		if b.err != nil {
			return
		}
		b.fail(r.name, b.g.d.Launch(r.f, r.grid, r.block, 0, 0, argsOf(b.args, l, r)))
	}
}

// settle issues a deferred step's launches before a host copy in the
// middle of the step (context current): the step runs on plainly.
func (b *Backend) settle() {
	st := &b.st
	if !st.on {
		return
	}
	st.hit = true
	if !st.deferring {
		return
	}
	st.unfollow()
	st.deferring = false
	b.sendSlots()
	b.issue(&st.pend)
	st.pend.reset()
}

// endStep ends an open step without a graph (context current): an Embed
// or Err after a step that asked for no logits.
func (b *Backend) endStep() {
	st := &b.st
	if !st.on {
		return
	}
	if st.deferring {
		st.unfollow()
		b.sendSlots()
		b.issue(&st.pend)
		st.pend.reset()
	}
	st.on, st.deferring = false, false
	st.broke = st.hit
}

// finishStep ends the open step at its Logits (context current, the
// classifier's launches recorded): its graph, a new graph, or plain
// launches, as the package comment says.
func (b *Backend) finishStep() {
	st := &b.st
	if !st.on {
		return
	}
	if !st.deferring || b.err != nil {
		if !st.deferring {
			st.plainSteps++
		}
		st.pend.reset()
		st.on, st.deferring, st.broke, st.follow = false, false, st.hit, -1
		return
	}
	st.on, st.deferring, st.broke = false, false, false
	matched := st.follow > 0 && st.follow == len(st.gl.recs)
	if !matched {
		st.unfollow() // what matched of the graph is this step's
	}
	st.follow = -1
	b.sendSlots()
	switch {
	case matched:
	case len(st.pend.recs) > 0 && st.pend.equal(&st.cand):
		if err := b.buildGraph(&st.pend); err != nil {
			// A driver that has the entry points but cannot build this
			// graph: this backend launches plainly from now on, and the
			// device says why once (GraphNote, Options.Log).
			st.off = true
			b.g.noteGraphs(fmt.Sprintf("CUDA graphs failed (%v); decode launches each kernel", err))
			b.issue(&st.pend)
			st.plainSteps++
			st.pend.reset()
			return
		}
		st.gl, st.pend = st.pend, st.gl
		st.pend.fit(&st.gl)
		st.graphsBuilt++
	default:
		b.issue(&st.pend)
		st.plainSteps++
		st.cand, st.pend = st.pend, st.cand
		st.pend.reset()
		st.pend.fit(&st.cand)
		return
	}
	st.pend.reset()
	b.fail("launching the decode graph", b.g.d.GraphLaunch(st.exec, 0))
	st.graphLaunches++
}

// buildGraph makes l into the backend's graph, replacing the one it had
// (context current).
func (b *Backend) buildGraph(l *launchList) error {
	d := b.g.d
	g, err := d.GraphCreate()
	if err != nil {
		return err
	}
	var prev cu.GraphNode
	for i := range l.recs {
		r := &l.recs[i]
		if prev, err = d.GraphAddKernelNode(g, prev, r.f, r.grid, r.block, 0, argsOf(b.args, l, r)); err != nil {
			return errors.Join(fmt.Errorf("%s: %w", r.name, err), d.GraphDestroy(g))
		}
	}
	e, err := d.GraphInstantiate(g)
	err = errors.Join(err, d.GraphDestroy(g))
	if err != nil {
		if e != 0 {
			d.GraphExecDestroy(e)
		}
		return err
	}
	if b.st.exec != 0 {
		b.fail("destroying the old decode graph", d.GraphExecDestroy(b.st.exec))
	}
	b.st.exec = e
	return nil
}

// closeGraph destroys the backend's graph (context current).
func (b *Backend) closeGraph() error {
	if b.st.exec == 0 {
		return nil
	}
	err := b.g.d.GraphExecDestroy(b.st.exec)
	b.st.exec = 0
	return err
}
