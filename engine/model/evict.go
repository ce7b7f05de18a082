package model

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
)

// Token-level KV eviction. A state that evicts holds fewer entries than
// positions: Evict asks a chooser, for every layer and KV head, which of
// the cached entries to keep, and the backend (backend.Compactor) moves
// them down in position order. The entries keep the positions they were
// computed at — their keys carry those positions' rotation — and the
// positions that follow continue from the last one computed, so a state
// can run past its cache's capacity up to SetMaxPos.

// Chooser picks the entries one layer's KV head keeps: keys holds n rows of
// hd values (the cached keys, RoPE applied, in position order; hd is the
// head size, or r under a KV projection: the keys as cached), pos their
// positions, and it writes the len(keep) slots to keep into keep, in
// ascending order. engine/kvpress's Policy.Choose is one.
type Chooser func(layer, head int, keys []float32, n, hd int, pos []int32, keep []int32)

// evictState is a state's eviction bookkeeping and scratch space (reused,
// so that evicting during decode allocates nothing after the first time).
type evictState struct {
	floor   int       // the position Truncate can go back to alone
	evicted int       // entries dropped since position 0
	keep    [][]int32 // per layer·KV head, the slots kept
	flat    []int32
	pos     []int32
	// mk and mv are MaskEntries's rows, its own so that a QueryHook can
	// mask in the middle of a step (allocated at its first call).
	mk, mv         backend.Buffer
	mkHost, mvHost []float32
}

// Len is the number of entries the KV cache holds: Pos until an eviction.
func (s *State) Len() int { return s.n }

// Evicted is the number of entries evictions dropped since position 0.
func (s *State) Evicted() int { return s.ev.evicted }

// MaxPos is the most positions the state runs to: Cap, unless SetMaxPos
// raised it for eviction.
func (s *State) MaxPos() int { return s.maxPos }

// TruncateFloor is the lowest position Truncate can go back to without
// forgetting everything: 0 until an eviction, then the position that
// followed it (the entries before it are a chosen few, not a prefix).
func (s *State) TruncateFloor() int { return s.ev.floor }

// CanEvict says whether the state's backend can drop single entries.
func (s *State) CanEvict() bool {
	_, ok := s.b.(backend.Compactor)
	return ok
}

// SetMaxPos lets the state run to max positions (at most the model's
// context length) while its cache holds Cap entries: the caller evicts
// (Evict) before the cache fills. It fails on a backend that cannot
// evict, and for a state that has already run.
func (s *State) SetMaxPos(max int) error {
	switch {
	case max <= 0 || max > s.m.CtxLen:
		max = s.m.CtxLen
	case max < s.ctx:
		max = s.ctx
	}
	if max == s.maxPos {
		return nil
	}
	if !s.CanEvict() {
		return fmt.Errorf("model: backend %s cannot evict KV entries, so its state runs to %d positions, its cache's size", s.b.Name(), s.ctx)
	}
	if s.pos != 0 {
		return fmt.Errorf("model: the position limit changes only on an empty state (it is at %d)", s.pos)
	}
	s.maxPos = max
	// LongRoPE picks its factors by the positions run, not the entries.
	s.lay = s.m.layerRuns(max)
	return nil
}

// Evict keeps m of the cached entries of every layer and KV head, as
// choose picks them, and drops the others. Positions do not change: the
// next token is still at Pos. Hooks keep what they read of every position
// (an evicted position was computed; it is only no longer attended to).
// It fails, changing nothing, on a backend that cannot evict or when
// choose breaks the rules of Chooser.
func (s *State) Evict(m int, choose Chooser) error {
	if m >= s.n {
		return nil
	}
	if m < 0 {
		return fmt.Errorf("model: cannot keep %d KV entries", m)
	}
	cp, ok := s.b.(backend.Compactor)
	if !ok {
		return fmt.Errorf("model: backend %s cannot evict KV entries", s.b.Name())
	}
	c := &s.m.Config
	heads := c.Layers * c.KVHeads
	hd := s.kvHeadDim() // r per head under a KV projection: the keys as cached
	e := &s.ev
	if len(e.keep) != heads || cap(e.flat) < heads*s.ctx {
		e.flat = make([]int32, heads*s.ctx)
		e.keep = make([][]int32, heads)
		e.pos = make([]int32, s.ctx)
	}
	for l := range c.Layers {
		for h := range c.KVHeads {
			lg := l*c.KVHeads + h
			keep := e.flat[lg*s.ctx : lg*s.ctx+m]
			pos := e.pos[:s.n]
			cp.Positions(s.kv, l, h, pos)
			choose(l, h, cp.Keys(s.kv, l, h, s.n), s.n, hd, pos, keep)
			e.keep[lg] = keep
		}
	}
	if err := cp.Compact(s.kv, s.n, e.keep); err != nil {
		return fmt.Errorf("model: evicting to %d of %d entries: %w", m, s.n, err)
	}
	e.evicted += s.n - m
	s.n = m
	e.floor = s.pos
	return nil
}

// CopyFrom makes s hold what src holds: its positions, its cached entries
// (evicted or not) and its logits-free state, for a context read once and
// continued several ways. Both states must be of one model with caches of
// one size and type, on backends of one domain that can evict. Hooks are not
// copied, nor told.
func (s *State) CopyFrom(src *State) error {
	cp, ok := s.b.(backend.Compactor)
	switch {
	case !ok:
		return fmt.Errorf("model: backend %s cannot copy KV caches", s.b.Name())
	case src.m != s.m || src.ctx != s.ctx || src.b.Domain() != s.b.Domain():
		return fmt.Errorf("model: copying a state of another model, cache size or backend")
	case src.KVProjection() != s.KVProjection():
		return fmt.Errorf("model: copying a state whose KV cache is stored in another projection")
	case src.kvType != s.kvType:
		return fmt.Errorf("model: copying a state whose KV cache stores %s into one that stores %s", src.kvType, s.kvType)
	}
	if err := cp.CopyKV(s.kv, src.kv, src.n); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	s.pos, s.n, s.maxPos, s.lay = src.pos, src.n, src.maxPos, src.lay
	s.ev.floor, s.ev.evicted = src.ev.floor, src.ev.evicted
	return nil
}

// uncompact forgets every eviction (the state is back at position 0).
func (s *State) uncompact() {
	if s.ev.evicted == 0 && s.ev.floor == 0 {
		return
	}
	s.ev.evicted, s.ev.floor = 0, 0
	if cp, ok := s.b.(backend.Compactor); ok {
		cp.Uncompact(s.kv)
	}
}

// MaskEntries makes the entries at slots of layer's KV head head all but
// invisible to later queries without freeing them: their keys become key
// and their values zero. It is how a measurement simulates a head keeping
// fewer entries than the others (AdaKV's head-wise budgets, isagi eval kv)
// on a cache whose heads all hold one length, as NVIDIA's kvpress does: a
// key whose score q·key is very negative for every query gets no weight.
// Choosing that key is the caller's: a QueryHook may call MaskEntries for
// the layer it is handed, with a key fitted to the queries about to attend
// (as kvpress does at every forward), and the attention reads it; it uses
// rows of its own, not the step's. The other heads' entries of those
// slots are written back as read (exact for f32 and f16, a re-encoding of
// q8_0's decoded values). It fails on a backend that cannot read its
// cache back, under a KV projection, and for slots not cached.
func (s *State) MaskEntries(layer, head int, slots []int32, key []float32) error {
	c := &s.m.Config
	r, ok := s.b.(backend.KVReader)
	switch {
	case !ok:
		return fmt.Errorf("model: backend %s cannot read its KV cache back", s.b.Name())
	case s.kvp != nil:
		return fmt.Errorf("model: masking KV entries under a KV projection")
	case layer < 0 || layer >= c.Layers || head < 0 || head >= c.KVHeads || len(key) != c.HeadDim:
		return fmt.Errorf("model: masking layer %d head %d with a key of %d values (%d layers, %d KV heads of %d)", layer, head, len(key), c.Layers, c.KVHeads, c.HeadDim)
	}
	e := &s.ev
	if e.mk == nil {
		var err error
		if e.mk, err = s.b.Alloc(1, c.KVDim()); err != nil {
			return fmt.Errorf("model: %w", err)
		}
		if e.mv, err = s.b.Alloc(1, c.KVDim()); err != nil {
			return fmt.Errorf("model: %w", err)
		}
		e.mkHost, e.mvHost = make([]float32, c.KVDim()), make([]float32, c.KVDim())
	}
	kr, vr := e.mkHost, e.mvHost
	for _, sl := range slots {
		if sl < 0 || int(sl) >= s.n {
			return fmt.Errorf("model: masking slot %d of %d cached", sl, s.n)
		}
		r.ReadKV(s.kv, layer, int(sl), kr, vr)
		copy(kr[head*c.HeadDim:], key)
		clear(vr[head*c.HeadDim : (head+1)*c.HeadDim])
		s.b.Write(e.mk, 0, kr)
		s.b.Write(e.mv, 0, vr)
		s.b.StoreKV(s.kv, layer, int(sl), 1, e.mk, e.mv)
	}
	return nil
}
