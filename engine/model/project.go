package model

import (
	"fmt"
	"slices"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// BlockWeights are one block's weight matrices in their GGUF types, for
// code that derives other weights from them (engine/grc's compressions).
// They alias the model's mapped file: read them, never write.
type BlockWeights struct {
	Q, K, V, O, Gate, Up, Down *tensor.Matrix
	// AttnNorm and FFNNorm are the γ of the RMSNorms whose outputs Q/K/V
	// and gate/up read (Dim values each): a reading matrix W sees
	// γ ⊙ n, n the normalised stream, so engine/grc's gauge weighs W's
	// columns by |γ|.
	AttnNorm, FFNNorm []float32
	// QNorm and KNorm are the per-head RMSNorm weights of Q and K
	// (HeadDim each; qwen3, gemma3), nil for a model without them: they
	// scale each head coordinate of q and k before RoPE.
	QNorm, KNorm []float32
}

// Block returns block l's weight matrices.
func (m *Model) Block(l int) BlockWeights {
	L := &m.layers[l]
	return BlockWeights{Q: L.wq, K: L.wk, V: L.wv, O: L.wo, Gate: L.gate, Up: L.up, Down: L.down,
		AttnNorm: L.attnNorm, FFNNorm: L.ffnNorm, QNorm: L.qNorm, KNorm: L.kNorm}
}

// Projection is a slot group's product through a low-rank view of its
// input: x̃ = In·x (k × the group's input width) once, then Out[i]·x̃ for
// each of the group's matrices (out × k).
type Projection struct {
	In  *tensor.Matrix
	Out []*tensor.Matrix
}

// BlockProjections are the groups of one block that run projected; a nil
// group runs on the dense weights. QKV's Out are Q, K and V; FFN's are
// gate and up; O and Down have one each.
type BlockProjections struct {
	QKV, O, FFN, Down *Projection
	// Bypass is the sink bypass's threshold: a position whose residual
	// stream entering the block has a norm above it runs every group of
	// the block on the dense weights (an outlier — an attention sink —
	// projects badly onto a low-rank basis). 0 never bypasses.
	Bypass float32
}

// Projections replace some of every block's products with projected ones.
// engine/grc's Compression is one; the model only runs them.
type Projections interface {
	// Layers is the number of blocks the projections were built for.
	Layers() int
	// Block is block l's projected groups.
	Block(l int) BlockProjections
}

// SetProjections runs the state's products through p from the next
// Forward on, or on the dense weights again with nil. The KV cache is kept
// (entries written before the switch keep their values). A p whose shapes
// do not fit the model, or that the backend cannot take, is refused and
// the state keeps what it ran.
//
// Only p's matrices are bound, on the state's backend, and they are the
// state's own: the ones it ran before are released (backend.Releaser),
// except those p uses again — a matrix is known by its *tensor.Matrix, so
// a matrix must not change once it has been passed here (engine/grc makes
// new ones when it rebuilds a block).
func (s *State) SetProjections(p Projections) error {
	c := &s.m.Config
	if s.closed {
		return fmt.Errorf("model: the state is closed")
	}
	if p != nil && p.Layers() != len(s.m.layers) {
		return fmt.Errorf("model: projections built for %d blocks, the model has %d", p.Layers(), len(s.m.layers))
	}
	maxK := 0
	var blocks []BlockProjections // p's blocks, asked once
	if p != nil {
		blocks = make([]BlockProjections, len(s.m.layers))
		for l := range len(s.m.layers) {
			bp := p.Block(l)
			blocks[l] = bp
			for _, g := range []struct {
				pr      *Projection
				name    string
				in      int
				outRows []int
			}{
				{bp.QKV, "qkv", c.Dim, []int{c.QDim(), c.KVDim(), c.KVDim()}},
				{bp.O, "o", c.QDim(), []int{c.Dim}},
				{bp.FFN, "ffn", c.Dim, []int{c.FFN, c.FFN}},
				{bp.Down, "down", c.FFN, []int{c.Dim}},
			} {
				if g.pr == nil {
					continue
				}
				if err := checkProjection(g.pr, g.in, g.outRows); err != nil {
					return fmt.Errorf("model: block %d %s: %w", l, g.name, err)
				}
				maxK = max(maxK, g.pr.In.Rows)
			}
		}
	}
	if maxK > 0 && (s.xt == nil || s.xt.Width() < maxK) {
		xt, err := s.b.Alloc(s.batch, maxK)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		s.xt = xt
	}
	// Bind p's matrices before anything changes, so that a failure leaves
	// the state running what it ran.
	owned := map[*tensor.Matrix]backend.Matrix{}
	var err error
	bind := func(t *tensor.Matrix) backend.Matrix {
		if w, ok := owned[t]; ok || err != nil {
			return w
		}
		w, ok := s.owned[t]
		if !ok {
			var e error
			if w, e = s.b.Matrix(t); e != nil {
				err = fmt.Errorf("model: putting projected weights on %s: %w", s.b.Name(), e)
				return nil
			}
		}
		owned[t] = w
		return w
	}
	lin := slices.Clone(s.dense.lin)
	placer, _ := s.b.(backend.Placer)
	for l, bp := range blocks {
		bl := &lin[l]
		// A backend over several devices puts a block's projected weights
		// where the block runs.
		if placer != nil {
			placer.Place(l, len(s.m.layers))
		}
		for _, g := range []struct {
			pr  *Projection
			dst *linear
		}{{bp.QKV, &bl.qkv}, {bp.O, &bl.o}, {bp.FFN, &bl.ffn}, {bp.Down, &bl.down}} {
			if g.pr == nil {
				continue
			}
			pl := linear{in: bind(g.pr.In)}
			for _, w := range g.pr.Out {
				pl.out = append(pl.out, bind(w))
			}
			*g.dst = pl
		}
	}
	var bp *bypassRun
	if err == nil {
		bp, err = s.newBypass(blocks)
	}
	if err != nil {
		// Release what this call bound; what the state owned stays.
		for t, w := range owned {
			if _, kept := s.owned[t]; !kept {
				release(s.b, w)
			}
		}
		return err
	}
	s.releaseOwned(owned)
	s.owned, s.lin, s.proj, s.bp = owned, lin, p, bp
	return nil
}

// releaseOwned releases the projected matrices the state owns that keep
// does not hold (all of them when keep is nil).
func (s *State) releaseOwned(keep map[*tensor.Matrix]backend.Matrix) {
	for t, w := range s.owned {
		if _, ok := keep[t]; !ok {
			release(s.b, w)
		}
	}
}

// release frees m on b when b frees weights early (backend.Releaser).
func release(b backend.Backend, m backend.Matrix) {
	if r, ok := b.(backend.Releaser); ok {
		r.Release(m)
	}
}

// checkProjection checks a group's shapes: In is k×in, each Out is rows×k.
func checkProjection(p *Projection, in int, outRows []int) error {
	if p.In == nil || p.In.Cols != in || p.In.Rows < 1 {
		return fmt.Errorf("the projection must read %d values", in)
	}
	if len(p.Out) != len(outRows) {
		return fmt.Errorf("%d projected matrices, the group has %d", len(p.Out), len(outRows))
	}
	for i, w := range p.Out {
		if w == nil || w.Rows != outRows[i] || w.Cols != p.In.Rows {
			return fmt.Errorf("projected matrix %d must be %d×%d", i, outRows[i], p.In.Rows)
		}
	}
	return nil
}

// Projections is what the state's products run through, or nil (dense).
func (s *State) Projections() Projections { return s.proj }
