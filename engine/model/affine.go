package model

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Affine is an affine map of the residual stream that a hook asks the
// backend to apply (backend.Affiner): for each position's row x,
//
//	w = (x − μ) + s·v,  s = Alpha·‖x − μ‖
//	x ← μ + w − Qᵀ(Q·w)
//
// Snipe's projector is Alpha = 0 (x ← x − QᵀQ(x − μ)); a Safe OGD step is
// Alpha > 0 with Q the forbidden basis. Q holds K rows of Dim values,
// orthonormal (K = 0: no projection); Mu and Dir are Dim long (Dir unused,
// may be nil, when Alpha is 0). A hook hands out the same *Affine while
// the map is unchanged and a new one when it changes, and never modifies
// one it has handed out: the state binds each map on its backend once,
// keyed by its address.
type Affine struct {
	Q     []float32
	K     int
	Mu    []float32
	Dir   []float32
	Alpha float32
}

// AffineHook is optionally implemented by a BlockHook whose only writes
// are an Affine map. On a backend that implements backend.Affiner the
// forward pass never calls its AfterBlock: it applies the map there, so a
// device backend does not copy the rows to the host and back for it, and
// hands the hook host rows only where it reads (ReadBlock). On any other
// backend AfterBlock runs as before and must give the same result (within
// float rounding).
type AffineHook interface {
	BlockHook
	// AffineAt returns the map the hook applies after layer (nil: none
	// there), and whether it reads the rows there: then ReadBlock is
	// called first, on host rows as they were before the map. A layer
	// with neither costs nothing.
	AffineAt(layer int) (m *Affine, reads bool)
	// ReadBlock is AfterBlock's reading part without the map; it must not
	// modify x.
	ReadBlock(layer, pos int, x []float32)
}

// boundAffine is an Affine bound on a state's backend.
type boundAffine struct {
	src     *Affine
	q       *tensor.Matrix
	basis   backend.Matrix // nil when K = 0
	mu, dir backend.Vector // dir nil when Alpha = 0
}

// maxBoundAffine is how many maps a state keeps bound: a Snipe projector
// and a Safe OGD step with room to spare. Toggling a projector makes a new
// map; the oldest bound one is let go.
const maxBoundAffine = 4

// affineFor returns a's binding on the state's backend, binding it on
// first use.
func (s *State) affineFor(a *Affine) (*boundAffine, error) {
	for i := range s.aff {
		if s.aff[i].src == a {
			return &s.aff[i], nil
		}
	}
	D := s.m.Dim
	if len(a.Mu) != D || a.K < 0 || len(a.Q) != a.K*D || (a.Alpha != 0 && len(a.Dir) != D) {
		return nil, fmt.Errorf("model: an affine map of %d rows, μ of %d, v of %d for a %d-wide stream", a.K, len(a.Mu), len(a.Dir), D)
	}
	e := boundAffine{src: a}
	var err error
	if e.mu, err = s.b.Vector(a.Mu); err != nil {
		return nil, fmt.Errorf("model: binding an affine map: %w", err)
	}
	if a.Alpha != 0 {
		if e.dir, err = s.b.Vector(a.Dir); err != nil {
			s.releaseAffine(&e)
			return nil, fmt.Errorf("model: binding an affine map: %w", err)
		}
	}
	if a.K > 0 {
		if e.q, err = kvF32Matrix(a.K, D, a.Q); err == nil {
			e.basis, err = s.b.Matrix(e.q)
		}
		if err != nil {
			s.releaseAffine(&e)
			return nil, fmt.Errorf("model: binding an affine map: %w", err)
		}
	}
	if len(s.aff) >= maxBoundAffine {
		s.releaseAffine(&s.aff[0])
		s.aff = append(s.aff[:0], s.aff[1:]...)
	}
	s.aff = append(s.aff, e)
	return &s.aff[len(s.aff)-1], nil
}

// releaseAffine lets go of what e bound.
func (s *State) releaseAffine(e *boundAffine) {
	if w, ok := s.b.(backend.VectorWriter); ok {
		for _, v := range []backend.Vector{e.mu, e.dir} {
			if v != nil {
				w.ReleaseVector(v)
			}
		}
	}
	if r, ok := s.b.(backend.Releaser); ok && e.basis != nil {
		r.Release(e.basis)
	}
	*e = boundAffine{}
}

// releaseAffines lets go of every bound map (Close).
func (s *State) releaseAffines() {
	for i := range s.aff {
		s.releaseAffine(&s.aff[i])
	}
	s.aff = s.aff[:0]
}
