package generate

import (
	"fmt"
	"slices"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// minRespN is how many generated tokens a model drafter must produce
// before it may draft a stop token: instruct models tend to end a reply
// greedily at its first positions (Paper 3 §5.5.1). Only the drafter is
// masked; the verifier decides what is emitted.
const minRespN = 4

// DefaultLearnShare is the most of the wall time the online basis spends
// learning and rebuilding the drafter's weights.
const DefaultLearnShare = 0.1

// drafterSeed separates the drafter's random stream from the verifier's.
const drafterSeed = 0x6a09e667f3bcc909

// Learner is a drafter's online basis (engine/grc's Online): the
// projections the drafter runs, which learn from the residual-stream
// differences at rejected positions.
type Learner interface {
	model.Projections
	// Add queues x = h_verifier − h_drafter for block layer: the residual
	// stream entering that block.
	Add(layer int, x []float32)
	// Reject counts one rejection.
	Reject()
	// Update applies what is queued if enough rejections were counted,
	// reporting whether any block's basis moved.
	Update() bool
}

// ModelDrafter drafts with a second State of the same model, normally run
// through a GRC compression (State.SetProjections): one model in memory,
// two KV caches. It samples its drafts with the verifier's sampling
// parameters, so that p and q come from the same chain.
type ModelDrafter struct {
	st      *model.State
	sampler *sample.Sampler
	name    string
	logits  []float32
	fed     []int32 // the tokens in st, in order
	hist    []int32 // scratch: history and drafts, for the penalty window
	one     [1]int32

	learner   Learner
	updated   int // rebuilds of st's products from moved bases
	learnedAt time.Time
	learnCost time.Duration
	learnWait float64 // idle time per unit of learning time: 1/share − 1
	ver       *residuals
	dft       *residuals
	diff      []float32
}

// NewModelDrafter drafts with st (which it owns from now on: it truncates
// and feeds it) and sampling parameters p, the verifier's.
func NewModelDrafter(st *model.State, p sample.Params, name string) (*ModelDrafter, error) {
	p.Seed ^= drafterSeed
	s, err := sample.New(st.Model().Vocab, p)
	if err != nil {
		return nil, err
	}
	return &ModelDrafter{
		st: st, sampler: s, name: name,
		logits: make([]float32, st.Model().Vocab),
		fed:    make([]int32, 0, st.Cap()),
		hist:   make([]int32, 0, st.Cap()+MaxGamma+1),

		learnWait: 1/DefaultLearnShare - 1,
	}, nil
}

// Name implements Drafter.
func (d *ModelDrafter) Name() string { return d.name }

// State is the drafter's model state.
func (d *ModelDrafter) State() *model.State { return d.st }

// SetParams follows the verifier's new sampling parameters.
func (d *ModelDrafter) SetParams(p sample.Params) error {
	p.Seed ^= drafterSeed
	if d.sampler != nil {
		return d.sampler.SetParams(p) // its buffers kept (Generator.SetParams)
	}
	s, err := sample.New(d.st.Model().Vocab, p)
	if err != nil {
		return err
	}
	d.sampler = s
	return nil
}

// Learn turns on the online basis: l is installed as the drafter's
// projections, and hooks on the verifier's and the drafter's states record
// the residual stream so that each rejection feeds l. The returned
// function removes the hooks (the drafter keeps running l's projections).
func (d *ModelDrafter) Learn(verifier *model.State, l Learner) (remove func(), err error) {
	c := &d.st.Model().Config
	if verifier.Model() != d.st.Model() {
		return nil, fmt.Errorf("generate: the online basis needs the verifier and the drafter on one model")
	}
	if err := d.st.SetProjections(l); err != nil {
		return nil, err
	}
	d.ver, d.dft = newResiduals(c.Layers, c.Dim), newResiduals(c.Layers, c.Dim)
	d.diff = make([]float32, c.Dim)
	rv, err := verifier.AddHook(d.ver)
	if err != nil {
		return nil, err
	}
	rd, err := d.st.AddHook(d.dft)
	if err != nil {
		rv()
		return nil, err
	}
	d.learner = l
	return func() { rv(); rd(); d.learner = nil }, nil
}

// SetLearnShare sets the most of the wall time (0 < share ≤ 1) the
// online basis may spend learning and rebuilding; 1 learns before every
// draft, whatever it costs (for measuring what learning does to α).
func (d *ModelDrafter) SetLearnShare(share float64) error {
	if !(share > 0 && share <= 1) {
		return fmt.Errorf("generate: online basis share %v outside (0, 1]", share)
	}
	d.learnWait = 1/share - 1
	return nil
}

// Updates is how many times the drafter's products were rebuilt from
// moved online bases.
func (d *ModelDrafter) Updates() int { return d.updated }

// Rejected implements Rejecter: the difference of the two residual
// streams at pos, entering every block after the first (the first
// block's input is the shared embedding, equal in both), goes to the
// learner.
func (d *ModelDrafter) Rejected(pos int) {
	if d.learner == nil {
		return
	}
	for l := 1; l < len(d.ver.layers); l++ {
		hv, okv := d.ver.at(pos, l-1)
		hd, okd := d.dft.at(pos, l-1)
		if !okv || !okd {
			continue
		}
		for i := range d.diff {
			d.diff[i] = hv[i] - hd[i]
		}
		d.learner.Add(l, d.diff)
	}
	d.learner.Reject()
}

// Draft implements Drafter.
func (d *ModelDrafter) Draft(req DraftRequest, out []int32, q [][]sample.Prob) (int, error) {
	h := req.History
	if len(h) == 0 || len(out) == 0 {
		return 0, nil
	}
	if len(h)+len(out) > d.st.Cap() {
		return 0, nil // no room to draft; the verifier decodes plainly
	}
	// Run what the state lacks, the last token at least: its logits start
	// the draft.
	if err := d.feed(h, len(h), d.logits); err != nil {
		return 0, err
	}
	d.hist = append(d.hist[:0], h...)
	n := 0
	for n < len(out) {
		q[n] = d.sampler.Dist(d.logits, d.hist, q[n][:0])
		if req.Generated+n < minRespN {
			q[n] = withoutStops(q[n], req.Stop)
		}
		tok := d.sampler.Draw(q[n])
		out[n] = tok
		n++
		d.hist = append(d.hist, tok)
		if n == len(out) || slices.Contains(req.Stop, tok) {
			break // nothing after a stop token is ever kept
		}
		d.one[0] = tok
		if err := d.st.Forward(d.one[:], d.logits); err != nil {
			return 0, err
		}
		d.fed = append(d.fed, tok)
	}
	return n, nil
}

// Sync implements Syncer: the state catches up with every token of
// history but the last, which Draft runs.
//
// It is also where the online basis learns, between decode steps and
// outside the timed draft: if its bases moved, the drafter's products are
// rebuilt from them (per block whose version moved).
func (d *ModelDrafter) Sync(history []int32) error {
	// Learning costs O(samples·k·d + k²·d) per block, and a rebuild of
	// the projected weights about k tokens of decoding: both wait until
	// they would take at most their share of the time since they last ran
	// (the queue keeps the newest samples meanwhile).
	if d.learner != nil && time.Since(d.learnedAt).Seconds() >= d.learnWait*d.learnCost.Seconds() {
		t := time.Now()
		if d.learner.Update() {
			if err := d.st.SetProjections(d.learner); err != nil {
				return err
			}
			d.updated++
		}
		d.learnedAt = time.Now()
		d.learnCost = d.learnedAt.Sub(t)
	}
	if len(history) < 2 || len(history)+1 > d.st.Cap() {
		return nil // Draft declines when there is no room
	}
	return d.feed(history, len(history)-1, nil)
}

// feed brings the state to h[:n]: it keeps the longest prefix it holds
// (always recomputing position n−1, whose logits go to logits when it is
// not nil) and runs the rest.
func (d *ModelDrafter) feed(h []int32, n int, logits []float32) error {
	c := 0
	for c < len(d.fed) && c < n && d.fed[c] == h[c] {
		c++
	}
	if logits != nil && c == n {
		c-- // the last token's logits are wanted: run it again
	}
	if c == n {
		return nil
	}
	d.st.Truncate(c)
	d.fed = append(d.fed[:c], h[c:n]...)
	if err := d.st.Forward(h[c:n], logits); err != nil {
		d.fed = d.fed[:d.st.Pos()]
		return err
	}
	return nil
}

// withoutStops removes the stop tokens from q and renormalises it, unless
// nothing else has probability.
func withoutStops(q []sample.Prob, stop []int32) []sample.Prob {
	if len(stop) == 0 {
		return q
	}
	kept, z := 0, 0.0
	for _, e := range q {
		if !slices.Contains(stop, e.ID) {
			z += e.P
			kept++
		}
	}
	if kept == len(q) || z <= 0 {
		return q
	}
	n := 0
	for _, e := range q {
		if !slices.Contains(stop, e.ID) {
			q[n] = sample.Prob{ID: e.ID, P: e.P / z}
			n++
		}
	}
	return q[:n]
}

// residuals is a BlockHook that keeps the residual stream after every
// block for the last few positions, indexed by position.
type residuals struct {
	layers [][]float32 // layers[l] is slots×dim
	pos    []int       // pos[slot] is the position held there, -1 none
	dim    int
}

// residualSlots covers one verification batch (the pending token and up
// to MaxGamma drafts) with room to spare.
const residualSlots = MaxGamma + 2

func newResiduals(layers, dim int) *residuals {
	r := &residuals{layers: make([][]float32, layers), pos: make([]int, residualSlots), dim: dim}
	for l := range r.layers {
		r.layers[l] = make([]float32, residualSlots*dim)
	}
	for i := range r.pos {
		r.pos[i] = -1
	}
	return r
}

// ReadOnly implements model.ReadOnlyHook: the residuals are only copied.
func (r *residuals) ReadOnly() bool { return true }

// AfterBlock implements model.BlockHook.
func (r *residuals) AfterBlock(layer, pos int, x []float32) {
	if layer >= len(r.layers) || len(x) != r.dim || pos < 0 {
		return
	}
	slot := pos % residualSlots
	if layer == 0 {
		r.pos[slot] = pos
	}
	copy(r.layers[layer][slot*r.dim:(slot+1)*r.dim], x)
}

// at returns the residual after block layer at pos, if still held.
func (r *residuals) at(pos, layer int) ([]float32, bool) {
	slot := pos % residualSlots
	if pos < 0 || r.pos[slot] != pos {
		return nil, false
	}
	return r.layers[layer][slot*r.dim : (slot+1)*r.dim], true
}

// NGramDrafter is the draftless baseline (prompt lookup, as in
// llama.cpp's lookup decoding): it finds the latest earlier occurrence of
// the conversation's last N tokens (N from MaxN down to MinN) and proposes
// the tokens that followed it. It costs no forward pass; its proposals are
// deterministic, so each has q = 1.
type NGramDrafter struct {
	MinN, MaxN int
}

// NewNGramDrafter returns the lookup drafter over 1- to 3-token matches.
func NewNGramDrafter() *NGramDrafter { return &NGramDrafter{MinN: 1, MaxN: 3} }

// Name implements Drafter.
func (d *NGramDrafter) Name() string { return "n-gram" }

// Draft implements Drafter.
func (d *NGramDrafter) Draft(req DraftRequest, out []int32, q [][]sample.Prob) (int, error) {
	h := req.History
	for n := min(d.MaxN, len(h)-1); n >= max(d.MinN, 1); n-- {
		suffix := h[len(h)-n:]
		// The latest match wins: recent text predicts best.
		for start := len(h) - n - 1; start >= 0; start-- {
			if !slices.Equal(h[start:start+n], suffix) {
				continue
			}
			follow := h[start+n : len(h)]
			k := min(len(out), len(follow))
			for i := range k {
				out[i] = follow[i]
				q[i] = append(q[i][:0], sample.Prob{ID: follow[i], P: 1})
				if slices.Contains(req.Stop, follow[i]) {
					return i + 1, nil
				}
			}
			return k, nil
		}
	}
	return 0, nil
}
