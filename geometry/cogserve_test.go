package geometry_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// memorySession is the kjv fixture with the test profile, greedy and
// short replies: what the memory tests drive.
func memorySession(t *testing.T) *session.Session {
	t.Helper()
	s := openKJV(t)
	if err := s.Geometry().Set(kjvProfile(t)); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", "4"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func send(t *testing.T, s *session.Session, in string) session.Turn {
	t.Helper()
	turn, err := s.Send(context.Background(), in, func(session.Event) {})
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if turn.COG == nil {
		t.Fatalf("%q: no COG decision", in)
	}
	return turn
}

// Near-misses — one name, number or negation changed — are never answered
// from memory, however close the embedding puts them (issue 19: "And
// Moses said" then "And Aaron said" was served the first one's answer at
// d 0.0129); the very same request still is.
func TestMemoryNearMissesNotServed(t *testing.T) {
	pairs := [][2]string{
		{"And Moses said", "And Aaron said"},
		{"And the LORD spake unto Moses", "And the LORD spake unto Joshua"},
		{"In the third year of Hezekiah king of Judah", "In the fourth year of Hezekiah king of Judah"},
		{"And he begat 30 sons and 30 daughters", "And he begat 13 sons and 30 daughters"},
		{"Is the water of the river safe to drink", "Is the water of the river not safe to drink"},
		{"Thou shalt kill the lamb", "Thou shalt not kill the lamb"},
		{"Is 3.5 cubits the length of the ark", "Is 35 cubits the length of the ark"},
	}
	for _, pr := range pairs {
		s := memorySession(t)
		first := send(t, s, pr[0])
		near := send(t, s, pr[1])
		t.Logf("%q after %q: tier %s d %.4f, served %v", pr[1], pr[0], near.COG.Tier, near.COG.Distance, near.COG.Retrieved)
		if near.COG.Retrieved || near.Stop == "retrieved" {
			t.Errorf("%q was answered from memory with the answer to %q (d %.4f)", pr[1], pr[0], near.COG.Distance)
		}
		again := send(t, s, pr[0])
		if !again.COG.Retrieved || again.Text != first.Text {
			t.Errorf("the exact repeat %q was not served from memory (%+v)", pr[0], again.COG)
		}
	}
}

// distinctPrompts are n different requests of one shape, the issue's
// scenario: "In the Nth year X smote Y and Z".
func distinctPrompts(n int) []string {
	kings := []string{"Joash", "Hezekiah", "Asa", "Jehu", "Ahab", "Uzziah", "Josiah", "Amaziah", "Jotham", "Omri", "Baasha"}
	lands := []string{"Edom", "Moab", "Ammon", "Syria", "Gath", "Philistia", "Tyre", "Sidon", "Egypt", "Assyria", "Gaza", "Damascus", "Elath"}
	out := make([]string, n)
	for i := range n {
		y, z := lands[i%len(lands)], lands[(i*5+3)%len(lands)]
		if y == z {
			z = lands[(i*5+4)%len(lands)]
		}
		out[i] = fmt.Sprintf("In the %s year %s smote %s and %s", ordinal(i+1), kings[i%len(kings)], y, z)
	}
	return out
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}

// The scenario: 100 distinct requests of one shape serve no
// answer from memory (the seed's rule served 95 of 100); asking some of
// them again, word for word, serves each one its own answer.
func TestMemoryHundredDistinctPromptsServeNothing(t *testing.T) {
	s := memorySession(t)
	ps := distinctPrompts(100)
	answers := map[string]string{}
	served, closest := 0, 1.0
	for _, p := range ps {
		s.Clear() // a fresh text each turn keeps the test fast; the manifold stays
		turn := send(t, s, p)
		if turn.COG.Retrieved {
			served++
			t.Errorf("%q was answered from memory (nearest %q, d %.4f)", p, turn.COG.Nearest, turn.COG.Distance)
		}
		closest = min(closest, turn.COG.Distance)
		answers[p] = turn.Text
	}
	t.Logf("%d of %d served from memory; closest distinct pair d %.4f", served, len(ps), closest)
	for _, p := range ps[:10] {
		s.Clear()
		turn := send(t, s, p)
		if !turn.COG.Retrieved || turn.Text != answers[p] {
			t.Errorf("the repeat %q was not served its own answer: %+v %q, want %q", p, turn.COG, turn.Text, answers[p])
		}
	}
}

// The answer is stored under the live state: another temperature class,
// a projector switched on or a max_tokens that would have given a longer
// answer does not get it; going back does. /set memory off never serves.
func TestMemoryKeyedOnLiveState(t *testing.T) {
	s := memorySession(t)
	const q = "And Moses said unto the LORD"
	first := send(t, s, q)
	set := func(name, value string) {
		t.Helper()
		if err := s.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	notServed := func(decision, why string) {
		t.Helper()
		turn := send(t, s, q)
		if turn.COG.Retrieved || turn.COG.Decision != decision || !strings.Contains(turn.COG.Why, why) {
			t.Fatalf("served %v, decision %q (%s); want %q with %q", turn.COG.Retrieved, turn.COG.Decision, turn.COG.Why, decision, why)
		}
	}
	served := func() {
		t.Helper()
		turn := send(t, s, q)
		if !turn.COG.Retrieved || turn.Text != first.Text || turn.COG.Decision != "served" {
			t.Fatalf("not served the greedy answer: %+v %q", turn.COG, turn.Text)
		}
	}
	set("temperature", "0.8")
	notServed("other-state", "temperature greedy → sampled")
	set("temperature", "0")
	served()
	set("snipe", "privacy")
	notServed("other-state", "snipe off → privacy")
	set("snipe", "off")
	served()
	set("max_tokens", "6") // the stored answer was cut at 4 tokens
	notServed("other-state", "cut at max_tokens 4, now 6")
	set("max_tokens", "4")
	served()
	set("memory", "off")
	notServed("memory-off", "memory is off")
	set("memory", "on")
	// Memory off regenerated it: the fresh (greedy, identical) answer took
	// the stored one's place instead of piling up beside it.
	served()
	if st, _ := s.Memory().Stats(); st.Trajectories != 4 {
		t.Fatalf("%d trajectories, want 4: greedy (replaced in place), sampled, privacy, 6 tokens", st.Trajectories)
	}
}

// Calibration places the memory gate between the two distributions it
// measured, and the profile file keeps it.
func TestMemoryGateCalibrated(t *testing.T) {
	p := kjvProfile(t)
	g := p.COG
	if g == nil {
		t.Fatal("calibration made no memory gate")
	}
	t.Logf("gate %+v", *g)
	// smallSet: 104 prompts → 104·103/2 pairs; variants of the 24 zone prompts.
	if g.DistinctPairs != 104*103/2 || g.Repeats < 24 || g.Repeats > 3*24 {
		t.Fatalf("%d distinct pairs, %d repeats", g.DistinctPairs, g.Repeats)
	}
	if !(g.Tau >= cog.MinGate && g.Tau <= g.Bound && g.Bound <= cog.RetrieveBelow && g.Bound <= g.DistinctMin) {
		t.Fatalf("τ %v outside (0, bound %v], distinct min %v", g.Tau, g.Bound, g.DistinctMin)
	}
	if gate := p.MemoryGate(); !gate.Calibrated || gate.Tau != g.Tau {
		t.Fatalf("MemoryGate %+v", gate)
	}
	path := filepath.Join(t.TempDir(), "p.miku")
	if err := p.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	back, err := geometry.LoadProfile(path, 6)
	if err != nil || back.COG == nil || *back.COG != *g {
		t.Fatalf("reloaded gate %+v, %v", back.COG, err)
	}
}

// A profile made before the gate loads with one clear note, and serves
// word-for-word repeats only; a profile with a τ out of range is refused.
func TestMemoryProfileWithoutGate(t *testing.T) {
	old := *kjvProfile(t)
	old.COG = nil
	path := filepath.Join(t.TempDir(), "old.miku")
	if err := old.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	p, err := geometry.LoadProfile(path, 6)
	if err != nil {
		t.Fatalf("a profile without a memory gate was refused: %v", err)
	}
	if g := p.MemoryGate(); g.Calibrated || g.Tau != cog.MinGate {
		t.Fatalf("gate of an old profile: %+v", g)
	}
	s := openKJV(t)
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	notes := s.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "made before the memory gate") || !strings.Contains(notes[0], "isagi calibrate") {
		t.Fatalf("notes %q", notes)
	}
	for _, kv := range [][2]string{{"temperature", "0"}, {"max_tokens", "4"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	send(t, s, "And Moses said")
	if turn := send(t, s, "And Moses said"); !turn.COG.Retrieved {
		t.Fatalf("a word-for-word repeat was not served: %+v", turn.COG)
	}
	if turn := send(t, s, "And Moses said."); turn.COG.Retrieved || turn.COG.Decision != "over-gate" || !strings.Contains(turn.COG.Why, "no calibrated gate") {
		t.Fatalf("a variant was served without a calibrated gate: %+v", turn.COG)
	}

	bad := *kjvProfile(t)
	bad.COG = &geometry.COGGate{Tau: 0.3}
	if err := bad.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := geometry.LoadProfile(path, 6); err == nil || !strings.Contains(err.Error(), "memory gate") {
		t.Fatalf("a gate τ of 0.3 loaded: %v", err)
	}
}

// The session file records which answers came from memory, and a
// regenerated one leaves the record.
func TestMemorySessionFileRecordsServed(t *testing.T) {
	s := memorySession(t)
	send(t, s, "And Moses said")
	send(t, s, "And Aaron said")
	if rep := send(t, s, "And Moses said"); !rep.COG.Retrieved {
		t.Fatalf("a word-for-word repeat was not served: %+v", rep.COG)
	}
	if rep := send(t, s, "And Aaron said"); !rep.COG.Retrieved {
		t.Fatalf("a word-for-word repeat was not served: %+v", rep.COG)
	}
	if _, err := s.Conversation().Regenerate(context.Background(), func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	served := s.Memory().Served()
	if len(served) != 1 || served[0].Prompt != "And Moses said" || served[0].Stored != "And Moses said" || !(served[0].Gate < served[0].Tau) {
		t.Fatalf("served record %+v", served)
	}
	path := filepath.Join(t.TempDir(), "s.miku")
	if err := s.Files().Save(context.Background(), path, session.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Section("cog.served"); !ok {
		t.Fatal("no cog.served section in the file")
	}
	s2 := memorySession(t)
	notes, err := s2.Files().Load(context.Background(), path, session.LoadOptions{})
	if err != nil || len(notes) != 0 {
		t.Fatalf("load: %v, notes %q", err, notes)
	}
	if got := s2.Memory().Served(); len(got) != 1 || got[0] != served[0] {
		t.Fatalf("reloaded record %+v, want %+v", got, served)
	}
}

// A manifold saved before answers were keyed on the live state loads with
// one note; its answers keep their place but are not served (nothing says
// under which state they were made), and the request answered afresh is
// served from then on.
func TestMemoryKeylessManifoldNotServed(t *testing.T) {
	s := memorySession(t)
	send(t, s, "And Moses said")
	path := filepath.Join(t.TempDir(), "s.miku")
	if err := s.Files().Save(context.Background(), path, session.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// Rewrite the manifold as an older build saved it: no keys.
	f, err := miku.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, sec := range f.Sections {
		if sec.Name != "cog" {
			continue
		}
		m, err := cog.Decode(sec.Data)
		if err != nil {
			t.Fatal(err)
		}
		old, err := cog.New(cog.Config{Dim: m.Dim()})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range m.Trajectories() {
			if _, err := old.Record(tr.Embedding, tr.Prompt, tr.Answer, tr.Tier, tr.Time); err != nil {
				t.Fatal(err)
			}
		}
		if f.Sections[i].Data, err = old.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	}
	if err := miku.Write(path, f); err != nil {
		t.Fatal(err)
	}
	s2 := memorySession(t)
	notes, err := s2.Files().Load(context.Background(), path, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "1 answer from before answers were keyed") {
		t.Fatalf("notes %q", notes)
	}
	turn := send(t, s2, "And Moses said")
	if turn.COG.Retrieved || turn.COG.Decision != "other-state" || !strings.Contains(turn.COG.Why, "before live states were recorded") {
		t.Fatalf("a keyless answer: %+v", turn.COG)
	}
	if turn := send(t, s2, "And Moses said"); !turn.COG.Retrieved {
		t.Fatalf("the fresh answer is not served: %+v", turn.COG)
	}
	if st, _ := s2.Memory().Stats(); st.Trajectories != 2 {
		t.Fatalf("%d trajectories, want the old one kept beside the new", st.Trajectories)
	}
}
