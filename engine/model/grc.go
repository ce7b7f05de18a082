package model

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// GRC is a rank-k compression of every block's Q, K and V projections
// (MECHANISMS.md §1): per block a basis P (d×k) of the attention input, and
// the projected weights W̃ = W P, stored no coarser than the weights they
// replace (see grcStorage). A State using it computes
// x̃ = Pᵀx once per block and q, k, v from x̃. O and the FFN are untouched.
type GRC struct {
	K      int
	layers []grcLayer
	// Energy[l] is the share of ‖W‖²_F that block l keeps, for Q, K, V.
	Energy [][3]float64
	// BytesBefore and BytesAfter are the Q/K/V weight bytes one token reads
	// without and with the compression (Pᵀ included).
	BytesBefore, BytesAfter int64
}

type grcLayer struct {
	pT         *tensor.Matrix // k×d
	wq, wk, wv *tensor.Matrix // out×k
}

// GRCBuilder holds the eigendecomposition of every block's Q/K/V Gram
// matrix, so that a compression of any rank is a projection away (the rank
// knob moves between turns without solving again).
type GRCBuilder struct {
	m    *Model
	decs []*grc.Decomposition
}

// NewGRCBuilder decomposes every block (the slow part: O(d³) per block).
func (m *Model) NewGRCBuilder() (*GRCBuilder, error) {
	gb := &GRCBuilder{m: m}
	for l := range m.layers {
		L := &m.layers[l]
		var slots []grc.Slot
		for _, w := range []*tensor.Matrix{L.wq, L.wk, L.wv} {
			f := make([]float32, w.Rows*w.Cols)
			if err := tensor.Dequantize(w.Type, f, w.Data); err != nil {
				return nil, fmt.Errorf("model: block %d: %w", l, err)
			}
			slots = append(slots, grc.Slot{Rows: w.Rows, Cols: w.Cols, W: f})
		}
		dec, err := grc.Decompose(slots)
		if err != nil {
			return nil, fmt.Errorf("model: block %d: %w", l, err)
		}
		gb.decs = append(gb.decs, dec)
	}
	return gb, nil
}

// BuildGRC computes a rank-k compression from the model's weights alone.
// k = Dim is lossless up to the storage's rounding.
func (m *Model) BuildGRC(k int) (*GRC, error) {
	if k < 1 || k > m.Dim {
		return nil, fmt.Errorf("model: GRC rank %d outside 1…%d (the embedding width)", k, m.Dim)
	}
	gb, err := m.NewGRCBuilder()
	if err != nil {
		return nil, err
	}
	return gb.Build(k)
}

// Build projects every block onto its rank-k basis.
func (gb *GRCBuilder) Build(k int) (*GRC, error) {
	m := gb.m
	if k < 1 || k > m.Dim {
		return nil, fmt.Errorf("model: GRC rank %d outside 1…%d (the embedding width)", k, m.Dim)
	}
	g := &GRC{K: k}
	for l, dec := range gb.decs {
		L := &m.layers[l]
		b, err := dec.Basis(k)
		if err != nil {
			return nil, fmt.Errorf("model: block %d: %w", l, err)
		}
		g.BytesBefore += int64(len(L.wq.Data) + len(L.wk.Data) + len(L.wv.Data))
		proj := dec.Projections(b)
		var gl grcLayer
		for _, p := range []struct {
			dst        **tensor.Matrix
			rows, cols int
			f          []float32
		}{
			{&gl.pT, k, m.Dim, b.Transposed()},
			{&gl.wq, L.wq.Rows, k, proj[0]},
			{&gl.wk, L.wk.Rows, k, proj[1]},
			{&gl.wv, L.wv.Rows, k, proj[2]},
		} {
			typ := grcStorage(L.wq.Type, p.cols)
			rb, err := typ.RowBytes(uint64(p.cols))
			if err != nil {
				return nil, fmt.Errorf("model: block %d: %w", l, err)
			}
			data := make([]byte, int(rb)*p.rows)
			if err := tensor.Quantize(typ, data, p.f); err != nil {
				return nil, fmt.Errorf("model: block %d: %w", l, err)
			}
			mm, err := tensor.NewMatrix(typ, p.rows, p.cols, data)
			if err != nil {
				return nil, fmt.Errorf("model: block %d: %w", l, err)
			}
			*p.dst = mm
			g.BytesAfter += int64(len(mm.Data))
		}
		g.layers = append(g.layers, gl)
		g.Energy = append(g.Energy, [3]float64{b.Energy[0], b.Energy[1], b.Energy[2]})
	}
	return g, nil
}

// SetGRC switches the state's Q/K/V path to g, or back to the full weights
// with nil. It takes effect from the next Forward; the KV cache is kept
// (entries written before the switch keep their exact values).
func (s *State) SetGRC(g *GRC) error {
	if g != nil && len(g.layers) != len(s.m.layers) {
		return fmt.Errorf("model: GRC built for %d blocks, model has %d", len(g.layers), len(s.m.layers))
	}
	s.grc = g
	if g != nil && len(s.xt) < MaxBatch*g.K {
		s.xt = make([]float32, MaxBatch*g.K)
	}
	return nil
}

// GRC is the compression in use, or nil.
func (s *State) GRC() *GRC { return s.grc }

// grcStorage picks how the projected matrices are stored: float32 for a
// float32 model (so that full rank is lossless), F16 for a 16-bit one, and
// Q8_0 for quantised models — finer than any of their 4–8-bit types, and
// the smallest that keeps the compression worth its bytes (F16 would make
// k = d/4 barely smaller than the Q8_0 weights it replaces). Rows whose
// length is not a multiple of 32 fall back to F16.
func grcStorage(weights tensor.Type, cols int) tensor.Type {
	switch weights {
	case tensor.F32:
		return tensor.F32
	case tensor.F16, tensor.BF16:
		return tensor.F16
	}
	if cols%tensor.QK != 0 {
		return tensor.F16
	}
	return tensor.Q8_0
}

// GRCParts are the four matrices of one block of a GRC: Pᵀ (K×Dim), and the
// projected W̃q, W̃k, W̃v (out×K), for saving to and restoring from a cache.
type GRCParts struct {
	PT, Wq, Wk, Wv *tensor.Matrix
}

// Parts returns every block's matrices (they alias the GRC's storage).
func (g *GRC) Parts() []GRCParts {
	out := make([]GRCParts, len(g.layers))
	for i, l := range g.layers {
		out[i] = GRCParts{PT: l.pT, Wq: l.wq, Wk: l.wk, Wv: l.wv}
	}
	return out
}

// RestoreGRC rebuilds a rank-k GRC of m from saved parts, checking every
// matrix's shape against the model, so a cache can never feed a block the
// wrong shape.
func (m *Model) RestoreGRC(k int, parts []GRCParts, energy [][3]float64) (*GRC, error) {
	if k < 1 || k > m.Dim || len(parts) != len(m.layers) || len(energy) != len(m.layers) {
		return nil, fmt.Errorf("model: a saved GRC of rank %d with %d blocks does not fit this model", k, len(parts))
	}
	g := &GRC{K: k, Energy: energy}
	for l, p := range parts {
		L := &m.layers[l]
		for _, c := range []struct {
			m          *tensor.Matrix
			rows, cols int
		}{{p.PT, k, m.Dim}, {p.Wq, L.wq.Rows, k}, {p.Wk, L.wk.Rows, k}, {p.Wv, L.wv.Rows, k}} {
			if c.m == nil || c.m.Rows != c.rows || c.m.Cols != c.cols {
				return nil, fmt.Errorf("model: saved GRC block %d has a matrix of the wrong shape", l)
			}
			g.BytesAfter += int64(len(c.m.Data))
		}
		g.BytesBefore += int64(len(L.wq.Data) + len(L.wk.Data) + len(L.wv.Data))
		g.layers = append(g.layers, grcLayer{pT: p.PT, wq: p.Wq, wk: p.Wk, wv: p.Wv})
	}
	return g, nil
}
