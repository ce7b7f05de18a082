package grc

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Online bounds (docs/mechanisms.md §11, after Paper 6 §5).
const (
	// OnlineQueue is the most samples waiting for an update; older ones
	// are dropped first.
	OnlineQueue = 256
	// OnlineMinRejections is how many rejections an update waits for.
	OnlineMinRejections = 4
)

// Online is a compression whose residual-reading bases learn online: a
// speculative drafter's GRC, fed x = h_verifier − h_drafter at each
// rejection (docs/mechanisms.md §11). For every block, the Q/K/V basis
// and the gate/up basis (the groups that read the residual stream) each
// run Oja's rule; O and down keep the compression's bases. A block's
// projected weights W_s P are rebuilt from its current bases the first
// time Block is called after its version moved.
//
// The Compression it wraps is never modified (it may be shared, and it
// is what a cache file holds): the learnt state lives only here. Online is
// a model.Projections. It is not safe for concurrent use.
type Online struct {
	m       *model.Model
	g       *Compression
	blocks  []onlineBlock
	queue   []onlineSample // ring of OnlineQueue
	head, n int
	rejects int
	updates int
	err     error
}

// onlineBlock is one block's learning groups and what was last built.
type onlineBlock struct {
	groups         []*onlineGroup // qkv and ffn, those compressed
	version, built int
	stepsBefore    int
	proj           model.BlockProjections
}

// steps is the samples the block's rules have applied.
func (b *onlineBlock) steps() int {
	n := 0
	for _, g := range b.groups {
		n += g.oja.Steps()
	}
	return n
}

// onlineGroup is one group's Oja rule and its current projection.
type onlineGroup struct {
	gi   int // 0 qkv, 2 ffn
	oja  *Oja
	orig *grcGroup
	cur  *grcGroup
	rows []float32 // scratch: the basis rows
}

type onlineSample struct {
	block int
	x     []float32
}

// NewOnline starts the online bases of g, a compression of m, from g's
// own bases, with step size η₀ (η_t = η₀/√t).
func NewOnline(m *model.Model, g *Compression, eta0 float64) (*Online, error) {
	switch {
	case m == nil:
		return nil, fmt.Errorf("grc: an online basis needs the model its compression was built for")
	case g == nil || len(g.layers) != m.Layers:
		return nil, fmt.Errorf("grc: an online basis needs a compression of this model's %d blocks", m.Layers)
	}
	o := &Online{m: m, g: g, blocks: make([]onlineBlock, m.Layers), queue: make([]onlineSample, OnlineQueue)}
	for l := range o.blocks {
		b := &o.blocks[l]
		for _, gi := range []int{0, 2} {
			grp := *g.layers[l].group(gi)
			if grp == nil {
				continue
			}
			rows := make([]float32, grp.in.Rows*grp.in.Cols)
			if err := tensor.Dequantize(grp.in.Type, rows, grp.in.Data); err != nil {
				return nil, fmt.Errorf("grc: block %d %s basis: %w", l, groupName(gi), err)
			}
			oja, err := NewOja(rows, grp.in.Rows, grp.in.Cols, eta0)
			if err != nil {
				return nil, fmt.Errorf("grc: block %d %s: %w", l, groupName(gi), err)
			}
			b.groups = append(b.groups, &onlineGroup{gi: gi, oja: oja, orig: grp, cur: grp, rows: rows})
		}
		b.proj = g.Block(l)
	}
	return o, nil
}

// Add queues x, the difference of the verifier's and the drafter's
// residual streams entering block (after block−1), for that block's
// bases. Blocks without a learning group ignore it; so does an x of the
// wrong width. The oldest sample goes when the queue is full.
func (o *Online) Add(block int, x []float32) {
	if block < 0 || block >= len(o.blocks) || len(o.blocks[block].groups) == 0 || len(x) != o.m.Dim {
		return
	}
	i := (o.head + o.n) % len(o.queue)
	if o.n == len(o.queue) {
		o.head = (o.head + 1) % len(o.queue) // overwrite the oldest
	} else {
		o.n++
	}
	s := &o.queue[i]
	if s.x == nil {
		s.x = make([]float32, o.m.Dim)
	}
	s.block = block
	copy(s.x, x)
}

// Reject counts one rejection.
func (o *Online) Reject() { o.rejects++ }

// Queued is the number of samples waiting.
func (o *Online) Queued() int { return o.n }

// Update applies the queued samples once OnlineMinRejections rejections
// have been counted since the last update, reporting whether any block's
// basis moved (its version then moves, and Block rebuilds it); the queue
// and the count then start again. With nothing queued the count is kept,
// so the next sample is not held back. Each sample steps its block's
// rules (Oja.Accumulate) and each moved basis is deflated once per update
// (Oja.Orthonormalise): Oja.Update's per-sample Gram–Schmidt would cost
// O(k²·d) per sample and group, more than the drafting it serves.
func (o *Online) Update() bool {
	if o.rejects < OnlineMinRejections || o.n == 0 {
		return false
	}
	for l := range o.blocks {
		o.blocks[l].stepsBefore = o.blocks[l].steps()
	}
	// The samples' steps first, then one deflation per moved basis: the
	// per-sample Gram–Schmidt would cost O(k²·d) for every sample.
	for j := range o.n {
		s := &o.queue[(o.head+j)%len(o.queue)]
		for _, g := range o.blocks[s.block].groups {
			g.oja.Accumulate(s.x)
		}
	}
	changed := false
	for l := range o.blocks {
		if b := &o.blocks[l]; b.steps() != b.stepsBefore {
			for _, g := range b.groups {
				g.oja.Orthonormalise()
			}
			b.version++ // once per update, however many samples it took
			changed = true
		}
	}
	o.head, o.n, o.rejects = 0, 0, 0
	if changed {
		o.updates++
	}
	return changed
}

// Updates is how many updates moved a basis.
func (o *Online) Updates() int { return o.updates }

// Version is block l's basis version (0: the compression's own, and for
// an l that is not a block).
func (o *Online) Version(l int) int {
	if l < 0 || l >= len(o.blocks) {
		return 0
	}
	return o.blocks[l].version
}

// Err is the first failure to rebuild a block (which then kept its
// previous projection), or nil.
func (o *Online) Err() error { return o.err }

// Layers implements model.Projections.
func (o *Online) Layers() int { return len(o.blocks) }

// Block implements model.Projections: block l's groups, rebuilt from its
// current bases if its version moved since they were last built (a failed
// rebuild keeps the previous groups and is kept for Err). An l that is not
// a block has no projections: it would run dense.
func (o *Online) Block(l int) model.BlockProjections {
	if l < 0 || l >= len(o.blocks) {
		return model.BlockProjections{}
	}
	b := &o.blocks[l]
	if b.built != b.version {
		if err := o.rebuild(l); err != nil && o.err == nil {
			o.err = err
		}
		b.built = b.version
	}
	return b.proj
}

// rebuild makes block l's learning groups from their current bases: the
// projection's rows are the basis (x̃ = Wx), and each slot's projected
// weights are W_s P with P = Wᵀ, stored in the types the compression
// used.
func (o *Online) rebuild(l int) error {
	b := &o.blocks[l]
	for _, g := range b.groups {
		k, d := g.orig.in.Rows, g.orig.in.Cols
		g.rows = g.oja.Basis(g.rows)
		in, err := quantizeMatrix(g.orig.in.Type, k, d, g.rows)
		if err != nil {
			return fmt.Errorf("grc: block %d %s basis: %w", l, groupName(g.gi), err)
		}
		basis := &Basis{D: d, K: k, P: make([]float32, d*k)}
		for r := range k {
			for c := range d {
				basis.P[c*k+r] = g.rows[r*d+c]
			}
		}
		slots, err := dequantGroup(o.m, g.gi, l)
		if err != nil {
			return fmt.Errorf("grc: rebuilding an online basis: %w", err)
		}
		grp := &grcGroup{k: k, in: in}
		for i, s := range slots {
			w, err := quantizeMatrix(g.orig.out[i].Type, s.Rows, k, basis.Project(s))
			if err != nil {
				return fmt.Errorf("grc: block %d %s: %w", l, groupName(g.gi), err)
			}
			grp.out = append(grp.out, w)
		}
		g.cur = grp
	}
	p := o.g.Block(l)
	for _, g := range b.groups {
		switch g.gi {
		case 0:
			p.QKV = g.cur.projection()
		case 2:
			p.FFN = g.cur.projection()
		}
	}
	b.proj = p
	return nil
}
