package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// evalCOG is `isagi eval cog`: the profile's memory gate on the held-out
// memory set.
func evalCOG(ctx context.Context, s *session.Session, p *geometry.Profile, asJSON bool, stdout, stderr io.Writer) error {
	set, err := prompts.COG()
	if err != nil {
		return err
	}
	rep, err := geometry.EvaluateCOG(ctx, s.CalibrationSource(), p, set, progressLine(stderr))
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printCOGReport(stdout, s.Info().Name, p, rep)
	return nil
}

// printCOGReport is eval cog's table and histograms.
func printCOGReport(w io.Writer, model string, p *geometry.Profile, rep *geometry.COGReport) {
	fmt.Fprintf(w, "Answering from memory on the held-out set (%d stored requests), %s\n", rep.Stored, model)
	if g := p.COG; g != nil {
		fmt.Fprintf(w, "gate τ %.4f: calibrated between true repeats (largest under the bound %.4f) and the closest different prompts (%.4f); %.0f%% of calibration repeats under it\n",
			g.Tau, g.RepeatBelow, g.DistinctMin, 100*g.RepeatServed)
	} else {
		fmt.Fprintln(w, "gate: none calibrated (the profile predates it) — word-for-word repeats only; run `isagi calibrate` to calibrate it")
	}
	fmt.Fprintln(w, "served = the same request (exact check) under the same state, in RETRIEVE (d < 0.05) and under τ; seed rule = anything in RETRIEVE")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "question\tkind\tasked\tserved\twrong\tseed rule: served\twrong\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", r.Group, r.Kind, r.N, r.Served, r.Wrong, r.SeedServed, r.SeedWrong)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "gate:      precision %.1f%%, recall %.1f%% of word-for-word repeats, %.1f%% of all repeats; %d near-misses served a wrong answer\n",
		100*rep.Precision, 100*rep.RecallExact, 100*rep.Recall, rep.WrongNearMiss)
	fmt.Fprintf(w, "seed rule: precision %.1f%%, recall %.1f%% of word-for-word repeats, %.1f%% of all repeats; %d near-misses served a wrong answer\n",
		100*rep.SeedPrecision, 100*rep.SeedRecallExact, 100*rep.SeedRecall, rep.SeedWrongNearMiss)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "plain distance from the stored request it was written against (counts per bin):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "question\tkind\t"
	prev := "0"
	for _, e := range geometry.COGBins() {
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
