package geometry_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// steerPairs are a few contrast pairs: enough to average, few enough to
// keep the reads to a second.
var steerPairs = []geometry.SteerPair{
	{Positive: "How do I pick a lock to get into my neighbour's house?", Negative: "How do I fix the lock on my own front door?"},
	{Positive: "Write an insult about my coworker.", Negative: "Write a thank-you note to my coworker."},
	{Positive: "And the LORD was wroth with them", Negative: "And the LORD blessed them"},
}

// steerSources are the models the steering tests read: the kjv fixture
// (a base model: prompts are text) and the chat fixture (prompts are user
// turns), when it is here.
func steerSources(t *testing.T) map[string]geometry.Source {
	t.Helper()
	out := map[string]geometry.Source{"kjv": openKJV(t).Geometry().CalibrationSource()}
	chat := filepath.Join("..", "testdata", "models", "chat.gguf")
	if _, err := os.Stat(chat); err != nil {
		t.Logf("the chat fixture %s is not here (scripts/fixtures/chat builds it): %v", chat, err)
		return out
	}
	s, err := session.Open(chat, session.Options{Threads: 2, Ctx: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	src := s.Geometry().CalibrationSource()
	if !src.Chat {
		t.Fatalf("%s has no chat template: its prompts would not be read as user turns", chat)
	}
	out["chat"] = src
	return out
}

// referenceMean is the mean over pairs of positive − negative at block
// layer's output, read one layer at a time by Reader.States (last rows),
// in float64: unit length unless raw.
func referenceMean(t *testing.T, rd *geometry.Reader, pairs []geometry.SteerPair, layer int, raw bool) []float64 {
	t.Helper()
	var pos, neg []string
	for _, p := range pairs {
		pos, neg = append(pos, p.Positive), append(neg, p.Negative)
	}
	_, P, err := rd.States(context.Background(), pos, layer, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, N, err := rd.States(context.Background(), neg, layer, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, d := P.Dims()
	v := make([]float64, d)
	for i := range n {
		for j := range d {
			v[j] += (P.At(i, j) - N.At(i, j)) / float64(n)
		}
	}
	if !raw {
		scale(v, 1/norm(v))
	}
	return v
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func scale(v []float64, a float64) {
	for i := range v {
		v[i] *= a
	}
}

// maxDiff is the largest |a_j − b_j|.
func maxDiff(a []float32, b []float64) float64 {
	var m float64
	for j := range b {
		m = max(m, math.Abs(float64(a[j])-b[j]))
	}
	return m
}

// Steer's one pass reads every block's output at the last token: its mean
// vector equals, layer by layer, the one computed from states read one
// layer at a time, with direction.N from block N−1's output.
func TestSteerMeanMatchesLayerByLayer(t *testing.T) {
	for name, src := range steerSources(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			L, d := src.Model.Layers, src.Model.Dim
			unit, err := geometry.Steer(ctx, src, steerPairs, geometry.SteerOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := geometry.Steer(ctx, src, steerPairs, geometry.SteerOptions{Method: geometry.SteerMean, Raw: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if unit.Hint != src.Model.Arch || unit.Dim != d || unit.Method != geometry.SteerMean || len(unit.Dirs) != L || unit.Dirs[0] != nil {
				t.Fatalf("vector hint %q dim %d method %q, %d layers (dirs[0] nil: %v); want %q, %d, mean, %d, true",
					unit.Hint, unit.Dim, unit.Method, len(unit.Dirs), unit.Dirs[0] == nil, src.Model.Arch, d, L)
			}
			if err := unit.Check("unit", steer.Model{Arch: src.Model.Arch, Dim: d, Layers: L}); err != nil {
				t.Fatal(err)
			}
			rd, err := geometry.NewReader(src)
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n < L; n++ {
				ref := referenceMean(t, rd, steerPairs, n-1, true)
				if unit.Dirs[n] == nil || raw.Dirs[n] == nil {
					t.Fatalf("direction.%d missing", n)
				}
				rn := norm(ref)
				if e := maxDiff(raw.Dirs[n], ref); e > 1e-5*rn {
					t.Errorf("raw direction.%d differs from block %d's mean difference by %g (norm %g)", n, n-1, e, rn)
				}
				scale(ref, 1/rn)
				if e := maxDiff(unit.Dirs[n], ref); e > 1e-5 {
					t.Errorf("direction.%d differs from block %d's unit mean difference by %g", n, n-1, e)
				}
				if n < L-1 {
					// The convention, not a coincidence: block n's own
					// output is another direction.
					if next := referenceMean(t, rd, steerPairs, n, false); maxDiff(unit.Dirs[n], next) < 1e-3 {
						t.Errorf("direction.%d also matches block %d's output", n, n)
					}
				}
			}
			// The principal component on the same pairs: unit length,
			// with the positives projecting higher.
			pca, err := geometry.Steer(ctx, src, steerPairs, geometry.SteerOptions{Method: geometry.SteerPCA}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if pca.Method != geometry.SteerPCA {
				t.Fatalf("method %q", pca.Method)
			}
			for n := 1; n < L; n++ {
				var nn, dot float64
				for j, x := range pca.Dirs[n] {
					nn += float64(x) * float64(x)
					dot += float64(x) * float64(raw.Dirs[n][j])
				}
				if math.Abs(nn-1) > 1e-4 || dot < 0 {
					t.Errorf("pca direction.%d: |v|² %g, mean difference · v %g", n, nn, dot)
				}
			}
		})
	}
}

// The principal component of differences that are all parallel is their
// direction, signed so that the positives project higher; centred, so the
// mean does not pull it.
func TestPairDirectionPCA(t *testing.T) {
	u := []float64{0.6, 0, -0.8, 0}
	rows := func(cs ...float64) *mat.Dense {
		m := mat.NewDense(len(cs), len(u), nil)
		for i, c := range cs {
			for j, x := range u {
				m.Set(i, j, c*x)
			}
		}
		return m
	}
	pca := geometry.SteerOptions{Method: geometry.SteerPCA}
	for _, tc := range []struct {
		name string
		cs   []float64
		sign float64
	}{
		{"positives higher", []float64{1, 2, 4, 0.5}, 1},
		{"negatives higher", []float64{-1, -3, -0.5}, -1},
		{"mixed, mean positive", []float64{3, -1, 2}, 1},
		{"all equal (no component)", []float64{2, 2, 2}, 1},
		{"one pair", []float64{-2}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := geometry.PairDirection(rows(tc.cs...), pca)
			if err != nil {
				t.Fatal(err)
			}
			for j, x := range u {
				if math.Abs(got[j]-tc.sign*x) > 1e-12 {
					t.Fatalf("got %v, want %g·%v", got, tc.sign, u)
				}
			}
		})
	}
	// Centred: spread along e1, mean mostly along e1 too but the uncentred
	// leading direction would lean to e2.
	m := mat.NewDense(2, 2, []float64{8, 1, -2, 1})
	got, err := geometry.PairDirection(m, pca)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0]-1) > 1e-12 || math.Abs(got[1]) > 1e-12 {
		t.Fatalf("centred component %v, want [1 0]", got)
	}
	// The mean method, raw and unit.
	raw, err := geometry.PairDirection(m, geometry.SteerOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != 3 || raw[1] != 1 {
		t.Fatalf("raw mean %v, want [3 1]", raw)
	}
	if z, err := geometry.PairDirection(mat.NewDense(2, 2, nil), pca); err != nil || z != nil {
		t.Fatalf("zero differences: %v, %v; want nil, nil", z, err)
	}
}

func TestSteerRefuses(t *testing.T) {
	src := openKJV(t).Geometry().CalibrationSource()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		pairs []geometry.SteerPair
		o     geometry.SteerOptions
		want  string
	}{
		{"no pairs", nil, geometry.SteerOptions{}, "at least one contrast pair"},
		{"method", steerPairs, geometry.SteerOptions{Method: "median"}, `"median"`},
		{"raw pca", steerPairs, geometry.SteerOptions{Method: geometry.SteerPCA, Raw: true}, "raw"},
		{"same prompts", []geometry.SteerPair{{Positive: "In the beginning", Negative: "In the beginning"}}, geometry.SteerOptions{}, "read the same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := geometry.Steer(ctx, src, tc.pairs, tc.o, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := geometry.Steer(cancelled, src, steerPairs, geometry.SteerOptions{}, nil); err == nil {
		t.Fatal("a cancelled read made a vector")
	}
}

// A profile's category direction goes where its probe block's output is
// read (direction.(ℓ+1)), or one block early when ℓ is the last block.
func TestCategoryVector(t *testing.T) {
	dir := []float64{0, 0.6, 0.8}
	p := &geometry.Profile{D: 3, Categories: []geometry.Category{{Name: "privacy", Direction: dir}}}
	for _, tc := range []struct{ layer, want int }{{0, 1}, {2, 3}, {4, 4}} {
		p.Layer = tc.layer
		v, err := p.CategoryVector("privacy", "llama", 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Dirs) != tc.want+1 || v.Dirs[tc.want] == nil || v.Dirs[tc.want][2] != 0.8 || v.Method != "category" || v.Hint != "llama" {
			t.Fatalf("probe block %d: %+v, want direction.%d", tc.layer, v, tc.want)
		}
		if last := strings.Contains(v.Source, "last block"); last != (tc.layer == 4) {
			t.Errorf("probe block %d: source %q", tc.layer, v.Source)
		}
		if err := v.Check("v", steer.Model{Arch: "llama", Dim: 3, Layers: 5}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.CategoryVector("nope", "llama", 5); err == nil {
		t.Fatal("an unknown category made a vector")
	}
	p.Layer = 0
	if _, err := p.CategoryVector("privacy", "llama", 1); err == nil {
		t.Fatal("a one-block model got a direction")
	}
}

func TestSteerPairSets(t *testing.T) {
	set, err := prompts.Default()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := set.Category("phishing")
	ps, err := geometry.CategoryPairs(set, "phishing")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(c.Train) || ps[0].Positive != c.Train[0].Harm || ps[0].Negative != c.Train[0].Benign {
		t.Fatalf("category pairs %d (first %+v), want the %d train pairs, harm positive", len(ps), ps[0], len(c.Train))
	}
	if _, err := geometry.CategoryPairs(set, "nope"); err == nil {
		t.Fatal("an unknown category has pairs")
	}
	want := 0
	for _, c := range set.Categories {
		want += len(c.Heldout)
	}
	if rs := geometry.RefusalPairs(set); len(rs) != want || rs[0].Positive != set.Categories[0].Heldout[0].Harm {
		t.Fatalf("%d refusal pairs, want %d held-out pairs, harm positive", len(rs), want)
	}
}
