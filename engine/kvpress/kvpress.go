// Package kvpress scores the entries of a KV cache for token-level
// eviction (docs/kv.md): which of a layer's KV head's cached keys to keep
// when the cache passes its budget. Every scorer reads only the keys —
// never the attention, never the question to come — so eviction costs one
// pass over the cache and works before the question is known.
//
//   - ManifoldKV (seed 003; docs/mechanisms.md §12): the Euclidean distance of a key to the mean
//     key μ of its head, ‖k_i − μ‖₂. It keeps both kinds of outlier: keys
//     pointing elsewhere than μ, and keys along μ but much longer or
//     shorter ("radial outliers"), which cosine scoring cannot tell apart
//     from the most typical key.
//   - WindowedManifoldKV: the same distance to the mean of the key's own
//     window of W consecutive entries, so that at long contexts μ is the
//     centre of nearby text rather than a grand mean every key is equally
//     far from ("centroid dilution").
//   - KeyDiff: 1 − cos(k_i, μ): keys whose direction differs from μ's.
//   - K-norm: −‖k_i‖₂: keys of small norm, which tend to draw attention.
//   - StreamingLLM: only the sinks and the most recent entries.
//   - Random: a uniform draw, the floor every scorer must beat.
//
// Every scorer keeps the first Sinks entries (attention sinks) and the
// last Recent ones; the rest of the budget goes to the highest scores.
// The names follow kvpress, the PyTorch library of these "presses".
package kvpress

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Kind names a scorer.
type Kind int

// The scorers.
const (
	// None evicts nothing: callers that see it do not evict (Choose keeps
	// the protected entries and then the oldest, for completeness).
	None Kind = iota
	Manifold
	Windowed
	KeyDiff
	KNorm
	Streaming
	Random
)

var kindNames = [...]string{"none", "manifold", "windowed", "keydiff", "knorm", "streaming", "random"}

// String is the scorer's name as flags and settings take it.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Kinds are every scorer, None first.
func Kinds() []Kind {
	return []Kind{None, Manifold, Windowed, KeyDiff, KNorm, Streaming, Random}
}

// ParseKind reads a scorer's name (any case, spaces trimmed).
func ParseKind(s string) (Kind, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range kindNames {
		if n == t {
			return Kind(i), nil
		}
	}
	return None, fmt.Errorf("no KV scorer %q: want one of %s", s, strings.Join(kindNames[:], ", "))
}

// Defaults for a Policy's zero fields.
const (
	DefaultSinks  = 4
	DefaultRecent = 64
	// DefaultWindow is the windowed scorer's window. The seed's 4,096 is
	// for 64K-token contexts; the contexts measured here are 16 times
	// shorter, and the window scales with them.
	DefaultWindow = 512
)

// Policy is one eviction policy. It keeps scratch space across calls, so
// a Policy is used by one goroutine at a time; after its first call on the
// largest cache it allocates nothing.
type Policy struct {
	Kind   Kind
	Sinks  int    // entries kept at the start; 0: DefaultSinks, negative: none
	Recent int    // entries kept at the end; 0: DefaultRecent, negative: none
	Window int    // Windowed's window in entries; 0: DefaultWindow
	Seed   uint64 // Random's

	scores []float32
	idx    []int32
	mean   []float64
	mu     []float32
	// pcg is Random's generator, held by value so that the Policy owns
	// it outright (a *rand.Rand would be shared by a copy of the Policy);
	// seedOf records the Seed it was seeded from, so that changing Seed
	// restarts the stream instead of being silently ignored.
	pcg    rand.PCG
	seeded bool
	seedOf uint64
}

// pcgStream is the second PCG word, fixed so that a Seed alone names the
// stream (the same stream Random has always drawn).
const pcgStream = 0x6b76707265737321

// errSizes is Check's complaint.
var errSizes = errors.New("kvpress: keys, positions and keep do not match n, hd and m")

// Check says whether Choose's arguments fit each other.
func Check(keys []float32, n, hd int, pos, keep []int32) error {
	if n < 0 || !rowsFit(keys, n, hd) || len(pos) < n || len(keep) > n {
		return errSizes
	}
	return nil
}

// rowsFit says whether keys holds n rows of hd values. It divides rather
// than multiplies because n·hd can overflow int for hostile sizes, and a
// wrapped product would let a later loop index past the end of keys.
func rowsFit(keys []float32, n, hd int) bool {
	return hd > 0 && n >= 0 && (n == 0 || len(keys)/n >= hd)
}

func (p *Policy) protected() (sinks, recent int) {
	sinks, recent = p.Sinks, p.Recent
	if sinks == 0 {
		sinks = DefaultSinks
	}
	if recent == 0 {
		recent = DefaultRecent
	}
	return max(sinks, 0), max(recent, 0)
}

// Choose writes into keep the len(keep) slots to keep, ascending, of one
// layer's KV head: keys holds n rows of hd values in slot order (slots
// ascend with positions), pos their positions. Arguments that do not fit
// (Check) leave keep holding the newest slots.
func (p *Policy) Choose(keys []float32, n, hd int, pos []int32, keep []int32) {
	m := len(keep)
	if m == 0 {
		return
	}
	if Check(keys, n, hd, pos, keep) != nil {
		for i := range keep {
			keep[i] = int32(max(0, n-m+i))
		}
		return
	}
	sinks, recent := p.protected()
	sinks = min(sinks, m, n)
	recent = min(recent, m-sinks, n-sinks)
	// The protected ones first: sinks, then the newest.
	k := 0
	for i := range sinks {
		keep[k] = int32(i)
		k++
	}
	for i := n - recent; i < n; i++ {
		keep[k] = int32(i)
		k++
	}
	rest := m - k
	if rest > 0 {
		if cap(p.scores) < n {
			p.scores = make([]float32, n)
			p.idx = make([]int32, n)
		}
		sc := p.scores[:n]
		p.Scores(keys, n, hd, pos, sc)
		cand := p.idx[:0]
		for i := sinks; i < n-recent; i++ {
			cand = append(cand, int32(i))
		}
		// The highest scores first; ties to the newer entry.
		slices.SortFunc(cand, func(a, b int32) int {
			if c := cmp.Compare(sc[b], sc[a]); c != 0 {
				return c
			}
			return cmp.Compare(b, a)
		})
		copy(keep[k:], cand[:rest])
	}
	slices.Sort(keep)
}

// Scores writes every slot's score into dst (len n), higher meaning more
// worth keeping, before any protection.
func (p *Policy) Scores(keys []float32, n, hd int, pos []int32, dst []float32) {
	if n <= 0 || !rowsFit(keys, n, hd) || len(dst) < n {
		return
	}
	switch p.Kind {
	case Manifold:
		p.muOf(keys, 0, n, hd)
		for i := range n {
			dst[i] = dist(keys[i*hd:(i+1)*hd], p.mu)
		}
	case Windowed:
		w := p.Window
		if w <= 0 {
			w = DefaultWindow
		}
		for lo := 0; lo < n; lo += w {
			hi := min(lo+w, n)
			p.muOf(keys, lo, hi, hd)
			for i := lo; i < hi; i++ {
				dst[i] = dist(keys[i*hd:(i+1)*hd], p.mu)
			}
		}
	case KeyDiff:
		p.muOf(keys, 0, n, hd)
		mn := norm(p.mu)
		for i := range n {
			k := keys[i*hd : (i+1)*hd]
			c := 0.0
			if kn := norm(k); kn > 0 && mn > 0 {
				c = dot(k, p.mu) / (kn * mn)
			}
			dst[i] = float32(1 - c)
		}
	case KNorm:
		for i := range n {
			dst[i] = float32(-norm(keys[i*hd : (i+1)*hd]))
		}
	case Streaming:
		for i := range n {
			if len(pos) > i {
				dst[i] = float32(pos[i])
			} else {
				dst[i] = float32(i)
			}
		}
	case Random:
		if !p.seeded || p.seedOf != p.Seed {
			p.pcg.Seed(p.Seed, pcgStream)
			p.seeded, p.seedOf = true, p.Seed
		}
		for i := range n {
			// rand.Rand.Float32's formula, kept so that a seed draws
			// the same scores as when a *rand.Rand wrapped the PCG.
			dst[i] = float32(uint32(p.pcg.Uint64()>>32)<<8>>8) / (1 << 24)
		}
	default: // None: the oldest first
		for i := range n {
			dst[i] = float32(-i)
		}
	}
}

// muOf sets p.mu to the mean of rows lo…hi−1.
func (p *Policy) muOf(keys []float32, lo, hi, hd int) {
	if cap(p.mean) < hd {
		p.mean = make([]float64, hd)
		p.mu = make([]float32, hd)
	}
	p.mean, p.mu = p.mean[:hd], p.mu[:hd]
	meanRows(keys, lo, hi, hd, p.mean, p.mu)
}

// Mean writes the mean of n rows of hd values into mu (len hd),
// accumulated in acc (len hd, scratch the caller keeps).
func Mean(keys []float32, n, hd int, mu []float32, acc []float64) {
	if n <= 0 || !rowsFit(keys, n, hd) || len(mu) < hd || len(acc) < hd {
		return
	}
	meanRows(keys, 0, n, hd, acc[:hd], mu[:hd])
}

func meanRows(keys []float32, lo, hi, hd int, acc []float64, mu []float32) {
	clear(acc)
	for i := lo; i < hi; i++ {
		for j, v := range keys[i*hd : (i+1)*hd] {
			acc[j] += float64(v)
		}
	}
	inv := 1 / float64(max(1, hi-lo))
	for j := range hd {
		mu[j] = float32(acc[j] * inv)
	}
}

func dist(a, b []float32) float32 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return float32(math.Sqrt(s))
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm(a []float32) float64 { return math.Sqrt(dot(a, a)) }
