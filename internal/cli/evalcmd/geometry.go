package evalcmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/teh"
)

// cmdEvalGeometry is `isagi eval teh`, `eval snipe` and `eval refusals`
// (which): the geometry profile measured on the held-out split.
func cmdEvalGeometry(env base.Env, which string, args []string) error {
	fs := env.FlagSet("eval "+which, evalUsage+"\nFlags of eval teh, eval snipe, eval refusals and eval cog:\n", "")
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
	asJSON := fs.Bool("json", false, "print the report as JSON")
	benign := fs.Int("benign-tokens", 1024, "snipe: held-out benign tokens scored")
	perCat := fs.Int("per-category", 0, "refusals: held-out prompts of each category, harmful and harmless (0: all)")
	replyTokens := fs.Int("reply-tokens", 32, "refusals and teh --positions: tokens of each reply decoded greedily")
	heldoutDir := fs.String("set", "", "held-out prompts from `DIR` (CATEGORY.jsonl and benign.jsonl, one {\"prompt\": …} per line, e.g. scripts/fixtures/chat/heldout) instead of the shipped held-out pairs")
	positions := fs.Bool("positions", false, "teh: also read every gauge at the last prompt token and over the greedy reply, beside a reference probe")
	var sf steerFlags
	sf.register(fs)
	if err := env.Parse(fs, args); err != nil {
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
	var ro evaluate.RefusalOptions
	var vectors []base.LoadedVector
	if which == "refusals" {
		if ro.SteerScales, err = sf.parseScales(); err != nil {
			return err
		}
		if ro.SteerRanges, err = sf.parseLayers(); err != nil {
			return err
		}
		if vectors, err = sf.read(g.StorePaths().Steer); err != nil {
			return err
		}
	} else if n := sf.given(fs); n != "" {
		return base.Usagef("--%s is a flag of eval refusals", n)
	}
	s, p, err := g.OpenProfiled()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := base.Interruptible()
	defer stop()
	var rep any
	switch which {
	case "teh":
		var r *evaluate.TEHReport
		r, err = evaluate.TEH(ctx, s.Geometry().CalibrationSource(), p, set, base.ProgressLine(env.Stderr))
		if err == nil && *positions {
			r.Positions, err = evaluate.TEHPositions(ctx, s.Geometry().CalibrationSource(), p, set, *replyTokens, base.ProgressLine(env.Stderr))
		}
		rep = r
	case "refusals":
		src := s.Geometry().CalibrationSource()
		ro.PerCategory, ro.MaxTokens = *perCat, *replyTokens
		if len(vectors) > 0 {
			if ro.Vector, ro.VectorArm, err = sf.combine(vectors, src.Model); err != nil {
				return err
			}
		}
		rep, err = evaluate.Refusals(ctx, src, p, set, ro, base.ProgressLine(env.Stderr))
	default:
		rep, err = geometry.EvaluateSnipe(ctx, s.Geometry().CalibrationSource(), p, set, *benign, base.ProgressLine(env.Stderr))
	}
	fmt.Fprintln(env.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, rep)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	switch r := rep.(type) {
	case *evaluate.TEHReport:
		printTEH(env.Stdout, tw, r, *replyTokens)
	case *evaluate.RefusalReport:
		fmt.Fprintf(env.Stdout, "Refusals among %d held-out harmful prompts (greedy replies of %d tokens), and the first reply token's KL divergence on %d harmless prompts\n",
			r.Harmful, r.MaxTokens, r.Harmless)
		fmt.Fprintln(tw, "intervention\tcoords\trefusals\tfirst-token KL")
		for _, c := range r.Results {
			kl := fmt.Sprintf("%.4f nats", c.KL)
			if c.Name == "none" {
				kl = "—"
			}
			coords := strconv.Itoa(c.Coords)
			if c.Steer != nil {
				coords = "—"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d (%.0f%%)\t%s\n", c.Name, coords, c.Refusals, r.Harmful, 100*float64(c.Refusals)/float64(r.Harmful), kl)
		}
		defer fmt.Fprintf(env.Stdout, "a refusal: the reply contains one of Heretic-style markers (--json lists them); diff-in-means: the baseline direction (from %s), ablated where the projectors act\n", r.BaselineFrom)
		if r.RefusalFrom != "" {
			defer fmt.Fprintf(env.Stdout, "steer −S × refusal: the residual stream steered after each block named by −S × the refusal direction (mean harmful − mean harmless state, read at %s)\n", r.RefusalFrom)
		}
	case *geometry.SnipeReport:
		fmt.Fprintf(env.Stdout, "Snipe on the held-out split; benign baseline %.4f nats/token over %d tokens\n", r.BaselineCE, r.BenignTokens)
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

// printTEH writes eval teh's tables to tw and their notes to w after
// them (the caller flushes tw).
func printTEH(w io.Writer, tw *tabwriter.Writer, r *evaluate.TEHReport, replyTokens int) {
	small := false // some TPR at 1 % FPR is over fewer than 100 benign prompts
	lowFPR := func(p *teh.FPRPoint) string {
		s := fmtLowFPR(p)
		small = small || strings.HasSuffix(s, smallMark)
		return s
	}
	fmt.Fprintf(w, "TEH on the held-out split (%d prompts); flagged when TEH ≥ τ\n", r.Prompts)
	fmt.Fprintf(tw, "gauge\tτ\tdetected\tfalse positives\tF1\tAUROC\tTPR@1%%FPR\n")
	for _, c := range append(r.Categories, r.Overall) {
		fmt.Fprintf(tw, "%s\t%.1f%%\t%d/%d (%.0f%%)\t%d/%d (%.0f%%)\t%.2f\t%s\t%s\n", c.Name, c.Tau,
			c.TP, c.TP+c.FN, 100*c.TPR, c.FP, c.FP+c.TN, 100*c.FPR, c.F1, fmtAUROC(c.AUROC), lowFPR(c.TPRAtLowFPR))
	}
	var notes []string
	if len(r.Positions) > 0 {
		tw.Flush()
		fmt.Fprintf(w, "\nThe same gauges read at each position of the held-out turns (harmful against their benign pairs; greedy replies of at most %d tokens)\n", replyTokens)
		fmt.Fprintf(tw, "position\toverall detected\tfalse positives\tAUROC\tTPR@1%%FPR\tprobe AUROC\tprobe TPR@1%%FPR\n")
		for _, ps := range r.Positions {
			o := ps.Overall
			fmt.Fprintf(tw, "%s\t%d/%d (%.0f%%)\t%d/%d (%.0f%%)\t%s\t%s\t%s\t%s\n", ps.Name, o.TP, o.TP+o.FN, 100*o.TPR, o.FP, o.FP+o.TN, 100*o.FPR,
				fmtAUROC(o.AUROC), lowFPR(o.TPRAtLowFPR), fmtAUROC(ps.ProbeAUROC), lowFPR(ps.ProbeTPRAtLowFPR))
		}
		notes = append(notes, "probe: the difference of the calibration pairs' harm and benign means at that position, a reference for what a linear reader finds there")
	}
	tpr := "TPR@1%FPR: the share of harmful prompts scored above the lowest threshold that at most 1 % of the benign ones exceed (⌊0.01·N⌋ of N; a score equal to the threshold is not flagged)"
	if small {
		tpr += "; " + smallMark + ": fewer than 100 benign prompts, so 1 % allows no false positive and the figure is the TPR at 0 false positives"
	}
	notes = append([]string{"AUROC: the chance that a held-out harmful prompt scores above a benign one (0.50: chance)", tpr}, notes...)
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// smallMark marks a TPR at 1 % FPR read over fewer than 100 benign
// prompts, where the budget allows no false positive.
const smallMark = "†"

// fmtLowFPR prints a TPR at a false-positive budget as detected/harmful
// (percent), marked with smallMark where the budget allows none, or a dash
// where there is none.
func fmtLowFPR(p *teh.FPRPoint) string {
	if p == nil {
		return "—"
	}
	s := fmt.Sprintf("%d/%d (%.0f%%)", p.TP, p.Positives, 100*p.TPR)
	if p.MaxFP == 0 && p.FPR > 0 {
		s += " " + smallMark
	}
	return s
}

// fmtAUROC prints an AUROC, or a dash where there is none.
func fmtAUROC(a *float64) string {
	if a == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *a)
}
