// Package evalcmd is `isagi eval`: the geometry profile on held-out
// prompts (teh, snipe, refusals), the memory gate (cog), Safe OGD (ogd),
// KV eviction (kv) and the overlap of two profiles.
package evalcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/ugt"
)

// Main is `isagi eval`: the profile on the held-out split (teh, snipe,
// refusals), and the cog, ogd, kv and overlap evaluations.
func Main(version string, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "overlap" {
		return cmdOverlap(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "ogd" {
		return cmdEvalOGD(version, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "cog" {
		return cmdEvalCOG(version, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "kv" {
		return cmdEvalKV(version, args[1:], stdout, stderr)
	}
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(stderr, evalUsage)
		return flag.ErrHelp
	}
	if len(args) == 0 || (args[0] != "teh" && args[0] != "snipe" && args[0] != "cog" && args[0] != "refusals") {
		return base.Usagef("eval needs teh, snipe, refusals, cog, ogd, kv or overlap (see \"isagi eval --help\")")
	}
	which := args[0]
	fs := flag.NewFlagSet("eval "+which, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var g base.GeoFlags
	g.Version = version
	g.Register(fs)
	defer g.Dev.Close()
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
	if err := base.ParseFlags(fs, args[1:], stderr); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval %s takes no arguments, got %q", which, fs.Args())
	}
	switch {
	case *perCat < 0:
		return base.Usagef("--per-category %d: want 0 (every held-out prompt) or more", *perCat)
	case *replyTokens < 1:
		return base.Usagef("--reply-tokens %d: want 1 or more", *replyTokens)
	}
	set, err := base.HeldoutSet(*heldoutDir)
	if err != nil {
		return err
	}
	if *positions && which != "teh" {
		return base.Usagef("--positions is a flag of eval teh")
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := g.LoadProfile(s)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var rep any
	switch which {
	case "teh":
		var r *geometry.TEHReport
		r, err = geometry.EvaluateTEH(ctx, s.Geometry().CalibrationSource(), p, set, base.ProgressLine(stderr))
		if err == nil && *positions {
			r.Positions, err = geometry.EvaluateTEHPositions(ctx, s.Geometry().CalibrationSource(), p, set, *replyTokens, base.ProgressLine(stderr))
		}
		rep = r
	case "refusals":
		rep, err = geometry.EvaluateRefusals(ctx, s.Geometry().CalibrationSource(), p, set, geometry.RefusalOptions{PerCategory: *perCat, MaxTokens: *replyTokens}, base.ProgressLine(stderr))
	default:
		rep, err = geometry.EvaluateSnipe(ctx, s.Geometry().CalibrationSource(), p, set, *benign, base.ProgressLine(stderr))
	}
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(stdout, rep)
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
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(stderr, evalUsage)
		return flag.ErrHelp
	}
	if len(args) != 2 {
		return base.Usagef("eval overlap needs two profile files (see <data dir>/profiles), got %d", len(args))
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
