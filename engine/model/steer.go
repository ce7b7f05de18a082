package model

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
)

// Steering adds a direction to the residual stream after a block, as
// llama.cpp's control vectors do (llama_adapter_cvec: after the block's
// feed-forward residual, x ← x + v_l): a per-layer vector, already scaled
// and summed over however many vectors the user chose, on the state's
// backend. Engine/steer reads and combines the files; the state only
// adds what it is given.
//
// The vectors live on the backend as its own Vectors, one per layer that
// has one, made on the first SetSteering that needs them and rewritten by
// later ones (backend.VectorWriter), so that steering that changes with
// every request allocates nothing after the first. The addition is one
// AddBias per steered layer: a device backend runs it where the stream
// is, and the block hooks after it read the steered stream.
type steerRun struct {
	on   []bool           // per layer: a direction is added after it
	vecs []backend.Vector // per layer: the backend's copy (nil: never made)
}

// SetSteering sets the directions added to the residual stream: dirs[l],
// of length Dim, after block l; a nil or missing entry adds nothing there.
// nil or all-nil dirs turns steering off. It takes effect from the next
// Forward; the positions already cached keep what they were computed
// with. A direction of the wrong length, or with a value that is not
// finite, is refused and the steering in use stays.
func (s *State) SetSteering(dirs [][]float32) error {
	if s.closed {
		return fmt.Errorf("model: steering a closed state")
	}
	L, D := len(s.m.layers), s.m.Dim
	if len(dirs) > L {
		return fmt.Errorf("model: steering has directions for %d layers; the model has %d", len(dirs), L)
	}
	some := false
	for l, d := range dirs {
		if d == nil {
			continue
		}
		if len(d) != D {
			return fmt.Errorf("model: the steering direction of layer %d has %d values; the model's residual stream has %d", l, len(d), D)
		}
		for _, v := range d {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("model: the steering direction of layer %d has a value that is not finite", l)
			}
		}
		some = true
	}
	if !some {
		if s.steer != nil {
			clear(s.steer.on)
		}
		return nil
	}
	if s.steer == nil {
		s.steer = &steerRun{on: make([]bool, L), vecs: make([]backend.Vector, L)}
	}
	st := s.steer
	w, _ := s.b.(backend.VectorWriter)
	place := func(int) {}
	if p, ok := s.b.(backend.Placer); ok {
		// A backend over several devices keeps a layer's vector where the
		// layer runs, as bind does for its weights.
		place = func(l int) { p.Place(l, L) }
	}
	// Every vector first, so that a failure leaves the steering in use.
	next := make([]backend.Vector, L)
	for l, d := range dirs {
		if d == nil {
			continue
		}
		if st.vecs[l] != nil && w != nil {
			if err := w.WriteVector(st.vecs[l], d); err != nil {
				return fmt.Errorf("model: steering layer %d: %w", l, err)
			}
			next[l] = st.vecs[l]
			continue
		}
		place(l)
		v, err := s.b.Vector(d)
		if err != nil {
			for k := range next {
				if next[k] != nil && next[k] != st.vecs[k] && w != nil {
					w.ReleaseVector(next[k])
				}
			}
			return fmt.Errorf("model: steering layer %d on %s: %w", l, s.b.Name(), err)
		}
		next[l] = v
	}
	for l := range L {
		st.on[l] = next[l] != nil
		if next[l] != nil {
			st.vecs[l] = next[l]
		}
	}
	return nil
}

// Steered reports whether a direction is added after some block.
func (s *State) Steered() bool {
	if s.steer == nil {
		return false
	}
	for _, on := range s.steer.on {
		if on {
			return true
		}
	}
	return false
}

// steerAt reports the vector added after layer l, or nil.
func (s *State) steerAt(l int) backend.Vector {
	if s.steer == nil || !s.steer.on[l] {
		return nil
	}
	return s.steer.vecs[l]
}

// release frees the steering vectors on b (when it can free them one by
// one; otherwise they go with the backend).
func (st *steerRun) release(b backend.Backend) {
	if st == nil {
		return
	}
	if w, ok := b.(backend.VectorWriter); ok {
		for _, v := range st.vecs {
			if v != nil {
				w.ReleaseVector(v)
			}
		}
	}
	clear(st.vecs)
	clear(st.on)
}
