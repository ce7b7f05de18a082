package model

import (
	"fmt"
	"math"
)

// AttnRes is Block Attention Residuals (Kimi Team, arXiv:2603.15031) given
// an inference-time form, for a model that was not trained with it (issue
// 58; Paper 3 §4 of the seeds asks how it composes with compression and
// leaves it unmeasured). AttnRes replaces the residual sum that feeds each
// block, x_l = Σ_{i<l} v_i (v_0 the embedding, v_i block i's update), by a
// softmax-weighted mix of the same sources, Σ α_{i→l} v_i, with α from a
// pseudo-query learnt per block.
//
// An untrained model has no pseudo-queries, and the seeds' runtime injects
// AttnRes "default-initialised" at strength 0.35. Kimi initialise the
// pseudo-queries at zero, which makes α uniform — and uniform weights are
// the identity on a pre-norm model: the mix is x_l/l, and every reader of
// the stream (each block's RMSNorm, the output norm) is blind to its
// scale. So a default-initialised AttnRes changes nothing, at any
// strength, and Uniform keeps that form only to show it (TestAttnRes).
// The form that does something uses the stream itself as the query, the
// reading Paper 4 §3 gives AttnRes ("weights concentrate on the block
// whose representation is nearest to the current state"):
//
//	α_i = softmax_i(⟨rms(x), rms(v_i)⟩ / √d),   x = Σ_{i<n} v_i, n sources
//	h   = Σ_i ((1 − s) + s·n·α_i) v_i
//
// The weights average 1, so s = 0, and uniform α at any s, give h = x; at
// s = 1 it is AttnRes with the stream's own direction as the pseudo-query.
// Sources are taken per block (every layer its own block): v_0 is the
// stream after the first block (embedding and first update together,
// since a block hook never sees the embedding alone), v_i the update block
// i added to what it was given. h replaces the stream after every block,
// the last included (the output norm reads it).
//
// It is a BlockHook: add it with State.AddHook. It keeps what it needs of
// a position only while the forward pass is inside it, so it needs no
// rewinding, and Profile reports the stream's RMS by depth with and without
// the mix (the seeds' √L magnitude claim).
type AttnRes struct {
	// Strength is s, in [0, 1].
	Strength float64
	// Uniform makes α uniform (a zero pseudo-query): the identity.
	Uniform bool

	dim, layers int
	slots       map[int]*attnResPos
	free        []*attnResPos
	alpha       []float64
	// rmsX and rmsH sum, per block, the RMS of the plain residual sum and
	// of what replaced it; n counts the positions.
	rmsX, rmsH []float64
	n          []int
}

// attnResPos is one position's sources while it passes the blocks.
type attnResPos struct {
	src   []float32 // n sources of dim values
	sum   []float32 // Σ sources: the plain residual stream
	wrote []float32 // the stream as the hook left it after the last block
	n     int
}

// NewAttnRes makes the hook for m at strength s.
func NewAttnRes(m *Model, s float64, uniform bool) (*AttnRes, error) {
	if !(s >= 0 && s <= 1) {
		return nil, fmt.Errorf("model: AttnRes strength %g is outside [0, 1]", s)
	}
	L := len(m.layers)
	return &AttnRes{Strength: s, Uniform: uniform, dim: m.Dim, layers: L, slots: map[int]*attnResPos{},
		alpha: make([]float64, L), rmsX: make([]float64, L), rmsH: make([]float64, L), n: make([]int, L)}, nil
}

// AfterBlock replaces the stream after block l at pos by the mix of its
// sources so far.
func (a *AttnRes) AfterBlock(l, pos int, x []float32) {
	if len(x) != a.dim || l >= a.layers {
		return
	}
	p := a.slots[pos]
	if l == 0 || p == nil {
		if p == nil {
			p = a.take()
			a.slots[pos] = p
		}
		p.n = 0
		clear(p.sum)
		for i, v := range x {
			p.src[i] = v
			p.sum[i] = v
		}
		p.n = 1
	} else {
		v := p.src[p.n*a.dim : (p.n+1)*a.dim]
		for i := range v {
			v[i] = x[i] - p.wrote[i]
			p.sum[i] += v[i]
		}
		p.n++
	}
	a.mix(p, x)
	copy(p.wrote, x)
	a.rmsX[l] += rms(p.sum)
	a.rmsH[l] += rms(x)
	a.n[l]++
	if l == a.layers-1 {
		delete(a.slots, pos)
		a.free = append(a.free, p)
	}
}

// mix writes h into x.
func (a *AttnRes) mix(p *attnResPos, x []float32) {
	n, d := p.n, a.dim
	alpha := a.alpha[:n]
	if a.Uniform {
		for i := range alpha {
			alpha[i] = 1 / float64(n)
		}
	} else {
		q := rms(p.sum)
		hi := math.Inf(-1)
		for i := range alpha {
			v := p.src[i*d : (i+1)*d]
			var dot float64
			for j := range v {
				dot += float64(p.sum[j]) * float64(v[j])
			}
			// ⟨x/rms(x), v/rms(v)⟩/√d, with d·rms² = ‖·‖².
			r := rms(v)
			if q == 0 || r == 0 {
				alpha[i] = 0
			} else {
				alpha[i] = dot / (q * r) / math.Sqrt(float64(d))
			}
			hi = max(hi, alpha[i])
		}
		var z float64
		for i := range alpha {
			alpha[i] = math.Exp(alpha[i] - hi)
			z += alpha[i]
		}
		for i := range alpha {
			alpha[i] /= z
		}
	}
	s := a.Strength
	clear(x)
	for i := range alpha {
		w := float32((1 - s) + s*float64(n)*alpha[i])
		v := p.src[i*d : (i+1)*d]
		for j := range x {
			x[j] += w * v[j]
		}
	}
}

// take is a position's storage, reused once a position has left the last
// block, so that decoding allocates nothing after its first token.
func (a *AttnRes) take() *attnResPos {
	if k := len(a.free); k > 0 {
		p := a.free[k-1]
		a.free = a.free[:k-1]
		return p
	}
	return &attnResPos{src: make([]float32, a.layers*a.dim), sum: make([]float32, a.dim), wrote: make([]float32, a.dim)}
}

// Profile is the mean RMS of the stream after each block over every
// position seen: plain is the residual sum the model would have had at
// that point (its own updates, fed what the mix gave it), mixed is what
// the hook left.
func (a *AttnRes) Profile() (plain, mixed []float64) {
	plain, mixed = make([]float64, a.layers), make([]float64, a.layers)
	for l := range plain {
		if a.n[l] > 0 {
			plain[l], mixed[l] = a.rmsX[l]/float64(a.n[l]), a.rmsH[l]/float64(a.n[l])
		}
	}
	return plain, mixed
}

// ResetProfile forgets what Profile sums.
func (a *AttnRes) ResetProfile() {
	clear(a.rmsX)
	clear(a.rmsH)
	clear(a.n)
}

// rms is √(mean x²).
func rms(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(len(x), 1)))
}
