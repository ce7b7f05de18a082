package evaluate

import "testing"

// The report averages each arm apart and counts a reply at τ as flagged.
func TestOGDReport(t *testing.T) {
	r := NewOGDReport([]float64{0.2, 0.1}, 50)
	for _, a := range []struct {
		step     int
		explored bool
		teh      float64
		text     string
	}{{0, true, 60, "I cannot help with that."}, {0, true, 40, "Sure."}, {0, false, 50, "Fine."}, {1, false, 10, "ok"}} {
		if err := r.Add(a.step, a.explored, a.teh, a.teh+5, a.text); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add(2, true, 0, 0, ""); err == nil {
		t.Fatal("a third step of a two-step chain was accepted")
	}
	r.Finish()
	e, u := r.Steps[0].Explored, r.Steps[0].Unexplored
	if e.Replies != 2 || e.MeanTEH != 50 || e.MeanPeak != 55 || e.Flagged != 1 || e.Refusals != 1 || e.FlaggedRate() != 0.5 {
		t.Fatalf("explored step 1: %+v", e)
	}
	if u.Replies != 1 || u.Flagged != 1 || u.Refusals != 0 {
		t.Fatalf("unexplored step 1: %+v (a reply at τ is flagged)", u)
	}
	if r.Steps[1].Explored.Replies != 0 || r.Steps[1].Explored.FlaggedRate() != 0 || r.Steps[1].Unexplored.MeanTEH != 10 {
		t.Fatalf("step 2: %+v", r.Steps[1])
	}
}
