package generate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// The flow-map drafter (OTT-OD, docs/speculative.md "The flow-map
// drafter"). The seed papers' OneDecode "bakes a geodesic flow map" that
// answers a (token, confidence) in O(1) at decode time and leave the map
// undefined; here it is a table built once from calibration text run
// through the model:
//
//   - the state: the residual stream after a probe block, RMS-normalised
//     (the next block reads it normalised), centred on the calibration
//     mean and projected on the calibration states' top principal
//     directions; one bit per direction says on which side of the
//     calibration median the state lies (Bits bits: a cell of the
//     discretised flow);
//   - the key: that cell for position t together with the token at t+1. A
//     drafter is asked to continue a history whose last token is sampled
//     but not yet run through the verifier, so the newest state the
//     verifier holds is of the position before it: the key pairs the two;
//   - the value: where the calibration text went from that key, as the
//     continuation trie's most common branch, up to Depth tokens, with how
//     many of the key's observations agree with it up to each depth.
//
// A key's confidence at depth d is agree(d)/(observations+1) (one unseen
// disagreeing observation: a key seen once is 1/2 sure). The drafter
// proposes the prefix whose confidence is at least its gate; when the
// finest cell is unknown or unsure it backs off to the cell of the first
// half of the directions, then to the token alone, then (optionally) to
// another drafter, else drafts nothing. Drafts are deterministic (q = 1),
// so the verifier's exact acceptance rule applies unchanged.

const (
	// DefaultFlowBits is the default number of principal directions (bits)
	// of a flow-map cell.
	DefaultFlowBits = 16
	// MaxFlowBits is the most a key holds.
	MaxFlowBits = 32
	// MaxFlowDepth is the longest continuation a cell keeps.
	MaxFlowDepth = 8
	// DefaultFlowGate is the default confidence a draft needs.
	DefaultFlowGate = 0.5

	// maxFlowFloats bounds the calibration states kept for the basis
	// (64 MiB of float32); text past it is counted and skipped.
	maxFlowFloats = 1 << 24
	// flowPCASample is the most states the principal directions are
	// fitted on (evenly spaced): the basis only needs to be roughly right.
	flowPCASample = 4096
	// flowPCAIters is the subspace iterations of the fit.
	flowPCAIters = 12
	// flowSlots is the positions whose cells the drafter keeps: a
	// verifying batch (γ+1 ≤ MaxGamma+1) with room to spare.
	flowSlots = 2 * (MaxGamma + 2)
	// flowTokBits is the room for a token id in a key.
	flowTokBits = 24
)

// FlowOptions shape a flow map.
type FlowOptions struct {
	// Layer is how many blocks run before the probe, 1…Layers: the state
	// is the residual stream after block Layer−1. 0 is two thirds of the
	// blocks.
	Layer int
	// Bits is the principal directions of a cell, 1…MaxFlowBits; 0 is
	// DefaultFlowBits.
	Bits int
	// Depth is the continuation tokens a cell keeps, 1…MaxFlowDepth; 0 is
	// MaxFlowDepth.
	Depth int
}

// FlowStats describe a flow map's calibration.
type FlowStats struct {
	Sequences, Positions int // calibration sequences and states kept
	Skipped              int // sequences past the size bound, not used
	Keys                 []int
}

// FlowMap is the baked table: read-only once built, so one map can serve
// several drafters.
type FlowMap struct {
	layer, bits, depth, dim int
	levels                  []int     // bits per back-off level, finest first
	mean                    []float32 // dim
	dirs                    []float32 // bits×dim, orthonormal rows
	offs                    []float32 // bits: mean·dir + the median projection
	index                   map[uint64]int32
	entries                 []flowEntry
	path                    []int32  // entries' continuations
	agree                   []uint32 // observations agreeing up to each depth
	stats                   FlowStats
}

type flowEntry struct {
	off   int32
	n     int32
	total uint32
}

// Layer is the blocks run before the probe.
func (fm *FlowMap) Layer() int { return fm.layer + 1 }

// Bits is the principal directions of a cell.
func (fm *FlowMap) Bits() int { return fm.bits }

// Stats describe the calibration.
func (fm *FlowMap) Stats() FlowStats { return fm.stats }

// cell is the bits of residual x (length dim).
func (fm *FlowMap) cell(x []float32) uint32 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	inv := 1 / math.Sqrt(ss/float64(len(x))+1e-12)
	var c uint32
	for i := range fm.bits {
		row := fm.dirs[i*fm.dim : (i+1)*fm.dim]
		var dot float64
		for j, v := range x {
			dot += float64(v) * float64(row[j])
		}
		if float32(dot*inv) > fm.offs[i] {
			c |= 1 << i
		}
	}
	return c
}

func flowKey(level int, tok int32, cell uint32) uint64 {
	return uint64(level)<<(32+flowTokBits) | uint64(uint32(tok)&(1<<flowTokBits-1))<<32 | uint64(cell)
}

func levelMask(bits int) uint32 {
	if bits >= 32 {
		return ^uint32(0)
	}
	return 1<<bits - 1
}

// Lookup is what the map proposes after the history whose newest
// verified state has cell c and whose last token is tok: the continuation
// of the first level (finest first) that is confident at gate up to at
// least one token, as many tokens as are; nil when none is. It aliases
// the map.
func (fm *FlowMap) Lookup(c uint32, tok int32, gate float64) []int32 {
	for l, b := range fm.levels {
		i, ok := fm.index[flowKey(l, tok, c&levelMask(b))]
		if !ok {
			continue
		}
		e := fm.entries[i]
		n := 0
		for n < int(e.n) && float64(fm.agree[int(e.off)+n]) >= gate*float64(e.total+1) {
			n++
		}
		if n > 0 {
			return fm.path[e.off : int(e.off)+n]
		}
	}
	return nil
}

// FlowBuilder collects calibration states from a model state it owns
// while building (it registers a hook on it), then bakes the map.
type FlowBuilder struct {
	st     *model.State
	o      FlowOptions
	dim    int
	layer  int
	remove func()
	gen    *Generator
	// Every kept sequence's tokens, one after the other; rows[i·dim:] is
	// the normalised state at toks[i] (len(rows) ≤ len(toks)·dim: a
	// generated sequence's last token is never run); ends[s] is where
	// sequence s ends in toks and runs[s] where its run tokens end.
	toks  []int32
	rows  []float32
	ends  []int
	runs  []int
	seq   []float32 // the sequence being recorded, by position
	stats FlowStats
}

// NewFlowBuilder collects calibration states on st, which it resets and
// runs until Build.
func NewFlowBuilder(st *model.State, o FlowOptions) (*FlowBuilder, error) {
	c := &st.Model().Config
	if o.Layer == 0 {
		o.Layer = max(1, (2*c.Layers+2)/3)
	}
	if o.Bits == 0 {
		o.Bits = DefaultFlowBits
	}
	if o.Depth == 0 {
		o.Depth = MaxFlowDepth
	}
	switch {
	case o.Layer < 1 || o.Layer > c.Layers:
		return nil, fmt.Errorf("generate: flow map probe after %d blocks: the model has 1…%d", o.Layer, c.Layers)
	case o.Bits < 1 || o.Bits > MaxFlowBits:
		return nil, fmt.Errorf("generate: flow map of %d bits: want 1…%d", o.Bits, MaxFlowBits)
	case o.Depth < 1 || o.Depth > MaxFlowDepth:
		return nil, fmt.Errorf("generate: flow map depth %d: want 1…%d", o.Depth, MaxFlowDepth)
	case o.Bits > c.Dim:
		return nil, fmt.Errorf("generate: flow map of %d bits on a %d-wide residual stream", o.Bits, c.Dim)
	}
	b := &FlowBuilder{st: st, o: o, dim: c.Dim, layer: o.Layer - 1}
	g, err := New(st, sample.Params{})
	if err != nil {
		return nil, err
	}
	b.gen = g
	if b.remove, err = st.AddHook((*flowRecorder)(b)); err != nil {
		return nil, err
	}
	return b, nil
}

// flowRecorder is the builder's hook: it keeps the probe's states of the
// sequence being run, by position.
type flowRecorder FlowBuilder

// AfterBlock implements model.BlockHook.
func (r *flowRecorder) AfterBlock(layer, pos int, x []float32) {
	if layer != r.layer || len(x) != r.dim || pos < 0 {
		return
	}
	if need := (pos + 1) * r.dim; len(r.seq) < need {
		r.seq = append(r.seq, make([]float32, need-len(r.seq))...)
	}
	copy(r.seq[pos*r.dim:], x)
}

// HookLayers implements model.LayerHook.
func (r *flowRecorder) HookLayers() []int { return []int{r.layer} }

// ReadOnly implements model.ReadOnlyHook.
func (r *flowRecorder) ReadOnly() bool { return true }

// AddText runs tokens (at most the state's context; the rest is cut) and
// records them.
func (b *FlowBuilder) AddText(tokens []int32) error {
	if b.remove == nil {
		return errors.New("generate: flow map already built")
	}
	tokens = tokens[:min(len(tokens), b.st.Cap())]
	if len(tokens) < 3 {
		return nil // no key with a continuation
	}
	b.gen.Reset(0)
	b.seq = b.seq[:0]
	if err := b.st.Forward(tokens, nil); err != nil {
		return fmt.Errorf("generate: flow map calibration: %w", err)
	}
	b.keep(tokens, len(tokens))
	return nil
}

// AddGenerated runs prompt and the model's greedy continuation of up to n
// tokens (ending at a stop token), and records both: the map then
// predicts what the model itself says.
func (b *FlowBuilder) AddGenerated(ctx context.Context, prompt []int32, n int, stop []int32) error {
	if b.remove == nil {
		return errors.New("generate: flow map already built")
	}
	if len(prompt) == 0 {
		return nil
	}
	prompt = prompt[:min(len(prompt), b.st.Cap()-1)]
	n = min(n, b.st.Cap()-len(prompt))
	b.gen.Reset(0)
	b.seq = b.seq[:0]
	if _, err := b.gen.Generate(ctx, prompt, Options{MaxTokens: n, Stop: stop}, func(int32) error { return nil }); err != nil {
		return fmt.Errorf("generate: flow map calibration: %w", err)
	}
	h := b.gen.History()
	b.keep(h, len(h)-1) // the last token is pending: never run
	return nil
}

// keep appends a recorded sequence: tokens, of which the first run were
// run.
func (b *FlowBuilder) keep(tokens []int32, run int) {
	if len(b.rows)+run*b.dim > maxFlowFloats {
		b.stats.Skipped++
		return
	}
	if len(b.ends) > 0 {
		// Rows stay aligned with toks: pad the previous sequence's
		// unrun last token.
		b.rows = append(b.rows, make([]float32, len(b.toks)*b.dim-len(b.rows))...)
	}
	for p := range run {
		x := b.seq[p*b.dim : (p+1)*b.dim]
		var ss float64
		for _, v := range x {
			ss += float64(v) * float64(v)
		}
		inv := float32(1 / math.Sqrt(ss/float64(b.dim)+1e-12))
		for _, v := range x {
			b.rows = append(b.rows, v*inv)
		}
	}
	b.runs = append(b.runs, len(b.toks)+run)
	b.toks = append(b.toks, tokens...)
	b.ends = append(b.ends, len(b.toks))
	b.stats.Sequences++
	b.stats.Positions += run
}

// Build bakes the map and releases the state (its hook removed).
func (b *FlowBuilder) Build() (*FlowMap, error) {
	if b.remove == nil {
		return nil, errors.New("generate: flow map already built")
	}
	b.remove()
	b.remove = nil
	b.st.Reset()
	if b.stats.Positions == 0 {
		return nil, errors.New("generate: no calibration text to build a flow map from (each sequence needs 3 tokens)")
	}
	fm := &FlowMap{layer: b.layer, bits: b.o.Bits, depth: b.o.Depth, dim: b.dim, stats: b.stats}
	for _, l := range []int{b.o.Bits, b.o.Bits / 2, 0} {
		if len(fm.levels) == 0 || fm.levels[len(fm.levels)-1] != l {
			fm.levels = append(fm.levels, l)
		}
	}
	// The run states: every row but a generated sequence's last.
	var run []int
	start := 0
	for s, e := range b.ends {
		for i := start; i < b.runs[s]; i++ {
			run = append(run, i)
		}
		start = e
	}
	fm.fit(b.rows, run)
	cells := make([]uint32, len(b.toks))
	for _, i := range run {
		cells[i] = fm.cell(b.rows[i*b.dim : (i+1)*b.dim])
	}
	// Group each key's observations: the states with a key token and at
	// least one continuation token in their sequence.
	groups := make(map[uint64][]int32)
	end := make([]int32, len(b.toks)) // where each position's sequence ends
	start = 0
	for _, e := range b.ends {
		for i := start; i < e; i++ {
			end[i] = int32(e)
		}
		start = e
	}
	for _, i := range run {
		if int32(i+2) >= end[i] {
			continue
		}
		for l, bits := range fm.levels {
			k := flowKey(l, b.toks[i+1], cells[i]&levelMask(bits))
			groups[k] = append(groups[k], int32(i))
		}
	}
	keys := make([]uint64, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic layout
	fm.index = make(map[uint64]int32, len(keys))
	fm.stats.Keys = make([]int, len(fm.levels))
	counts := make(map[int32]uint32)
	for _, k := range keys {
		cand := groups[k]
		e := flowEntry{off: int32(len(fm.path)), total: uint32(len(cand))}
		for d := 0; d < fm.depth; d++ {
			clear(counts)
			for _, i := range cand {
				if j := i + 2 + int32(d); j < end[i] {
					counts[b.toks[j]]++
				}
			}
			best, bc := int32(-1), uint32(0)
			for t, c := range counts {
				if c > bc || (c == bc && t < best) {
					best, bc = t, c
				}
			}
			if bc == 0 {
				break
			}
			kept := cand[:0:0]
			for _, i := range cand {
				if j := i + 2 + int32(d); j < end[i] && b.toks[j] == best {
					kept = append(kept, i)
				}
			}
			cand = kept
			fm.path = append(fm.path, best)
			fm.agree = append(fm.agree, bc)
			e.n++
		}
		fm.index[k] = int32(len(fm.entries))
		fm.entries = append(fm.entries, e)
		fm.stats.Keys[k>>(32+flowTokBits)]++
	}
	b.toks, b.rows, b.seq = nil, nil, nil
	return fm, nil
}

// fit sets the mean, the top principal directions of the states (rows at
// run, a spaced sample of them) by subspace iteration, and each
// direction's median projection.
func (fm *FlowMap) fit(rows []float32, run []int) {
	dim, k := fm.dim, fm.bits
	sample := run
	if len(run) > flowPCASample {
		sample = make([]int, flowPCASample)
		for i := range sample {
			sample[i] = run[i*len(run)/flowPCASample]
		}
	}
	mean := make([]float64, dim)
	for _, i := range sample {
		for j, v := range rows[i*dim : (i+1)*dim] {
			mean[j] += float64(v)
		}
	}
	for j := range mean {
		mean[j] /= float64(len(sample))
	}
	x := make([]float64, len(sample)*dim) // centred sample
	for s, i := range sample {
		for j, v := range rows[i*dim : (i+1)*dim] {
			x[s*dim+j] = float64(v) - mean[j]
		}
	}
	// V (k×dim) ← orth(V·XᵀX), from a fixed random start.
	rng := rand.New(rand.NewPCG(0x666c6f77, 0x6d6170))
	v := make([]float64, k*dim)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	orthonormalise(v, k, dim)
	proj := make([]float64, len(sample)*k)
	w := make([]float64, k*dim)
	for range flowPCAIters {
		project(x, v, proj, len(sample), k, dim)
		clear(w)
		for s := range len(sample) {
			xs := x[s*dim : (s+1)*dim]
			for c := range k {
				p := proj[s*k+c]
				wc := w[c*dim : (c+1)*dim]
				for j, xv := range xs {
					wc[j] += p * xv
				}
			}
		}
		v, w = w, v
		orthonormalise(v, k, dim)
	}
	project(x, v, proj, len(sample), k, dim)
	fm.mean = make([]float32, dim)
	fm.dirs = make([]float32, k*dim)
	fm.offs = make([]float32, k)
	for j := range mean {
		fm.mean[j] = float32(mean[j])
	}
	col := make([]float64, len(sample))
	for c := range k {
		var mv float64
		for j := range dim {
			fm.dirs[c*dim+j] = float32(v[c*dim+j])
			mv += mean[j] * v[c*dim+j]
		}
		for s := range col {
			col[s] = proj[s*k+c]
		}
		slices.Sort(col)
		// A state is on the 1 side when its centred projection exceeds
		// the median: each bit splits the calibration states in two.
		fm.offs[c] = float32(mv + col[len(col)/2])
	}
}

// project sets p (n×k) to x (n×dim) times vᵀ (v k×dim).
func project(x, v, p []float64, n, k, dim int) {
	for s := range n {
		xs := x[s*dim : (s+1)*dim]
		for c := range k {
			var d float64
			for j, xv := range xs {
				d += xv * v[c*dim+j]
			}
			p[s*k+c] = d
		}
	}
}

// orthonormalise makes v's k rows orthonormal (Gram–Schmidt, twice for
// accuracy); a row that vanishes becomes a unit axis.
func orthonormalise(v []float64, k, dim int) {
	for c := range k {
		row := v[c*dim : (c+1)*dim]
		for range 2 {
			for p := range c {
				prev := v[p*dim : (p+1)*dim]
				var d float64
				for j := range row {
					d += row[j] * prev[j]
				}
				for j := range row {
					row[j] -= d * prev[j]
				}
			}
		}
		var n float64
		for _, r := range row {
			n += r * r
		}
		if n < 1e-24 {
			clear(row)
			row[c%dim] = 1
			continue
		}
		n = 1 / math.Sqrt(n)
		for j := range row {
			row[j] *= n
		}
	}
}

// FlowDrafter drafts from a flow map: a hook on the verifier's state
// (Attach) keeps the cell of each position it runs, and Draft looks up
// the cell of the position before the pending token with that token.
// Drafting costs a map lookup; it allocates nothing.
type FlowDrafter struct {
	fm       *FlowMap
	gate     float64
	fallback Drafter
	name     string
	pos      [flowSlots]int // the position whose cell each slot holds, −1 none
	cell     [flowSlots]uint32
	layers   []int
	// Drafts counts the steps the map drafted; Fallbacks those the
	// fallback drafter did; Declined those nobody did.
	Drafts, Fallbacks, Declined int
}

// NewFlowDrafter drafts from fm what is at least gate (0 < gate ≤ 1)
// sure, else asks fallback (nil: nothing).
func NewFlowDrafter(fm *FlowMap, gate float64, fallback Drafter) (*FlowDrafter, error) {
	if fm == nil {
		return nil, errors.New("generate: no flow map")
	}
	if !(gate > 0 && gate <= 1) {
		return nil, fmt.Errorf("generate: flow map gate %v outside (0, 1]", gate)
	}
	d := &FlowDrafter{fm: fm, gate: gate, fallback: fallback, layers: []int{fm.layer}}
	d.name = fmt.Sprintf("flow map %d bits, gate %g", fm.bits, gate)
	if fallback != nil {
		d.name += ", then " + fallback.Name()
	}
	for i := range d.pos {
		d.pos[i] = -1
	}
	return d, nil
}

// Name implements Drafter.
func (d *FlowDrafter) Name() string { return d.name }

// Map is the drafter's flow map.
func (d *FlowDrafter) Map() *FlowMap { return d.fm }

// Attach registers the drafter's hook on the verifier's state st; remove
// takes it off.
func (d *FlowDrafter) Attach(st *model.State) (remove func(), err error) {
	c := &st.Model().Config
	if c.Dim != d.fm.dim || d.fm.layer >= c.Layers {
		return nil, fmt.Errorf("generate: a flow map of a %d-wide stream after %d blocks does not fit this model (%d wide, %d blocks)", d.fm.dim, d.fm.layer+1, c.Dim, c.Layers)
	}
	for i := range d.pos {
		d.pos[i] = -1
	}
	return st.AddHook(d)
}

// AfterBlock implements model.BlockHook: the cell of each run position.
func (d *FlowDrafter) AfterBlock(layer, pos int, x []float32) {
	if layer != d.fm.layer || len(x) != d.fm.dim || pos < 0 {
		return
	}
	s := pos % flowSlots
	d.pos[s], d.cell[s] = pos, d.fm.cell(x)
}

// HookLayers implements model.LayerHook.
func (d *FlowDrafter) HookLayers() []int { return d.layers }

// ReadOnly implements model.ReadOnlyHook.
func (d *FlowDrafter) ReadOnly() bool { return true }

// Rewind implements model.RewindHook: cells of forgotten positions go.
func (d *FlowDrafter) Rewind(pos int) {
	for i, p := range d.pos {
		if p >= pos {
			d.pos[i] = -1
		}
	}
}

// Draft implements Drafter.
func (d *FlowDrafter) Draft(req DraftRequest, out []int32, q [][]sample.Prob) (int, error) {
	h := req.History
	if len(h) >= 2 && len(out) > 0 {
		p := len(h) - 2
		if s := p % flowSlots; d.pos[s] == p {
			if cont := d.fm.Lookup(d.cell[s], h[len(h)-1], d.gate); len(cont) > 0 {
				d.Drafts++
				k := min(len(out), len(cont))
				for i := range k {
					out[i] = cont[i]
					q[i] = append(q[i][:0], sample.Prob{ID: cont[i], P: 1})
					if slices.Contains(req.Stop, cont[i]) {
						return i + 1, nil // nothing after a stop token is kept
					}
				}
				return k, nil
			}
		}
	}
	if d.fallback != nil {
		n, err := d.fallback.Draft(req, out, q)
		if n > 0 {
			d.Fallbacks++
		} else {
			d.Declined++
		}
		return n, err
	}
	d.Declined++
	return 0, nil
}
