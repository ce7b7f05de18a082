package generate

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/model"
)

// Eviction keeps a generator's KV cache to a share of the positions it has
// run: before tokens run, once the cache holds more than Keep·Pos +
// Interval entries (or would not hold them), it evicts down to ⌈Keep·Pos⌉
// (the entries Choose keeps of every layer and KV head). Evicting Interval
// entries at a time amortises the scoring: decode pays it once every
// Interval/(1−Keep) tokens, and allocates nothing for it after the first.
// A state of Cap entries then runs to MaxPos positions (model.State's
// SetMaxPos) as long as Cap ≥ Keep·MaxPos + Interval + EvictChunk.
type Eviction struct {
	Keep     float64 // the share of positions kept, in (0, 1]
	Interval int     // entries beyond the budget before an eviction; 0: DefaultEvictInterval
	Choose   model.Chooser
}

// DefaultEvictInterval is Eviction.Interval's default.
const DefaultEvictInterval = 64

// EvictChunk is the most prompt tokens a generator with eviction runs in
// one step (without, it is the state's BatchSize): the cache needs this much room
// beyond the budget, so a smaller step keeps a small window's cache small.
const EvictChunk = 64

// EvictCap is the cache size, in entries, that eviction at keep needs for
// a state to run to maxPos positions.
func EvictCap(keep float64, maxPos int) int {
	return min(maxPos, int(math.Ceil(keep*float64(maxPos)))+DefaultEvictInterval+EvictChunk)
}

// SetEviction turns eviction on (e non-nil) or off. The state must be able
// to evict (model.State.CanEvict).
func (g *Generator) SetEviction(e *Eviction) error {
	if e == nil {
		g.evict = nil
		return nil
	}
	switch {
	case !(e.Keep > 0 && e.Keep <= 1):
		return fmt.Errorf("generate: a KV keep share of %g is not in (0, 1]", e.Keep)
	case e.Choose == nil:
		return fmt.Errorf("generate: KV eviction without a chooser")
	case !g.state.CanEvict():
		return fmt.Errorf("generate: backend %s cannot evict KV entries", g.state.Backend().Name())
	}
	c := *e
	if c.Interval <= 0 {
		c.Interval = DefaultEvictInterval
	}
	g.evict = &c
	if cap(g.history) < g.state.MaxPos()+1 {
		g.history = append(make([]int32, 0, g.state.MaxPos()+1), g.history...)
	}
	return nil
}

// Eviction is the eviction in force, or nil.
func (g *Generator) Eviction() *Eviction { return g.evict }

// budget is the number of entries kept at the state's position.
func (g *Generator) budget() int {
	return int(math.Ceil(g.evict.Keep * float64(g.state.Pos())))
}

// evictFor evicts before n more tokens run, whenever the cache is
// Interval entries past its budget or would not hold them. Deciding only
// before a forward, on the position and the cache's length, makes the
// evictions a function of the tokens alone: a prompt read again after a
// rewind, or the same tokens decoded, evict at the same positions. The
// context read by a prefill is compressed before the first token after it
// runs (its own logits saw it whole, as kvpress's do).
func (g *Generator) evictFor(n int) error {
	if g.evict == nil {
		return nil
	}
	st := g.state
	b := g.budget()
	if st.Len() <= b+g.evict.Interval && st.Len()+n <= st.Cap() {
		return nil
	}
	b = min(b, st.Cap()-n)
	if b < 0 {
		return fmt.Errorf("generate: %d tokens do not fit a cache of %d entries: %w", n, st.Cap(), model.ErrContextFull)
	}
	return st.Evict(b, g.evict.Choose)
}
