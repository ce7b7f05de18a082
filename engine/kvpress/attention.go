package kvpress

import (
	"errors"
	"math"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Defaults of the attention scorers.
const (
	// DefaultObserve is SnapKV's observation window: the last 32 queries
	// of the context (SnapKV's default).
	DefaultObserve = 32
	// DefaultPool is SnapKV's max-pool kernel over the keys (its
	// default, 7).
	DefaultPool = 7
)

// Queries are what the attention scorers read besides the keys: the
// context's queries of the query heads that share one KV head, as the
// attention read them (RoPE applied; model.QueryHook records them).
type Queries struct {
	// Q holds Rows rows, Stride values apart; a row's Group query heads
	// (those of the KV head, grouped-query attention) are its first
	// Group·hd values, one head after the other.
	Q      []float32
	Stride int
	Rows   int
	Group  int
	// Pos are the rows' positions, ascending: a query attends to the keys
	// of its position and before (the causal mask).
	Pos []int32
	// Scale multiplies q·k before the softmax.
	Scale float32
}

// errQueries is AttentionScores's complaint.
var errQueries = errors.New("kvpress: the queries do not fit their sizes or the keys")

func (q *Queries) fit(hd int) bool {
	return q.Rows >= 0 && q.Group >= 1 && hd > 0 && len(q.Pos) >= q.Rows && q.Stride >= q.Group*hd &&
		(q.Rows == 0 || (len(q.Q)-q.Group*hd)/q.Stride >= q.Rows-1 && len(q.Q) >= q.Group*hd)
}

// AttentionScores writes the attention scorers' scores into dst (len n):
// keys holds n rows of hd values in slot order, pos their positions
// (ascending), q the context's queries of the KV head's group. SnapKV
// sums, over the last Observe queries and the group's heads, the softmax
// each gives the keys it sees, max-pools that over Pool neighbouring keys
// and scores the window's own keys +Inf (always kept); H2O sums the
// softmax over every query. The softmax is the plain one, q·k·Scale (no
// soft-cap, sinks or sliding window, which the fixtures measured here
// lack). For another Kind it is Scores.
func (p *Policy) AttentionScores(keys []float32, n, hd int, pos []int32, q *Queries, dst []float32) error {
	if !p.Kind.Attention() {
		p.Scores(keys, n, hd, pos, dst)
		return nil
	}
	if n < 0 || !rowsFit(keys, n, hd) || len(pos) < n || len(dst) < n || q == nil || !q.fit(hd) {
		return errQueries
	}
	first := 0 // the first query row read
	if p.Kind.Base() == SnapKV {
		w := p.Observe
		if w <= 0 {
			w = DefaultObserve
		}
		first = max(0, q.Rows-min(w, n))
	}
	acc := make([]float64, n)
	w := make([]float32, n)
	seen := 0 // keys a row sees: those at its position or before
	for r := first; r < q.Rows; r++ {
		for seen < n && pos[seen] <= q.Pos[r] {
			seen++
		}
		if seen == 0 {
			continue
		}
		row := q.Q[r*q.Stride:]
		for g := range q.Group {
			s := w[:seen]
			tensor.DotRows(keys[:seen*hd], row[g*hd:(g+1)*hd], s)
			mx := tensor.ScaleMax(s, q.Scale)
			sum := tensor.ExpShift(s, mx)
			if !(sum > 0) || math.IsInf(float64(sum), 0) {
				continue // a row of NaN or overflow says nothing
			}
			inv := 1 / float64(sum)
			for j, v := range s {
				acc[j] += float64(v) * inv
			}
		}
	}
	if p.Kind.Base() == H2O {
		for j := range n {
			dst[j] = float32(acc[j])
		}
		return nil
	}
	// SnapKV: the window's keys (at the first window query's position and
	// after) are kept; the earlier ones are max-pooled among themselves.
	prefix := n
	if first < q.Rows {
		prefix = 0
		for prefix < n && pos[prefix] < q.Pos[first] {
			prefix++
		}
	}
	k := p.Pool
	if k <= 0 {
		k = DefaultPool
	}
	half := k / 2
	for j := range prefix {
		best := acc[j]
		for i := max(0, j-half); i <= min(prefix-1, j+half); i++ {
			best = max(best, acc[i])
		}
		dst[j] = float32(best)
	}
	for j := prefix; j < n; j++ {
		dst[j] = float32(math.Inf(1))
	}
	return nil
}
