package evalcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// evalCOGUsage is the help of `isagi eval cog`.
const evalCOGUsage = `Usage: isagi eval cog [--model FILE | --demo] [--profile P] [--json]
       isagi eval cog --augment SET.jsonl [--model FILE | --demo=chat] [--items N] [--json]

Answering from memory (docs/geometry.md, "The living manifold"). Without
--augment: precision and recall of serving a stored answer on the held-out
memory set — true repeats (word for word, and in other case, spacing or
punctuation), near-misses (one name, number or negation changed) and
unrelated questions — with the distance histograms; beside the gate as it
was before conversation contexts were recorded (the RETRIEVE tier and the
plain distance under τ) and the bare RETRIEVE tier (the seed's rule); and
for answers given in the middle of a conversation, asked again at the same
point of it and in another conversation.

With --augment: whether the AUGMENT tier answers near questions better.
For each item of SET (one {"question", "answer", "paraphrase", "other",
"other_answer"} per line; testdata/cog-augment.jsonl is the chat fixture's)
the paraphrase is asked first and its reply stored, then the question in a
new conversation, with memory off and on; a reply is correct when it holds
the answer word. Chat models only.
`

// cmdEvalCOG is `isagi eval cog`: the memory gate on the held-out memory
// set, or with --augment the AUGMENT tier's accuracy on near questions.
func cmdEvalCOG(env base.Env, args []string) error {
	fs := env.FlagSet("eval cog", cogHead, "")
	var g base.GeoFlags
	g.Version = env.Version
	g.Register(fs)
	defer g.Dev.Close()
	asJSON := fs.Bool("json", false, "print the report as JSON")
	augment := fs.String("augment", "", "measure the AUGMENT tier on the near questions of `SET.jsonl`")
	items := fs.Int("items", 0, "--augment: the first N items only (0: all)")
	replyTokens := fs.Int("reply-tokens", 24, "--augment: tokens of each reply decoded greedily")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return base.ArgsError(fs, "eval cog takes no arguments, got %q", fs.Args())
	}
	switch {
	case *items < 0:
		return base.Usagef("--items %d: want 0 (every item) or more", *items)
	case *replyTokens < 1:
		return base.Usagef("--reply-tokens %d: want 1 or more", *replyTokens)
	case *augment == "" && (*items != 0 || *replyTokens != 24):
		return base.Usagef("--items and --reply-tokens are flags of eval cog --augment")
	}
	var set []evaluate.AugmentItem
	if *augment != "" {
		// Read whole as a regular file: a folder or a device is refused
		// by name, not with the reader's "read …: is a directory".
		b, err := regfile.ReadRegular(*augment, base.MaxTextBytes)
		if err != nil {
			return fmt.Errorf("eval cog --augment: %w", err)
		}
		set, err = evaluate.ReadAugmentItems(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", *augment, err)
		}
		if *items > 0 && *items < len(set) {
			set = set[:*items]
		}
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
	ctx, stop := base.Interruptible()
	defer stop()
	if *augment == "" {
		return evalCOG(ctx, s, p, *asJSON, env.Stdout, env.Stderr)
	}
	return evalCOGAugment(ctx, s, p, set, *replyTokens, *asJSON, env.Stdout, env.Stderr)
}

// evalCOG is `isagi eval cog`: the profile's memory gate on the held-out
// memory set.
func evalCOG(ctx context.Context, s *session.Session, p *geometry.Profile, asJSON bool, stdout, stderr io.Writer) error {
	set, err := prompts.COG()
	if err != nil {
		return err
	}
	rep, err := evaluate.COG(ctx, s.Geometry().CalibrationSource(), p, set, base.ProgressLine(stderr))
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if asJSON {
		return base.PrintJSON(stdout, rep)
	}
	printCOGReport(stdout, s.Info().Name, p, rep)
	return nil
}

// printCOGReport is eval cog's table and histograms.
func printCOGReport(w io.Writer, model string, p *geometry.Profile, rep *evaluate.COGReport) {
	fmt.Fprintf(w, "Answering from memory on the held-out set (%d stored requests), %s\n", rep.Stored, model)
	if g := p.COG; g != nil {
		fmt.Fprintf(w, "gate τ %.4f: calibrated between true repeats (largest under the bound %.4f) and the closest different prompts (%.4f); %.0f%% of calibration repeats under it\n",
			g.Tau, g.RepeatBelow, g.DistinctMin, 100*g.RepeatServed)
	} else {
		fmt.Fprintln(w, "gate: none calibrated (the profile predates it) — word-for-word repeats only; run `isagi calibrate` to calibrate it")
	}
	fmt.Fprintln(w, "served = the same request (exact check, any wording) under the same state, its answer given at the start of a")
	fmt.Fprintln(w, "  conversation and asked again in another one (or at the same point of the same conversation);")
	fmt.Fprintln(w, "before = the gate before contexts were recorded: the same request in RETRIEVE (d < 0.05) and under τ;")
	fmt.Fprintln(w, "seed rule = anything in RETRIEVE; mid-conversation = the answers given in the middle of a conversation,")
	fmt.Fprintln(w, "  asked again at the same point of it / in another conversation")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\t\t\tserved\t\tbefore\t\tseed rule\t\tmid-conversation\t\t")
	fmt.Fprintln(tw, "question\tkind\tasked\tserved\twrong\tserved\twrong\tserved\twrong\tsame point\tother\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Group, r.Kind, r.N, r.Served, r.Wrong, r.TauServed, r.TauWrong, r.SeedServed, r.SeedWrong, r.MidSame, r.MidOther)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, l := range []struct {
		name                         string
		precision, recallExact, rall float64
		wrong                        int
	}{
		{"gate:     ", rep.Precision, rep.RecallExact, rep.Recall, rep.WrongNearMiss},
		{"before:   ", rep.TauPrecision, rep.TauRecallExact, rep.TauRecall, rep.TauWrongNearMiss},
		{"seed rule:", rep.SeedPrecision, rep.SeedRecallExact, rep.SeedRecall, rep.SeedWrongNearMiss},
	} {
		fmt.Fprintf(w, "%s precision %.1f%%, recall %.1f%% of word-for-word repeats, %.1f%% of all repeats; %d near-misses served a wrong answer\n",
			l.name, 100*l.precision, 100*l.recallExact, 100*l.rall, l.wrong)
	}
	fmt.Fprintf(w, "answers given mid-conversation: %.1f%% of all repeats served at the same point; %d questions served one in another conversation\n",
		100*rep.MidSameRecall, rep.MidOtherServed)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "plain distance from the stored request it was written against (counts per bin):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "question\tkind\t"
	prev := "0"
	for _, e := range evaluate.COGBins() {
		head += fmt.Sprintf("%s–%g\t", prev, e)
		prev = fmt.Sprintf("%g", e)
	}
	fmt.Fprintln(tw, head+"≥"+prev+"\t")
	for _, r := range rep.Rows {
		line := r.Group + "\t" + r.Kind + "\t"
		for _, c := range r.Hist {
			line += fmt.Sprintf("%d\t", c)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// evalCOGAugment is `isagi eval cog --augment`: the AUGMENT tier's
// accuracy on the near questions of set.
func evalCOGAugment(ctx context.Context, s *session.Session, p *geometry.Profile, set []evaluate.AugmentItem, replyTokens int, asJSON bool, stdout, stderr io.Writer) error {
	// Greedy, as the measurement decodes, and replies as long as it reads
	// them: the prompt is fitted as Send fits it.
	for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", fmt.Sprint(replyTokens)}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	rep, err := evaluate.COGAugment(ctx, s.Geometry().CalibrationSource(), p, set,
		evaluate.AugmentOptions{Prompt: s.Memory().AugmentedPrompt, MaxTokens: replyTokens}, base.ProgressLine(stderr))
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if asJSON {
		return base.PrintJSON(stdout, rep)
	}
	printAugmentReport(stdout, s.Info().Name, rep)
	return nil
}

// printAugmentReport is eval cog --augment's summary.
func printAugmentReport(w io.Writer, model string, rep *evaluate.AugmentReport) {
	fmt.Fprintf(w, "AUGMENT on near questions, %s: %d questions, each asked in a new conversation after a paraphrase whose reply memory stored\n", model, rep.Items)
	fmt.Fprintf(w, "tier of the question against its paraphrase:")
	for t := range cog.Tier(cog.NumTiers) {
		fmt.Fprintf(w, " %s %d", t, rep.Tiers[t.String()])
	}
	fmt.Fprintf(w, "; metric distance min %.4f, median %.4f, max %.4f (gate τ %.4f)\n", rep.DistanceMin, rep.DistanceMedian, rep.DistanceMax, rep.Tau)
	fmt.Fprintf(w, "the paraphrases' stored replies hold the fact: %s\n\n", score(rep.Stored))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "condition\tcorrect\t")
	fmt.Fprintf(tw, "memory off\t%s\t\n", score(rep.Off))
	fmt.Fprintf(tw, "memory on (the stored reply shown where the tier is AUGMENT: %d)\t%s\t\n", rep.Shown, score(rep.Memory))
	if rep.Shown > 0 {
		fmt.Fprintf(tw, "  on those %d: memory off → on\t%s → %s\t\n", rep.Shown, score(rep.OffWhereShown), score(rep.MemoryWhereShown))
	}
	fmt.Fprintf(tw, "the stored reply shown on every question (helped %d, hurt %d)\t%s\t\n", rep.Helped, rep.Hurt, score(rep.Forced))
	fmt.Fprintf(tw, "another entity's answer shown (copied its word: %d)\t%s\t\n", rep.Copied, score(rep.Wrong))
	fmt.Fprintf(tw, "memory on, all %d paraphrases stored (shown %d, this fact's %d)\t%s\t\n", rep.Items, rep.SharedShown, rep.SharedSameFact, score(rep.Shared))
	tw.Flush()
}

// score is "correct/n (accuracy %)".
func score(s evaluate.AugmentScore) string {
	return fmt.Sprintf("%d/%d (%.1f%%)", s.Correct, s.N, 100*s.Accuracy)
}

// cogHead is `isagi eval cog --help` before the flags.
const cogHead = evalCOGUsage + "\nFlags:\n"
