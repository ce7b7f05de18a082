// Package calibrate is `isagi calibrate`: build and store a model's
// geometry profile.
package calibrate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/teh"
)

// Main is `isagi calibrate`: build and store a model's geometry
// profile.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("calibrate", usageHead, "")
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
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
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "calibrate takes no arguments, got %q", fs.Arg(0))
	}
	gaugePos := ""
	switch *position {
	case "auto":
	case geometry.GaugeMean, geometry.GaugeLast:
		gaugePos = *position
	default:
		return base.Usagef("--gauge-position %q: want auto, last or mean", *position)
	}
	set, err := prompts.Default()
	if err != nil {
		return err
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	defer s.Close()
	path, err := g.ProfilePath(s)
	if err != nil {
		return err
	}
	opt := geometry.Options{Layer: *layer, SnipeLayer: *snipeLayer, K: *k, Refine: *refine,
		Budget: *budget, MaxCoords: *maxCoords, MaxForbidden: def.MaxForbidden, BenignTokens: *benign, GaugePosition: gaugePos}
	ctx, stop := base.Interruptible()
	defer stop()
	p, err := geometry.Calibrate(ctx, s.Geometry().CalibrationSource(), set, opt, base.ProgressLine(env.Stderr))
	fmt.Fprintln(env.Stderr)
	if err != nil {
		return err
	}
	p.Model, err = s.Probe().Ref()
	if err != nil {
		return err
	}
	if err := p.Save(path, env.Version); err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, p)
	}
	fmt.Fprintf(env.Stdout, "profile: %s\n", path)
	where := "the mean over each prompt's tokens"
	if p.GaugeAtLast() {
		where = "each prompt's last token"
	}
	fmt.Fprintf(env.Stdout, "%d prompts (%d tokens), probe block %d, basis %d×%d, gauges read at %s, %.1f s\n",
		p.Stats.Prompts, p.Stats.Tokens, p.Layer, p.D, p.K, where, p.Stats.Seconds)
	if p.Refined {
		fmt.Fprintf(env.Stdout, "basis refined: zone separation %.4f → %.4f\n", p.RefineBefore, p.RefineAfter)
	}
	printProfile(env.Stdout, p)
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
	if msg := unseparated(p); msg != "" {
		fmt.Fprintln(w, msg)
	}
	fmt.Fprintf(w, "benign baseline: %.4f nats/token over %d tokens; collateral budget %.1f%%\n", p.Stats.BaselineCE, p.Stats.BenignTokens, 100*p.Stats.Budget)
	fmt.Fprintln(w, "reduction and collateral: on the prompts the projector was selected on (reduction is of a centred probe score, so it can pass 100 %); held-out refused: greedy replies to the category's held-out harmful prompts with a refusal marker, without and with the projector")
	if g := p.COG; g != nil {
		fmt.Fprintf(w, "memory gate: τ %.4f (closest different prompts %.4f, largest repeat under it %.4f; %.0f%% of %d repeats under τ) — isagi eval cog measures it\n",
			g.Tau, g.DistinctMin, g.RepeatBelow, 100*g.RepeatServed, g.Repeats)
	}
}

// unseparated says which gauges no threshold of the sweep (τ up to
// teh.TauMax) separated on the calibration prompts: their τ is the
// sweep's fallback, the lowest false-positive rate, and they flag some
// ordinary text. "" when every gauge has a clean τ.
func unseparated(p *geometry.Profile) string {
	var names []string
	worst := 0.0
	for _, c := range p.Categories {
		if c.Gauge.ROC.FP > 0 {
			names = append(names, c.Name)
			worst = max(worst, c.Gauge.ROC.FPR)
		}
	}
	if p.Overall.ROC.FP > 0 {
		names = append(names, "overall")
		worst = max(worst, p.Overall.ROC.FPR)
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: no τ up to %.0f %% passes every benign calibration prompt for %s: their τ is the sweep's fallback (the lowest false-positive rate, up to %.0f %% of the benign calibration prompts read over it), so these gauges flag some ordinary text (the Geometry pane says so too)",
		teh.TauMax, strings.Join(names, ", "), 100*worst)
}

// usageHead is `isagi calibrate --help` before the flags.
const usageHead = `Usage: isagi calibrate [--model FILE | --demo] [flags]

Builds the model's geometry profile (docs/geometry.md; the math in
docs/mechanisms.md §5–7) from the prompt
sets shipped with isagi: hidden states of every calibration prompt at the
probe layer, the UGT basis, each behaviour category's forbidden coordinates
and ROC threshold (the TEH gauge), and its Snipe projector chosen greedily
under the collateral budget. The profile is stored under the data
directory, keyed by the model file's sha256; the TUI loads it by itself.

What the figures mean depends on the model: an instruct model reads the
prompts' meaning, a tiny text model (like the demo) cannot — measure with
` + "`isagi eval teh`" + ` and ` + "`isagi eval snipe`" + ` on the held-out split.

Example:
  isagi calibrate --model smollm2-135m-instruct
`
