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
//   - ManifoldKV-L1 and -L∞: the same score under the L1 and L∞
//     distances, the seed's metric ablation.
//   - KeyDiff: 1 − cos(k_i, μ): keys whose direction differs from μ's.
//   - K-norm: −‖k_i‖₂: keys of small norm, which tend to draw attention.
//   - StreamingLLM: only the sinks and the most recent entries.
//   - Random: a uniform draw, the floor every scorer must beat.
//
// Two more read the attention, which the cache alone does not hold: they
// need the context's queries (Queries, recorded by a model.QueryHook), so
// only isagi eval kv runs them (attention.go):
//
//   - SnapKV: the attention the last Observe queries of the context (its
//     observation window) give each earlier key, max-pooled; the window
//     itself is kept.
//   - H2O: the attention each key accumulated over every query of the
//     context (the "heavy hitters").
//
// And AdaKV (adakv.go) is a modifier on any of them (Kind|AdaKV,
// "adakv+snapkv"): a layer's budget is split across its KV heads by the
// heads' normalised scores taken jointly, with a floor a head.
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
	// SnapKV and H2O read the attention (Queries): Scores without the
	// queries falls back to StreamingLLM's order.
	SnapKV
	H2O
	// ManifoldL1 and ManifoldLinf are ManifoldKV under the L1 and L∞
	// distances (the seed's metric ablation); appended so that the
	// other kinds keep their numbers.
	ManifoldL1
	ManifoldLinf
)

// AdaKV is a flag on a Kind: the scorer's scores with AdaKV's head-wise
// budgets (ChooseHeadWise) instead of one budget a head.
const AdaKV Kind = 1 << 8

var kindNames = [...]string{"none", "manifold", "windowed", "keydiff", "knorm", "streaming", "random", "snapkv", "h2o", "manifold-l1", "manifold-linf"}

// adakvPrefix is how a name asks for AdaKV's budgets on a scorer.
const adakvPrefix = "adakv+"

// Base is the scorer without the AdaKV flag.
func (k Kind) Base() Kind { return k &^ AdaKV }

// HeadWise says whether the AdaKV flag is set.
func (k Kind) HeadWise() bool { return k&AdaKV != 0 }

// Attention says whether the scorer reads the attention (SnapKV, H2O).
func (k Kind) Attention() bool { b := k.Base(); return b == SnapKV || b == H2O }

// String is the scorer's name as flags and settings take it.
func (k Kind) String() string {
	if k.HeadWise() {
		return adakvPrefix + k.Base().String()
	}
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Kinds are every scorer that reads only the keys, None first: those a
// generator can run (ParseKind).
func Kinds() []Kind {
	return []Kind{None, Manifold, Windowed, KeyDiff, KNorm, Streaming, Random, ManifoldL1, ManifoldLinf}
}

// ParseKind reads the name of a scorer that reads only the keys (any case,
// spaces trimmed): the scorers a generator runs (--kv-scorer). SnapKV, H2O
// and AdaKV's budgets are measured by isagi eval kv alone (ParseScorer).
func ParseKind(s string) (Kind, error) {
	k, err := ParseScorer(s)
	if err == nil && (k.Attention() || k.HeadWise()) {
		return None, fmt.Errorf("KV scorer %q is measured by isagi eval kv only (it reads the attention or splits budgets across heads): want one of %s", s, liveNames())
	}
	if err != nil {
		return None, fmt.Errorf("no KV scorer %q: want one of %s", s, liveNames())
	}
	return k, nil
}

// ParseScorer reads any scorer's name, isagi eval kv's: a Kind's name, or
// "adakv+" and one (AdaKV's head-wise budgets on that scorer's scores).
func ParseScorer(s string) (Kind, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	var flag Kind
	if rest, ok := strings.CutPrefix(t, adakvPrefix); ok {
		t, flag = strings.TrimSpace(rest), AdaKV
	}
	for i, n := range kindNames {
		if n == t && (flag == 0 || i != int(None)) {
			return Kind(i) | flag, nil
		}
	}
	return None, fmt.Errorf("no KV scorer %q: want one of %s, or adakv+ and one but none", s, strings.Join(kindNames[:], ", "))
}

func liveNames() string {
	var b strings.Builder
	for i, k := range Kinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.String())
	}
	return b.String()
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
	// Observe and Pool are SnapKV's observation window (queries) and
	// max-pool kernel; 0: DefaultObserve, DefaultPool.
	Observe, Pool int
	// Floor is AdaKV's safeguard: the share of its uniform budget every
	// head keeps whatever its scores; 0: DefaultFloor, negative: none.
	Floor float64

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
	k, sinks, recent := p.protect(n, keep)
	if m-k > 0 {
		if cap(p.scores) < n {
			p.scores = make([]float32, n)
			p.idx = make([]int32, n)
		}
		sc := p.scores[:n]
		p.Scores(keys, n, hd, pos, sc)
		p.pick(sc, n, sinks, recent, keep, k)
	}
	slices.Sort(keep)
}

// ChooseScores is Choose on scores already computed (Scores,
// AttentionScores): sc holds n slots' scores, higher kept. It keeps the
// protected slots and then the highest scores, as Choose does.
func (p *Policy) ChooseScores(sc []float32, n int, keep []int32) {
	m := len(keep)
	if m == 0 {
		return
	}
	if n < 0 || len(sc) < n || m > n {
		for i := range keep {
			keep[i] = int32(max(0, n-m+i))
		}
		return
	}
	k, sinks, recent := p.protect(n, keep)
	if m-k > 0 {
		if cap(p.idx) < n {
			p.idx = make([]int32, n)
		}
		p.pick(sc, n, sinks, recent, keep, k)
	}
	slices.Sort(keep)
}

// protect writes the protected slots of n into keep — the sinks, then the
// newest — as many as keep has room for, and returns how many it wrote and
// the two counts.
func (p *Policy) protect(n int, keep []int32) (k, sinks, recent int) {
	m := len(keep)
	sinks, recent = p.protected()
	sinks = min(sinks, m, n)
	recent = min(recent, m-sinks, n-sinks)
	for i := range sinks {
		keep[k] = int32(i)
		k++
	}
	for i := n - recent; i < n; i++ {
		keep[k] = int32(i)
		k++
	}
	return k, sinks, recent
}

// pick fills keep[k:] with the highest-scored unprotected slots.
func (p *Policy) pick(sc []float32, n, sinks, recent int, keep []int32, k int) {
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
	copy(keep[k:], cand[:len(keep)-k])
}

// Scores writes every slot's score into dst (len n), higher meaning more
// worth keeping, before any protection.
func (p *Policy) Scores(keys []float32, n, hd int, pos []int32, dst []float32) {
	if n <= 0 || !rowsFit(keys, n, hd) || len(dst) < n {
		return
	}
	switch p.Kind.Base() {
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
	case ManifoldL1, ManifoldLinf:
		p.muOf(keys, 0, n, hd)
		for i := range n {
			dst[i] = distP(keys[i*hd:(i+1)*hd], p.mu, p.Kind.Base() == ManifoldLinf)
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
	case SnapKV, H2O: // without the queries (AttentionScores): StreamingLLM's order
		for i := range n {
			dst[i] = float32(i)
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

// distP is the L1 distance, or the L∞ one when inf is set.
func distP(a, b []float32, inf bool) float32 {
	var s float64
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if inf {
			s = max(s, d)
		} else {
			s += d
		}
	}
	return float32(s)
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm(a []float32) float64 { return math.Sqrt(dot(a, a)) }
