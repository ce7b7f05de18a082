package cog

import (
	"testing"
	"time"
)

// TestContextServesAnyWording: in the context a request was asked in,
// every wording the exact check calls the same request is served, however
// far its embedding lies; a near-miss never is, in any context; another
// context never gets an answer that is not portable.
func TestContextServesAnyWording(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	stored := []float64{1, 0, 0}
	caps := []float64{0, 1, 0} // d = 1: EXPLORE, far over any τ
	key := "greedy"
	accept := func(k string) bool { return k == key }
	g := Gate{Tau: 0.01, Calibrated: true}
	here := Context{ID: "after 3 + 4 = 7"}
	if _, err := m.RecordIn(stored, "Now add 5 to that.", "7 + 5 = 12.", key, here, Explore, t0); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, prompt, ctx string
		q                 []float64
		serve             bool
		reason            Reason
	}{
		{"word for word, same context", "Now add 5 to that.", here.ID, stored, true, Served},
		{"ALL CAPS, same context", "NOW ADD 5 TO THAT", here.ID, caps, true, Served},
		{"spaced, same context", "now  add 5 to that", here.ID, caps, true, Served},
		{"number changed, same context", "Now add 6 to that.", here.ID, stored, false, OtherRequest},
		{"not added, same context", "Now do not add 5 to that.", here.ID, stored, false, OtherRequest},
		{"word for word, another context", "Now add 5 to that.", "after 10 + 2 = 12", stored, false, OtherContext},
		{"lower case, another context", "now add 5 to that", "after 10 + 2 = 12", caps, false, OtherContext},
		{"no known context", "Now add 5 to that.", "", stored, false, OtherContext},
	} {
		l, err := m.FindIn(c.q, c.prompt, c.ctx, accept)
		if err != nil {
			t.Fatal(err)
		}
		d := g.Decide(c.q, l)
		if d.Serve != c.serve || d.Reason != c.reason {
			t.Errorf("%s: serve %v (%v), want %v (%v); %+v", c.name, d.Serve, d.Reason, c.serve, c.reason, d)
		}
		if d.Serve && (!d.InContext || d.Candidate.Trajectory.Answer != "7 + 5 = 12.") {
			t.Errorf("%s: served %+v", c.name, d)
		}
		// An answer of another conversation is not even shown as context.
		if c.ctx != here.ID && l.Near.Found {
			t.Errorf("%s: another context's answer offered for AUGMENT: %+v", c.name, l.Near)
		}
	}
	// A gate from before calibration serves word for word only, even in
	// the same context.
	l, _ := m.FindIn(caps, "NOW ADD 5 TO THAT", here.ID, accept)
	if d := UncalibratedGate().Decide(caps, l); d.Serve || d.Reason != Farther {
		t.Fatalf("uncalibrated gate, same context, far wording: %+v", d)
	}
	l, _ = m.FindIn(stored, "Now add 5 to that.", here.ID, accept)
	if d := UncalibratedGate().Decide(stored, l); !d.Serve {
		t.Fatalf("uncalibrated gate refused a word-for-word repeat in its context: %+v", d)
	}
}

// TestPortableAnswers: an answer given with no conversation before it is
// portable: served for any wording in any context, and the AUGMENT
// candidate wherever the query is asked; a near-miss still never.
func TestPortableAnswers(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	q := []float64{1, 0, 0}
	period := []float64{1, 0.05, 0} // d ≈ 0.0012: RETRIEVE
	lower := []float64{1, 0.5, 0}   // d ≈ 0.106: AUGMENT
	caps := []float64{0, 0, 1}      // d = 1: EXPLORE
	g := Gate{Tau: 0.01, Calibrated: true}
	opened := Context{ID: "fresh", Portable: true}
	if _, err := m.RecordIn(q, "Where does Arlo live?", "Arlo lives in Tolvo.", "k", opened, Explore, t0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, prompt, ctx string
		q                 []float64
		serve, inContext  bool
		reason            Reason
	}{
		{"word for word, elsewhere", "Where does Arlo live?", "later", q, true, false, Served},
		{"full stop dropped, elsewhere", "Where does Arlo live", "later", period, true, false, Served},
		{"lower case, elsewhere", "where does arlo live?", "later", lower, true, false, Served},
		{"capitals, no known context", "WHERE DOES ARLO LIVE", "", caps, true, false, Served},
		{"lower case, a fresh conversation again", "where does arlo live?", "fresh", lower, true, true, Served},
		{"another name", "Where does Bexa live?", "fresh", q, false, false, OtherRequest},
		{"not", "Where does Arlo not live?", "later", q, false, false, OtherRequest},
	} {
		l, err := m.FindIn(c.q, c.prompt, c.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := g.Decide(c.q, l)
		if d.Serve != c.serve || d.InContext != c.inContext || d.Reason != c.reason {
			t.Errorf("%s: %+v, want serve %v in context %v (%v)", c.name, d, c.serve, c.inContext, c.reason)
		}
		if !l.Near.Found || l.Near.Trajectory.Answer != "Arlo lives in Tolvo." {
			t.Errorf("%s: the portable answer is not the AUGMENT candidate: %+v", c.name, l.Near)
		}
	}
	// Trajectories recorded without a context (Record, old encodings) are portable and in
	// no context: "" never matches "".
	u := mustNew(t, Config{Dim: 3})
	if _, err := u.RecordKey(q, "Where does Arlo live?", "old", "k", Explore, t0); err != nil {
		t.Fatal(err)
	}
	l, _ := u.FindIn(lower, "where does arlo live", "", nil)
	if l.SameContext.Found || !l.SamePortable.Found {
		t.Fatalf("an uncontexted trajectory: %+v", l)
	}
	if d := g.Decide(lower, l); !d.Serve || d.InContext {
		t.Fatalf("an uncontexted trajectory, another wording: %+v", d)
	}
}

// TestRegenerationStaysInItsContext: a RETRIEVE record replaces the same
// request's answer only in the same context, and ReplaceIn gives the new
// answer the context it was made in.
func TestRegenerationStaysInItsContext(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	q := []float64{1, 0, 0}
	a, b := Context{ID: "a"}, Context{ID: "b"}
	first, err := m.RecordIn(q, "Now reverse it.", "fig, pear", "k", a, Explore, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.RecordIn(q, "now reverse it", "dog, cat", "k", b, Retrieve, t0); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 {
		t.Fatalf("%d trajectories: another context's answer was replaced", m.Len())
	}
	if _, err := m.RecordIn(q, "Now reverse it", "fig, pear!", "k", a, Retrieve, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Get(first.ID); ok || m.Len() != 2 {
		t.Fatalf("the regeneration in context a did not replace its answer (%d stored)", m.Len())
	}
	opened := Context{ID: "fresh", Portable: true}
	p, err := m.RecordIn([]float64{0, 1, 0}, "Hello", "hi", "k", opened, Explore, t0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.ReplaceIn(p.ID, []float64{0, 1, 0}, "Hello", "hello!", "k", b, t0)
	if err != nil || r.Context != b {
		t.Fatalf("replaced in context b: %+v, %v", r, err)
	}
}
