package cog

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/prompts"
)

// TestSameRequestVariants: case, white space and framing punctuation do not
// make another request.
func TestSameRequestVariants(t *testing.T) {
	for _, c := range [][2]string{
		{"And Moses said", "And Moses said"},
		{"And Moses said", "and moses said"},
		{"And Moses said", "AND MOSES SAID"},
		{"And Moses said", "  And   Moses\tsaid\n"},
		{"And Moses said", "And Moses said."},
		{"And Moses said", "And Moses said…"},
		{"Is ibuprofen safe?", "is ibuprofen safe"},
		{"Is ibuprofen safe?", "Is ibuprofen safe ?!"},
		{"What did he say: \"peace\"?", "what did he say peace"},
		{"Tell me (briefly) about Noah", "Tell me briefly about Noah"},
		{"In the 3.5th hour", "in the 3.5th hour."},
		{"It costs 1,000 shekels", "it costs 1,000 shekels!"},
		{"Wake me at 10:30", "wake me at 10:30."},
		{"Is -5 below zero?", "is -5 below zero"},
		{"Lo — the LORD came", "Lo, the LORD came"},
		{"¿Qué dijo Moisés?", "qué dijo moisés"},
		{"Ünïcödé Straße", "ünïcödé straße"},
	} {
		if !SameRequest(c[0], c[1]) {
			t.Errorf("%q and %q are not the same request: %q vs %q", c[0], c[1], Normalize(c[0]), Normalize(c[1]))
		}
	}
}

// TestNearMissesAreOtherRequests pins the near-misses the exact check
// must never pass: a name, a number or a negation changed, and the
// characters whose loss would merge two different requests.
func TestNearMissesAreOtherRequests(t *testing.T) {
	for _, c := range [][2]string{
		{"And Moses said", "And Aaron said"},
		{"In the 1th year Joash smote Edom and Moab", "In the 2th year Joash smote Edom and Moab"},
		{"is X safe", "is X not safe"},
		{"Thou shalt kill", "Thou shalt not kill"},
		{"Is it 3.5 cubits", "Is it 35 cubits"},
		{"Is it 1,000 cubits", "Is it 1000 cubits"},
		{"Is -5 below zero", "Is 5 below zero"},
		{"Is .5 enough", "Is 5 enough"},
		{"Is x > 5", "Is x < 5"},
		{"Is x = 5", "Is x 5"},
		{"Take 50% off", "Take 50 off"},
		{"Cost in $", "Cost in €"},
		{"salt & pepper", "salt pepper"},
		{"Is it 10:30", "Is it 1030"},
		{"A-1", "A1"},
		{"it's", "its"},
		{"???", "!!!"},
		{"", " "},
		{"And Moses said", "And Moses said to Aaron"},
		{"Moses and Aaron", "Aaron and Moses"},
	} {
		if SameRequest(c[0], c[1]) {
			t.Errorf("%q and %q pass the exact check (both %q)", c[0], c[1], Normalize(c[0]))
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"And Moses said.":        "and moses said",
		"  x   >  5 ":            "x > 5",
		"Is -5, or 3.5, or 1,0?": "is -5 or 3.5 or 1,0",
		"5-3":                    "5 3",
		"a_b c":                  "a_b c",
		"???":                    "???",
		"":                       "",
		"50%":                    "50 %",
		"“Quoted” «text»":        "quoted text",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFindAndGate: only the same request, under an accepted key, in the
// RETRIEVE tier and under τ is served; the nearest other request is
// reported but never served, however close.
func TestFindAndGate(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	moses := []float64{1, 0, 0}
	aaron := []float64{1, 0.01, 0} // d ≈ 5e-5: deep in the RETRIEVE tier
	if _, err := m.RecordKey(moses, "And Moses said", "unto the people", "greedy", Explore, t0); err != nil {
		t.Fatal(err)
	}
	greedy := func(k string) bool { return k == "greedy" }
	g := Gate{Tau: 0.01, Calibrated: true}

	l, err := m.Find(aaron, "And Aaron said", greedy)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Nearest.Found || l.Nearest.Tier != Retrieve || l.Same.Found || l.SameAnyKey.Found || !l.Near.Found {
		t.Fatalf("lookup of a near-miss: %+v", l)
	}
	if d := g.Decide(aaron, l); d.Serve || d.Reason != OtherRequest || d.Candidate.Trajectory.Prompt != "And Moses said" {
		t.Fatalf("near-miss decision %+v", d)
	}

	l, _ = m.Find(moses, "and moses said.", greedy)
	if d := g.Decide(moses, l); !d.Serve || d.Reason != Served || d.Candidate.Trajectory.Answer != "unto the people" || d.Plain != 0 {
		t.Fatalf("repeat decision %+v", d)
	}
	// Another live state: the same request is found but not served.
	l, _ = m.Find(moses, "And Moses said", func(k string) bool { return k == "sampled" })
	if d := g.Decide(moses, l); d.Serve || d.Reason != OtherState || l.Near.Found {
		t.Fatalf("other-state decision %+v (lookup %+v)", d, l)
	}
	// A calibrated gate serves the same request in any wording, however
	// far the wording moves its embedding; a gate without calibration
	// (here with τ = 0.01) only inside the RETRIEVE tier and under τ.
	far := []float64{1, 0.2, 0} // d ≈ 0.0194: RETRIEVE tier, over τ = 0.01
	farther := []float64{1, 1, 0}
	old := Gate{Tau: 0.01}
	l, _ = m.Find(far, "AND MOSES SAID", greedy)
	if d := old.Decide(far, l); d.Serve || d.Reason != OverGate || !(d.Plain > 0.01) {
		t.Fatalf("over-gate decision %+v", d)
	}
	if d := g.Decide(far, l); !d.Serve || d.Reason != Served {
		t.Fatalf("calibrated gate, a variant in RETRIEVE: %+v", d)
	}
	l, _ = m.Find(farther, "And Moses said", greedy)
	if d := old.Decide(farther, l); d.Serve || d.Reason != Farther {
		t.Fatalf("farther decision %+v", d)
	}
	if d := g.Decide(farther, l); !d.Serve || d.Reason != Served || d.Plain < 0.29 {
		t.Fatalf("calibrated gate, a variant far away: %+v", d)
	}
	// An uncalibrated gate serves word-for-word repeats only.
	l, _ = m.Find(moses, "And Moses said", greedy)
	if d := UncalibratedGate().Decide(moses, l); !d.Serve {
		t.Fatalf("uncalibrated gate refused an identical repeat: %+v", d)
	}
	l, _ = m.Find(aaron, "And Moses said", greedy)
	if d := UncalibratedGate().Decide(aaron, l); d.Serve {
		t.Fatalf("uncalibrated gate served a moved embedding: %+v", d)
	}
	// Empty store.
	e := mustNew(t, Config{Dim: 3})
	l, _ = e.Find(moses, "And Moses said", nil)
	if d := g.Decide(moses, l); d.Serve || d.Reason != Empty {
		t.Fatalf("empty decision %+v", d)
	}
}

// TestRetrieveRecordReplacesOnlyTheSameRequest: a regeneration replaces
// the stored answer of the same request under the same key, and never a
// near-miss's or another key's.
func TestRetrieveRecordReplacesOnlyTheSameRequest(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	q := []float64{1, 0, 0}
	if _, err := m.RecordKey(q, "And Moses said", "moses", "k", Explore, t0); err != nil {
		t.Fatal(err)
	}
	// A near-miss recorded as RETRIEVE (its tier by distance) is a new
	// trajectory: Moses keeps his answer.
	if _, err := m.RecordKey([]float64{1, 0.01, 0}, "And Aaron said", "aaron", "k", Retrieve, t0); err != nil {
		t.Fatal(err)
	}
	// The same request under another key is a new trajectory too.
	if _, err := m.RecordKey(q, "And Moses said", "moses, sampled", "other", Retrieve, t0); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 {
		t.Fatalf("%d trajectories, want 3", m.Len())
	}
	tr, err := m.RecordKey(q, "and Moses said.", "moses again", "k", Retrieve, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 {
		t.Fatalf("%d trajectories after regenerating, want 3", m.Len())
	}
	answers := map[string]bool{}
	for _, x := range m.Trajectories() {
		answers[x.Answer] = true
	}
	if answers["moses"] || !answers["moses again"] || !answers["aaron"] || !answers["moses, sampled"] || tr.Key != "k" {
		t.Fatalf("answers after regenerating: %v (stored %+v)", answers, tr)
	}
}

// TestReplace: a regenerated answer takes the old one's place, cluster and
// uses, under its own key, and M does not move.
func TestReplace(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	q := []float64{1, 0, 0}
	old, err := m.RecordKey(q, "And Moses said", "old", "k;length=end:3", Explore, t0)
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.RecordKey([]float64{0, 1, 0}, "And Aaron said", "aaron", "k;length=end:3", Explore, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Touch(old.ID, t0); err != nil {
		t.Fatal(err)
	}
	g := m.Growth()
	tr, err := m.Replace(old.ID, q, "and moses said", "new", "k;length=end:5", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 || m.Growth() != g || tr.Uses != 1 || tr.Cluster != old.Cluster || tr.Tier != Retrieve || tr.Key != "k;length=end:5" || tr.ID == old.ID {
		t.Fatalf("replaced: len %d, growth %v→%v, %+v", m.Len(), g, m.Growth(), tr)
	}
	if _, ok := m.Get(old.ID); ok {
		t.Fatal("the old answer is still stored")
	}
	if got, ok := m.Get(other.ID); !ok || got.Answer != "aaron" {
		t.Fatal("another request's answer was disturbed")
	}
	if _, err := m.Replace(old.ID, q, "p", "a", "k", t0); err == nil {
		t.Fatal("replacing a trajectory that is gone succeeded")
	}
	if _, err := m.Replace(tr.ID, []float64{1, 2}, "p", "a", "k", t0); err == nil {
		t.Fatal("a wrong-length embedding was accepted")
	}
}

// TestHeldOutLabels: on the held-out memory set the exact check agrees with
// every label — each repeat variant is the same request, each near-miss and
// unrelated question another one, and no two stored requests are one.
func TestHeldOutLabels(t *testing.T) {
	set, err := prompts.COG()
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, r := range set.Repeats {
		stored = append(stored, r.Prompt)
		for i, a := range r.Asks() {
			if !SameRequest(a, r.Prompt) {
				t.Errorf("%s variant %q of %q fails the exact check", prompts.RepeatKinds()[i], a, r.Prompt)
			}
		}
	}
	for _, n := range set.NearMisses {
		stored = append(stored, n.Stored)
	}
	for _, u := range set.Unrelated {
		stored = append(stored, u.Stored)
	}
	seen := map[string]string{}
	for _, s := range stored {
		if first, ok := seen[Normalize(s)]; ok {
			t.Errorf("stored %q and %q are one request", first, s)
		}
		seen[Normalize(s)] = s
	}
	for _, n := range set.NearMisses {
		if s, ok := seen[Normalize(n.Asked)]; ok {
			t.Errorf("%s near-miss %q passes the exact check against %q", n.Kind, n.Asked, s)
		}
	}
	for _, u := range set.Unrelated {
		if s, ok := seen[Normalize(u.Asked)]; ok {
			t.Errorf("unrelated %q passes the exact check against %q", u.Asked, s)
		}
	}
}

// BenchmarkFind10k: the lookup the session makes per turn (Find: the
// nearest, and the nearest of the same request under an accepted key) at
// 10,000 trajectories, to compare with BenchmarkQuery10k.
func BenchmarkFind10k(b *testing.B) {
	const k, n = 64, 10000
	r := rand.New(rand.NewPCG(31, 32))
	m := mustNew(b, Config{Dim: k, Capacity: n})
	for i := range n {
		if _, err := m.RecordKey(randVec(r, k), fmt.Sprintf("prompt number %d, asked", i), "answer", "state", Explore, t0); err != nil {
			b.Fatal(err)
		}
	}
	q := randVec(r, k)
	accept := func(key string) bool { return key == "state" }
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Find(q, "Prompt number 17, asked?", accept); err != nil {
			b.Fatal(err)
		}
	}
}
