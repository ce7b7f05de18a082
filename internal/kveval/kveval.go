// Package kveval measures KV-cache eviction (`isagi eval kv`, docs/kv.md):
// retrieval accuracy for every scorer and keep share, in the style of RULER
// and kvpress; perplexity under eviction; and the KV bytes and decode speed
// at a long context with and without eviction.
//
// Retrieval follows kvpress's protocol: the context is read with the whole
// cache, compressed to ⌈keep·n⌉ entries of every layer's KV head by the
// scorer, and only then does the question come; the answer is decoded
// greedily and scored by RULER's string match. The scorer never sees the
// question, which is the point: a query-agnostic eviction must keep what a
// later question will need.
//
// The attention scorers (SnapKV, H2O) read the context's own queries,
// recorded by a model.QueryHook while the context is read — still never
// the question's. AdaKV's head-wise budgets are measured by masking
// (attention.go): the cache keeps one length for every head, so a head's
// entries beyond its budget stay allocated and are hidden from attention,
// as NVIDIA's kvpress simulates AdaKV; its bytes are not saved.
package kveval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/kvtask"
)

// Options are an evaluation's scorers, keep shares and the policy's
// protected entries.
type Options struct {
	Scorers []kvpress.Kind
	Keeps   []float64 // shares of the context kept; 1 is the full cache
	// Sinks, Recent and Window are kvpress.Policy's (0: its defaults).
	Sinks, Recent, Window int
	Seed                  uint64 // the random scorer's
	// Extra is how many tokens past the answer's length are decoded.
	Extra int
	// Observe and Pool are SnapKV's, Floor AdaKV's (kvpress.Policy's; 0:
	// its defaults).
	Observe, Pool int
	Floor         float64
	// TwoNN asks for the Two-NN intrinsic dimension of the keys of the
	// first case of every context length (Result.Dims).
	TwoNN bool
}

// policy is o's policy for scorer k.
func (o *Options) policy(k kvpress.Kind) kvpress.Policy {
	return kvpress.Policy{Kind: k, Sinks: o.Sinks, Recent: o.Recent, Window: o.Window, Seed: o.Seed, Observe: o.Observe, Pool: o.Pool, Floor: o.Floor}
}

// DefaultKeeps are the keep shares.
var DefaultKeeps = []float64{1, 0.75, 0.5, 0.25, 0.125}

// Cell is one scorer × keep × task × context length: the mean score of
// its cases.
type Cell struct {
	Task   string  `json:"task"`
	NCtx   int     `json:"n_ctx"`
	Scorer string  `json:"scorer"`
	Keep   float64 `json:"keep"`
	Cases  int     `json:"cases"`
	Score  float64 `json:"score"` // RULER string match, 0…1
	// Held is, for AdaKV's budgets, the mean share of the context's
	// entries the cache still held (kept or masked): the bytes it uses.
	Held float64 `json:"held,omitempty"`
	// Leaks counts, for AdaKV's budgets, the question's and answer's
	// queries (per layer and query head) for which a masked entry's score
	// was above −20, so that it was not quite hidden (0 when every step's
	// masking key could be fitted to its queries).
	Leaks int `json:"mask_leaks,omitempty"`
}

// Result is an evaluation's cells and, with Options.TwoNN, the key
// manifold's intrinsic dimension.
type Result struct {
	Cells []Cell   `json:"retrieval"`
	Dims  []DimRow `json:"intrinsic_dim,omitempty"`
}

// DimRow is the Two-NN intrinsic dimension of one layer's context keys, on
// the first case of one context length: per KV head, and their mean.
type DimRow struct {
	NCtx   int                 `json:"n_ctx"`
	Tokens int                 `json:"tokens"` // the keys: the case's context tokens
	Layer  int                 `json:"layer"`
	Fit    float64             `json:"fit"` // the heads' mean of Dimension.Fit
	MLE    float64             `json:"mle"` // the heads' mean of Dimension.MLE
	Heads  []kvpress.Dimension `json:"heads"`
}

// Retrieval runs every case under every scorer and keep share. newState
// makes a state of the given number of entries on one backend domain
// (every state it makes must be able to evict). progress (may be nil) is
// told after each case.
func Retrieval(ctx context.Context, m *model.Model, tok *tokenizer.Tokenizer, newState func(entries int) (*model.State, error),
	cases []kvtask.Case, o Options, progress func(done, total int)) ([]Cell, error) {
	r, err := Evaluate(ctx, m, tok, newState, cases, o, progress)
	if err != nil {
		return nil, err
	}
	return r.Cells, nil
}

// Evaluate is Retrieval with the intrinsic dimension of the keys
// (Options.TwoNN).
func Evaluate(ctx context.Context, m *model.Model, tok *tokenizer.Tokenizer, newState func(entries int) (*model.State, error),
	cases []kvtask.Case, o Options, progress func(done, total int)) (*Result, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("kveval: no cases")
	}
	if len(o.Scorers) == 0 || len(o.Keeps) == 0 {
		return nil, fmt.Errorf("kveval: no scorers or no keep shares")
	}
	for _, k := range o.Keeps {
		if !(k > 0 && k <= 1) {
			return nil, fmt.Errorf("kveval: keep share %g is not in (0, 1]", k)
		}
	}
	type enc struct{ c, q []int32 }
	encs := make([]enc, len(cases))
	most := 0
	for i, c := range cases {
		ci, err := tok.Encode(c.Context, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		qi, err := tok.Encode(c.Question, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		ai, err := tok.Encode(c.Answer, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		encs[i] = enc{ci, qi}
		need := len(ci) + len(qi) + len(ai) + o.Extra
		if need > m.CtxLen {
			return nil, fmt.Errorf("kveval: case %d needs %d positions, the model has %d", i, need, m.CtxLen)
		}
		if len(ci) == 0 || len(qi) == 0 {
			return nil, fmt.Errorf("kveval: case %d has an empty context or question once tokenised", i)
		}
		most = max(most, need)
	}
	base, err := newState(most)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	work, err := newState(most)
	if err != nil {
		return nil, err
	}
	defer work.Close()
	if !work.CanEvict() {
		return nil, fmt.Errorf("kveval: backend %s cannot evict KV entries", work.Backend().Name())
	}
	logits := make([]float32, m.Vocab)
	type key struct {
		task   string
		nctx   int
		scorer string
		keep   float64
	}
	sums := map[key]*Cell{}
	var order []key
	add := func(k key, score float64, ev evicted) {
		c := sums[k]
		if c == nil {
			c = &Cell{Task: k.task, NCtx: k.nctx, Scorer: k.scorer, Keep: k.keep}
			sums[k] = c
			order = append(order, k)
		}
		c.Cases++
		c.Score += score
		c.Held += ev.held
		c.Leaks += ev.leaks
	}
	pols := make([]kvpress.Policy, len(o.Scorers))
	needQ := false // a scorer reads the attention, or masks
	for i, s := range o.Scorers {
		pols[i] = o.policy(s)
		needQ = needQ || s.Attention() || s.HeadWise()
	}
	var (
		rec    = &queryRecorder{heads: m.Heads}
		res    Result
		dimsAt = map[int]bool{}
	)
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := encs[i]
		ans, err := tok.Encode(c.Answer, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		steps := len(ans) + o.Extra
		base.Reset()
		if err := readContext(base, rec, e.c, needQ); err != nil {
			return nil, fmt.Errorf("kveval: case %d: %w", i, err)
		}
		cs := newCaseScores(m, len(e.c), len(pols))
		if needQ || o.TwoNN && !dimsAt[c.NCtx] {
			if err := cs.readKeys(base); err != nil {
				return nil, fmt.Errorf("kveval: case %d: %w", i, err)
			}
		}
		if o.TwoNN && !dimsAt[c.NCtx] {
			dimsAt[c.NCtx] = true
			res.Dims = append(res.Dims, cs.dims(c.NCtx)...)
		}
		full := -1.0
		for _, keep := range o.Keeps {
			for pi := range pols {
				p := &pols[pi]
				if keep == 1 && full >= 0 {
					add(key{string(c.Task), c.NCtx, p.Kind.String(), keep}, full, evicted{held: 1})
					continue
				}
				if err := work.CopyFrom(base); err != nil {
					return nil, err
				}
				ev := evicted{held: 1}
				if keep < 1 {
					kept := int(math.Ceil(keep * float64(len(e.c))))
					if ev, err = cs.evict(work, p, pi, kept, rec); err != nil {
						return nil, fmt.Errorf("kveval: case %d, %s: %w", i, p.Kind, err)
					}
				}
				reply, err := ev.greedy(work, tok, e.q, steps, logits)
				if err != nil {
					return nil, fmt.Errorf("kveval: case %d: %w", i, err)
				}
				s := c.Score(reply)
				if keep == 1 {
					full = s
				}
				add(key{string(c.Task), c.NCtx, p.Kind.String(), keep}, s, ev)
			}
		}
		if progress != nil {
			progress(i+1, len(cases))
		}
	}
	res.Cells = make([]Cell, 0, len(order))
	for _, k := range order {
		c := *sums[k]
		c.Score /= float64(c.Cases)
		c.Held /= float64(c.Cases)
		res.Cells = append(res.Cells, c)
	}
	return &res, nil
}

// greedy feeds q and decodes steps tokens by argmax, returning their text.
func greedy(st *model.State, tok *tokenizer.Tokenizer, q []int32, steps int, logits []float32) (string, error) {
	if err := st.Forward(q, logits); err != nil {
		return "", err
	}
	out := make([]int32, 0, steps)
	one := make([]int32, 1)
	for range steps {
		t := int32(argmax(logits))
		out = append(out, t)
		if len(out) == steps {
			break
		}
		one[0] = t
		if err := st.Forward(one, logits); err != nil {
			return "", err
		}
	}
	return tok.Decode(out, tokenizer.DecodeOptions{Continuation: true}), nil
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// PPLRow is perplexity under eviction at one scorer and keep share.
type PPLRow struct {
	Scorer string  `json:"scorer"`
	Keep   float64 `json:"keep"`
	PPL    float64 `json:"ppl"`
	Scored int     `json:"scored"`
	// MeanKept is the mean number of entries the scored tokens attended to.
	MeanKept float64 `json:"mean_kept"`
}

// Perplexity scores ids in windows of `window` tokens (each starting with
// bos) as generate.Perplexity does — the second half of every window
// scored — while the cache evicts as a generator at keep would: before
// each chunk of `interval` tokens, down to ⌈keep·pos⌉ once it is interval
// past that. keep 1 is the plain figure.
func Perplexity(ctx context.Context, st *model.State, ids []int32, bos int32, window, interval int, keep float64, p *kvpress.Policy) (PPLRow, error) {
	vocab := st.Model().Vocab
	if window > st.Cap() || window < 4 || interval < 1 {
		return PPLRow{}, fmt.Errorf("kveval: a window of %d in a cache of %d, interval %d", window, st.Cap(), interval)
	}
	chunks := len(ids) / window
	if chunks == 0 {
		return PPLRow{}, fmt.Errorf("kveval: perplexity needs at least %d tokens, the text has %d", window, len(ids))
	}
	logits := make([]float32, interval*vocab)
	buf := make([]int32, window)
	choose := func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) { p.Choose(keys, n, hd, pos, keep) }
	var sum, kept float64
	scored := 0
	for c := range chunks {
		if err := ctx.Err(); err != nil {
			return PPLRow{}, err
		}
		copy(buf, ids[c*window:(c+1)*window])
		if bos >= 0 {
			buf[0] = bos
		}
		st.Reset()
		for i := 0; i < window; i += interval {
			j := min(i+interval, window)
			if keep < 1 {
				if b := int(math.Ceil(keep * float64(st.Pos()))); st.Len() > b+interval {
					if err := st.Evict(b, choose); err != nil {
						return PPLRow{}, err
					}
				}
			}
			n := j - i
			if err := st.Forward(buf[i:j], logits[:n*vocab]); err != nil {
				return PPLRow{}, err
			}
			for t := i; t < j; t++ {
				if t < window/2 || t+1 >= window {
					continue
				}
				sum += generate.NLL(logits[(t-i)*vocab:(t-i+1)*vocab], buf[t+1])
				kept += float64(st.Len() - (j - 1 - t))
				scored++
			}
		}
	}
	st.Reset()
	name := "none"
	if keep < 1 {
		name = p.Kind.String()
	}
	return PPLRow{Scorer: name, Keep: keep, PPL: math.Exp(sum / float64(scored)), Scored: scored, MeanKept: kept / float64(scored)}, nil
}

// SpeedRow is decoding at a long context with one keep share.
type SpeedRow struct {
	Keep    float64   `json:"keep"`
	Scorer  string    `json:"scorer"`
	Context int       `json:"context"`  // positions before decoding
	Entries int       `json:"entries"`  // entries the cache held while decoding
	KVBytes int64     `json:"kv_bytes"` // their keys and values, f32
	TokS    []float64 `json:"tok_s"`    // decode tok/s, one per round
}

// Speed reads ctxIDs, evicts to keep (1: not at all), and decodes `steps`
// tokens greedily, `rounds` times, alternating the keep shares round by
// round so that a noisy machine weighs on each alike.
func Speed(ctx context.Context, st *model.State, ctxIDs []int32, steps, rounds int, keeps []float64, p *kvpress.Policy) ([]SpeedRow, error) {
	c := &st.Model().Config
	rows := make([]SpeedRow, len(keeps))
	logits := make([]float32, c.Vocab)
	one := make([]int32, 1)
	choose := func(_, _ int, keys []float32, n, hd int, pos []int32, keep []int32) { p.Choose(keys, n, hd, pos, keep) }
	for r := range rounds {
		for ki := range keeps {
			k := keeps[ki]
			if r%2 == 1 {
				k = keeps[len(keeps)-1-ki]
			}
			row := &rows[slices.Index(keeps, k)]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			st.Reset()
			if err := st.Forward(ctxIDs, logits); err != nil {
				return nil, err
			}
			if k < 1 {
				if err := st.Evict(int(math.Ceil(k*float64(len(ctxIDs)))), choose); err != nil {
					return nil, err
				}
			}
			row.Keep, row.Context, row.Entries = k, len(ctxIDs), st.Len()
			row.Scorer = "none"
			if k < 1 {
				row.Scorer = p.Kind.String()
			}
			row.KVBytes = int64(st.Len()) * int64(2*c.Layers*c.KVDim()*4)
			start := time.Now()
			for range steps {
				one[0] = int32(argmax(logits))
				if err := st.Forward(one, logits); err != nil {
					return nil, err
				}
			}
			row.TokS = append(row.TokS, float64(steps)/time.Since(start).Seconds())
		}
	}
	st.Reset()
	return rows, nil
}
