package model

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// BlockWeights are one block's weight matrices in their GGUF types, for
// code that derives other weights from them (engine/grc's compressions).
// They alias the model's mapped file: read them, never write.
type BlockWeights struct {
	Q, K, V, O, Gate, Up, Down *tensor.Matrix
}

// Block returns block l's weight matrices.
func (m *Model) Block(l int) BlockWeights {
	L := &m.layers[l]
	return BlockWeights{Q: L.wq, K: L.wk, V: L.wv, O: L.wo, Gate: L.gate, Up: L.up, Down: L.down}
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
// do not fit the model is refused and the state keeps what it ran.
func (s *State) SetProjections(p Projections) error {
	c := &s.m.Config
	if p != nil && p.Layers() != len(s.m.layers) {
		return fmt.Errorf("model: projections built for %d blocks, the model has %d", p.Layers(), len(s.m.layers))
	}
	maxK := 0
	if p != nil {
		for l := range len(s.m.layers) {
			bp := p.Block(l)
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
	// Every slot back to its dense product, then the projected ones set.
	if err := s.upload(); err != nil {
		return err
	}
	s.proj = p
	if p == nil {
		return nil
	}
	if s.xt == nil || s.xt.Width() < maxK {
		xt, err := s.b.Alloc(MaxBatch, maxK)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		s.xt = xt
	}
	for l := range s.m.layers {
		bp, bl := p.Block(l), &s.lin[l]
		for _, g := range []struct {
			pr  *Projection
			dst *linear
		}{{bp.QKV, &bl.qkv}, {bp.O, &bl.o}, {bp.FFN, &bl.ffn}, {bp.Down, &bl.down}} {
			if g.pr == nil {
				continue
			}
			in, err := s.b.Matrix(g.pr.In)
			if err != nil {
				return fmt.Errorf("model: %w", err)
			}
			lin := linear{in: in}
			for _, w := range g.pr.Out {
				o, err := s.b.Matrix(w)
				if err != nil {
					return fmt.Errorf("model: %w", err)
				}
				lin.out = append(lin.out, o)
			}
			*g.dst = lin
		}
	}
	return nil
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

// upload puts the model's weights on the state's backend and sets every
// slot to its dense product.
func (s *State) upload() error {
	m, b := s.m, s.b
	var err error // the first failure; later calls do nothing
	mat := func(t *tensor.Matrix) backend.Matrix {
		if t == nil || err != nil {
			return nil
		}
		w, e := b.Matrix(t)
		if e != nil {
			err = fmt.Errorf("model: putting the weights on %s: %w", b.Name(), e)
		}
		return w
	}
	vec := func(v []float32) backend.Vector {
		if v == nil || err != nil {
			return nil
		}
		w, e := b.Vector(v)
		if e != nil {
			err = fmt.Errorf("model: putting the weights on %s: %w", b.Name(), e)
		}
		return w
	}
	s.w = stateWeights{tokEmbd: mat(m.tokEmbd), output: mat(m.output), outNorm: vec(m.outNorm)}
	s.w.blocks = make([]blockWeights, len(m.layers))
	s.lin = make([]blockLinears, len(m.layers))
	for l := range m.layers {
		L := &m.layers[l]
		s.w.blocks[l] = blockWeights{
			attnNorm: vec(L.attnNorm), ffnNorm: vec(L.ffnNorm),
			bq: vec(L.bq), bk: vec(L.bk), bv: vec(L.bv), qNorm: vec(L.qNorm), kNorm: vec(L.kNorm),
			postAttnNorm: vec(L.postAttnNorm), postFFNNorm: vec(L.postFFNNorm),
		}
		s.lin[l] = blockLinears{
			qkv:  linear{out: []backend.Matrix{mat(L.wq), mat(L.wk), mat(L.wv)}},
			o:    linear{out: []backend.Matrix{mat(L.wo)}},
			ffn:  linear{out: []backend.Matrix{mat(L.gate), mat(L.up)}},
			down: linear{out: []backend.Matrix{mat(L.down)}},
		}
	}
	return err
}
