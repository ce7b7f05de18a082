package model

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// A mixture-of-experts feed-forward block, written once for every family
// as llama.cpp's build_moe_ffn:
//
//	z      = Wr·h (+ br)                              router logits, one per expert
//	         (+ −Inf for the experts switched off: SetExpertOff)
//	e, w   = the k experts chosen from z, their weights  (architecture's gating)
//	g_j    = W_gate[e_j]·h (+ b),  u_j = W_up[e_j]·h (+ b)
//	a_j    = act(g_j, u_j)                            SwiGLU, or gpt-oss's clamped form
//	y_j    = W_down[e_j]·a_j (+ b)
//	out    = Σ_j w_j·y_j
//
// Each step is one backend call (backend.Experts); the chosen experts stay
// on the backend, and a RouteHook reads them back only when one is
// registered.

// moeWeights are one mixture-of-experts block's weights on the host: the
// router, and each expert's matrices as views of the file's 3-D tensors
// (or of the old per-expert 2-D tensors).
type moeWeights struct {
	router            *tensor.Matrix // [Experts × Dim]
	routerB           []float32      // [Experts], gpt-oss
	selectB           []float32      // exp_probs_b: selection-only bias (DeepSeek), or nil
	gate, up, down    []*tensor.Matrix
	gateB, upB, downB []*tensor.Matrix // 1×width F32 views per expert, or nil
}

// loadMoE reads block i's mixture-of-experts tensors.
func (l *loader) loadMoE(c *Config, p string) *moeWeights {
	E, F, D := c.Experts, c.ExpertFFN, c.Dim
	w := &moeWeights{
		router:  l.matrix(p+"ffn_gate_inp.weight", E, D),
		routerB: l.optVector(p+"ffn_gate_inp.bias", E),
		selectB: l.optVector(p+"exp_probs_b.bias", E),
	}
	if _, ok := l.f.Tensor(p + "ffn_gate_up_exps.weight"); ok {
		// The merged form: gate rows then up rows of each expert.
		gu := l.experts(p+"ffn_gate_up_exps.weight", E, 2*F, D)
		w.gate, w.up = l.splitExperts(p+"ffn_gate_up_exps.weight", gu, F)
	} else {
		w.gate = l.experts(p+"ffn_gate_exps.weight", E, F, D)
		w.up = l.experts(p+"ffn_up_exps.weight", E, F, D)
	}
	w.down = l.experts(p+"ffn_down_exps.weight", E, D, F)
	w.gateB = l.expertBias(p+"ffn_gate_exps.bias", E, F)
	w.upB = l.expertBias(p+"ffn_up_exps.bias", E, F)
	w.downB = l.expertBias(p+"ffn_down_exps.bias", E, D)
	if _, ok := l.f.Tensor(p + "ffn_gate_inp_shexp.weight"); ok && l.err == nil {
		l.fail(p+"ffn_gate_inp_shexp.weight", "shared experts are not supported yet")
	}
	return w
}

// experts maps the stack name, E matrices of rows×cols ([cols, rows, E] in
// the file), as one view per expert; a file without it may hold the old
// per-expert tensors (Mixtral's first conversions: blk.N.ffn_gate.E.weight).
func (l *loader) experts(name string, E, rows, cols int) []*tensor.Matrix {
	if l.err != nil {
		return nil
	}
	ti, ok := l.f.Tensor(name)
	if !ok {
		return l.perExpert(name, E, rows, cols)
	}
	if len(ti.Dims) != 3 || ti.Dims[0] != uint64(cols) || ti.Dims[1] != uint64(rows) || ti.Dims[2] != uint64(E) {
		l.fail(name, "shape %v, want [%d, %d, %d] (%d experts of %d×%d)", ti.Dims, cols, rows, E, E, rows, cols)
		return nil
	}
	if !ti.Type.Computable() {
		l.fail(name, "weight type %s is not supported by this build (supported: %s)", ti.Type, tensor.ComputableNames())
		return nil
	}
	data := l.f.TensorData(ti)
	per := len(data) / E
	out := make([]*tensor.Matrix, E)
	for e := range out {
		m, err := tensor.NewMatrix(ti.Type, rows, cols, data[e*per:(e+1)*per])
		if err != nil {
			l.fail(name, "expert %d: %v", e, err)
			return nil
		}
		if l.f.Mapped() {
			m.SetEvict(l.f.Evict)
		}
		out[e] = m
	}
	return out
}

// perExpert reads the old per-expert 2-D tensors that stand for the stack
// name (blk.N.ffn_gate_exps.weight → blk.N.ffn_gate.0.weight, …).
func (l *loader) perExpert(name string, E, rows, cols int) []*tensor.Matrix {
	var n int
	kind := ""
	if _, err := fmt.Sscanf(name, "blk.%d.", &n); err == nil {
		for _, k := range []string{"gate", "up", "down"} {
			if name == fmt.Sprintf("blk.%d.ffn_%s_exps.weight", n, k) {
				kind = k
			}
		}
	}
	if _, ok := l.f.Tensor(fmt.Sprintf("blk.%d.ffn_%s.0.weight", n, kind)); kind == "" || !ok {
		l.err = fmt.Errorf("model: %s: %w %q", l.f.Path, ErrMissingTensor, name)
		return nil
	}
	out := make([]*tensor.Matrix, E)
	for e := range out {
		out[e] = l.matrix(fmt.Sprintf("blk.%d.ffn_%s.%d.weight", n, kind, e), rows, cols)
	}
	if l.err != nil {
		return nil
	}
	for e := range out[1:] {
		if out[e+1].Type != out[0].Type {
			l.fail(fmt.Sprintf("blk.%d.ffn_%s.%d.weight", n, kind, e+1), "type %s, but expert 0's is %s (one stack runs one type)", out[e+1].Type, out[0].Type)
			return nil
		}
	}
	return out
}

// splitExperts splits each merged gate-and-up expert into its gate rows
// and its up rows (views, nothing copied).
func (l *loader) splitExperts(name string, gu []*tensor.Matrix, F int) (gate, up []*tensor.Matrix) {
	if gu == nil {
		return nil, nil
	}
	gate, up = make([]*tensor.Matrix, len(gu)), make([]*tensor.Matrix, len(gu))
	for e, m := range gu {
		rb := m.RowBytes()
		g, err1 := tensor.NewMatrix(m.Type, F, m.Cols, m.Data[:F*rb])
		u, err2 := tensor.NewMatrix(m.Type, F, m.Cols, m.Data[F*rb:])
		if err1 != nil || err2 != nil {
			l.fail(name, "expert %d cannot be split into gate and up", e)
			return nil, nil
		}
		if l.f.Mapped() {
			g.SetEvict(l.f.Evict)
			u.SetEvict(l.f.Evict)
		}
		gate[e], up[e] = g, u
	}
	return gate, up
}

// expertBias reads an optional per-expert bias, [width, E] in the file, as
// E one-row F32 matrices.
func (l *loader) expertBias(name string, E, width int) []*tensor.Matrix {
	if l.err != nil {
		return nil
	}
	ti, ok := l.f.Tensor(name)
	if !ok {
		return nil
	}
	if len(ti.Dims) != 2 || ti.Dims[0] != uint64(width) || ti.Dims[1] != uint64(E) {
		l.fail(name, "shape %v, want [%d, %d]", ti.Dims, width, E)
		return nil
	}
	// The file's F32 rows are the biases as they are (views, nothing
	// copied); another type is widened to F32 once, here.
	raw := l.f.TensorData(ti)
	if ti.Type != tensor.F32 {
		v := make([]float32, E*width)
		raw = make([]byte, 4*len(v))
		if err := tensor.Dequantize(ti.Type, v, l.f.TensorData(ti)); err != nil {
			l.fail(name, "%v", err)
			return nil
		}
		if err := tensor.Quantize(tensor.F32, raw, v); err != nil {
			l.fail(name, "%v", err)
			return nil
		}
	}
	out := make([]*tensor.Matrix, E)
	for e := range out {
		m, err := tensor.NewMatrix(tensor.F32, 1, width, raw[e*4*width:(e+1)*4*width])
		if err != nil {
			l.fail(name, "expert %d: %v", e, err)
			return nil
		}
		out[e] = m
	}
	return out
}

// boundMoE is a mixture-of-experts block's weights on a backend.
type boundMoE struct {
	router            backend.Matrix
	routerB, selectB  backend.Vector
	gate, up, down    backend.Matrix
	gateB, upB, downB backend.Matrix // nil when the file has none
}

// bindMoE binds block weights w through b's expert operations.
func bindMoE(b backend.Backend, w *moeWeights, mat func(*tensor.Matrix) backend.Matrix, vec func([]float32) backend.Vector, stack func([]*tensor.Matrix) backend.Matrix) *boundMoE {
	return &boundMoE{
		router: mat(w.router), routerB: vec(w.routerB), selectB: vec(w.selectB),
		gate: stack(w.gate), up: stack(w.up), down: stack(w.down),
		gateB: stack(w.gateB), upB: stack(w.upB), downB: stack(w.downB),
	}
}

// moeRun is a state's mixture-of-experts machinery: the backend's expert
// operations, the activations of the chosen experts, the routing, and the
// experts switched off.
type moeRun struct {
	ex     backend.Experts
	logits backend.Buffer // [batch × Experts]
	route  backend.Route
	g, u   backend.Buffer // [batch·k × ExpertFFN]
	y      backend.Buffer // [batch·k × Dim]
	// off[l] marks layer l's experts switched off (nil: none), and mask[l]
	// is the same as a vector of 0 and −Inf on the backend.
	off  [][]bool
	mask []backend.Vector
	// ids and w receive the routing for the RouteHooks.
	ids []int32
	w   []float32
	ops [2]backend.ExpertOp
}

// newMoERun allocates a state's expert activations for batches of B rows.
func (s *State) newMoERun(B int) error {
	c := &s.m.Config
	ex, ok := s.b.(backend.Experts)
	if !ok {
		return fmt.Errorf("model: backend %s cannot run mixture-of-experts layers", s.b.Name())
	}
	k := c.ExpertsUsed
	r := &moeRun{ex: ex, off: make([][]bool, c.Layers), mask: make([]backend.Vector, c.Layers)}
	var err error
	if r.logits, err = s.b.Alloc(B, c.Experts); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if r.route, err = ex.AllocRoute(B, k); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	for _, a := range []struct {
		dst   *backend.Buffer
		width int
	}{{&r.g, c.ExpertFFN}, {&r.u, c.ExpertFFN}, {&r.y, c.Dim}} {
		if *a.dst, err = s.b.Alloc(B*k, a.width); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
	s.moe = r
	return nil
}

// moeFFN runs layer l's mixture of experts on the n rows of s.xb (the
// normed stream) and leaves its output in s.xb.
func (s *State) moeFFN(l, n int) {
	c, b, r := &s.m.Config, s.b, s.moe
	M := s.w.blocks[l].moe
	spec := s.m.arch.route
	b.Linear(r.logits, M.router, s.xb, n)
	if M.routerB != nil {
		b.AddBias(r.logits, M.routerB, n)
	}
	r.ex.Route(r.route, r.logits, n, backend.RouteOptions{
		Gating: spec.gating, K: c.ExpertsUsed, SelectBias: M.selectB, Mask: r.mask[l],
		Norm: spec.norm, Scale: c.ExpertWeightsScale,
	})
	switch {
	case s.seqs != nil:
		s.routedSeqs(l, n) // a Batcher's step: each sequence's hooks (batch.go)
	case len(s.hooks.route) > 0:
		s.routed(l, n)
	}
	// The ops live in the run: a variadic list built here would escape
	// through the interface call and allocate every layer.
	r.ops[0] = backend.ExpertOp{Dst: r.g, W: M.gate, Bias: M.gateB}
	r.ops[1] = backend.ExpertOp{Dst: r.u, W: M.up, Bias: M.upB}
	r.ex.ExpertLinears(r.route, s.xb, n, false, r.ops[:2]...)
	k := c.ExpertsUsed
	switch s.m.arch.moeAct {
	case actSwiGLUOAI:
		r.ex.SwiGLUOAI(r.g, r.u, n*k, oaiAlpha, oaiLimit)
	default:
		b.SwiGLU(r.g, r.u, n*k)
	}
	r.ops[0] = backend.ExpertOp{Dst: r.y, W: M.down, Bias: M.downB}
	r.ex.ExpertLinears(r.route, r.g, n, true, r.ops[:1]...)
	r.ex.Combine(s.xb, r.y, r.route, n)
	clear(r.ops[:])
}

// gpt-oss's SwiGLU constants, which llama.cpp hard-codes too
// (LLM_FFN_SWIGLU_OAI_MOE).
const (
	oaiAlpha = 1.702
	oaiLimit = 7.0
)

// RouteHook sees the experts a mixture-of-experts layer chose for each
// position: experts are the k chosen ids, the highest first, and weights
// their mixing weights (after any normalisation and scale). It is called
// for every MoE layer and position the state computes, in position order
// within each layer, after the layer chose. It must not retain the slices.
// Register it with State.AddHook (with RewindHook to hear of forgotten
// positions).
type RouteHook interface {
	Routed(layer, pos int, experts []int32, weights []float32)
}

// routed reads layer l's routing back and hands it to the RouteHooks.
func (s *State) routed(l, n int) {
	r, k := s.moe, s.m.ExpertsUsed
	s.readRoute(n)
	// Rows are positions pos…pos+n−1: s.pos has not advanced yet.
	for i := range n {
		for _, h := range s.hooks.route {
			h.Routed(l, s.pos+i, r.ids[i*k:(i+1)*k], r.w[i*k:(i+1)*k])
		}
	}
}

// anyOff says whether an expert is switched off in some layer.
func (r *moeRun) anyOff() bool {
	for _, o := range r.off {
		if o != nil {
			return true
		}
	}
	return false
}

// readRoute copies the first n rows' routing to the host (r.ids, r.w).
func (s *State) readRoute(n int) {
	r, k := s.moe, s.m.ExpertsUsed
	if len(r.ids) < s.batch*k {
		r.ids, r.w = make([]int32, s.batch*k), make([]float32, s.batch*k)
	}
	r.ex.ReadRoute(r.route, n, r.ids[:n*k], r.w[:n*k])
}

// ExpertRef names one expert of one layer.
type ExpertRef struct{ Layer, Expert int }

// SetExpertOff switches expert off (or back on) in layer, or in every
// mixture-of-experts layer when layer is −1, from the next Forward on: its
// router logit becomes −Inf, so it is never chosen and the weight goes to
// the others (a softmax renormalises over them). It fails, changing
// nothing, on a dense model or layer, an expert out of range, or when a
// layer would keep fewer experts than each token runs.
func (s *State) SetExpertOff(layer, expert int, off bool) error {
	c := &s.m.Config
	if s.moe == nil {
		return fmt.Errorf("model: this model has no experts")
	}
	if expert < 0 || expert >= c.Experts {
		return fmt.Errorf("model: expert %d does not exist (the layers have experts 0 to %d)", expert, c.Experts-1)
	}
	layers := []int{layer}
	if layer == -1 {
		layers = layers[:0]
		for l := range c.Layers {
			if c.MoELayer(l) {
				layers = append(layers, l)
			}
		}
	} else if !c.MoELayer(layer) {
		if layer < 0 || layer >= c.Layers {
			return fmt.Errorf("model: layer %d does not exist (the model has layers 0 to %d)", layer, c.Layers-1)
		}
		return fmt.Errorf("model: layer %d has a dense feed-forward block, no experts", layer)
	}
	// Check every layer before changing any.
	for _, l := range layers {
		if !off || (s.moe.off[l] != nil && s.moe.off[l][expert]) {
			continue
		}
		left := c.Experts - 1
		for _, o := range s.moe.off[l] {
			if o {
				left--
			}
		}
		if left < c.ExpertsUsed {
			return fmt.Errorf("model: switching expert %d off would leave layer %d %d experts, and each token runs %d", expert, l, left, c.ExpertsUsed)
		}
	}
	for _, l := range layers {
		if s.moe.off[l] == nil {
			if !off {
				continue
			}
			s.moe.off[l] = make([]bool, c.Experts)
		}
		s.moe.off[l][expert] = off
		if err := s.setMask(l); err != nil {
			return err
		}
	}
	return nil
}

// setMask binds layer l's mask of switched-off experts (nil when none is).
func (s *State) setMask(l int) error {
	r := s.moe
	any := false
	v := make([]float32, len(r.off[l]))
	for e, o := range r.off[l] {
		if o {
			v[e], any = float32(math.Inf(-1)), true
		}
	}
	if !any {
		r.off[l], r.mask[l] = nil, nil
		return nil
	}
	m, err := s.b.Vector(v)
	if err != nil {
		return fmt.Errorf("model: switching experts off in layer %d: %w", l, err)
	}
	r.mask[l] = m
	return nil
}

// ExpertsOff lists the experts switched off, by layer then expert.
func (s *State) ExpertsOff() []ExpertRef {
	if s.moe == nil {
		return nil
	}
	var out []ExpertRef
	for l, off := range s.moe.off {
		for e, o := range off {
			if o {
				out = append(out, ExpertRef{l, e})
			}
		}
	}
	return out
}
