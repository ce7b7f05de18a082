package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/internal/synthproj"
	"github.com/isagi-lab/isagi/engine/model"
)

// fakeGraphs are the recording driver's CUDA graphs: a graph is its list of
// kernel nodes, and launching an executable graph replays them through
// Launch, so that every node meets the launch checks (its kernel's PTX
// signature, every pointer inside a live allocation at the time the graph
// runs) and is recorded like a plain launch.
type fakeGraphs struct {
	off         bool  // the driver lacks the graph entry points
	instantiate error // returned by GraphInstantiate while set
	replaying   bool
	direct      int // kernels launched one by one
	launches    int // graph launches
	built       int // graphs instantiated
	next        uintptr
	graphs      map[cu.Graph][]fakeNode
	execs       map[cu.GraphExec][]fakeNode
	last        map[cu.Graph]cu.GraphNode // each graph's newest node
}

// fakeNode is one kernel node.
type fakeNode struct {
	fn          cu.Function
	grid, block [3]uint32
	shared      uint32
	args        cu.Args
}

func (f *fakeDriver) HasGraphs() bool { return !f.gr.off }

func (f *fakeDriver) MissingGraphSymbol() string {
	if f.gr.off {
		return "cuGraphInstantiateWithFlags"
	}
	return ""
}

func (f *fakeDriver) GraphCreate() (cu.Graph, error) {
	if f.gr.off {
		return 0, cu.ErrNotInitialized
	}
	if f.gr.graphs == nil {
		f.gr.graphs, f.gr.execs, f.gr.last = map[cu.Graph][]fakeNode{}, map[cu.GraphExec][]fakeNode{}, map[cu.Graph]cu.GraphNode{}
	}
	f.gr.next++
	g := cu.Graph(f.gr.next)
	f.gr.graphs[g] = nil
	return g, nil
}

// GraphAddKernelNode keeps the node; each must follow the one added before
// it (the step's order), the first none.
func (f *fakeDriver) GraphAddKernelNode(g cu.Graph, dep cu.GraphNode, fn cu.Function, grid, block [3]uint32, shared uint32, a *cu.Args) (cu.GraphNode, error) {
	nodes, ok := f.gr.graphs[g]
	if !ok {
		f.errorf("a node added to graph %d, which does not exist", g)
		return 0, nil
	}
	if dep != f.gr.last[g] {
		f.errorf("node %d of a graph depends on node %d, not on the one before it (%d)", len(nodes), dep, f.gr.last[g])
	}
	if fn < 1 || int(fn) > len(f.names) {
		f.errorf("a graph node of an unknown function %d", fn)
	}
	f.gr.graphs[g] = append(nodes, fakeNode{fn, grid, block, shared, *a})
	f.gr.next++
	f.gr.last[g] = cu.GraphNode(f.gr.next)
	return f.gr.last[g], nil
}

func (f *fakeDriver) GraphInstantiate(g cu.Graph) (cu.GraphExec, error) {
	if f.gr.instantiate != nil {
		return 0, f.gr.instantiate
	}
	nodes, ok := f.gr.graphs[g]
	if !ok {
		f.errorf("instantiating graph %d, which does not exist", g)
		return 0, nil
	}
	f.gr.next++
	e := cu.GraphExec(f.gr.next)
	f.gr.execs[e] = slices.Clone(nodes)
	f.gr.built++
	return e, nil
}

func (f *fakeDriver) GraphLaunch(e cu.GraphExec, s cu.Stream) error {
	if f.fail != nil {
		return f.fail
	}
	nodes, ok := f.gr.execs[e]
	if !ok {
		f.errorf("launching graph %d, which does not exist", e)
		return nil
	}
	f.gr.launches++
	f.gr.replaying = true
	defer func() { f.gr.replaying = false }()
	for i := range nodes {
		n := &nodes[i]
		if err := f.Launch(n.fn, n.grid, n.block, n.shared, s, &n.args); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeDriver) GraphExecDestroy(e cu.GraphExec) error {
	if _, ok := f.gr.execs[e]; !ok {
		f.errorf("destroying graph %d, which does not exist", e)
	}
	delete(f.gr.execs, e)
	return nil
}

func (f *fakeDriver) GraphDestroy(g cu.Graph) error {
	if _, ok := f.gr.graphs[g]; !ok {
		f.errorf("destroying graph %d, which does not exist", g)
	}
	delete(f.gr.graphs, g)
	delete(f.gr.last, g)
	return nil
}

// argLaunch is a launch with its arguments, as inspect sees it.
type argLaunch struct {
	name        string
	grid, block [3]uint32
	args        string
}

// recordArgs makes f keep every launch with its arguments in *into.
func recordArgs(f *fakeDriver, into *[]argLaunch) {
	f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) {
		var sb strings.Builder
		for i := range a.Len() {
			fmt.Fprintf(&sb, "%c%x ", a.Kind(i), a.Value(i))
		}
		*into = append(*into, argLaunch{name, grid, block, sb.String()})
	}
}

// counts is a snapshot of the recorder's counters.
type counts struct{ direct, graphLaunches, built, copies, allocs int }

func countsOf(f *fakeDriver) counts {
	return counts{f.gr.direct, f.gr.launches, f.gr.built, f.copies, len(f.mem)}
}

func (c counts) minus(o counts) counts {
	return counts{c.direct - o.direct, c.graphLaunches - o.graphLaunches, c.built - o.built, c.copies - o.copies, c.allocs - o.allocs}
}

// slotValue reads slot i of b's step inputs from the recorder's memory.
func slotValue(t *testing.T, f *fakeDriver, b *Backend, i int) int32 {
	t.Helper()
	m, off, ok := f.find(b.st.slots + cu.DevicePtr(4*i))
	if !ok {
		t.Fatal("the step inputs are not in device memory")
	}
	return int32(binary.LittleEndian.Uint32(m[off:]))
}

// graphRig is a model's state on a backend of the recorder, prefilled.
type graphRig struct {
	m      *model.Model
	g      *Device
	f      *fakeDriver
	b      *Backend
	st     *model.State
	logits []float32
}

func newGraphRig(t *testing.T, path string, graphs bool) *graphRig {
	t.Helper()
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	g, f := newFakeDevice(t)
	f.gr.off = !graphs
	g.initGraphs()
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.NewStateOn(128, b)
	if err != nil {
		t.Fatal(err)
	}
	r := &graphRig{m: m, g: g, f: f, b: b, st: st, logits: make([]float32, m.Config.Vocab)}
	if err := st.Forward([]int32{1, 5, 9, 13, 17, 21}, r.logits); err != nil {
		t.Fatal(err)
	}
	// The first decode step grows the backend's scratch (the int8
	// activations of the widest input), so it launches differently from
	// the steps after it; the backend is then made to forget it, so that
	// each test starts from a settled shape not seen yet.
	r.step(t, 2)
	if err := r.b.closeGraph(); err != nil {
		t.Fatal(err)
	}
	r.b.st.cand.reset()
	return r
}

func (r *graphRig) step(t *testing.T, tok int32) {
	t.Helper()
	if err := r.st.Forward([]int32{tok}, r.logits); err != nil {
		t.Fatal(err)
	}
}

// close closes everything and checks that nothing is left: no graph, no
// allocation, no recorder error.
func (r *graphRig) close(t *testing.T) {
	t.Helper()
	r.st.Close()
	if err := r.b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.g.Close(); err != nil {
		t.Fatal(err)
	}
	r.m.Close()
	if n := len(r.f.gr.execs) + len(r.f.gr.graphs); n != 0 {
		t.Errorf("%d graphs left after Close", n)
	}
	if len(r.f.mem) != 0 {
		t.Errorf("%d allocations left after Close", len(r.f.mem))
	}
	for _, e := range r.f.errs {
		t.Error(e)
	}
}

// TestDecodeGraphOnRecorder: the first decode step of a shape launches its
// kernels one by one, the second builds a graph of exactly those launches
// (same kernels, grids and arguments, the positions and the token read
// from device memory) and launches it, and from then on a step is one
// graph launch, one copy of its inputs and the logits' copy back, with no
// allocation on the device or the host.
func TestDecodeGraphOnRecorder(t *testing.T) {
	for _, path := range []string{
		fixture(t, "kjv", "kjv-q8_0.gguf"),
		fixture(t, "quants", "qwen2-q4_k_m.gguf"),
		fixture(t, "archs", "qwen3.gguf"),
		fixture(t, "archs", "gemma2.gguf"),
		fixture(t, "archs", "llama-rope-freqs-f16.gguf"),
	} {
		t.Run(path[strings.LastIndex(path, "/")+1:], func(t *testing.T) {
			r := newGraphRig(t, path, true)
			defer r.close(t)
			var plain, graph []argLaunch
			recordArgs(r.f, &plain)
			c0 := countsOf(r.f)
			r.step(t, 7)
			c1 := countsOf(r.f)
			if d := c1.minus(c0); d.graphLaunches != 0 || d.direct == 0 {
				t.Fatalf("the first decode step: %+v; want plain launches", d)
			}
			recordArgs(r.f, &graph)
			r.step(t, 7)
			c2 := countsOf(r.f)
			if d := c2.minus(c1); d.graphLaunches != 1 || d.built != 1 || d.direct != 0 {
				t.Fatalf("the second decode step: %+v; want one graph built and launched", d)
			}
			// Step 2 is at the next position, which is an input: its
			// launches are step 1's to the argument.
			if !slices.Equal(plain, graph) {
				t.Errorf("the graph's nodes are not the plain step's launches:\nplain %d: %v\ngraph %d: %v", len(plain), plain, len(graph), graph)
			}
			r.f.inspect = nil
			pos := r.st.Pos()
			r.step(t, 9)
			d := countsOf(r.f).minus(c2)
			if d != (counts{graphLaunches: 1, copies: 2}) {
				t.Errorf("a warm decode step: %+v; want one graph launch and two copies (inputs, logits)", d)
			}
			if v0, v1 := slotValue(t, r.f, r.b, 0), slotValue(t, r.f, r.b, 1); v0 != 9 || int(v1) != pos {
				t.Errorf("the step's inputs read token %d and position %d; want 9 and %d", v0, v1, pos)
			}
			tok := []int32{3}
			if n := testing.AllocsPerRun(10, func() {
				if err := r.st.Forward(tok, r.logits); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("a decode step by graph allocates %v times on the host", n)
			}
			if l, b, p := r.b.GraphStats(); l < 12 || b != 1 || p != 2 { // the rig's step and the first
				t.Errorf("GraphStats: %d graph launches, %d built, %d plain steps", l, b, p)
			}
			t.Logf("decode step: one graph of %d kernel nodes", len(graph))
		})
	}
}

// TestDecodeGraphInvalidation: a truncated cache keeps the graph (its
// positions are inputs); a block hook, which reads the layer on the host,
// makes steps plain until it is removed; projections set and cleared,
// which change the products, fall back to plain launches for one step
// and build the graph of the new shape on the next.
func TestDecodeGraphInvalidation(t *testing.T) {
	r := newGraphRig(t, fixture(t, "kjv", "kjv-q8_0.gguf"), true)
	defer r.close(t)
	r.step(t, 7)
	r.step(t, 8)
	want := func(what string, c counts, graphs, built int, plain bool) {
		t.Helper()
		d := countsOf(r.f).minus(c)
		if d.graphLaunches != graphs || d.built != built || (d.direct > 0) != plain {
			t.Errorf("%s: %+v; want %d graph launches, %d built, plain launches %v", what, d, graphs, built, plain)
		}
	}

	// Truncation: the same graph, at the earlier position.
	c := countsOf(r.f)
	r.st.Truncate(r.st.Pos() - 2)
	pos := r.st.Pos()
	r.step(t, 11)
	want("after Truncate", c, 1, 0, false)
	if v := slotValue(t, r.f, r.b, 1); int(v) != pos {
		t.Errorf("after Truncate the graph reads position %d; want %d", v, pos)
	}

	// A block hook: its Host copy comes mid-step, so the step is plain;
	// with it removed, one plain step, then the same graph again.
	h := &blockCounter{}
	remove, err := r.st.AddHook(h)
	if err != nil {
		t.Fatal(err)
	}
	// The hooked step matches the graph up to the first block's hook,
	// whose copy issues that prefix; its launches are the graph's all the
	// same (a hook changes no launch).
	var hooked, graphed []argLaunch
	recordArgs(r.f, &hooked)
	c = countsOf(r.f)
	r.step(t, 12)
	r.f.inspect = nil
	r.step(t, 13)
	want("with a block hook", c, 0, 0, true)
	if h.n == 0 {
		t.Error("the block hook was not called")
	}
	remove()
	c = countsOf(r.f)
	r.step(t, 14)
	want("the step after the hook went", c, 0, 0, true)
	c = countsOf(r.f)
	recordArgs(r.f, &graphed)
	r.step(t, 15)
	r.f.inspect = nil
	want("the second step after the hook went", c, 1, 0, false)
	if !slices.Equal(hooked, graphed) {
		t.Errorf("a hooked step launched %d kernels unlike the graph's %d", len(hooked), len(graphed))
	}

	// Projections: different products, so one plain step and a new graph.
	p, err := synthproj.ProjectionsFor(r.m, 32, "qkv", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.st.SetProjections(p); err != nil {
		t.Fatal(err)
	}
	// The first step with them follows the graph for its first launches
	// and parts at the first product: the launches it then issues plainly
	// are the next graph's.
	var parted, regraphed []argLaunch
	recordArgs(r.f, &parted)
	c = countsOf(r.f)
	r.step(t, 16)
	want("the first step with projections", c, 0, 0, true)
	recordArgs(r.f, &regraphed)
	c = countsOf(r.f)
	r.step(t, 17)
	r.f.inspect = nil
	r.step(t, 18)
	want("the next steps with projections", c, 2, 1, false)
	if !slices.Equal(parted, regraphed) || len(parted) == 0 {
		t.Errorf("the step that parted from the graph launched %d kernels unlike the new graph's %d", len(parted), len(regraphed))
	}
	if err := r.st.SetProjections(nil); err != nil {
		t.Fatal(err)
	}
	c = countsOf(r.f)
	r.step(t, 19)
	want("the first step without projections", c, 0, 0, true)
	c = countsOf(r.f)
	r.step(t, 20)
	want("the next step without projections", c, 1, 1, false)
	// A step without logits (a one-token prompt) ends at Err, plainly.
	c = countsOf(r.f)
	if err := r.st.Forward([]int32{21}, nil); err != nil {
		t.Fatal(err)
	}
	want("a step without logits", c, 0, 0, true)
}

// blockCounter is a block hook that reads the layers.
type blockCounter struct{ n int }

func (h *blockCounter) AfterBlock(layer, pos int, x []float32) { h.n++ }

// TestDecodeWithoutGraphs: a driver without the graph entry points, or one
// that fails to instantiate a graph, leaves decode on plain launches of the
// same kernels with the same arguments, and the device says why once.
func TestDecodeWithoutGraphs(t *testing.T) {
	path := fixture(t, "archs", "qwen3.gguf")
	steps := func(r *graphRig) []argLaunch {
		var got []argLaunch
		r.step(t, 7)
		recordArgs(r.f, &got)
		for tok := range int32(3) {
			r.step(t, 8+tok)
		}
		r.f.inspect = nil
		return got
	}
	with := newGraphRig(t, path, true)
	graphed := steps(with)
	if with.f.gr.launches != 3 {
		t.Errorf("%d graph launches; want 3", with.f.gr.launches)
	}
	with.close(t)

	var logged []string
	without := newGraphRig(t, path, false)
	without.g.log = func(s string) { logged = append(logged, s) }
	without.g.graphNote = ""
	without.g.initGraphs()
	plain := steps(without)
	if without.f.gr.launches != 0 || without.f.gr.built != 0 {
		t.Errorf("a driver without graphs launched %d graphs", without.f.gr.launches)
	}
	if !slices.Equal(graphed, plain) {
		t.Errorf("plain decode launches differently from graph decode:\n%v\n%v", plain, graphed)
	}
	if note := without.g.GraphNote(); !strings.Contains(note, "cuGraphInstantiateWithFlags") || len(logged) != 1 {
		t.Errorf("the note %q, logged %q", note, logged)
	}
	without.close(t)

	failing := newGraphRig(t, path, true)
	failing.f.gr.instantiate = errors.New("CUDA_ERROR_NOT_SUPPORTED (planted)")
	plain = steps(failing)
	if failing.f.gr.launches != 0 {
		t.Errorf("%d graph launches after instantiation failed", failing.f.gr.launches)
	}
	if !slices.Equal(graphed, plain) {
		t.Error("decode after a failed instantiation launches differently from graph decode")
	}
	if note := failing.g.GraphNote(); !strings.Contains(note, "planted") {
		t.Errorf("the note after a failed instantiation: %q", note)
	}
	if err := failing.b.Err(); err != nil {
		t.Errorf("a failed instantiation failed the backend: %v", err)
	}
	failing.close(t)
}

// nullDriver is the recorder with launches that do nothing: what is left
// of a decode step is the backend's and the engine's host work.
type nullDriver struct{ *fakeDriver }

func (nullDriver) Launch(cu.Function, [3]uint32, [3]uint32, uint32, cu.Stream, *cu.Args) error {
	return nil
}
func (nullDriver) GraphLaunch(cu.GraphExec, cu.Stream) error { return nil }

// BenchmarkDecodeHostWork times a decode step's host work (the engine's
// calls, the backend's packing, recording and comparing; no driver time)
// on SmolLM2-like kjv, by one graph and by plain launches.
func BenchmarkDecodeHostWork(b *testing.B) {
	for _, graphs := range []bool{true, false} {
		b.Run(fmt.Sprintf("graphs=%v", graphs), func(b *testing.B) {
			m, err := model.Open(fixture(b, "kjv", "kjv-q8_0.gguf"))
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			g, f := newFakeDevice(b)
			g.d = nullDriver{f}
			be, err := g.NewBackend()
			if err != nil {
				b.Fatal(err)
			}
			be.st.off = !graphs
			st, err := m.NewStateOn(64, be)
			if err != nil {
				b.Fatal(err)
			}
			logits := make([]float32, m.Config.Vocab)
			if err := st.Forward([]int32{1, 2, 3}, logits); err != nil {
				b.Fatal(err)
			}
			tok := []int32{4}
			b.ResetTimer()
			for range b.N {
				st.Truncate(3)
				if err := st.Forward(tok, logits); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			l, _, _ := be.GraphStats()
			b.ReportMetric(float64(l)/float64(b.N), "graphs/op")
		})
	}
}
