package cog

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func randVec(r *rand.Rand, k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func mustNew(t testing.TB, cfg Config) *Manifold {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTierBoundaries(t *testing.T) {
	below := func(x float64) float64 { return math.Nextafter(x, 0) }
	cases := []struct {
		d    float64
		want Tier
	}{
		{-1, Retrieve}, {0, Retrieve}, {below(0.05), Retrieve},
		{0.05, Augment}, {below(0.20), Augment},
		{0.20, Expand}, {below(0.50), Expand},
		{0.50, Explore}, {1, Explore}, {2, Explore}, {math.Inf(1), Explore}, {math.NaN(), Explore},
	}
	for _, c := range cases {
		if got := TierOf(c.d); got != c.want {
			t.Errorf("TierOf(%v) = %v, want %v", c.d, got, c.want)
		}
	}
	names := map[Tier]string{Retrieve: "retrieve", Augment: "augment", Expand: "expand", Explore: "explore", 7: "tier(7)", -1: "tier(-1)"}
	for tier, name := range names {
		if tier.String() != name {
			t.Errorf("Tier(%d).String() = %q, want %q", int(tier), tier.String(), name)
		}
	}
	for tier, want := range map[Tier]bool{Retrieve: false, Augment: false, Expand: true, Explore: true} {
		if tier.UpdatesMetric() != want {
			t.Errorf("%v.UpdatesMetric() = %v", tier, !want)
		}
	}
}

func TestDistance(t *testing.T) {
	m, err := NewMetric(3)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0, 0}, []float64{2, 0, 0}, 0},
		{[]float64{1, 0, 0}, []float64{0, 5, 0}, 1},
		{[]float64{1, 0, 0}, []float64{-1, 0, 0}, 2},
		{[]float64{1, 1, 0}, []float64{1, 0, 0}, 1 - 1/math.Sqrt2},
		{[]float64{0, 0, 0}, []float64{1, 0, 0}, 1},
		{[]float64{0, 0, 0}, []float64{0, 0, 0}, 1},
	}
	for _, c := range cases {
		d, err := m.Distance(c.a, c.b)
		if err != nil || math.Abs(d-c.want) > 1e-15 {
			t.Errorf("Distance(%v, %v) = %v, %v; want %v", c.a, c.b, d, err, c.want)
		}
	}
	if _, err := m.Distance([]float64{1, 2}, []float64{1, 2, 3}); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := m.Distance([]float64{1, math.NaN(), 0}, []float64{1, 2, 3}); err == nil {
		t.Error("NaN accepted")
	}
	// The metric bends angles: stretching along x makes x-heavy vectors
	// closer to the x axis.
	before, _ := m.Distance([]float64{1, 1, 0}, []float64{1, 0, 0})
	for range 50 {
		if _, err := m.Update([]float64{3, 0, 0}, 0.5); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := m.Distance([]float64{1, 1, 0}, []float64{1, 0, 0})
	if !(after < before) {
		t.Errorf("stretching along x: distance %v → %v, want smaller", before, after)
	}
	ab, _ := m.Distance([]float64{1, 2, 3}, []float64{-2, 0.5, 1})
	ba, _ := m.Distance([]float64{-2, 0.5, 1}, []float64{1, 2, 3})
	if ab != ba {
		t.Errorf("distance not symmetric: %v vs %v", ab, ba)
	}
}

func TestNewErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Dim: 0}, {Dim: -1}, {Dim: MaxDim + 1},
		{Dim: 4, Capacity: -1}, {Dim: 4, Capacity: MaxCapacity + 1},
		{Dim: 4, Eta: -0.1}, {Dim: 4, Eta: math.NaN()}, {Dim: 4, Eta: math.Inf(1)},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	m := mustNew(t, Config{Dim: 4})
	if m.Cap() != DefaultCapacity || m.Eta() != DefaultEta || m.Dim() != 4 {
		t.Errorf("defaults: cap %d η %v k %d", m.Cap(), m.Eta(), m.Dim())
	}
	if _, err := m.Record([]float64{1, 2, 3}, "p", "a", Explore, t0); err == nil {
		t.Error("short query recorded")
	}
	if _, err := m.Record([]float64{1, 2, 3, 4}, "p", "a", Tier(9), t0); err == nil {
		t.Error("invalid tier recorded")
	}
	if _, err := m.Query([]float64{1, 2, math.Inf(-1), 4}); err == nil {
		t.Error("infinite query accepted")
	}
	if err := m.Touch(42, t0); err == nil {
		t.Error("touch of a missing id accepted")
	}
	if _, err := m.TopEigen(-1); err == nil {
		t.Error("TopEigen(-1) accepted")
	}
	if m.Len() != 0 || m.Growth() != 0 {
		t.Error("failed calls changed the manifold")
	}
	var zero Manifold
	if _, err := zero.Query(nil); err == nil {
		t.Error("zero Manifold queried")
	}
	if _, err := zero.Record(nil, "", "", Explore, t0); err == nil {
		t.Error("zero Manifold recorded")
	}
	if _, err := zero.Project2D(); err == nil {
		t.Error("zero Manifold projected")
	}
	if err := zero.Touch(0, t0); err == nil {
		t.Error("zero Manifold touched")
	}
}

// checkSPD: exactly symmetric, Cholesky succeeds, λ_min ≥ floor.
func checkSPD(t *testing.T, m *Metric, floor float64) {
	t.Helper()
	k := m.k
	for i := range k {
		for j := range k {
			if m.m[i*k+j] != m.m[j*k+i] {
				t.Fatalf("M[%d][%d] = %v ≠ M[%d][%d] = %v", i, j, m.m[i*k+j], j, i, m.m[j*k+i])
			}
		}
	}
	var c mat.Cholesky
	if !c.Factorize(m.SymDense()) {
		t.Fatal("Cholesky of M failed")
	}
	vals, _, err := m.Eigen()
	if err != nil {
		t.Fatal(err)
	}
	if lmin := vals[k-1]; lmin < floor {
		t.Fatalf("λ_min = %v < %v", lmin, floor)
	}
	if !slices.IsSortedFunc(vals, func(a, b float64) int { return -cmpF(a, b) }) {
		t.Fatalf("eigenvalues not largest first: %v", vals)
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestMetricStaysSPD(t *testing.T) {
	const k = 32
	r := rand.New(rand.NewPCG(1, 2))
	m, err := NewMetric(k)
	if err != nil {
		t.Fatal(err)
	}
	prev := 0.0
	for i := range 10000 {
		q := randVec(r, k)
		// Mix in badly scaled and sparse queries: the normalisation must
		// keep them harmless.
		switch i % 4 {
		case 1:
			scale := math.Pow(10, float64(r.IntN(600)-300))
			for j := range q {
				q[j] *= scale
			}
		case 2:
			for j := range q {
				if j != i%k {
					q[j] = 0
				}
			}
		}
		ch, err := m.Update(q, DefaultEta)
		if err != nil {
			t.Fatal(err)
		}
		if !ch.Applied || ch.Guarded {
			t.Fatalf("update %d: %+v", i, ch)
		}
		g := m.Growth()
		if g < prev {
			t.Fatalf("update %d: growth %v < %v", i, g, prev)
		}
		prev = g
	}
	checkSPD(t, m, 1-1e-9)
	// Trace check: each update adds exactly η to the trace.
	var tr float64
	for i := range k {
		tr += m.m[i*k+i]
	}
	if want := k + 10000*DefaultEta; math.Abs(tr-want) > 1e-9*want {
		t.Errorf("trace %v, want %v", tr, want)
	}
}

func TestGuardFires(t *testing.T) {
	m, err := NewMetric(3)
	if err != nil {
		t.Fatal(err)
	}
	// A metric can only get near-singular by rounding or a hand-built
	// state; build one directly.
	m.m[0] = 0.001
	ch, err := m.Update([]float64{0, 1, 0}, DefaultEta)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Guarded {
		t.Fatal("guard did not fire with λ_min = 0.001")
	}
	if m.m[0] != 0.001+SPDFloor || m.m[4] != 1+DefaultEta+SPDFloor {
		t.Errorf("diagonal after guard: %v %v %v", m.m[0], m.m[4], m.m[8])
	}
	ch, err = m.Update([]float64{0, 0, 0}, DefaultEta)
	if err != nil || ch.Applied {
		t.Errorf("zero update: %+v %v", ch, err)
	}
	for _, eta := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := m.Update([]float64{1, 0, 0}, eta); err == nil {
			t.Errorf("η = %v accepted", eta)
		}
	}
}

func TestRetrieveRepeat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := mustNew(t, Config{Dim: 16})
	qs := make([][]float64, 20)
	for i := range qs {
		qs[i] = randVec(r, 16)
		match, err := m.Query(qs[i])
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && (match.Found || match.Tier != Explore || match.Distance != 1) {
			t.Fatalf("empty store: %+v", match)
		}
		if _, err := m.Record(qs[i], "prompt", answerOf(i), match.Tier, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for i, q := range qs {
		// A repeat, and the same query at another scale: both the same
		// direction, so both RETRIEVE the stored answer.
		for _, s := range []float64{1, 3.5} {
			qq := slices.Clone(q)
			for j := range qq {
				qq[j] *= s
			}
			match, err := m.Query(qq)
			if err != nil {
				t.Fatal(err)
			}
			if match.Tier != Retrieve || match.Trajectory.Answer != answerOf(i) || match.Distance > 1e-12 {
				t.Fatalf("query %d ×%v: tier %v answer %q d %v", i, s, match.Tier, match.Trajectory.Answer, match.Distance)
			}
		}
	}
}

// TestRegenerate: a RETRIEVE record (forced regeneration) replaces the
// trajectory it retrieved, so the next repeat serves the new answer.
func TestRegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	m := mustNew(t, Config{Dim: 8, Capacity: 3})
	var qs [][]float64
	for i := range 3 {
		q := randVec(r, 8)
		qs = append(qs, q)
		if _, err := m.Record(q, "p", answerOf(i), Explore, t0); err != nil {
			t.Fatal(err)
		}
	}
	match, err := m.Query(qs[1])
	if err != nil || match.Tier != Retrieve {
		t.Fatalf("%+v %v", match, err)
	}
	if err := m.Touch(match.Trajectory.ID, t0); err != nil {
		t.Fatal(err)
	}
	g := m.Growth()
	tr, err := m.Record(qs[1], "p", "regenerated", Retrieve, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || m.Growth() != g || tr.Uses != 1 || tr.Cluster != match.Trajectory.Cluster {
		t.Errorf("regeneration: len %d growth %v→%v stored %+v", m.Len(), g, m.Growth(), tr)
	}
	if _, ok := m.Get(match.Trajectory.ID); ok {
		t.Error("the replaced trajectory is still stored")
	}
	for i, q := range qs {
		want := answerOf(i)
		if i == 1 {
			want = "regenerated"
		}
		if got, _ := m.Query(q); got.Trajectory.Answer != want || got.Tier != Retrieve {
			t.Errorf("query %d: %q (%v), want %q", i, got.Trajectory.Answer, got.Tier, want)
		}
	}
}

func answerOf(i int) string { return "answer " + string(rune('A'+i)) }

// TestQueryMatchesBruteForce: the cached, incrementally followed norms
// give the same nearest neighbour and distance as Metric.Distance over
// the whole store, across a resync.
func TestQueryMatchesBruteForce(t *testing.T) {
	const k = 8
	r := rand.New(rand.NewPCG(5, 6))
	m := mustNew(t, Config{Dim: k, Capacity: 60, Eta: 0.05})
	check := func() {
		t.Helper()
		q := randVec(r, k)
		match, err := m.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		for _, tr := range m.Trajectories() {
			d, err := m.Distance(q, tr.Embedding)
			if err != nil {
				t.Fatal(err)
			}
			best = min(best, d)
		}
		if math.Abs(match.Distance-best) > 1e-12 {
			t.Fatalf("query distance %v, brute force %v", match.Distance, best)
		}
		if d, _ := m.Distance(q, match.Trajectory.Embedding); math.Abs(d-best) > 1e-12 {
			t.Fatalf("nearest trajectory at %v, best %v", d, best)
		}
	}
	for i := range resyncEvery + 500 {
		q := randVec(r, k)
		if i%7 == 0 {
			q = make([]float64, k) // zero embeddings must stay harmless
		}
		if _, err := m.Record(q, "", "", Explore, t0); err != nil {
			t.Fatal(err)
		}
		if i%500 == 0 {
			check()
		}
	}
	check()
	if m.sinceResync >= resyncEvery || m.Len() != 60 {
		t.Errorf("sinceResync %d, len %d", m.sinceResync, m.Len())
	}
}

func TestStoreBound(t *testing.T) {
	const k, capacity = 8, 50
	r := rand.New(rand.NewPCG(7, 8))
	m := mustNew(t, Config{Dim: k, Capacity: capacity})
	var keep []uint64
	for i := range 1000 {
		now := t0.Add(time.Duration(i) * time.Minute)
		tr, err := m.Record(randVec(r, k), "p", "a", Explore, now)
		if err != nil {
			t.Fatal(err)
		}
		if tr.ID != uint64(i) {
			t.Fatalf("id %d, want %d", tr.ID, i)
		}
		// Five early trajectories are used: they must outlive the rest.
		if i < 5 {
			keep = append(keep, tr.ID)
			if err := m.Touch(tr.ID, now); err != nil {
				t.Fatal(err)
			}
		}
		if m.Len() > capacity {
			t.Fatalf("after %d records: %d stored, bound %d", i+1, m.Len(), capacity)
		}
		if m.Len() != len(m.byID) || m.Len()*k != len(m.emb) {
			t.Fatal("store indices out of step")
		}
	}
	for _, id := range keep {
		tr, ok := m.Get(id)
		if !ok || tr.Uses != 1 {
			t.Errorf("used trajectory %d evicted (%v) or miscounted (%d)", id, ok, tr.Uses)
		}
	}
	// The unused survivors are exactly the newest ones: least used, ties
	// oldest LastUsed, goes first.
	var ids []uint64
	for _, tr := range m.Trajectories() {
		if tr.Uses == 0 {
			ids = append(ids, tr.ID)
		}
	}
	slices.Sort(ids)
	if len(ids) != capacity-5 || ids[0] != 1000-(capacity-5) {
		t.Errorf("unused survivors %v", ids)
	}
	if m.Clusters() != capacity {
		t.Errorf("%d clusters among %d EXPLORE trajectories", m.Clusters(), capacity)
	}
}

func TestVictimTies(t *testing.T) {
	m := mustNew(t, Config{Dim: 2, Capacity: 3})
	for i := range 3 {
		if _, err := m.Record([]float64{float64(i + 1), 1}, "", "", Explore, t0); err != nil {
			t.Fatal(err)
		}
	}
	// Same uses, same LastUsed for 0 and 2 after touching 1: the lowest id
	// goes; then touch 2 late, so 2 outlives 3 (same uses, older).
	if err := m.Touch(1, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Record([]float64{-1, 0}, "", "", Explore, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Get(0); ok {
		t.Error("id 0 survived")
	}
	if err := m.Touch(3, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := m.Touch(2, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Record([]float64{0, -1}, "", "", Explore, t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// 1, 2, 3 all used once; 1 has the oldest LastUsed.
	if _, ok := m.Get(1); ok {
		t.Error("id 1 survived")
	}
	for _, id := range []uint64{2, 3, 4} {
		if _, ok := m.Get(id); !ok {
			t.Errorf("id %d evicted", id)
		}
	}
}

func TestGrowthAndClusters(t *testing.T) {
	const k = 16
	r := rand.New(rand.NewPCG(9, 10))
	m := mustNew(t, Config{Dim: k})
	prev := m.Growth()
	if prev != 0 {
		t.Fatalf("fresh growth %v", prev)
	}
	var qs [][]float64
	seen := map[Tier]int{}
	for i := range 300 {
		q := randVec(r, k)
		if i%3 != 0 && len(qs) > 0 {
			// A variation of an earlier query, for AUGMENT/EXPAND hits.
			base := qs[r.IntN(len(qs))]
			for j := range q {
				q[j] = base[j] + 0.3*float64(i%3)*q[j]
			}
		}
		match, err := m.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		seen[match.Tier]++
		tr, err := m.Record(q, "p", "a", match.Tier, t0)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Growth()
		switch {
		case match.Tier.UpdatesMetric() && !(g > prev):
			t.Fatalf("%v: growth %v → %v, want increase", match.Tier, prev, g)
		case !match.Tier.UpdatesMetric() && g != prev:
			t.Fatalf("%v: growth %v → %v, want flat", match.Tier, prev, g)
		}
		prev = g
		if match.Tier != Explore && tr.Cluster != match.Trajectory.Cluster {
			t.Fatalf("%v joined cluster %d, nearest is in %d", match.Tier, tr.Cluster, match.Trajectory.Cluster)
		}
		qs = append(qs, q)
	}
	for _, tier := range []Tier{Augment, Expand, Explore} {
		if seen[tier] == 0 {
			t.Errorf("no %v in the run: %v", tier, seen)
		}
	}
	if m.Clusters() != seen[Explore] {
		t.Errorf("%d clusters, %d EXPLOREs", m.Clusters(), seen[Explore])
	}
	// Repeats of stored queries are RETRIEVE, served with Touch: M does
	// not move.
	for i, tr := range m.Trajectories()[:50] {
		match, err := m.Query(tr.Embedding)
		if err != nil {
			t.Fatal(err)
		}
		if match.Tier != Retrieve {
			t.Fatalf("repeat %d: %v at %v", i, match.Tier, match.Distance)
		}
		if err := m.Touch(match.Trajectory.ID, t0); err != nil {
			t.Fatal(err)
		}
		if g := m.Growth(); g != prev {
			t.Fatalf("repeat %d moved growth %v → %v", i, prev, g)
		}
	}
}

func TestStats(t *testing.T) {
	const k = 6
	r := rand.New(rand.NewPCG(11, 12))
	m := mustNew(t, Config{Dim: k, Eta: 0.3})
	pts, err := m.Project2D()
	if err != nil || len(pts) != 0 {
		t.Fatalf("empty Project2D: %v %v", pts, err)
	}
	for range 40 {
		q := randVec(r, k)
		q[0] *= 5 // grow mostly along e₀
		if _, err := m.Record(q, "", "", Explore, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Record(make([]float64, k), "", "", Explore, t0); err != nil {
		t.Fatal(err)
	}
	ev, err := m.TopEigen(3)
	if err != nil || len(ev) != 3 || !(ev[0] >= ev[1] && ev[1] >= ev[2] && ev[2] >= 1) {
		t.Fatalf("TopEigen(3) = %v, %v", ev, err)
	}
	if all, _ := m.TopEigen(100); len(all) != k {
		t.Errorf("TopEigen(100) gave %d values", len(all))
	}
	_, vecs, err := m.metric.Eigen()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(vecs.At(0, 0)) < 0.9 {
		t.Errorf("top eigenvector %v, want ≈ e₀", mat.Col(nil, 0, vecs))
	}
	pts, err = m.Project2D()
	if err != nil || len(pts) != m.Len() {
		t.Fatalf("Project2D: %d points, %v", len(pts), err)
	}
	for _, p := range pts {
		if r := math.Hypot(p.X, p.Y); r > 1+1e-12 || math.IsNaN(r) {
			t.Errorf("point %+v outside the unit disc", p)
		}
	}
	if last := pts[len(pts)-1]; last.X != 0 || last.Y != 0 {
		t.Errorf("zero embedding at %+v", last)
	}
	one := mustNew(t, Config{Dim: 1})
	if _, err := one.Record([]float64{-2}, "", "", Explore, t0); err != nil {
		t.Fatal(err)
	}
	if pts, err := one.Project2D(); err != nil || len(pts) != 1 || pts[0].Y != 0 || math.Abs(math.Abs(pts[0].X)-1) > 1e-15 {
		t.Errorf("k = 1 Project2D: %+v %v", pts, err)
	}
}

func TestMetricCopy(t *testing.T) {
	m := mustNew(t, Config{Dim: 3})
	s := m.Metric()
	s.SetSym(0, 0, 99)
	if m.metric.m[0] != 1 {
		t.Error("Metric() aliases M")
	}
	tr, err := m.Record([]float64{1, 2, 3}, "", "", Explore, t0)
	if err != nil {
		t.Fatal(err)
	}
	tr.Embedding[0] = 42
	if got, _ := m.Get(tr.ID); got.Embedding[0] != 1 {
		t.Error("Record's result aliases the store")
	}
}
