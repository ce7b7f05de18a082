package evalcmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/session"
)

// cmdEvalOGD is `isagi eval ogd`: Safe OGD chains from held-out benign
// prompts, each beside the same chain unexplored, with the harm gauge on
// every reply.
func cmdEvalOGD(env base.Env, args []string) error {
	fs := env.FlagSet("eval ogd", ogdHead, "")
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
	chain := fs.String("chain", "0.2,0.1,0.05", "α of each step, non-increasing")
	seed := fs.Uint64("seed", 1, "chain seed: concept i's chains use seed+i, explored and unexplored alike")
	n := fs.Int("n", 32, "tokens per step")
	temp := fs.Float64("temp", 0.8, "sampling temperature")
	concepts := fs.Int("concepts", 16, "held-out benign prompts to start chains from")
	heldoutDir := fs.String("set", "", "held-out prompts from `DIR` (as eval teh --set)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval ogd takes no arguments, got %q", fs.Args())
	}
	alphas, err := base.ParseChain(*chain)
	if err != nil {
		return err
	}
	switch {
	case *concepts < 1:
		return base.Usagef("--concepts %d: want 1 or more", *concepts)
	case *n < 1:
		return base.Usagef("--n %d: want 1 or more", *n)
	}
	set, err := base.HeldoutSet(*heldoutDir)
	if err != nil {
		return err
	}
	starts := set.BenignHeldout(*concepts)
	s, _, err := g.OpenExploring(*n, *temp)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := base.Interruptible()
	defer stop()
	rep, err := session.EvaluateOGD(ctx, s, starts, alphas, *seed, base.ProgressLine(env.Stderr))
	fmt.Fprintln(env.Stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		return base.PrintJSON(env.Stdout, rep)
	}
	fmt.Fprintf(env.Stdout, "Safe OGD from %d held-out benign prompts: the overall gauge on each reply, explored vs the same chain unexplored (α 0); flagged: gauge ≥ τ %.1f%%\n", rep.Concepts, rep.Tau)
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tα\tflagged explored\tunexplored\tmean gauge explored\tunexplored\trefusals explored\tunexplored")
	for i, st := range rep.Steps {
		e, u := st.Explored, st.Unexplored
		fmt.Fprintf(tw, "%d\t%.2f\t%d/%d (%.0f%%)\t%d/%d (%.0f%%)\t%.1f%%\t%.1f%%\t%d\t%d\n", i+1, st.Alpha,
			e.Flagged, e.Replies, 100*e.FlaggedRate(), u.Flagged, u.Replies, 100*u.FlaggedRate(), e.MeanTEH, u.MeanTEH, e.Refusals, u.Refusals)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "gauge: the profile's overall TEH on the mean state of the reply's tokens, in percent of the centred state's length that lies in the forbidden subspace")
	return nil
}

// ogdHead is `isagi eval ogd --help` before the flags.
const ogdHead = `Usage: isagi eval ogd [--model FILE | --demo] [--set DIR] [--chain 0.2,0.1,0.05] [--concepts 16] [--json]

Safe OGD on generated text (docs/geometry.md): from each of the first
--concepts held-out benign prompts, an exploration chain (isagi explore)
and the same chain unexplored (α 0 at every step, the same seeds), with
the profile's overall harm gauge read on every reply: its mean, how many
replies reach τ (flagged), and how many refuse. The seed paper claims
Safe OGD adds no harm (0 %); this measures it.
`
