package evalcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/kveval"
	"github.com/isagi-lab/isagi/internal/kvtask"
)

const evalKVUsage = `Usage: isagi eval kv --model RETRIEVAL.gguf --haystack TEXT [flags]
       isagi eval kv --model FILE.gguf --cases CASES.json [flags]
       isagi eval kv --model FILE.gguf --ppl TEXT [flags]

KV-cache eviction measured (docs/kv.md), in the style of RULER and kvpress:
every scorer (--scorers) at every keep share (--keeps) on retrieval cases.
A case's context is read with the whole cache, then compressed to
⌈keep·n⌉ entries of every layer's KV head; only then comes the question,
whose answer is decoded greedily and scored by RULER's string match.

Cases are generated (--tasks, --lengths, --cases-per, --seed) over a
haystack of verses (--haystack, one per line: the KJV text of the fixtures)
for the retrieval fixture model (testdata/models/retrieval.gguf), or read
from --cases FILE: a JSON list of {"context", "question", "answer"}.

Besides the key-only scorers a generator runs (--kv-scorer), two read the
context's attention (its own queries, recorded while it is read; never the
question's): snapkv (the last --observe queries' attention, max-pooled
over --pool keys) and h2o (the attention every query of the context gave
each key). adakv+SCORER splits each layer's budget across its KV heads by
the scorer's normalised scores (a floor of --floor of the uniform share a
head); the heads' surplus entries are masked, not freed, so its "held"
column says what the cache still holds. The report ends with the Two-NN
intrinsic dimension of every layer's context keys (first case of each
length).

--ppl TEXT adds perplexity under eviction over TEXT; --speed adds KV bytes
and decode tok/s at the longest context, with and without eviction (both
with the key-only scorers).
`

// cmdEvalKV is `isagi eval kv`.
func cmdEvalKV(env base.Env, args []string) error {
	fs := env.FlagSet("eval kv", kvHead, "")
	// The model and threads, uncompressed: the states the cases run on
	// are made here, without a GRC.
	mf := base.ModelFlags{Slots: "qkv", Alloc: "uniform", Log: env.Stderr, Version: env.Version}
	mf.RegisterThreads(fs)
	defer mf.Dev.Close()
	haystack := fs.String("haystack", "", "verses for the generated cases' haystack, one per line (e.g. ../shared/fixtures/kjv/heldout.txt)")
	casesFile := fs.String("cases", "", "read the cases from `FILE`, a JSON list of {context, question, answer}, instead of generating them")
	tasks := fs.String("tasks", "all", "generated cases: single, multikey, multivalue, passkey, or all")
	lengths := fs.String("lengths", "1024,2048,3900", "generated cases: context lengths in tokens")
	per := fs.Int("cases-per", 10, "generated cases per task and length")
	seed := fs.Uint64("seed", 1003, "generated cases' seed (the fixture's training used others)")
	scorers := fs.String("scorers", "manifold,windowed,keydiff,knorm,streaming,random,snapkv,h2o,adakv+snapkv,adakv+manifold", "scorers, comma-separated (adakv+SCORER: AdaKV's head-wise budgets on SCORER's scores)")
	keeps := fs.String("keeps", "1,0.75,0.5,0.25,0.125", "keep shares, comma-separated")
	sinks := fs.Int("sinks", 0, "entries at the start every scorer keeps (0: kvpress.DefaultSinks)")
	recent := fs.Int("recent", 0, "most recent entries every scorer keeps (0: kvpress.DefaultRecent)")
	window := fs.Int("window", 0, "windowed scorer's window in entries (0: kvpress.DefaultWindow)")
	observe := fs.Int("observe", 0, "snapkv's observation window in queries (0: kvpress.DefaultObserve, 32)")
	pool := fs.Int("pool", 0, "snapkv's max-pool kernel in keys (0: kvpress.DefaultPool, 7)")
	floor := fs.Float64("floor", 0, "adakv's floor: the share of its uniform budget every head keeps (0: kvpress.DefaultFloor, 0.2; negative: none)")
	pplFile := fs.String("ppl", "", "also measure perplexity under eviction over `TEXT`")
	pplWindow := fs.Int("ppl-window", 0, "--ppl's window in tokens (0: the model's context, at most 1024)")
	speed := fs.Bool("speed", false, "also measure KV bytes and decode tok/s at the longest context")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval kv takes no arguments, got %q", fs.Args())
	}
	if (*haystack == "") == (*casesFile == "") && *pplFile == "" {
		return base.Usagef("eval kv needs --haystack TEXT (generated cases) or --cases FILE, or --ppl TEXT")
	}
	if *haystack != "" && *casesFile != "" {
		return base.Usagef("--haystack and --cases are two sources of cases: give one")
	}
	if *floor > 1 {
		return base.Usagef("--floor %g: want a share of at most 1", *floor)
	}
	o := kveval.Options{Sinks: *sinks, Recent: *recent, Window: *window, Seed: *seed, Extra: 4,
		Observe: *observe, Pool: *pool, Floor: *floor, TwoNN: true}
	for _, s := range strings.Split(*scorers, ",") {
		k, err := kvpress.ParseScorer(s)
		if err != nil {
			return base.UsageError{Err: fmt.Errorf("--scorers: %w", err)}
		}
		if k != kvpress.None {
			o.Scorers = append(o.Scorers, k)
		}
	}
	for _, s := range strings.Split(*keeps, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return base.Usagef("--keeps: %q is not a share in (0, 1]", s)
		}
		o.Keeps = append(o.Keeps, v)
	}
	if len(o.Scorers) == 0 {
		return base.Usagef("--scorers names no scorer that evicts")
	}
	_, tok, m, st, err := mf.Open()
	if err != nil {
		return err
	}
	defer m.Close()
	st.Close()
	newState := func(entries int) (*model.State, error) {
		b, err := mf.NewBackend()
		if err != nil {
			return nil, err
		}
		return m.NewStateOn(entries, b)
	}
	ctx, stop := base.Interruptible()
	defer stop()
	rep := kvReport{Model: base.ModelLabel(m, nil), Scorers: *scorers, Keeps: o.Keeps}
	cases, err := kvCases(*haystack, *casesFile, *tasks, *lengths, *per, *seed, tok, m.CtxLen)
	if err != nil {
		return err
	}
	if len(cases) > 0 {
		prog := base.ProgressLine(env.Stderr)
		res, err := kveval.Evaluate(ctx, m, tok, newState, cases, o, func(done, total int) { prog("retrieval cases", done, total) })
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return err
		}
		rep.Cells, rep.Dims = res.Cells, res.Dims
	}
	// Perplexity and speed run as a generator evicts: the key-only scorers.
	var live []kvpress.Kind
	for _, k := range o.Scorers {
		if !k.Attention() && !k.HeadWise() {
			live = append(live, k)
		}
	}
	o.Scorers = live
	if len(live) == 0 && (*pplFile != "" || *speed) {
		return base.Usagef("--ppl and --speed measure the key-only scorers, and --scorers names none")
	}
	if *pplFile != "" {
		if rep.PPL, err = kvPPL(ctx, m, tok, newState, *pplFile, *pplWindow, o); err != nil {
			return err
		}
	}
	if *speed && len(cases) > 0 {
		if rep.Speed, err = kvSpeed(ctx, m, tok, newState, cases, o); err != nil {
			return err
		}
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, rep)
	}
	printKVReport(env.Stdout, rep)
	return nil
}

// kvReport is eval kv's report.
type kvReport struct {
	Model   string            `json:"model"`
	Scorers string            `json:"scorers"`
	Keeps   []float64         `json:"keeps"`
	Cells   []kveval.Cell     `json:"retrieval,omitempty"`
	Dims    []kveval.DimRow   `json:"intrinsic_dim,omitempty"`
	PPL     []kveval.PPLRow   `json:"ppl,omitempty"`
	Speed   []kveval.SpeedRow `json:"speed,omitempty"`
}

// kvCases generates the cases or reads them. Generated lengths are held to
// the model's window of ctxLen tokens before any case is made: a case
// longer than the window cannot run, and generating every case first
// only to refuse them took minutes.
func kvCases(haystack, file, tasks, lengths string, per int, seed uint64, tok *tokenizer.Tokenizer, ctxLen int) ([]kvtask.Case, error) {
	if file != "" {
		b, err := regfile.ReadRegular(file, base.MaxTextBytes)
		if err != nil {
			return nil, fmt.Errorf("--cases: %w", err)
		}
		cs, err := kvtask.ReadCases(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return cs, nil
	}
	if haystack == "" {
		return nil, nil
	}
	ts, err := kvtask.ParseTasks(tasks)
	if err != nil {
		return nil, base.UsageError{Err: fmt.Errorf("--tasks: %w", err)}
	}
	var ls []int
	for _, s := range strings.Split(lengths, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 16 {
			return nil, base.Usagef("--lengths: %q is not a length of 16 tokens or more", s)
		}
		if v >= ctxLen {
			return nil, base.Usagef("--lengths %d: the model's context is %d tokens, and a case's context, question and answer must fit in it", v, ctxLen)
		}
		ls = append(ls, v)
	}
	if per < 1 {
		return nil, base.Usagef("--cases-per %d: want 1 or more", per)
	}
	text, err := regfile.ReadRegular(haystack, base.MaxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("--haystack: %w", err)
	}
	verses, err := kvtask.Verses(strings.NewReader(string(text)))
	if err != nil {
		return nil, fmt.Errorf("--haystack: %w", err)
	}
	g := kvtask.Generator{Verses: verses, Keys: kvtask.KeyPool(tok, verses), Count: func(s string) int {
		ids, _ := tok.Encode(s, tokenizer.EncodeOptions{})
		return len(ids)
	}}
	return g.Cases(seed, ts, ls, per)
}

// kvPPL is perplexity under every scorer and keep share.
func kvPPL(ctx context.Context, m *model.Model, tok *tokenizer.Tokenizer, newState func(int) (*model.State, error), file string, window int, o kveval.Options) ([]kveval.PPLRow, error) {
	text, err := regfile.ReadRegular(file, base.MaxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("--ppl: %w", err)
	}
	ids, err := tok.Encode(string(text), tokenizer.EncodeOptions{})
	if err != nil {
		return nil, err
	}
	if window <= 0 {
		window = min(m.CtxLen, 1024)
	}
	if window > m.CtxLen {
		return nil, base.Usagef("--ppl-window %d is past the model's context of %d", window, m.CtxLen)
	}
	st, err := newState(window)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var rows []kveval.PPLRow
	const interval = 32
	for _, keep := range o.Keeps {
		for _, k := range o.Scorers {
			p := &kvpress.Policy{Kind: k, Sinks: o.Sinks, Recent: o.Recent, Window: o.Window, Seed: o.Seed}
			r, err := kveval.Perplexity(ctx, st, ids, tok.BOS(), window, interval, keep, p)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
			if keep == 1 {
				break // the whole cache: one figure for every scorer
			}
		}
	}
	return rows, nil
}

// kvSpeed decodes after the longest case's context, with the whole cache
// and with the first scorer at the smallest keep share.
func kvSpeed(ctx context.Context, m *model.Model, tok *tokenizer.Tokenizer, newState func(int) (*model.State, error), cases []kvtask.Case, o kveval.Options) ([]kveval.SpeedRow, error) {
	var longest []int32
	for _, c := range cases {
		ids, err := tok.Encode(c.Context, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		if len(ids) > len(longest) {
			longest = ids
		}
	}
	const steps = 64
	if len(longest)+steps > m.CtxLen {
		longest = longest[:m.CtxLen-steps]
	}
	st, err := newState(len(longest) + steps)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	small := o.Keeps[0]
	for _, k := range o.Keeps {
		small = min(small, k)
	}
	keeps := []float64{1}
	if small < 1 {
		keeps = append(keeps, small)
	}
	p := &kvpress.Policy{Kind: o.Scorers[0], Sinks: o.Sinks, Recent: o.Recent, Window: o.Window, Seed: o.Seed}
	return kveval.Speed(ctx, st, longest, steps, 6, keeps, p)
}

// printKVReport prints the tables: retrieval score per scorer × keep for
// every task and length, then perplexity and speed.
func printKVReport(w io.Writer, r kvReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(r.Cells) > 0 {
		fmt.Fprintf(w, "retrieval (%s): RULER string match, %% of cases, by keep share\n", r.Model)
		type row struct {
			task, scorer string
			nctx         int
		}
		var rows []row
		seen := map[row]bool{}
		score := map[row]map[float64]kveval.Cell{}
		for _, c := range r.Cells {
			k := row{c.Task, c.Scorer, c.NCtx}
			if !seen[k] {
				seen[k] = true
				rows = append(rows, k)
				score[k] = map[float64]kveval.Cell{}
			}
			score[k][c.Keep] = c
		}
		fmt.Fprint(tw, "task\tcontext\tscorer\t")
		for _, k := range r.Keeps {
			fmt.Fprintf(tw, "%g\t", k)
		}
		fmt.Fprintln(tw, "cases\theld at the least keep\tmask leaks\t")
		least := slices.Min(r.Keeps)
		for _, k := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%s\t", k.task, k.nctx, k.scorer)
			n := 0
			for _, keep := range r.Keeps {
				c := score[k][keep]
				n = c.Cases
				fmt.Fprintf(tw, "%.0f\t", 100*c.Score)
			}
			c := score[k][least]
			held, leaks := "", ""
			if strings.HasPrefix(k.scorer, "adakv+") {
				held, leaks = fmt.Sprintf("%.0f %%", 100*c.Held), strconv.Itoa(c.Leaks)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t\n", n, held, leaks)
		}
		tw.Flush()
	}
	if len(r.Dims) > 0 {
		fmt.Fprintln(w, "\nintrinsic dimension of the context keys (Two-NN: Facco et al.'s fit, top 10 % of μ discarded; mean of the KV heads, per head after)")
		fmt.Fprintln(tw, "context\ttokens\tlayer\tTwo-NN\tMLE\tper head\t")
		for _, d := range r.Dims {
			var hs []string
			for _, h := range d.Heads {
				hs = append(hs, fmt.Sprintf("%.1f", h.Fit))
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.1f\t%.1f\t%s\t\n", d.NCtx, d.Tokens, d.Layer, d.Fit, d.MLE, strings.Join(hs, " "))
		}
		tw.Flush()
	}
	if len(r.PPL) > 0 {
		fmt.Fprintln(w, "\nperplexity under eviction (second half of every window scored)")
		fmt.Fprintln(tw, "scorer\tkeep\tppl\tmean entries attended\ttokens\t")
		for _, p := range r.PPL {
			fmt.Fprintf(tw, "%s\t%g\t%.3f\t%.0f\t%d\t\n", p.Scorer, p.Keep, p.PPL, p.MeanKept, p.Scored)
		}
		tw.Flush()
	}
	if len(r.Speed) > 0 {
		fmt.Fprintln(w, "\ndecode at the longest context (rounds alternate the rows)")
		fmt.Fprintln(tw, "keep\tscorer\tcontext\tentries\tKV bytes\ttok/s (median)\tspread\t")
		for _, s := range r.Speed {
			lo, med, hi := spread(s.TokS)
			fmt.Fprintf(tw, "%g\t%s\t%d\t%d\t%d\t%.0f\t%.0f–%.0f\t\n", s.Keep, s.Scorer, s.Context, s.Entries, s.KVBytes, med, lo, hi)
		}
		tw.Flush()
	}
}

// spread is the least, median and most of v.
func spread(v []float64) (lo, med, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[0], s[len(s)/2], s[len(s)-1]
}

// kvHead is `isagi eval kv --help` before the flags.
const kvHead = evalKVUsage + "\nFlags:\n"
