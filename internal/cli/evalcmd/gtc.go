package evalcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/gtc"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/session"
)

// evalGTCUsage is the help of `isagi eval gtc`.
const evalGTCUsage = `Usage: isagi eval gtc --model FILE --text TEXT [--keep 0.25] [--horizon T] [flags]

Geodesic Trajectory Caching measured (docs/gtc.md). Every line of TEXT (a
verse, or a {"prompt": …} JSON line, rendered as a chat turn on a chat
model) is a prompt; its greedy continuation of --tokens tokens is run and
the last block's output recorded at every position from the prompt's last
token on. A record is (state, trajectory): the state at position t and the
T (--horizon) states after it, whose argmax tokens are the model's own
next tokens.

The first half of the lines builds the store: --keep of its records are
kept (farthest-point sampling, and for comparison a random pick), and the
first-order correction traj(q) ≈ traj(r) + J·P(q − r) is fitted on pairs of
neighbouring kept records. The second half's records are the queries. It
reports coverage (share of queries whose nearest kept record lies within
the store's own median neighbour distance), the relative L2 error of the
nearest record's trajectory as stored and corrected against the model's
true run, and how many of the T tokens the predicted states give agree
with the true ones — beside an n-gram lookup in the same store's text.
`

// gtcOptions are eval gtc's measurement settings.
type gtcOptions struct {
	keep        float64
	horizon     int
	tokens      int
	prompts     int
	rank        int
	neighbours  int
	ridge       float64
	clusters    int
	seed        uint64
	split       string
	nearRadius  float64 // share of the radius a "near" query lies within
	progressOut io.Writer
}

// cmdEvalGTC is `isagi eval gtc`.
func cmdEvalGTC(env base.Env, args []string) error {
	fs := env.FlagSet("eval gtc", gtcHead, "")
	var mf base.ModelFlags
	mf.Version = env.Version
	mf.RegisterThreads(fs)
	defer mf.Dev.Close()
	text := fs.String("text", "", "prompts, one per line: plain text or {\"prompt\": …} JSON (e.g. ../shared/fixtures/kjv/heldout.txt)")
	o := gtcOptions{progressOut: env.Stderr}
	fs.Float64Var(&o.keep, "keep", 0.25, "share of the store half's records the cache keeps")
	fs.IntVar(&o.horizon, "horizon", 4, "trajectory length T: states (and tokens) after the state")
	fs.IntVar(&o.tokens, "tokens", 32, "tokens of each greedy continuation")
	fs.IntVar(&o.prompts, "prompts", 0, "use the first N lines only (0: all)")
	fs.IntVar(&o.rank, "rank", 16, "principal directions of the stored states J reads")
	fs.IntVar(&o.neighbours, "neighbours", 8, "neighbouring records each record is paired with to fit J")
	fs.Float64Var(&o.ridge, "ridge", 0.01, "ridge penalty relative to the pairs' mean eigenvalue")
	fs.IntVar(&o.clusters, "clusters", 8, "fit one J per cluster of kept records (1: one J)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random pick")
	fs.StringVar(&o.split, "split", "halves", "which lines build the store: halves (the first half; the second queries) or alternate (odd lines; even lines query), for a file ordered by task")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval gtc takes no arguments, got %q", fs.Args())
	}
	switch {
	case *text == "":
		return base.Usagef("eval gtc needs --text TEXT (prompts, one per line)")
	case !(o.keep > 0 && o.keep <= 1):
		return base.Usagef("--keep %g: want a share in (0, 1]", o.keep)
	case o.horizon < 1 || o.horizon > 64:
		return base.Usagef("--horizon %d: want 1 to 64", o.horizon)
	case o.tokens <= o.horizon:
		return base.Usagef("--tokens %d: want more than --horizon %d", o.tokens, o.horizon)
	case o.prompts < 0:
		return base.Usagef("--prompts %d: want 0 (every line) or more", o.prompts)
	case o.rank < 1 || o.neighbours < 1 || o.clusters < 1:
		return base.Usagef("--rank, --neighbours and --clusters: want 1 or more")
	case o.split != "halves" && o.split != "alternate":
		return base.Usagef("--split %q: want halves or alternate", o.split)
	case !(o.ridge >= 0) || math.IsInf(o.ridge, 0):
		return base.Usagef("--ridge %g: want 0 or more", o.ridge)
	}
	b, err := regfile.ReadRegular(*text, base.MaxTextBytes)
	if err != nil {
		return fmt.Errorf("--text: %w", err)
	}
	lines := gtcPrompts(string(b))
	if o.prompts > 0 && o.prompts < len(lines) {
		lines = lines[:o.prompts]
	}
	if len(lines) < 4 {
		return base.Usagef("--text: %d prompts; want 4 or more (half build the store, half query it)", len(lines))
	}
	s, err := mf.OpenSession(session.Options{Ctx: 512, AppVersion: env.Version})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := base.Interruptible()
	defer stop()
	rep, err := evalGTC(ctx, s.Geometry().CalibrationSource(), lines, o)
	if err != nil {
		return err
	}
	rep.Model = s.Info().Name
	if *asJSON {
		return base.PrintJSON(env.Stdout, rep)
	}
	printGTCReport(env.Stdout, rep)
	return nil
}

// gtcPrompts is the non-empty lines of text, a JSON line's "prompt" field
// in place of the line.
func gtcPrompts(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "{") {
			var v struct {
				Prompt string `json:"prompt"`
			}
			if json.Unmarshal([]byte(l), &v) == nil && v.Prompt != "" {
				l = v.Prompt
			}
		}
		out = append(out, l)
	}
	return out
}

// gtcReport is eval gtc's report.
type gtcReport struct {
	Model    string  `json:"model"`
	Layer    int     `json:"layer"`
	Dim      int     `json:"dim"`
	Horizon  int     `json:"horizon"`
	Keep     float64 `json:"keep"`
	Prompts  [2]int  `json:"prompts"` // store half, query half
	Split    string  `json:"split"`
	Records  int     `json:"records"`  // recorded in the store half
	Queries  int     `json:"queries"`  // recorded in the query half
	Rank     int     `json:"rank"`     // principal directions J reads
	Clusters int     `json:"clusters"` // Js fitted (one per cluster)
	Ridge    float64 `json:"ridge"`
	// FixedRadius is the median distance from each record of the store
	// half to its nearest other record.
	FixedRadius float64 `json:"fixed_radius"`
	// NgramAgree is, per step, the share of queries whose n-gram lookup
	// (own context, then the store half's runs) proposes the true token;
	// NgramPrefix the mean count of leading true tokens it proposes.
	NgramAgree  []float64  `json:"ngram_agree"`
	NgramPrefix float64    `json:"ngram_prefix"`
	Rows        []gtcRow   `json:"rows"`
	Timing      gtcTimings `json:"timing"`
}

// gtcRow is one cache (a selection of the store half's records).
type gtcRow struct {
	Select string `json:"select"` // farthest or random
	Kept   int    `json:"kept"`
	// Radius is the kept records' median distance to their nearest other
	// kept record; Coverage the share of queries whose nearest kept
	// record lies within it.
	Radius   float64 `json:"radius"`
	Coverage float64 `json:"coverage"`
	// CoverageFixed is the share within FixedRadius, the median
	// neighbour distance of every record of the store half: one radius
	// for every selection, where Radius grows as the cache thins out.
	CoverageFixed float64 `json:"coverage_fixed_radius"`
	// MedianQueryDist is the queries' median distance to their nearest
	// kept record, over Radius.
	MedianQueryDist float64 `json:"median_query_dist_over_radius"`
	All             gtcErr  `json:"all"`
	Covered         gtcErr  `json:"covered"`
	// SamePath is a diagnostic, not a prediction: the queries whose
	// nearest record went on to the same T tokens as the query did. On
	// them the trajectory differs only continuously, which is where a
	// first-order correction can work at all.
	SamePath gtcErr `json:"same_path"`
}

// gtcErr is prediction error over a set of queries.
type gtcErr struct {
	N int `json:"n"`
	// Mean relative L2 error of the whole trajectory (T states): the
	// nearest record's as stored, corrected, and the store's mean
	// trajectory (what knowing nothing of the query gives).
	Plain     float64 `json:"rel_err_plain"`
	Corrected float64 `json:"rel_err_corrected"`
	Mean      float64 `json:"rel_err_mean"`
	// Ratio is Corrected / Plain; Better the share of queries the
	// correction brought closer.
	Ratio  float64 `json:"ratio"`
	Better float64 `json:"better"`
	// Agree: per step, the share of queries whose predicted state's
	// argmax token is the true one; Prefix: the mean count of leading
	// agreeing steps (what a drafter of T tokens would have accepted).
	AgreePlain      []float64 `json:"agree_plain"`
	AgreeCorrected  []float64 `json:"agree_corrected"`
	PrefixPlain     float64   `json:"prefix_plain"`
	PrefixCorrected float64   `json:"prefix_corrected"`
	// PrefixNgram is the n-gram lookup's Prefix on the same queries.
	PrefixNgram float64 `json:"prefix_ngram"`
}

// gtcTimings are the costs of answering a query from the cache, against
// the model's own step.
type gtcTimings struct {
	LookupUS   float64 `json:"lookup_and_correct_us"` // per query, farthest-point cache
	ClassifyUS float64 `json:"classify_us"`           // T states to tokens, per query
	StepUS     float64 `json:"model_step_us"`         // one decode step of the model
}

// gtcRun is one prompt's greedy continuation: the last block's output at
// every position from the prompt's last token on, and the token the model
// chose after each.
type gtcRun struct {
	states [][]float32
	next   []int32
	ctx    []int32 // prompt and generated tokens
	plen   int     // prompt tokens
}

// lastBlock records the last block's output at every position at or past
// from.
type lastBlock struct {
	layer, from int
	rows        map[int][]float32
}

func (h *lastBlock) HookLayers() []int { return []int{h.layer} }
func (h *lastBlock) ReadOnly() bool    { return true }
func (h *lastBlock) AfterBlock(layer, pos int, x []float32) {
	if layer == h.layer && pos >= h.from {
		h.rows[pos] = append([]float32(nil), x...)
	}
}

// gtcCollect runs every prompt greedily for o.tokens tokens (stopping at
// a stop token) and records its states.
func gtcCollect(ctx context.Context, src geometry.Source, st *model.State, prompts []string, o gtcOptions, tick func()) ([]gtcRun, error) {
	m := src.Model
	h := &lastBlock{layer: m.Layers - 1}
	remove, err := st.AddHook(h)
	if err != nil {
		return nil, err
	}
	defer remove()
	logits := make([]float32, m.Vocab)
	var runs []gtcRun
	for _, p := range prompts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ids, err := src.Prompt(p)
		if err != nil {
			return nil, fmt.Errorf("eval gtc: prompt %q: %w", p, err)
		}
		if room := st.Cap() - o.tokens - 1; len(ids) > room {
			ids = ids[len(ids)-room:]
		}
		if len(ids) == 0 {
			continue
		}
		st.Reset()
		h.from, h.rows = len(ids)-1, map[int][]float32{}
		if err := st.Forward(ids, logits); err != nil {
			return nil, fmt.Errorf("eval gtc: prompt %q: %w", p, err)
		}
		r := gtcRun{ctx: append([]int32(nil), ids...), plen: len(ids)}
		for i := 0; ; i++ {
			tok := argmax(logits)
			r.states = append(r.states, h.rows[len(ids)-1+i])
			r.next = append(r.next, tok)
			if i == o.tokens || (src.Stop != nil && src.Stop(tok)) {
				break
			}
			r.ctx = append(r.ctx, tok)
			if err := st.Forward([]int32{tok}, logits); err != nil {
				return nil, fmt.Errorf("eval gtc: prompt %q: %w", p, err)
			}
		}
		runs = append(runs, r)
		if tick != nil {
			tick()
		}
	}
	return runs, nil
}

// gtcRecord is one record or query: state i of a run.
type gtcRecord struct {
	run, i int
}

// gtcRecords are the (run, index) of every state with a whole trajectory
// of T states after it.
func gtcRecords(runs []gtcRun, T int) []gtcRecord {
	var out []gtcRecord
	for ri, r := range runs {
		for i := 0; i+T < len(r.states); i++ {
			out = append(out, gtcRecord{ri, i})
		}
	}
	return out
}

// flatState and flatTraj are a record's state and trajectory as float64.
func flatState(r gtcRun, i int) []float64 {
	out := make([]float64, len(r.states[i]))
	for a, v := range r.states[i] {
		out[a] = float64(v)
	}
	return out
}

func flatTraj(r gtcRun, i, T int) []float64 {
	d := len(r.states[i])
	out := make([]float64, 0, T*d)
	for k := 1; k <= T; k++ {
		for _, v := range r.states[i+k] {
			out = append(out, float64(v))
		}
	}
	return out
}

// evalGTC collects both halves and measures the caches.
func evalGTC(ctx context.Context, src geometry.Source, prompts []string, o gtcOptions) (*gtcReport, error) {
	m := src.Model
	b := src.Backend
	if b == nil {
		b = cpu.New(nil)
	}
	st, err := m.NewStateOn(min(m.CtxLen, 512), b)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	storeP, queryP := prompts[:len(prompts)/2], prompts[len(prompts)/2:]
	if o.split == "alternate" {
		storeP, queryP = nil, nil
		for i, p := range prompts {
			if i%2 == 0 {
				storeP = append(storeP, p)
			} else {
				queryP = append(queryP, p)
			}
		}
	}
	prog := base.ProgressLine(o.progressOut)
	done := 0
	tick := func() { done++; prog("greedy runs", done, len(prompts)) }
	storeRuns, err := gtcCollect(ctx, src, st, storeP, o, tick)
	if err != nil {
		return nil, err
	}
	queryRuns, err := gtcCollect(ctx, src, st, queryP, o, tick)
	fmt.Fprintln(o.progressOut)
	if err != nil {
		return nil, err
	}
	T, D := o.horizon, m.Dim
	recs, qrecs := gtcRecords(storeRuns, T), gtcRecords(queryRuns, T)
	if len(recs) < 4 || len(qrecs) < 1 {
		return nil, fmt.Errorf("eval gtc: %d records and %d queries with %d states after them: run longer continuations (--tokens) or more prompts", len(recs), len(qrecs), T)
	}
	full, err := gtc.NewStore(D, T*D)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if err := full.Add(flatState(storeRuns[r.run], r.i), flatTraj(storeRuns[r.run], r.i, T)); err != nil {
			return nil, err
		}
	}
	rep := &gtcReport{Layer: m.Layers - 1, Dim: D, Horizon: T, Keep: o.keep, Prompts: [2]int{len(storeP), len(queryP)}, Split: o.split,
		Records: len(recs), Queries: len(qrecs), Ridge: o.ridge}
	// The mean trajectory of the store half: the no-information baseline.
	meanTraj := make([]float64, T*D)
	for i := range full.Len() {
		for a, v := range full.Traj(i) {
			meanTraj[a] += v / float64(full.Len())
		}
	}
	queries := make([][]float64, len(qrecs))
	truths := make([][]float64, len(qrecs))
	for qi, q := range qrecs {
		queries[qi] = flatState(queryRuns[q.run], q.i)
		truths[qi] = flatTraj(queryRuns[q.run], q.i, T)
	}
	ng := newNgramIndex(storeRuns)
	rep.NgramAgree = make([]float64, T)
	ngPrefix := make([]int, len(qrecs))
	for qi, q := range qrecs {
		r := queryRuns[q.run]
		known := r.ctx[:r.plen+q.i] // prompt, and the tokens chosen before state i
		known = append(known[:len(known):len(known)], r.next[q.i])
		prop := ng.propose(known, T)
		n := 0
		for k := range T {
			ok := k < len(prop) && prop[k] == r.next[q.i+1+k]
			if ok {
				rep.NgramAgree[k] += 1 / float64(len(qrecs))
			}
			if ok && n == k {
				n++
			}
		}
		ngPrefix[qi] = n
		rep.NgramPrefix += float64(n) / float64(len(qrecs))
	}
	rep.FixedRadius = gtc.Median(full.NeighbourDistances())
	kept := max(2, int(math.Round(o.keep*float64(full.Len()))))
	for _, sel := range []string{"farthest", "random"} {
		var idx []int
		if sel == "farthest" {
			idx = full.FarthestPoints(kept)
		} else {
			idx = gtc.RandomPoints(full.Len(), kept, o.seed)
		}
		cache, err := full.Subset(idx)
		if err != nil {
			return nil, err
		}
		c, err := gtc.Fit(cache, gtc.Options{Rank: o.rank, Neighbours: o.neighbours, Ridge: o.ridge, Clusters: o.clusters})
		if err != nil {
			return nil, fmt.Errorf("eval gtc: fitting the %s cache: %w", sel, err)
		}
		rep.Rank, rep.Clusters = c.Rank(), min(o.clusters, cache.Len())
		row := gtcRow{Select: sel, Kept: cache.Len(), Radius: gtc.Median(cache.NeighbourDistances())}
		var all, covered, same gtcAcc
		all.init(T)
		covered.init(T)
		same.init(T)
		dists := make([]float64, len(queries))
		var spent time.Duration
		for qi, q := range queries {
			t0 := time.Now()
			p, err := c.Predict(q)
			if err != nil {
				return nil, err
			}
			spent += time.Since(t0)
			dists[qi] = p.Dist / row.Radius
			if p.Dist <= rep.FixedRadius {
				row.CoverageFixed += 1 / float64(len(queries))
			}
			r := queryRuns[qrecs[qi].run]
			truthTok := r.next[qrecs[qi].i+1 : qrecs[qi].i+1+T]
			plainTok, err := gtcTokens(st, p.Plain, D)
			if err != nil {
				return nil, err
			}
			corrTok, err := gtcTokens(st, p.Corrected, D)
			if err != nil {
				return nil, err
			}
			e := gtcQueryErr{plain: gtc.RelErr(p.Plain, truths[qi]), corrected: gtc.RelErr(p.Corrected, truths[qi]), mean: gtc.RelErr(meanTraj, truths[qi])}
			all.add(e, plainTok, corrTok, truthTok, ngPrefix[qi])
			if p.Dist <= row.Radius {
				covered.add(e, plainTok, corrTok, truthTok, ngPrefix[qi])
			}
			if slices.Equal(plainTok, truthTok) {
				same.add(e, plainTok, corrTok, truthTok, ngPrefix[qi])
			}
		}
		if sel == "farthest" {
			rep.Timing.LookupUS = float64(spent.Microseconds()) / float64(len(queries))
		}
		row.Coverage = float64(covered.n) / float64(len(queries))
		row.MedianQueryDist = gtc.Median(dists)
		row.All, row.Covered, row.SamePath = all.result(), covered.result(), same.result()
		rep.Rows = append(rep.Rows, row)
	}
	if err := gtcTime(st, rep, queries[0], D, T); err != nil {
		return nil, err
	}
	return rep, nil
}

// gtcTime times T states' classification and one model decode step (the
// costs beside the lookup).
func gtcTime(st *model.State, rep *gtcReport, q []float64, D, T int) error {
	traj := make([]float64, T*D)
	for k := range T {
		copy(traj[k*D:], q)
	}
	const reps = 20
	start := time.Now()
	for range reps {
		if _, err := gtcTokens(st, traj, D); err != nil {
			return err
		}
	}
	rep.Timing.ClassifyUS = float64(time.Since(start).Microseconds()) / reps
	st.Reset()
	logits := make([]float32, st.Model().Vocab)
	if err := st.Forward([]int32{0}, logits); err != nil {
		return err
	}
	start = time.Now()
	for range reps {
		if err := st.Forward([]int32{argmax(logits)}, logits); err != nil {
			return err
		}
	}
	rep.Timing.StepUS = float64(time.Since(start).Microseconds()) / reps
	return nil
}

// gtcTokens is the argmax token of each of the T states of traj (the
// final norm and the classifier, as the model's own step applies them).
func gtcTokens(st *model.State, traj []float64, D int) ([]int32, error) {
	T := len(traj) / D
	x := make([]float32, len(traj))
	for i, v := range traj {
		x[i] = float32(v)
	}
	V := st.Model().Vocab
	out := make([]float32, T*V)
	if err := st.Classify(x, out); err != nil {
		return nil, err
	}
	toks := make([]int32, T)
	for k := range T {
		toks[k] = argmax(out[k*V : (k+1)*V])
	}
	return toks, nil
}

// gtcQueryErr is one query's relative errors.
type gtcQueryErr struct{ plain, corrected, mean float64 }

// gtcAcc accumulates gtcErr.
type gtcAcc struct {
	n                         int
	plain, corr, mean, better float64
	agreeP, agreeC            []float64
	prefixP, prefixC, prefixN float64
}

func (a *gtcAcc) init(T int) { a.agreeP, a.agreeC = make([]float64, T), make([]float64, T) }

func (a *gtcAcc) add(e gtcQueryErr, plain, corr, truth []int32, ngram int) {
	a.n++
	a.prefixN += float64(ngram)
	a.plain += e.plain
	a.corr += e.corrected
	a.mean += e.mean
	if e.corrected < e.plain {
		a.better++
	}
	np, nc := 0, 0
	for k, t := range truth {
		if plain[k] == t {
			a.agreeP[k]++
			if np == k {
				np++
			}
		}
		if corr[k] == t {
			a.agreeC[k]++
			if nc == k {
				nc++
			}
		}
	}
	a.prefixP += float64(np)
	a.prefixC += float64(nc)
}

func (a *gtcAcc) result() gtcErr {
	if a.n == 0 {
		return gtcErr{AgreePlain: a.agreeP, AgreeCorrected: a.agreeC}
	}
	n := float64(a.n)
	r := gtcErr{N: a.n, Plain: a.plain / n, Corrected: a.corr / n, Mean: a.mean / n, Better: a.better / n,
		PrefixPlain: a.prefixP / n, PrefixCorrected: a.prefixC / n, PrefixNgram: a.prefixN / n}
	r.Ratio = r.Corrected / r.Plain
	for k := range a.agreeP {
		r.AgreePlain = append(r.AgreePlain, a.agreeP[k]/n)
		r.AgreeCorrected = append(r.AgreeCorrected, a.agreeC[k]/n)
	}
	return r
}

// ngramIndex proposes continuations as lookup decoding does: the latest
// earlier occurrence of the context's last 3 (then 2, then 1) tokens, in
// the context itself first and then in the store half's runs, and the
// tokens that followed it.
type ngramIndex struct {
	runs [][]int32 // the store half's prompt and generated tokens
}

func newNgramIndex(runs []gtcRun) *ngramIndex {
	ix := &ngramIndex{}
	for _, r := range runs {
		ix.runs = append(ix.runs, append(append([]int32(nil), r.ctx...), r.next[len(r.next)-1]))
	}
	return ix
}

func (ix *ngramIndex) propose(known []int32, T int) []int32 {
	for n := min(3, len(known)-1); n >= 1; n-- {
		key := known[len(known)-n:]
		// The context itself, latest occurrence first (not the suffix).
		if p := follow(known[:len(known)-1], key, T); p != nil {
			return p
		}
		for ri := len(ix.runs) - 1; ri >= 0; ri-- {
			if p := follow(ix.runs[ri], key, T); p != nil {
				return p
			}
		}
	}
	return nil
}

// follow is the up to T tokens after the latest occurrence of key in seq
// that has at least one token after it.
func follow(seq, key []int32, T int) []int32 {
	for s := len(seq) - len(key) - 1; s >= 0; s-- {
		match := true
		for i, k := range key {
			if seq[s+i] != k {
				match = false
				break
			}
		}
		if match {
			end := min(len(seq), s+len(key)+T)
			return seq[s+len(key) : end]
		}
	}
	return nil
}

// argmax is the index of v's largest value, the lowest on ties (greedy
// decoding's pick).
func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}

// printGTCReport is eval gtc's table.
func printGTCReport(w io.Writer, r *gtcReport) {
	fmt.Fprintf(w, "GTC on %s: state = block %d output (d=%d) at position t, trajectory = the %d states after it (greedy run)\n",
		r.Model, r.Layer, r.Dim, r.Horizon)
	fmt.Fprintf(w, "split %s; store half: %d prompts, %d records; query half: %d prompts, %d queries; J: rank %d, %d cluster(s), ridge %g\n\n",
		r.Split, r.Prompts[0], r.Records, r.Prompts[1], r.Queries, r.Rank, r.Clusters, r.Ridge)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cache\tkept\tcoverage\tat fixed radius\tq dist/radius\tqueries\trel err plain\tcorrected\tratio\tbetter\tmean traj\ttokens plain\tcorrected\tn-gram\t")
	for _, row := range r.Rows {
		for _, e := range []struct {
			name string
			e    gtcErr
		}{{"all", row.All}, {"covered", row.Covered}, {"same path", row.SamePath}} {
			fmt.Fprintf(tw, "%s %s\t%d\t%.1f%%\t%.1f%%\t%.2f\t%d\t%.4f\t%.4f\t%.3f\t%.0f%%\t%.4f\t%.2f/%d\t%.2f/%d\t%.2f\t\n",
				row.Select, e.name, row.Kept, 100*row.Coverage, 100*row.CoverageFixed, row.MedianQueryDist, e.e.N, e.e.Plain, e.e.Corrected, e.e.Ratio,
				100*e.e.Better, e.e.Mean, e.e.PrefixPlain, r.Horizon, e.e.PrefixCorrected, r.Horizon, e.e.PrefixNgram)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntokens: mean leading agreeing tokens of %d; n-gram lookup (context, then store text): %.2f/%d\n", r.Horizon, r.NgramPrefix, r.Horizon)
	fmt.Fprint(w, "per-step top-1 agreement (farthest, all):")
	if len(r.Rows) > 0 {
		for k := range r.Horizon {
			fmt.Fprintf(w, "  t+%d plain %.0f%% corrected %.0f%% n-gram %.0f%%", k+2,
				100*r.Rows[0].All.AgreePlain[k], 100*r.Rows[0].All.AgreeCorrected[k], 100*r.NgramAgree[k])
		}
	}
	fmt.Fprintf(w, "\ncost per query: lookup + correction %.0f µs, %d states to tokens %.0f µs; one model decode step %.0f µs\n",
		r.Timing.LookupUS, r.Horizon, r.Timing.ClassifyUS, r.Timing.StepUS)
}

// gtcHead is `isagi eval gtc --help` before the flags.
const gtcHead = evalGTCUsage + "\nFlags:\n"
