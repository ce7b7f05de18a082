// Package synthproj makes random GRC-shaped projections of a model, to time
// compressed decoding at any rank without building a compression.
package synthproj

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Projections are GRC-shaped projections of a model with random contents:
// the matrices a rank-k compression would run (engine/grc's shapes and its
// Q8_0 storage for quantised weights), filled with random blocks. They
// exist to time compressed decoding at a rank without building the
// compression, which at 8B parameters is an eigendecomposition of a
// 4096-wide Gram per block and takes longer than a device session has
// (issue 58: the seed's k* = L2 MB × 42.7 law and its compressed
// "super-baseline" are claims about speed alone, and a product's speed
// depends on its shapes and types, not on its values). What they compute
// is meaningless; never use them for anything but timing.
type Projections struct {
	blocks []model.BlockProjections
	// Bytes is what one token reads through them: every projected matrix
	// and basis, all blocks.
	Bytes int64
}

// Layers is the number of blocks.
func (p *Projections) Layers() int { return len(p.blocks) }

// Block is block l's projected groups.
func (p *Projections) Block(l int) model.BlockProjections { return p.blocks[l] }

// ProjectionsFor makes random rank-k projections of every block of m's Q, K
// and V (qkv) or of every slot GRC compresses (all: qkv, o, gate/up and
// down), each block's matrices its own so that no block reads another's
// bytes from a cache. k must be a positive multiple of 32 (Q8_0 rows) no
// wider than the inputs it projects.
func ProjectionsFor(m *model.Model, k int, slots string, seed uint64) (*Projections, error) {
	c := &m.Config
	if k <= 0 || k%32 != 0 {
		return nil, fmt.Errorf("synthproj: rank %d is not a positive multiple of 32", k)
	}
	all := false
	switch slots {
	case "qkv":
	case "all":
		all = true
	default:
		return nil, fmt.Errorf("synthproj: slots %q (qkv or all)", slots)
	}
	if all && c.Experts > 0 {
		return nil, fmt.Errorf("synthproj: slots all on a mixture of experts (GRC compresses its attention only)")
	}
	if k > c.Dim || (all && (k > c.QDim() || k > c.FFN)) {
		return nil, fmt.Errorf("synthproj: rank %d is wider than an input it projects", k)
	}
	p := &Projections{blocks: make([]model.BlockProjections, c.Layers)}
	var err error
	mat := func(rows, cols int) *tensor.Matrix {
		if err != nil {
			return nil
		}
		seed++
		n, e := tensor.Q8_0.RowBytes(uint64(cols))
		if e != nil {
			err = e
			return nil
		}
		data := make([]byte, int(n)*rows)
		if err = tensor.FillRandom(tensor.Q8_0, data, seed, 0.02); err != nil {
			return nil
		}
		w, e := tensor.NewMatrix(tensor.Q8_0, rows, cols, data)
		if e != nil {
			err = e
			return nil
		}
		p.Bytes += int64(len(data))
		return w
	}
	group := func(in int, outs ...int) *model.Projection {
		pr := &model.Projection{In: mat(k, in)}
		for _, o := range outs {
			pr.Out = append(pr.Out, mat(o, k))
		}
		return pr
	}
	for l := range p.blocks {
		bp := &p.blocks[l]
		bp.QKV = group(c.Dim, c.QDim(), c.KVDim(), c.KVDim())
		if all {
			bp.O = group(c.QDim(), c.Dim)
			bp.FFN = group(c.Dim, c.FFN, c.FFN)
			bp.Down = group(c.FFN, c.Dim)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("synthproj: rank-%d projections: %w", k, err)
	}
	return p, nil
}
