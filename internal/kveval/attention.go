package kveval

import (
	"fmt"
	"slices"

	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// queryRecorder keeps every layer's queries of a context read from
// position 0 (a model.QueryHook): rows of Heads·hd values.
type queryRecorder struct {
	heads int
	q     [][]float32
	scale []float32
	rows  []int
	bad   bool
}

func (r *queryRecorder) reset(layers int) {
	if len(r.q) != layers {
		r.q, r.scale, r.rows = make([][]float32, layers), make([]float32, layers), make([]int, layers)
	}
	for l := range r.q {
		r.q[l], r.rows[l] = r.q[l][:0], 0
	}
	r.bad = false
}

// Queries records layer's rows, which must follow the ones it has.
func (r *queryRecorder) Queries(layer, pos int, q []float32, n int, scale float32) {
	if layer < 0 || layer >= len(r.q) || pos != r.rows[layer] {
		r.bad = true
		return
	}
	r.q[layer] = append(r.q[layer], q...)
	r.rows[layer] += n
	r.scale[layer] = scale
}

// readContext reads ids into st from position 0, recording its queries
// into rec when record is set.
func readContext(st *model.State, rec *queryRecorder, ids []int32, record bool) error {
	if !record {
		return st.Forward(ids, nil)
	}
	rec.reset(st.Model().Layers)
	remove, err := st.AddHook(rec)
	if err != nil {
		return err
	}
	defer remove()
	if err := st.Forward(ids, nil); err != nil {
		return err
	}
	for _, n := range rec.rows {
		if rec.bad || n != len(ids) {
			return fmt.Errorf("kveval: the context's queries were not recorded in order (%d rows of %d)", n, len(ids))
		}
	}
	return nil
}

// caseScores are one case's context keys, read from the unevicted state,
// and the scores of the scorers that need them (attention, AdaKV), worked
// out once and used at every keep share.
type caseScores struct {
	layers, kvHeads, heads, hd, n int
	keys                          [][]float32 // per layer·KV head, n rows of hd
	pos                           []int32     // 0…n−1: no eviction yet
	scores                        [][][]float32
}

func newCaseScores(m *model.Model, n, scorers int) *caseScores {
	c := &m.Config
	cs := &caseScores{layers: c.Layers, kvHeads: c.KVHeads, heads: c.Heads, hd: c.HeadDim, n: n,
		scores: make([][][]float32, scorers), pos: make([]int32, n)}
	for i := range cs.pos {
		cs.pos[i] = int32(i)
	}
	return cs
}

// readKeys copies the context's keys out of st, head by head.
func (cs *caseScores) readKeys(st *model.State) error {
	if st.Len() != cs.n || st.Pos() != cs.n {
		return fmt.Errorf("kveval: reading the keys of %d entries at position %d, want %d", st.Len(), st.Pos(), cs.n)
	}
	w := cs.kvHeads * cs.hd
	k, v := make([]float32, w), make([]float32, w)
	cs.keys = make([][]float32, cs.layers*cs.kvHeads)
	for lg := range cs.keys {
		cs.keys[lg] = make([]float32, cs.n*cs.hd)
	}
	for l := range cs.layers {
		for p := range cs.n {
			if err := st.KVAt(l, p, k, v); err != nil {
				return err
			}
			for h := range cs.kvHeads {
				copy(cs.keys[l*cs.kvHeads+h][p*cs.hd:], k[h*cs.hd:(h+1)*cs.hd])
			}
		}
	}
	return nil
}

// queries are layer l's recorded queries of KV head h's group.
func (cs *caseScores) queries(rec *queryRecorder, l, h int) *kvpress.Queries {
	g := cs.heads / cs.kvHeads
	return &kvpress.Queries{Q: rec.q[l][h*g*cs.hd:], Stride: cs.heads * cs.hd, Rows: rec.rows[l], Group: g, Pos: cs.pos, Scale: rec.scale[l]}
}

// scoresOf are scorer pi's scores of every layer·KV head.
func (cs *caseScores) scoresOf(p *kvpress.Policy, pi int, rec *queryRecorder) ([][]float32, error) {
	if cs.scores[pi] != nil {
		return cs.scores[pi], nil
	}
	out := make([][]float32, cs.layers*cs.kvHeads)
	for l := range cs.layers {
		for h := range cs.kvHeads {
			lg := l*cs.kvHeads + h
			sc := make([]float32, cs.n)
			if p.Kind.Attention() {
				if err := p.AttentionScores(cs.keys[lg], cs.n, cs.hd, cs.pos, cs.queries(rec, l, h), sc); err != nil {
					return nil, err
				}
			} else {
				p.Scores(cs.keys[lg], cs.n, cs.hd, cs.pos, sc)
			}
			out[lg] = sc
		}
	}
	cs.scores[pi] = out
	return out, nil
}

// evicted is what an eviction left: the share of the entries the cache
// still holds, and under AdaKV the entries masked (per layer·KV head, their
// slots once compacted) and what fencing them off cost.
type evicted struct {
	held    float64
	leaks   int
	masked  [][]int32
	st      *model.State
	heads   int
	kvHeads int
	err     error
}

// evict evicts work (the context read, nothing evicted) to kept entries a
// head by scorer p (pols[pi]): the key-only scorers as a generator does,
// the attention scorers by the scores worked out once, and AdaKV by
// head-wise budgets, the entries past a head's budget masked.
func (cs *caseScores) evict(work *model.State, p *kvpress.Policy, pi, kept int, rec *queryRecorder) (evicted, error) {
	ev := evicted{held: float64(kept) / float64(cs.n), heads: cs.heads, kvHeads: cs.kvHeads}
	if !p.Kind.Attention() && !p.Kind.HeadWise() {
		return ev, work.Evict(kept, func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) {
			p.Choose(keys, n, hd, pos, keep)
		})
	}
	if work.Len() != cs.n {
		return ev, fmt.Errorf("kveval: evicting %d entries, the context has %d", work.Len(), cs.n)
	}
	sc, err := cs.scoresOf(p, pi, rec)
	if err != nil {
		return ev, err
	}
	if !p.Kind.HeadWise() {
		return ev, work.Evict(kept, func(l, h int, _ []float32, n, _ int, _ []int32, keep []int32) {
			p.ChooseScores(sc[l*cs.kvHeads+h], n, keep)
		})
	}
	// AdaKV: each layer's budget split across its heads; the cache then
	// holds the largest head's count in every head, the others' surplus
	// masked (the newest entries they dropped, which are as good as any).
	lists := make([][]int32, 0, len(sc))
	most := 0
	for l := range cs.layers {
		for _, k := range p.ChooseHeadWise(sc[l*cs.kvHeads:(l+1)*cs.kvHeads], cs.n, kept) {
			lists = append(lists, k)
			most = max(most, len(k))
		}
	}
	masked := make([][]int32, len(lists))
	for lg, k := range lists {
		pad := most - len(k)
		for s := int32(cs.n - 1); pad > 0 && s >= 0; s-- {
			if _, found := slices.BinarySearch(k, s); !found {
				masked[lg] = append(masked[lg], s)
				pad--
			}
		}
		all := append(slices.Clone(k), masked[lg]...)
		slices.Sort(all)
		// The masked entries' slots once compacted: their ranks.
		for i, s := range masked[lg] {
			r, _ := slices.BinarySearch(all, s)
			masked[lg][i] = int32(r)
		}
		lists[lg] = all
	}
	if err := work.Evict(most, func(l, h int, _ []float32, _, _ int, _ []int32, keep []int32) {
		copy(keep, lists[l*cs.kvHeads+h])
	}); err != nil {
		return ev, err
	}
	ev.held = float64(most) / float64(cs.n)
	ev.masked, ev.st = masked, work
	// Their values zeroed now; their keys are fitted to every step's
	// queries as it runs (Queries).
	zero := make([]float32, cs.hd)
	for lg, sl := range masked {
		if len(sl) > 0 {
			if err := work.MaskEntries(lg/cs.kvHeads, lg%cs.kvHeads, sl, zero); err != nil {
				return ev, err
			}
		}
	}
	return ev, nil
}

// greedy is the package's greedy; with masked entries the question is fed
// a token at a time, so that every step's queries are few enough (a KV
// head's group of one row) for a key that hides the masked entries from
// each of them exactly (Queries).
func (ev *evicted) greedy(st *model.State, tok *tokenizer.Tokenizer, q []int32, steps int, logits []float32) (string, error) {
	if ev.masked == nil {
		return greedy(st, tok, q, steps, logits)
	}
	remove, err := st.AddHook(ev)
	if err != nil {
		return "", err
	}
	defer remove()
	for _, t := range q[:len(q)-1] {
		if err := st.Forward([]int32{t}, nil); err != nil {
			return "", err
		}
	}
	out, err := greedy(st, tok, q[len(q)-1:], steps, logits)
	if err == nil {
		err = ev.err
	}
	return out, err
}

// fenceScore is the score q·k·scale the masking key gives every query of
// a step: e^−100 of a weight is none.
const fenceScore = -100

// leakScore is the score above which a masked entry counts as seen.
const leakScore = -20

// Queries (a model.QueryHook) masks, before layer's attention runs, every
// KV head's masked entries with the key k of least norm that scores
// fenceScore against each of the step's queries of the head's group: the
// solution of Q·k = fenceScore/scale, Q those queries (as kvpress fits its
// fake keys to the queries of every forward). A step whose queries admit
// no such key (more of them than dimensions, or dependent) counts its
// queries that still score above leakScore as leaks.
func (ev *evicted) Queries(layer, _ int, q []float32, n int, scale float32) {
	g := ev.heads / ev.kvHeads
	hd := len(q) / (n * ev.heads)
	for h := range ev.kvHeads {
		lg := layer*ev.kvHeads + h
		if len(ev.masked[lg]) == 0 {
			continue
		}
		qs := make([]float32, 0, n*g*hd)
		for r := range n {
			qs = append(qs, q[(r*ev.heads+h*g)*hd:(r*ev.heads+(h+1)*g)*hd]...)
		}
		key := leastNorm(qs, n*g, hd, fenceScore/float64(scale))
		for i := range n * g {
			if float64(scale)*dotf(qs[i*hd:(i+1)*hd], key) > leakScore {
				ev.leaks++
			}
		}
		if err := ev.st.MaskEntries(layer, h, ev.masked[lg], key); err != nil && ev.err == nil {
			ev.err = err
		}
	}
}

// leastNorm is the k of least norm with q_i·k = t for the m rows q_i of
// hd values in q: k = Qᵀ(QQᵀ)⁻¹·t1, by elimination with partial pivoting.
// It returns a zero key when QQᵀ is singular.
func leastNorm(q []float32, m, hd int, t float64) []float32 {
	k := make([]float32, hd)
	a := make([][]float64, m)
	for i := range m {
		a[i] = make([]float64, m+1)
		for j := range m {
			a[i][j] = dotf(q[i*hd:(i+1)*hd], q[j*hd:(j+1)*hd])
		}
		a[i][m] = t
	}
	for i := range m {
		p := i
		for r := i + 1; r < m; r++ {
			if abs(a[r][i]) > abs(a[p][i]) {
				p = r
			}
		}
		a[i], a[p] = a[p], a[i]
		if abs(a[i][i]) < 1e-9*max(1, abs(a[0][0])) {
			return k
		}
		for r := i + 1; r < m; r++ {
			f := a[r][i] / a[i][i]
			for j := i; j <= m; j++ {
				a[r][j] -= f * a[i][j]
			}
		}
	}
	y := make([]float64, m)
	for i := m - 1; i >= 0; i-- {
		s := a[i][m]
		for j := i + 1; j < m; j++ {
			s -= a[i][j] * y[j]
		}
		y[i] = s / a[i][i]
	}
	for i := range m {
		for d := range hd {
			k[d] += float32(y[i] * float64(q[i*hd+d]))
		}
	}
	return k
}

func dot64(a []float32, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += float64(x) * b[i]
	}
	return s
}

func dotf(a, b []float32) float64 {
	var s float64
	for i, x := range a {
		s += float64(x) * float64(b[i])
	}
	return s
}

// dims is the Two-NN intrinsic dimension of every layer's keys, per KV
// head and their mean, for the case's context length nctx.
func (cs *caseScores) dims(nctx int) []DimRow {
	rows := make([]DimRow, cs.layers)
	for l := range cs.layers {
		r := DimRow{NCtx: nctx, Tokens: cs.n, Layer: l}
		for h := range cs.kvHeads {
			d := kvpress.TwoNN(cs.keys[l*cs.kvHeads+h], cs.n, cs.hd)
			r.Heads = append(r.Heads, d)
			r.Fit += d.Fit / float64(cs.kvHeads)
			r.MLE += d.MLE / float64(cs.kvHeads)
		}
		rows[l] = r
	}
	return rows
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
