// Package explore is `isagi explore`: a Safe OGD exploration chain from
// a seed concept.
package explore

import (
	"bufio"
	"fmt"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/session"
)

// Main is `isagi explore`: a Safe OGD chain from a seed concept.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("explore", usageHead, "")
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
	chain := fs.String("chain", "0.2,0.1,0.05", "α of each step, non-increasing (0.05–0.30 is the useful range)")
	seed := fs.Uint64("seed", 1, "chain seed: the same seed gives the same chain")
	n := fs.Int("n", 64, "tokens per step")
	temp := fs.Float64("temp", 0.8, "sampling temperature")
	asJSON := fs.Bool("json", false, "print the chain as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return base.ArgsError(fs, "explore needs one seed concept, got %d arguments", fs.NArg())
	}
	alphas, err := base.ParseChain(*chain)
	if err != nil {
		return err
	}
	s, p, err := g.OpenExploring(*n, *temp)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := base.Interruptible()
	defer stop()
	out := bufio.NewWriter(env.Stdout)
	cur := -1
	emit := func(step int, ev session.Event) {
		if *asJSON {
			return
		}
		if step != cur {
			cur = step
			fmt.Fprintf(out, "\n── step %d · α %.2f ──\n", step+1, alphas[step])
		}
		out.WriteString(ev.Piece)
		out.Flush()
	}
	c, err := s.Geometry().ExploreChain(ctx, fs.Arg(0), alphas, *seed, emit)
	if err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, c)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "\ndirection: %s\n", c.Direction)
	for i, st := range c.Steps {
		fmt.Fprintf(out, "step %d: α %.2f, seed %d, TEH of the output %.1f%% (peak %.1f%%, overall τ %.1f%%)\n",
			i+1, st.Alpha, st.Seed, st.TEH, st.TEHPeak, p.Overall.ROC.Tau)
	}
	if len(c.Steps) >= 2 {
		sc := c.Score
		fmt.Fprintf(out, "creativity %.1f/100 (%s): divergence %.3f, distinct-n %.3f, self-BLEU %.3f\n",
			sc.Total, sc.Grade(), sc.Divergence, sc.Distinct, sc.SelfBLEU)
	}
	return out.Flush()
}

// usageHead is `isagi explore --help` before the flags.
const usageHead = `Usage: isagi explore [--model FILE | --demo] [--chain 0.2,0.1,0.05] [--seed N] "seed concept"

Safe OGD exploration (docs/mechanisms.md §8): successive generations with
decreasing α, the first continuing the seed concept and each later one the
previous output, every step pushed along the concept's direction in the
residual stream with the geometry profile's forbidden subspace removed.
Prints each output with the TEH measured on it, then the chain's creativity
score (hidden-state divergence, distinct-n, self-BLEU; 0–100). Needs the
model's geometry profile (isagi calibrate).

Example:
  isagi explore --demo --chain 0.2,0.1,0.05 "a garden at dawn"
`
