package evaluate_test

import (
	"context"
	"testing"

	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/prompts"
)

// `isagi eval cog` on the kjv fixture: no near-miss is served a wrong
// answer, every word-for-word repeat is served its own, and the seed's
// rule, scored on the same lookups, does serve wrong answers (so the
// measurement can tell).
func TestCOG(t *testing.T) {
	p := kjvProfile(t)
	set, err := prompts.COG()
	if err != nil {
		t.Fatal(err)
	}
	s := openKJV(t)
	rep, err := evaluate.COG(context.Background(), s.Geometry().CalibrationSource(), p, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		t.Logf("%-9s %-11s n %3d served %3d wrong %d | τ rule %3d wrong %d | seed %3d wrong %3d | mid-conversation %3d, elsewhere %d | hist %v", r.Group, r.Kind, r.N,
			r.Served, r.Wrong, r.TauServed, r.TauWrong, r.SeedServed, r.SeedWrong, r.MidSame, r.MidOther, r.Hist)
	}
	if rep.WrongNearMiss != 0 || rep.Precision != 1 || rep.TauWrongNearMiss != 0 || rep.TauPrecision != 1 {
		t.Errorf("%d (τ rule %d) near-misses served a wrong answer; precision %.3f (%.3f)", rep.WrongNearMiss, rep.TauWrongNearMiss, rep.Precision, rep.TauPrecision)
	}
	// Every wording of a stored request is served (the τ rule served every
	// word-for-word repeat, and some variants); an answer given in the
	// middle of a conversation at the same point of it, never elsewhere.
	if rep.Recall != 1 || rep.TauRecallExact < 0.99 || rep.TauRecall > rep.Recall || rep.MidSameRecall != 1 || rep.MidOtherServed != 0 {
		t.Errorf("recall %.1f%%, τ rule %.1f%% (word for word %.1f%%); mid-conversation answers: recall %.1f%% at the same point, %d served elsewhere",
			100*rep.Recall, 100*rep.TauRecall, 100*rep.TauRecallExact, 100*rep.MidSameRecall, rep.MidOtherServed)
	}
	if rep.SeedWrongNearMiss == 0 {
		t.Errorf("the seed's rule served no near-miss: the set does not test what it should")
	}
	rows, n := 0, 0
	for _, r := range rep.Rows {
		rows++
		n += r.N
		sum := 0
		for _, c := range r.Hist {
			sum += c
		}
		if sum != r.N || len(r.Hist) != len(evaluate.COGBins())+1 {
			t.Errorf("%s/%s: histogram %v of %d questions", r.Group, r.Kind, r.Hist, r.N)
		}
	}
	if want := 4*len(set.Repeats) + len(set.NearMisses) + len(set.Unrelated); n != want || rows != 4+3+1 {
		t.Errorf("%d questions in %d rows, want %d in 8", n, rows, want)
	}
}
