package evaluate_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
)

func TestDefaultSteerRanges(t *testing.T) {
	for _, tc := range []struct {
		layers int
		want   [][2]int
	}{
		{1, nil},
		{2, [][2]int{{1, 1}}},
		{3, [][2]int{{1, 1}, {1, 2}}},
		{4, [][2]int{{2, 2}, {1, 3}}},
		{6, [][2]int{{2, 3}, {1, 5}}},
		{16, [][2]int{{6, 10}, {1, 15}}},
		{32, [][2]int{{11, 21}, {1, 31}}},
	} {
		if got := evaluate.DefaultSteerRanges(tc.layers); !slices.Equal(got, tc.want) {
			t.Errorf("DefaultSteerRanges(%d) = %v, want %v", tc.layers, got, tc.want)
		}
	}
}

func TestSteerArmString(t *testing.T) {
	for _, tc := range []struct {
		a    evaluate.SteerArm
		want string
	}{
		{evaluate.SteerArm{Vector: "refusal", Scale: -1, First: 1, Last: 3}, "steer −1.0 × refusal, layers 1–3"},
		{evaluate.SteerArm{Vector: "refusal", Scale: -0.25, First: 2, Last: 2}, "steer −0.25 × refusal, layer 2"},
		{evaluate.SteerArm{Vector: "happy.gguf", Scale: 0.8, First: 1, Last: 15}, "steer +0.8 × happy.gguf, layers 1–15"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
}

// TestReaderSteers: a Reader's LastStates are States' last tokens, and
// steering by v after block l moves the state leaving block l by exactly
// v and leaves the blocks before it alone; Steer(nil) gives the
// unsteered states back.
func TestReaderSteers(t *testing.T) {
	s := openKJV(t)
	src := s.Geometry().CalibrationSource()
	r, err := geometry.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	texts := []string{"In the beginning God created the heaven and the earth.", "And the LORD spake unto Moses."}
	const l = 2
	_, last, err := r.States(ctx, texts, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func() []*mat.Dense {
		t.Helper()
		got, err := r.LastStates(ctx, texts, []int{l - 1, l}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain := read()
	if !mat.EqualApprox(plain[1], last, 1e-6) {
		t.Fatal("LastStates at a layer differ from States' last tokens")
	}
	v := make([]float32, src.Model.Dim)
	for i := range v {
		v[i] = float32(i%5) - 2
	}
	dirs := make([][]float32, src.Model.Layers)
	dirs[l] = v
	if err := r.Steer(dirs); err != nil {
		t.Fatal(err)
	}
	steered := read()
	if !mat.Equal(steered[0], plain[0]) {
		t.Fatal("steering after block 2 moved the state leaving block 1")
	}
	for i := range texts {
		for j, x := range v {
			if d := steered[1].At(i, j) - plain[1].At(i, j); math.Abs(d-float64(x)) > 1e-4 {
				t.Fatalf("prompt %d, coordinate %d: moved by %g, steered by %g", i, j, d, x)
			}
		}
	}
	if err := r.Steer(nil); err != nil {
		t.Fatal(err)
	}
	if back := read(); !mat.Equal(back[1], plain[1]) {
		t.Fatal("Steer(nil) did not give the unsteered states back")
	}
	if _, err := r.LastStates(ctx, texts, []int{src.Model.Layers}, nil); err == nil {
		t.Fatal("a layer past the model's was read")
	}
}

// TestRefusalsSteering: the steering arms follow the refusal arms, one
// per range and scale, each named for what it adds and moving the first
// token; the direction is read from the calibration pairs; and a control
// vector made by hand the same way (the state leaving block N−1, added
// after block N) measures the same as the arm, so the report's convention
// is llama.cpp's.
func TestRefusalsSteering(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	set := smallSet(t)
	src := s.Geometry().CalibrationSource()
	ctx := context.Background()
	L := src.Model.Layers
	// The same direction, read by hand from the train pairs.
	var harm, benign []string
	for _, c := range set.Categories {
		for _, pr := range c.Train {
			harm, benign = append(harm, pr.Harm), append(benign, pr.Benign)
		}
	}
	r, err := geometry.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	const at = 2 // steer after block 2: the direction leaves block 1
	H, err := r.LastStates(ctx, harm, []int{at - 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	B, err := r.LastStates(ctx, benign, []int{at - 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vec := make([][]float32, L)
	vec[at] = make([]float32, src.Model.Dim)
	for j := range vec[at] {
		d := mat.Sum(H[0].ColView(j))/float64(len(harm)) - mat.Sum(B[0].ColView(j))/float64(len(benign))
		vec[at][j] = float32(-2 * d)
	}
	o := evaluate.RefusalOptions{PerCategory: 1, MaxTokens: 4, SteerScales: []float64{0.5, 2},
		Vector: vec, VectorArm: evaluate.SteerArm{Vector: "by hand", Scale: -2, First: at, Last: at}}
	rep, err := evaluate.Refusals(ctx, src, p, set, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.RefusalFrom, "40 calibration (train) pairs") {
		t.Errorf("direction read from %q, want the 40 train pairs", rep.RefusalFrom)
	}
	var steered []evaluate.RefusalResult
	for _, res := range rep.Results {
		if res.Steer != nil {
			steered = append(steered, res)
		}
	}
	ranges := evaluate.DefaultSteerRanges(L)
	if len(steered) != 2*len(ranges)+1 {
		t.Fatalf("%d steering arms, want 2 scales × %d ranges and the vector: %+v", len(steered), len(ranges), rep.Results)
	}
	for i, rg := range ranges {
		for j, sc := range o.SteerScales {
			a := steered[2*i+j]
			want := evaluate.SteerArm{Vector: "refusal", Scale: -sc, First: rg[0], Last: rg[1]}
			if *a.Steer != want || a.Name != want.String() {
				t.Errorf("arm %d: %q %+v, want %+v", 2*i+j, a.Name, *a.Steer, want)
			}
			if !(a.KL > 0) || math.IsNaN(a.KL) || a.Refusals < 0 || a.Refusals > rep.Harmful {
				t.Errorf("%s: %d refusals, KL %g", a.Name, a.Refusals, a.KL)
			}
		}
	}
	// −2 × refusal after block 2 alone, as an arm and as a vector.
	o2 := evaluate.RefusalOptions{PerCategory: 1, MaxTokens: 4, SteerScales: []float64{2}, SteerRanges: [][2]int{{at, at}}}
	rep2, err := evaluate.Refusals(ctx, src, p, set, o2, nil)
	if err != nil {
		t.Fatal(err)
	}
	arm, byHand := rep2.Results[len(rep2.Results)-1], steered[len(steered)-1]
	if arm.Name != "steer −2.0 × refusal, layer 2" || byHand.Name != "steer −2.0 × by hand, layer 2" {
		t.Fatalf("arms %q and %q", arm.Name, byHand.Name)
	}
	if arm.Refusals != byHand.Refusals || math.Abs(arm.KL-byHand.KL) > 1e-9*max(1, arm.KL) || rep2.Examples[arm.Name] != rep.Examples[byHand.Name] {
		t.Errorf("the arm (%d refusals, KL %g, %q) and the same vector made by hand (%d, %g, %q) differ",
			arm.Refusals, arm.KL, rep2.Examples[arm.Name], byHand.Refusals, byHand.KL, rep.Examples[byHand.Name])
	}
	// The steering is gone after the measurement: the unsteered arm
	// measures the same again.
	if rep2.Results[0].Refusals != rep.Results[0].Refusals || rep2.Examples["none"] != rep.Examples["none"] {
		t.Errorf("none: %d refusals (%q), before %d (%q)", rep2.Results[0].Refusals, rep2.Examples["none"], rep.Results[0].Refusals, rep.Examples["none"])
	}
}

func TestRefusalsSteeringRefusesBadArms(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	set := smallSet(t)
	src := s.Geometry().CalibrationSource()
	L := src.Model.Layers
	for _, o := range []evaluate.RefusalOptions{
		{SteerScales: []float64{0}},
		{SteerScales: []float64{math.Inf(1)}},
		{SteerScales: []float64{1}, SteerRanges: [][2]int{{0, 1}}},
		{SteerScales: []float64{1}, SteerRanges: [][2]int{{1, L}}},
		{SteerScales: []float64{1}, SteerRanges: [][2]int{{3, 2}}},
	} {
		o.PerCategory, o.MaxTokens = 1, 2
		if _, err := evaluate.Refusals(context.Background(), src, p, set, o, nil); err == nil || !strings.Contains(err.Error(), "steering") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
