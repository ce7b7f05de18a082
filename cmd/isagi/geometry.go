package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/ugt"
)

// geoFlags are the flags of the commands that use a geometry profile.
type geoFlags struct {
	modelFlags
	profile string
}

func (g *geoFlags) register(fs *flag.FlagSet) {
	g.registerThreads(fs)
	fs.StringVar(&g.profile, "profile", "", "geometry profile file (default: the data directory's, found by the model's sha256)")
}

// open loads the model as a session (calibration tokenises prompts the way
// chat does). 512 positions hold any calibration prompt and an exploration
// step's output.
func (g *geoFlags) open() (*session.Session, error) {
	return g.openSession(session.Options{Ctx: 512, AppVersion: version})
}

// profilePath is --profile, else the data directory's file for s's model.
func (g *geoFlags) profilePath(s *session.Session) (string, error) {
	if g.profile != "" {
		return g.profile, nil
	}
	dir := g.storePaths().Profiles
	if dir == "" {
		return "", fmt.Errorf("no data directory for profiles (pass --profile FILE): %w", g.pathsErr)
	}
	sum, err := s.ModelSHA256()
	if err != nil {
		return "", err
	}
	return geometry.ProfilePath(dir, sum), nil
}

// loadProfile reads the model's profile, saying how to make one if there
// is none.
func (g *geoFlags) loadProfile(s *session.Session) (*geometry.Profile, error) {
	path, err := g.profilePath(s)
	if err != nil {
		return nil, err
	}
	p, err := geometry.LoadProfile(path, -1)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no geometry profile for %s at %s: build one with `isagi calibrate%s`", s.Info().Name, path, g.modelArg())
	}
	if err != nil {
		return nil, err
	}
	sum, err := s.ModelSHA256()
	if err != nil {
		return nil, err
	}
	if err := p.Check(sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func (g *geoFlags) modelArg() string {
	if g.demo {
		if g.which == "chat" {
			return " --demo=chat"
		}
		return " --demo"
	}
	if g.model != "" {
		return " --model " + g.model
	}
	return ""
}

// progressLine draws calibration progress: one redrawn line on a
// terminal; in a log, a line per stage and at most one every two seconds.
func progressLine(w io.Writer) geometry.Progress {
	start := time.Now()
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	last, printed := "", time.Time{}
	return func(stage string, done, total int) {
		line := fmt.Sprintf("%-24s [%-30s] %d/%d  %s", stage, bar(done, total, 30), done, total, time.Since(start).Round(100*time.Millisecond))
		switch {
		case tty:
			if stage != last && last != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprint(w, "\r"+line+" ")
		case stage != last || done == total || time.Since(printed) >= 2*time.Second:
			fmt.Fprintln(w, line)
			printed = time.Now()
		}
		last = stage
	}
}

// cmdCalibrate is `isagi calibrate`: build and store a model's geometry
// profile.
func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var g geoFlags
	g.register(fs)
	defer g.dev.close()
	def := geometry.DefaultOptions()
	layer := fs.Int("layer", -1, "probe block (0-based); -1: the last block")
	snipeLayer := fs.Int("snipe-layer", -1, "first block a projector edits; -1: the probe block")
	k := fs.Int("k", 0, "UGT basis rank; 0: min(64, prompts−1, width)")
	refine := fs.Bool("refine", false, "refine the basis on the Stiefel manifold to separate the zones")
	budget := fs.Float64("budget", def.Budget, "benign collateral a projector may cost (0.02 = 2 % more cross-entropy)")
	maxCoords := fs.Int("max-coords", def.MaxCoords, "most coordinates one projector removes")
	benign := fs.Int("benign-tokens", def.BenignTokens, "benign text tokens scored per greedy step (sets the time)")
	asJSON := fs.Bool("json", false, "print the profile's figures as JSON")
	position := fs.String("gauge-position", "auto", "where the TEH gauges read a prompt: last (its last token), mean (the mean over its tokens), or auto (last for a model with a chat template, else mean)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: isagi calibrate [--model FILE | --demo] [flags]

Builds the model's geometry profile (docs/geometry.md; the math in
docs/mechanisms.md §5–7) from the prompt
sets shipped with isagi: hidden states of every calibration prompt at the
probe layer, the UGT basis, each behaviour category's forbidden coordinates
and ROC threshold (the TEH gauge), and its Snipe projector chosen greedily
under the collateral budget. The profile is stored under the data
directory, keyed by the model file's sha256; the TUI loads it by itself.

What the figures mean depends on the model: an instruct model reads the
prompts' meaning, a tiny text model (like the demo) cannot — measure with
`+"`isagi eval teh`"+` and `+"`isagi eval snipe`"+` on the held-out split.

Example:
  isagi calibrate --model smollm2-135m-instruct
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return argsError(fs, "calibrate takes no arguments, got %q", fs.Arg(0))
	}
	gaugePos := ""
	switch *position {
	case "auto":
	case geometry.GaugeMean, geometry.GaugeLast:
		gaugePos = *position
	default:
		return usagef("--gauge-position %q: want auto, last or mean", *position)
	}
	set, err := prompts.Default()
	if err != nil {
		return err
	}
	s, err := g.open()
	if err != nil {
		return err
	}
	defer s.Close()
	path, err := g.profilePath(s)
	if err != nil {
		return err
	}
	opt := geometry.Options{Layer: *layer, SnipeLayer: *snipeLayer, K: *k, Refine: *refine,
		Budget: *budget, MaxCoords: *maxCoords, MaxForbidden: def.MaxForbidden, BenignTokens: *benign, GaugePosition: gaugePos}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, err := geometry.Calibrate(ctx, s.CalibrationSource(), set, opt, progressLine(stderr))
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	p.Model, err = s.ModelRef()
	if err != nil {
		return err
	}
	if err := p.Save(path, version); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, p)
	}
	fmt.Fprintf(stdout, "profile: %s\n", path)
	where := "the mean over each prompt's tokens"
	if p.GaugeAtLast() {
		where = "each prompt's last token"
	}
	fmt.Fprintf(stdout, "%d prompts (%d tokens), probe block %d, basis %d×%d, gauges read at %s, %.1f s\n",
		p.Stats.Prompts, p.Stats.Tokens, p.Layer, p.D, p.K, where, p.Stats.Seconds)
	if p.Refined {
		fmt.Fprintf(stdout, "basis refined: zone separation %.4f → %.4f\n", p.RefineBefore, p.RefineAfter)
	}
	printProfile(stdout, p)
	return nil
}

// printProfile is the calibration table: per category the gauge and the
// projector as measured on the calibration split.
func printProfile(w io.Writer, p *geometry.Profile) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tgauge coords\tτ\tTPR\tFPR\tsnipe coords\treduction\tcollateral\tstopped by\theld-out refused off→on")
	for _, c := range p.Categories {
		refused := "—"
		if h := c.Snipe.HeldOut; h != nil && h.Refusals != nil {
			refused = fmt.Sprintf("%d→%d of %d", h.Refusals.Before, h.Refusals.After, h.Refusals.Prompts)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.2f\t%.2f\t%d\t%.1f%%\t%.2f%%\t%s\t%s\n", c.Name, len(c.Gauge.Forbidden),
			c.Gauge.ROC.Tau, c.Gauge.ROC.TPR, c.Gauge.ROC.FPR, len(c.Snipe.Coords), 100*c.Snipe.Reduction, 100*c.Snipe.Collateral, c.Snipe.StoppedBy, refused)
	}
	o := p.Overall
	fmt.Fprintf(tw, "overall\t%d\t%.1f%%\t%.2f\t%.2f\t\t\t\t\n", len(o.Forbidden), o.ROC.Tau, o.ROC.TPR, o.ROC.FPR)
	tw.Flush()
	fmt.Fprintf(w, "benign baseline: %.4f nats/token over %d tokens; collateral budget %.1f%%\n", p.Stats.BaselineCE, p.Stats.BenignTokens, 100*p.Stats.Budget)
	fmt.Fprintln(w, "reduction and collateral: on the prompts the projector was selected on (reduction is of a centred probe score, so it can pass 100 %); held-out refused: greedy replies to the category's held-out harmful prompts with a refusal marker, without and with the projector")
	if g := p.COG; g != nil {
		fmt.Fprintf(w, "memory gate: τ %.4f (closest different prompts %.4f, largest repeat under it %.4f; %.0f%% of %d repeats under τ) — isagi eval cog measures it\n",
			g.Tau, g.DistinctMin, g.RepeatBelow, 100*g.RepeatServed, g.Repeats)
	}
}

// cmdEval is `isagi eval teh|snipe`: the profile on the held-out split.
func cmdEval(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "overlap" {
		return cmdOverlap(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "ogd" {
		return cmdEvalOGD(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "cog" {
		return cmdEvalCOG(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "kv" {
		return cmdEvalKV(args[1:], stdout, stderr)
	}
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stderr, evalUsage)
		return flag.ErrHelp
	}
	if len(args) == 0 || (args[0] != "teh" && args[0] != "snipe" && args[0] != "cog" && args[0] != "refusals") {
		return usagef("eval needs teh, snipe, refusals, cog, ogd, kv or overlap (see \"isagi eval --help\")")
	}
	which := args[0]
	fs := flag.NewFlagSet("eval "+which, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var g geoFlags
	g.register(fs)
	defer g.dev.close()
	asJSON := fs.Bool("json", false, "print the report as JSON")
	benign := fs.Int("benign-tokens", 1024, "snipe: held-out benign tokens scored")
	perCat := fs.Int("per-category", 0, "refusals: held-out prompts of each category, harmful and harmless (0: all)")
	replyTokens := fs.Int("reply-tokens", 32, "refusals and teh --positions: tokens of each reply decoded greedily")
	heldoutDir := fs.String("set", "", "held-out prompts from `DIR` (CATEGORY.jsonl and benign.jsonl, one {\"prompt\": …} per line, e.g. scripts/fixtures/chat/heldout) instead of the shipped held-out pairs")
	positions := fs.Bool("positions", false, "teh: also read every gauge at the last prompt token and over the greedy reply, beside a reference probe")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), evalUsage, "\nFlags of eval teh, eval snipe, eval refusals and eval cog:\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args[1:], stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return argsError(fs, "eval %s takes no arguments, got %q", which, fs.Args())
	}
	switch {
	case *perCat < 0:
		return usagef("--per-category %d: want 0 (every held-out prompt) or more", *perCat)
	case *replyTokens < 1:
		return usagef("--reply-tokens %d: want 1 or more", *replyTokens)
	}
	set, err := heldoutSet(*heldoutDir)
	if err != nil {
		return err
	}
	if *positions && which != "teh" {
		return usagef("--positions is a flag of eval teh")
	}
	s, err := g.open()
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := g.loadProfile(s)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var rep any
	switch which {
	case "teh":
		var r *geometry.TEHReport
		r, err = geometry.EvaluateTEH(ctx, s.CalibrationSource(), p, set, progressLine(stderr))
		if err == nil && *positions {
			r.Positions, err = geometry.EvaluateTEHPositions(ctx, s.CalibrationSource(), p, set, *replyTokens, progressLine(stderr))
		}
		rep = r
	case "refusals":
		rep, err = geometry.EvaluateRefusals(ctx, s.CalibrationSource(), p, set, geometry.RefusalOptions{PerCategory: *perCat, MaxTokens: *replyTokens}, progressLine(stderr))
	default:
		rep, err = geometry.EvaluateSnipe(ctx, s.CalibrationSource(), p, set, *benign, progressLine(stderr))
	}
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	switch r := rep.(type) {
	case *geometry.TEHReport:
		fmt.Fprintf(stdout, "TEH on the held-out split (%d prompts); flagged when TEH ≥ τ\n", r.Prompts)
		fmt.Fprintln(tw, "gauge\tτ\tdetected\tfalse positives\tF1\tAUROC")
		for _, c := range append(r.Categories, r.Overall) {
			fmt.Fprintf(tw, "%s\t%.1f%%\t%d/%d (%.0f%%)\t%d/%d (%.0f%%)\t%.2f\t%s\n", c.Name, c.Tau,
				c.TP, c.TP+c.FN, 100*c.TPR, c.FP, c.FP+c.TN, 100*c.FPR, c.F1, fmtAUROC(c.AUROC))
		}
		if len(r.Positions) > 0 {
			tw.Flush()
			fmt.Fprintf(stdout, "\nThe same gauges read at each position of the held-out turns (harmful against their benign pairs; greedy replies of at most %d tokens)\n", *replyTokens)
			fmt.Fprintln(tw, "position\toverall detected\tfalse positives\tAUROC\tprobe AUROC")
			for _, ps := range r.Positions {
				o := ps.Overall
				fmt.Fprintf(tw, "%s\t%d/%d (%.0f%%)\t%d/%d (%.0f%%)\t%s\t%s\n", ps.Name, o.TP, o.TP+o.FN, 100*o.TPR, o.FP, o.FP+o.TN, 100*o.FPR, fmtAUROC(o.AUROC), fmtAUROC(ps.ProbeAUROC))
			}
			defer fmt.Fprintln(stdout, "probe: the difference of the calibration pairs' harm and benign means at that position, a reference for what a linear reader finds there")
		}
		defer fmt.Fprintln(stdout, "AUROC: the chance that a held-out harmful prompt scores above a benign one (0.50: chance)")
	case *geometry.RefusalReport:
		fmt.Fprintf(stdout, "Refusals among %d held-out harmful prompts (greedy replies of %d tokens), and the first reply token's KL divergence on %d harmless prompts\n",
			r.Harmful, r.MaxTokens, r.Harmless)
		fmt.Fprintln(tw, "intervention\tcoords\trefusals\tfirst-token KL")
		for _, c := range r.Results {
			kl := fmt.Sprintf("%.4f nats", c.KL)
			if c.Name == "none" {
				kl = "—"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d/%d (%.0f%%)\t%s\n", c.Name, c.Coords, c.Refusals, r.Harmful, 100*float64(c.Refusals)/float64(r.Harmful), kl)
		}
		defer fmt.Fprintln(stdout, "a refusal: the reply contains one of Heretic-style markers (--json lists them); diff-in-means: the baseline direction, ablated where the projectors act")
	case *geometry.SnipeReport:
		fmt.Fprintf(stdout, "Snipe on the held-out split; benign baseline %.4f nats/token over %d tokens\n", r.BaselineCE, r.BenignTokens)
		fmt.Fprintln(tw, "projector\tcoords\treduction\tcollateral\t(calibration: reduction, collateral)")
		for _, c := range r.Categories {
			if c.Coords == 0 {
				fmt.Fprintf(tw, "%s\t0\t—\t—\t(no coordinate within budget)\n", c.Name)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.2f%%\t(%.1f%%, %.2f%%)\n", c.Name, c.Coords,
				100*c.Reduction, 100*c.Collateral, 100*c.CalReduction, 100*c.CalCollateral)
		}
	}
	return tw.Flush()
}

// evalUsage is the help of `isagi eval`.
const evalUsage = `Usage: isagi eval teh|snipe|refusals|cog|ogd [--model FILE | --demo] [--profile P] [--set DIR] [--json]
       isagi eval kv --model FILE (--haystack TEXT | --cases FILE | --ppl TEXT) [--json]
       isagi eval overlap PROFILE_A PROFILE_B

  teh      detection rate and false positives of every TEH gauge on the
           held-out prompts, at the threshold calibration chose, and its
           AUROC over every threshold; --positions also reads the gauges
           at the last prompt token and over the greedy reply
  snipe    harm reduction and benign collateral of every projector on the
           held-out prompts and text
  refusals Heretic's metric: refusals among the held-out harmful prompts
           (greedy replies, counted by refusal markers) with no projector,
           each category's, all of them, and the difference-in-means
           baseline direction; and each one's first-token KL divergence
           on the held-out harmless prompts
  cog      precision and recall of answering from memory (the living
           manifold) on a held-out set: true repeats (word for word, and
           in other case, spacing or punctuation), near-misses (one name,
           number or negation changed) and unrelated questions, with the
           distance histograms — for the profile's gate and, for
           comparison, the bare RETRIEVE tier
  ogd      Safe OGD on generated text: exploration chains from held-out
           benign prompts beside the same chains unexplored, with the harm
           gauge, flags at τ and refusals on every reply (isagi eval ogd
           --help)
  kv       KV-cache eviction: retrieval accuracy of every scorer at every
           keep share (RULER-style cases), perplexity under eviction, and
           decode speed at a long context (isagi eval kv --help)
  overlap  bilateral overlap ‖B_Aᵀ B_B‖²_F / k of two profiles' UGT bases
           (1: the same subspace, 0: orthogonal) — e.g. a model and its
           quantisation

--set DIR measures on another held-out set (CATEGORY.jsonl and
benign.jsonl), such as the chat fixture's. A tiny text model (like the
demo) cannot tell harm from benign by meaning: measure on a chat model.
What each figure is, and the chat fixture's figures: docs/geometry.md.

Examples:
  isagi eval cog --demo
  isagi eval teh --model testdata/models/chat.gguf --set scripts/fixtures/chat/heldout --positions
`

// cmdOverlap is `isagi eval overlap A B`: how much two profiles' behavioural
// subspaces agree.
func cmdOverlap(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stderr, evalUsage)
		return flag.ErrHelp
	}
	if len(args) != 2 {
		return usagef("eval overlap needs two profile files (see <data dir>/profiles), got %d", len(args))
	}
	var ps [2]*geometry.Profile
	for i, path := range args {
		p, err := geometry.LoadProfile(path, -1)
		if err != nil {
			return err
		}
		ps[i] = p
	}
	if ps[0].D != ps[1].D || ps[0].K != ps[1].K {
		return fmt.Errorf("the bases differ in shape (%d×%d and %d×%d): overlap compares bases of one width and rank", ps[0].D, ps[0].K, ps[1].D, ps[1].K)
	}
	o, err := ugt.Overlap(ps[0].B, ps[1].B)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "overlap %.4f (k=%d, d=%d): %s (block %d) vs %s (block %d)\n", o, ps[0].K, ps[0].D,
		ps[0].Model.File, ps[0].Layer, ps[1].Model.File, ps[1].Layer)
	return nil
}

// fmtAUROC prints an AUROC, or a dash where there is none.
func fmtAUROC(a *float64) string {
	if a == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *a)
}

// heldoutSet is the shipped prompt sets, with the held-out pairs of dir
// (--set) when it is given.
func heldoutSet(dir string) (*prompts.Set, error) {
	set, err := prompts.Default()
	if err != nil || dir == "" {
		return set, err
	}
	if err := set.UseHeldoutDir(dir); err != nil {
		return nil, err
	}
	return set, nil
}

// printJSON writes v as indented JSON, as every --json report is printed.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
