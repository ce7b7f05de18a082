package model

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// KV-cache projection (Paper 3 §5): every KV head's keys and values are
// cached in a rank-r basis of the head, r values each instead of HeadDim,
// so the cache shrinks by r/HeadDim.
//
// Keys are rotated (RoPE) before they are cached, and RoPE turns each pair
// of a head's coordinates by its own position-dependent angle: a basis
// that mixes pairs would not commute with it, and the cached keys would
// depend on the position in a way the query cannot undo. The bases that do
// commute are choices of whole pairs (and of the coordinates RoPE leaves
// alone when RopeDim < HeadDim): a key projection is a selection of r of
// the head's coordinates, applied to the rotated q and k alike, and the
// scores q·k are then sums over the kept coordinates. Values are not
// rotated, so their basis is any orthonormal one (engine/grc uses the top
// eigenvectors of the head's W_V Gram); the attention's weighted sum of
// cached coefficients is expanded back to the head size before O.
//
// The cache itself is unchanged: the state allocates it with r as the
// head size, so the backend's attention and eviction run as they are. The
// score scale stays the model's (1/√HeadDim or the architecture's), set
// explicitly, as the attention would otherwise take 1/√r.

// KeyUnits are the units a key selection is made of, for a model of
// config c: each rotary pair (its two coordinates: (2i, 2i+1), or (i,
// i+RopeDim/2) with Neox RoPE), in the order of their frequencies, then
// each coordinate past RopeDim alone. Only whole units commute with RoPE.
func KeyUnits(c *Config) [][]int {
	half := c.RopeDim / 2
	units := make([][]int, 0, half+c.HeadDim-c.RopeDim)
	for i := range half {
		if c.RopeNeox {
			units = append(units, []int{i, i + half})
		} else {
			units = append(units, []int{2 * i, 2*i + 1})
		}
	}
	for d := c.RopeDim; d < c.HeadDim; d++ {
		units = append(units, []int{d})
	}
	return units
}

// KVLayer is one layer's KV projection, per KV head.
type KVLayer struct {
	// Keep is, per KV head, the r coordinates of the head's (rotated) key
	// space the cache keeps, in the order it stores them: whole KeyUnits,
	// no coordinate twice.
	Keep [][]int
	// V is, per KV head, the value basis as r rows of HeadDim (row-major,
	// orthonormal rows, Uᵀ): the cache holds c = V·v, and the attention's
	// output Σ a_t c_t is expanded to Vᵀ(Σ a_t c_t).
	V [][]float32
}

// KVProjection is a whole model's KV-cache projection at rank r per head:
// build it with NewKVProjection (engine/grc's KVProjectionFor computes one
// from the weights) and run it with State.SetKVProjection. It is not
// changed after it is built, so States may share it.
type KVProjection struct {
	r       int
	shape   kvShape // the model it was built for
	layers  []KVLayer
	k, v    []*tensor.Matrix // per layer, KVHeads·r × HeadDim in F32: the selection as 0/1 rows, and V
	before  int              // cached values per token without the projection
	after   int              // and with it
	keepAll bool             // r == HeadDim
}

// kvShape is what of a model's configuration a KV projection depends on.
type kvShape struct {
	layers, kvHeads, headDim, ropeDim int
	neox                              bool
}

func shapeOf(c *Config) kvShape {
	return kvShape{layers: c.Layers, kvHeads: c.KVHeads, headDim: c.HeadDim, ropeDim: c.RopeDim, neox: c.RopeNeox}
}

// orthoTol is how far V's rows may be from orthonormal (|V Vᵀ − I| per
// entry): float32 eigenvectors of a well-conditioned Gram are within 1e-6,
// while a basis that is not one (a transposed or unnormalised matrix) is
// off by far more.
const orthoTol = 1e-3

// NewKVProjection checks and packs a projection of rank r for a model of
// config c: r even (or HeadDim itself), 2 ≤ r ≤ HeadDim; one KVLayer per
// layer, each with KVHeads selections of r coordinates made of whole
// KeyUnits and KVHeads value bases of r orthonormal rows of HeadDim. The
// layers are copied. r = HeadDim with every coordinate kept and V a
// rotation reproduces the unprojected model up to rounding.
func NewKVProjection(c *Config, r int, layers []KVLayer) (*KVProjection, error) {
	if c == nil {
		return nil, fmt.Errorf("model: KV projection: no configuration")
	}
	hd := c.HeadDim
	if r < 2 || r > hd || (r%2 != 0 && r != hd) {
		return nil, fmt.Errorf("model: KV projection of rank %d: it must be even, 2 to the head size %d", r, hd)
	}
	if len(layers) != c.Layers {
		return nil, fmt.Errorf("model: KV projection of %d layers for a model of %d", len(layers), c.Layers)
	}
	unitOf := make([]int, hd) // coordinate → its unit
	units := KeyUnits(c)
	for u, cs := range units {
		for _, d := range cs {
			unitOf[d] = u
		}
	}
	p := &KVProjection{r: r, shape: shapeOf(c), layers: make([]KVLayer, c.Layers), k: make([]*tensor.Matrix, c.Layers), v: make([]*tensor.Matrix, c.Layers),
		before: 2 * c.Layers * c.KVHeads * hd, after: 2 * c.Layers * c.KVHeads * r, keepAll: r == hd}
	seen := make([]bool, hd)
	for l, L := range layers {
		if len(L.Keep) != c.KVHeads || len(L.V) != c.KVHeads {
			return nil, fmt.Errorf("model: KV projection layer %d: %d key selections and %d value bases for %d KV heads", l, len(L.Keep), len(L.V), c.KVHeads)
		}
		sel := make([]float32, c.KVHeads*r*hd)
		vb := make([]float32, c.KVHeads*r*hd)
		out := KVLayer{Keep: make([][]int, c.KVHeads), V: make([][]float32, c.KVHeads)}
		for h := range c.KVHeads {
			keep := L.Keep[h]
			if len(keep) != r {
				return nil, fmt.Errorf("model: KV projection layer %d head %d keeps %d key coordinates, not %d", l, h, len(keep), r)
			}
			clear(seen)
			for j, d := range keep {
				if d < 0 || d >= hd || seen[d] {
					return nil, fmt.Errorf("model: KV projection layer %d head %d: key coordinate %d is out of range or kept twice", l, h, d)
				}
				seen[d] = true
				sel[(h*r+j)*hd+d] = 1
			}
			for _, d := range keep {
				for _, e := range units[unitOf[d]] {
					if !seen[e] {
						return nil, fmt.Errorf("model: KV projection layer %d head %d keeps key coordinate %d without %d, its RoPE pair", l, h, d, e)
					}
				}
			}
			if err := checkBasis(L.V[h], r, hd); err != nil {
				return nil, fmt.Errorf("model: KV projection layer %d head %d: %w", l, h, err)
			}
			copy(vb[h*r*hd:], L.V[h])
			out.Keep[h] = append([]int(nil), keep...)
			out.V[h] = append([]float32(nil), L.V[h]...)
		}
		var err error
		if p.k[l], err = kvF32Matrix(c.KVHeads*r, hd, sel); err != nil {
			return nil, fmt.Errorf("model: KV projection layer %d: %w", l, err)
		}
		if p.v[l], err = kvF32Matrix(c.KVHeads*r, hd, vb); err != nil {
			return nil, fmt.Errorf("model: KV projection layer %d: %w", l, err)
		}
		p.layers[l] = out
	}
	return p, nil
}

// checkBasis checks that v is r finite rows of hd values, orthonormal.
func checkBasis(v []float32, r, hd int) error {
	if len(v) != r*hd {
		return fmt.Errorf("value basis of %d values, not %d×%d", len(v), r, hd)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("value basis is not finite")
		}
	}
	for i := range r {
		for j := i; j < r; j++ {
			var dot float64
			for d := range hd {
				dot += float64(v[i*hd+d]) * float64(v[j*hd+d])
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(dot-want) > orthoTol {
				return fmt.Errorf("value basis rows %d and %d have dot product %.3g, not %g: the rows must be orthonormal", i, j, dot, want)
			}
		}
	}
	return nil
}

// kvF32Matrix stores rows×cols floats as an F32 matrix.
func kvF32Matrix(rows, cols int, f []float32) (*tensor.Matrix, error) {
	b := make([]byte, 4*len(f))
	for i, x := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return tensor.NewMatrix(tensor.F32, rows, cols, b)
}

// Rank is r, the values each KV head caches for a key and for a value.
func (p *KVProjection) Rank() int { return p.r }

// Lossless says whether r is the head size: every key coordinate is kept
// and V is a rotation, so only rounding differs from the model.
func (p *KVProjection) Lossless() bool { return p.keepAll }

// Layers is the number of layers the projection was built for.
func (p *KVProjection) Layers() int { return len(p.layers) }

// Layer is layer l's selections and bases (a copy made by
// NewKVProjection: read, never write).
func (p *KVProjection) Layer(l int) KVLayer { return p.layers[l] }

// ValuesPerToken is the values the KV cache holds per token, keys and
// values of every layer and KV head: before (2·Layers·KVHeads·HeadDim)
// and with the projection (r per head). after/before = r/HeadDim.
func (p *KVProjection) ValuesPerToken() (before, after int) { return p.before, p.after }

// kvRun is a state's KV projection as it runs: the projection's matrices
// bound on the state's backend, and the activations at r per head.
type kvRun struct {
	p  *KVProjection
	hp backend.HeadProjector
	// k and v are per layer the selection and the value basis, bound.
	k, v []backend.Matrix
	// q, kb, vb are the projected queries, keys and values; att the
	// attention's output in the basis, before it is expanded.
	q, kb, vb, att backend.Buffer
	// scale is the model's score scale, which the attention over r-wide
	// heads would otherwise take as 1/√r.
	scale float32
	group int // query heads per KV head
}

// release frees the matrices the run bound (backend.Releaser).
func (r *kvRun) release(b backend.Backend) {
	if r == nil {
		return
	}
	for _, m := range r.k {
		if m != nil {
			release(b, m)
		}
	}
	for _, m := range r.v {
		if m != nil {
			release(b, m)
		}
	}
}

// KVProjection is the projection the state's KV cache is stored in, or
// nil.
func (s *State) KVProjection() *KVProjection {
	if s.kvp == nil {
		return nil
	}
	return s.kvp.p
}

// SetKVProjection stores the state's KV cache in p's rank-r basis from now
// on, or at the full head size again with nil. The cache is allocated
// anew at its new size, so the state is emptied: it is back at position 0
// (hooks are told as by Reset), its evictions forgotten. Setting what the
// state already runs (the same p, or nil when it projects nothing)
// changes nothing.
//
// It is refused, the state left as it was, for a p built for a model of
// other shapes, on a backend that does not implement
// backend.HeadProjector, and when the backend cannot hold the new cache.
// p's matrices are bound on the backend as the state's own, released when
// replaced and by Close.
func (s *State) SetKVProjection(p *KVProjection) error {
	if s.closed {
		return fmt.Errorf("model: the state is closed")
	}
	if p == s.KVProjection() {
		return nil
	}
	c := &s.m.Config
	width := c.HeadDim
	var run *kvRun
	if p != nil {
		if p.shape != shapeOf(c) {
			return fmt.Errorf("model: a KV projection built for another model's heads or layers")
		}
		hp, ok := s.b.(backend.HeadProjector)
		if !ok {
			return fmt.Errorf("model: %s cannot project its KV cache", s.b.Name())
		}
		var err error
		if run, err = s.newKVRun(p, hp); err != nil {
			return err
		}
		width = p.r
	}
	kv, err := s.b.NewKV(c.Layers, s.ctx, backend.Attention{Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: width, KV: s.kvType})
	if err != nil {
		run.release(s.b)
		return fmt.Errorf("model: KV cache (%s) of %d values per head: %w", s.kvType, width, err)
	}
	// Empty the state on the old cache first: Truncate tells the hooks
	// and undoes a compaction there; the new cache starts uncompacted.
	s.Truncate(0)
	s.kvp.release(s.b)
	s.kv, s.kvp = kv, run
	return nil
}

// newKVRun binds p's matrices on the state's backend and allocates the
// projected activations; on failure it releases what it bound.
func (s *State) newKVRun(p *KVProjection, hp backend.HeadProjector) (*kvRun, error) {
	c := &s.m.Config
	// An architecture's own scale (gemma) is already in the layers'
	// options; the others' is 1/√HeadDim, the attention's default for
	// the full head.
	run := &kvRun{p: p, hp: hp, k: make([]backend.Matrix, c.Layers), v: make([]backend.Matrix, c.Layers), group: c.Heads / c.KVHeads,
		scale: float32(1 / math.Sqrt(float64(c.HeadDim)))}
	placer, _ := s.b.(backend.Placer)
	fail := func(err error) (*kvRun, error) {
		run.release(s.b)
		return nil, fmt.Errorf("model: KV projection on %s: %w", s.b.Name(), err)
	}
	for l := range c.Layers {
		// A backend over several devices puts a layer's matrices where the
		// layer runs.
		if placer != nil {
			placer.Place(l, c.Layers)
		}
		var err error
		if run.k[l], err = s.b.Matrix(p.k[l]); err != nil {
			return fail(err)
		}
		if run.v[l], err = s.b.Matrix(p.v[l]); err != nil {
			return fail(err)
		}
	}
	for _, a := range []struct {
		dst   *backend.Buffer
		width int
	}{{&run.q, c.Heads * p.r}, {&run.att, c.Heads * p.r}, {&run.kb, c.KVHeads * p.r}, {&run.vb, c.KVHeads * p.r}} {
		var err error
		if *a.dst, err = s.b.Alloc(s.batch, a.width); err != nil {
			return fail(err)
		}
	}
	return run, nil
}

// kvHeadDim is the values the cache holds per KV head and position: r
// with a KV projection, HeadDim without.
func (s *State) kvHeadDim() int {
	if s.kvp != nil {
		return s.kvp.p.r
	}
	return s.m.HeadDim
}

// KVBytes is the size of the state's KV cache, keys and values of every
// layer at its capacity (Cap), in the cache's type (KVType): with a KV
// projection, about r/HeadDim of what it is without.
func (s *State) KVBytes() int64 { return int64(s.ctx) * s.KVEntryBytes() }

// KVEntryBytes is one cache entry's keys and values over every layer, in
// the cache's type: r values per KV head under a KV projection, HeadDim
// without, at 4 bytes each for f32, 2 for f16 and 34 per 32 for q8_0.
func (s *State) KVEntryBytes() int64 {
	c := &s.m.Config
	return 2 * int64(c.Layers) * int64(c.KVHeads) * int64(s.kvType.RowBytes(s.kvHeadDim()))
}

// kvIn is a block's side of the KV projection before the cache: with one,
// it projects the rotated queries and keys (the selection) and the values
// (the basis) of layer l's n rows, and returns the buffers StoreKV and
// Attend take and the attention's options with the model's scale; without
// one, it returns the state's own buffers and o as they are.
func (s *State) kvIn(l, n int, o backend.AttendOptions) (q, k, v, out backend.Buffer, opt backend.AttendOptions) {
	r := s.kvp
	if r == nil {
		return s.q, s.kb, s.vb, s.att, o
	}
	c := &s.m.Config
	r.hp.HeadProject(r.q, s.q, n, c.Heads, r.group, r.k[l], false)
	r.hp.HeadProject(r.kb, s.kb, n, c.KVHeads, 1, r.k[l], false)
	r.hp.HeadProject(r.vb, s.vb, n, c.KVHeads, 1, r.v[l], false)
	if o.Scale == 0 {
		o.Scale = r.scale
	}
	return r.q, r.kb, r.vb, r.att, o
}

// kvOut is the other side: the attention's output, in each query head's
// KV head's value basis, expanded back to the head size into s.att for O.
func (s *State) kvOut(l, n int) {
	if r := s.kvp; r != nil {
		r.hp.HeadProject(s.att, r.att, n, s.m.Heads, r.group, r.v[l], true)
	}
}
