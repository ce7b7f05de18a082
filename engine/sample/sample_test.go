package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var (
	nan  = float32(math.NaN())
	pInf = float32(math.Inf(1))
	nInf = float32(math.Inf(-1))
)

func mustNew(t testing.TB, vocab int, p Params) *Sampler {
	t.Helper()
	s, err := New(vocab, p)
	if err != nil {
		t.Fatalf("New(%d, %+v): %v", vocab, p, err)
	}
	return s
}

// logProbs returns logits whose softmax (at T=1) is probs, placed at ids;
// every other entry of the vocab-sized slice is -Inf.
func logProbs(vocab int, ids []int32, probs []float64) []float32 {
	l := make([]float32, vocab)
	for i := range l {
		l[i] = nInf
	}
	for i, id := range ids {
		l[id] = float32(math.Log(probs[i]))
	}
	return l
}

// counts draws n tokens and returns how often each id came up.
func counts(s *Sampler, logits []float32, n int) map[int32]int {
	m := map[int32]int{}
	for range n {
		m[s.Sample(logits, nil)]++
	}
	return m
}

// chiSquare compares observed counts over ids with the expected
// probabilities (which need not be normalised) and fails on tokens outside
// ids.
func chiSquare(t *testing.T, got map[int32]int, ids []int32, probs []float64, n int) float64 {
	t.Helper()
	z := 0.0
	for _, p := range probs {
		z += p
	}
	x2 := 0.0
	seen := 0
	for i, id := range ids {
		e := float64(n) * probs[i] / z
		o := float64(got[id])
		seen += got[id]
		x2 += (o - e) * (o - e) / e
	}
	if seen != n {
		t.Fatalf("%d of %d draws fell outside %v: %v", n-seen, n, ids, got)
	}
	return x2
}

func randomLogits(r *rand.Rand, n int, scale float64) []float32 {
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64() * scale)
	}
	return l
}

func TestGreedyArgmax(t *testing.T) {
	s := mustNew(t, 6, Params{})
	for _, tc := range []struct {
		logits []float32
		want   int32
	}{
		{[]float32{0, 1, 5, 2, 4, 3}, 2},
		{[]float32{-3, -1, -2, -5, -4, -6}, 1},
		{[]float32{1, 7, 3, 7, 7, 0}, 1},              // tie: lowest id
		{[]float32{9, 9, 9, 9, 9, 9}, 0},              // all tied
		{[]float32{-1, nInf, 3, pInf, 2, 1}, 3},       // +Inf is the max
		{[]float32{0, 0, 0, 0, 0, float32(1e-30)}, 5}, // tiny margin still wins
	} {
		before := slices.Clone(tc.logits)
		for range 3 { // greedy is deterministic
			if got := s.Sample(tc.logits, nil); got != tc.want {
				t.Errorf("Sample(%v) = %d, want %d", tc.logits, got, tc.want)
			}
		}
		if !slices.Equal(before, tc.logits) {
			t.Errorf("logits modified: %v -> %v", before, tc.logits)
		}
	}
}

func TestSeedDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const vocab = 50
	logits := randomLogits(r, vocab, 1)
	p := Params{Temperature: 1, TopK: 30, TopP: 0.95, MinP: 0.01, RepeatPenalty: 1.1, Seed: 42}
	run := func(s *Sampler) []int32 {
		hist := []int32{1, 2, 3}
		out := make([]int32, 0, 1000)
		for range 1000 {
			tok := s.Sample(logits, hist)
			hist = append(hist, tok)
			out = append(out, tok)
		}
		return out
	}
	a := run(mustNew(t, vocab, p))
	b := run(mustNew(t, vocab, p))
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different sequences")
	}
	p.Seed = 43
	c := run(mustNew(t, vocab, p))
	if slices.Equal(a, c) {
		t.Fatal("seeds 42 and 43 gave identical sequences")
	}

	// Reset restarts the stream.
	p.Seed = 7
	s := mustNew(t, vocab, p)
	d := run(s)
	s.Reset(42)
	if e := run(s); !slices.Equal(a, e) {
		t.Fatal("Reset(42) did not reproduce the seed-42 sequence")
	}
	s.Reset(7)
	if e := run(s); !slices.Equal(d, e) {
		t.Fatal("Reset(7) did not reproduce the seed-7 sequence")
	}
}

func TestSoftmaxDistribution(t *testing.T) {
	logits := []float32{1, 2, 0.5, -1, 1.5}
	want := make([]float64, len(logits))
	for i, l := range logits {
		want[i] = math.Exp(float64(l))
	}
	ids := []int32{0, 1, 2, 3, 4}
	const n = 50000
	for _, seed := range []uint64{1, 2} {
		s := mustNew(t, len(logits), Params{Temperature: 1, Seed: seed})
		got := counts(s, logits, n)
		// 4 degrees of freedom: P(χ² > 18.5) = 0.001.
		if x2 := chiSquare(t, got, ids, want, n); x2 > 18.5 {
			t.Errorf("seed %d: χ² = %.1f > 18.5; counts %v", seed, x2, got)
		}
	}

	// Temperature 2 flattens: the softmax is of logit/2.
	for i, l := range logits {
		want[i] = math.Exp(float64(l) / 2)
	}
	s := mustNew(t, len(logits), Params{Temperature: 2, Seed: 3})
	got := counts(s, logits, n)
	if x2 := chiSquare(t, got, ids, want, n); x2 > 18.5 {
		t.Errorf("T=2: χ² = %.1f > 18.5; counts %v", x2, got)
	}
}

func TestTopKOneIsGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const vocab = 1000
	g := mustNew(t, vocab, Params{})
	for i := range 50 {
		logits := randomLogits(r, vocab, 3)
		if i%2 == 0 { // force a tie for the top
			j := slices.Index(logits, slices.Max(logits))
			logits[(j+vocab/2)%vocab] = logits[j]
		}
		want := g.Sample(logits, nil)
		s := mustNew(t, vocab, Params{Temperature: 1.5, TopK: 1, Seed: uint64(i)})
		for range 5 {
			if got := s.Sample(logits, nil); got != want {
				t.Fatalf("top-k 1 gave %d, greedy %d", got, want)
			}
		}
	}
}

func TestTopKTwo(t *testing.T) {
	// Ranks 0 and 1 are ids 4 and 1; id 2 ties id 1 but loses on id.
	logits := []float32{0.5, 1, 1, 0.9, 1.2, -3, 0.99}
	s := mustNew(t, len(logits), Params{Temperature: 1, TopK: 2, Seed: 5})
	const n = 20000
	got := counts(s, logits, n)
	// 1 degree of freedom: P(χ² > 10.8) = 0.001.
	if x2 := chiSquare(t, got, []int32{4, 1}, []float64{math.Exp(1.2), math.Exp(1)}, n); x2 > 10.8 {
		t.Errorf("χ² = %.1f; counts %v", x2, got)
	}
}

// probs4 are the test distribution for top-p and min-p; they sit at
// scattered ids of a vocabulary of 16, the rest being -Inf or NaN.
var (
	probs4 = []float64{0.5, 0.3, 0.15, 0.05}
	ids4   = []int32{11, 3, 14, 6}
)

func logits4() []float32 {
	l := logProbs(16, ids4, probs4)
	l[0], l[9] = nan, nan
	return l
}

func TestTopP(t *testing.T) {
	for _, tc := range []struct {
		topP float32
		keep int
	}{
		{0.4, 1},
		{0.49, 1},
		{0.6, 2},
		{0.75, 2},
		{0.85, 3},
		{0.96, 4},
		{1, 4}, // off
		{0, 4}, // off
	} {
		s := mustNew(t, 16, Params{Temperature: 1, TopP: tc.topP, Seed: 9})
		const n = 20000
		got := counts(s, logits4(), n)
		if x2 := chiSquare(t, got, ids4[:tc.keep], probs4[:tc.keep], n); x2 > 16 {
			t.Errorf("top-p %v: χ² = %.1f; counts %v, want ids %v", tc.topP, x2, got, ids4[:tc.keep])
		}
		if len(got) != tc.keep {
			t.Errorf("top-p %v: drew %d distinct tokens %v, want %d", tc.topP, len(got), got, tc.keep)
		}
	}
}

func TestMinP(t *testing.T) {
	for _, tc := range []struct {
		minP, topP float32
		keep       int
	}{
		{0.05, 0, 4},
		{0.11, 0, 3}, // threshold 0.055
		{0.25, 0, 3}, // threshold 0.125 < 0.15
		{0.35, 0, 2}, // threshold 0.175
		{0.61, 0, 1}, // threshold 0.305
		{1, 0, 1},    // only the best
		{1, 0.85, 1},
		{0.35, 0.85, 2}, // min-p is the tighter
		{0.05, 0.75, 2}, // top-p is the tighter
		{0.25, 0.96, 3},
	} {
		s := mustNew(t, 16, Params{Temperature: 1, MinP: tc.minP, TopP: tc.topP, Seed: 11})
		const n = 20000
		got := counts(s, logits4(), n)
		if x2 := chiSquare(t, got, ids4[:tc.keep], probs4[:tc.keep], n); x2 > 16 {
			t.Errorf("min-p %v top-p %v: χ² = %.1f; counts %v, want ids %v", tc.minP, tc.topP, x2, got, ids4[:tc.keep])
		}
		if len(got) != tc.keep {
			t.Errorf("min-p %v top-p %v: drew %d distinct tokens %v, want %d", tc.minP, tc.topP, len(got), got, tc.keep)
		}
	}
}

func TestLowTemperatureIsGreedy(t *testing.T) {
	logits := []float32{1, 2.95, 3, 2.99, -1}
	hot := counts(mustNew(t, 5, Params{Temperature: 1, Seed: 1}), logits, 1000)
	if hot[2] > 600 {
		t.Fatalf("at T=1 the argmax won %d of 1000 draws; the test logits are too peaked", hot[2])
	}
	for _, temp := range []float32{1e-3, 1e-6, 1e-30, math.SmallestNonzeroFloat32} {
		got := counts(mustNew(t, 5, Params{Temperature: temp, Seed: 1}), logits, 1000)
		if got[2] != 1000 {
			t.Errorf("T=%g: draws %v, want always 2", temp, got)
		}
	}
}

func TestRepeatPenalty(t *testing.T) {
	base := []float32{2, -2, 3, 0, 1, 5, -0.5, 4, 1.5, 6}
	for _, tc := range []struct {
		name    string
		pen     float32
		window  int
		history []int32
		want    []float32
	}{
		{
			name: "window 3", pen: 2, window: 3,
			history: []int32{9, 7, 0, 1, 1, 0},
			// Only 1, 1, 0 are in the window: 0 divided, 1 multiplied, once.
			want: []float32{1, -4, 3, 0, 1, 5, -0.5, 4, 1.5, 6},
		},
		{
			name: "distinct once", pen: 2, window: 10,
			history: []int32{0, 0, 0, 0, 6, 6, 3},
			want:    []float32{1, -2, 3, 0, 1, 5, -1, 4, 1.5, 6},
		},
		{
			name: "penalty below 1 boosts", pen: 0.5, window: 4,
			history: []int32{2, 6},
			want:    []float32{2, -2, 6, 0, 1, 5, -0.25, 4, 1.5, 6},
		},
		{
			name: "out of vocabulary ignored", pen: 4, window: 5,
			history: []int32{-1, 10, 1 << 30, 8, -7},
			want:    []float32{2, -2, 3, 0, 1, 5, -0.5, 4, 0.375, 6},
		},
	} {
		s := mustNew(t, len(base), Params{RepeatPenalty: tc.pen, RepeatWindow: tc.window})
		logits := slices.Clone(base)
		s.Sample(logits, tc.history)
		if !slices.Equal(s.logits, tc.want) {
			t.Errorf("%s: penalised logits %v, want %v", tc.name, s.logits, tc.want)
		}
		if !slices.Equal(logits, base) {
			t.Errorf("%s: caller's logits modified", tc.name)
		}
	}

	// Off (penalty 0 or 1) or nothing to penalise: token 9 keeps the lead
	// it would lose to token 5 under a penalty of 2.
	for _, tc := range []struct {
		pen     float32
		history []int32
	}{{0, []int32{9}}, {1, []int32{9}}, {2, nil}, {2, []int32{}}} {
		s := mustNew(t, len(base), Params{RepeatPenalty: tc.pen})
		if got := s.Sample(base, tc.history); got != 9 {
			t.Errorf("penalty %v, history %v: got %d, want 9", tc.pen, tc.history, got)
		}
	}
	s := mustNew(t, len(base), Params{RepeatPenalty: 2})
	if got := s.Sample(base, []int32{9}); got != 5 {
		t.Errorf("penalty 2, history [9]: got %d, want 5", got)
	}
}

func TestRepeatPenaltyDefaultWindow(t *testing.T) {
	const vocab = 10
	logits := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	hist := make([]int32, 100)
	for i := range hist {
		hist[i] = 9
	}
	hist[35] = 5 // just outside the last 64
	hist[36] = 6 // just inside
	s := mustNew(t, vocab, Params{RepeatPenalty: 2})
	s.Sample(logits, hist)
	want := []float32{1, 1, 1, 1, 1, 1, 0.5, 1, 1, 0.5}
	if !slices.Equal(s.logits, want) {
		t.Errorf("penalised logits %v, want %v", s.logits, want)
	}
}

func TestRepeatPenaltyGreedy(t *testing.T) {
	logits := []float32{0, 3, 2.5, -1}
	s := mustNew(t, 4, Params{RepeatPenalty: 1.5})
	if got := s.Sample(logits, nil); got != 1 {
		t.Fatalf("no history: got %d, want 1", got)
	}
	if got := s.Sample(logits, []int32{1}); got != 2 { // 3/1.5 = 2 < 2.5
		t.Fatalf("1 penalised: got %d, want 2", got)
	}
	if got := s.Sample(logits, []int32{1, 2}); got != 1 { // 2 > 2.5/1.5
		t.Fatalf("1 and 2 penalised: got %d, want 1", got)
	}
	// The marks from the calls above must not leak once the generation
	// counter wraps around.
	s.gen = math.MaxUint32
	s.marks[2] = 1
	if got := s.Sample(logits, []int32{1, 2}); got != 1 {
		t.Fatalf("after wrap: got %d, want 1", got)
	}
	if s.logits[2] != 2.5/1.5 {
		t.Fatalf("after wrap token 2 has logit %v, want %v", s.logits[2], float32(2.5/1.5))
	}
}

func TestLogitsUnmodified(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const vocab = 3000
	logits := randomLogits(r, vocab, 4)
	logits[7], logits[8], logits[9] = nan, pInf, nInf
	hist := []int32{7, 8, 9, 10, 11, 12, 13, 12}
	orig := slices.Clone(logits)
	for _, p := range []Params{
		{},
		{RepeatPenalty: 1.3},
		{Temperature: 0.7, TopK: 50, TopP: 0.9, MinP: 0.05, RepeatPenalty: 1.3, Seed: 1},
		{Temperature: 1.2, TopP: 0.99, RepeatPenalty: 0.8},
	} {
		s := mustNew(t, vocab, p)
		for range 10 {
			s.Sample(logits, hist)
		}
		for i := range logits {
			if math.Float32bits(logits[i]) != math.Float32bits(orig[i]) {
				t.Fatalf("%+v: logits[%d] changed from %v to %v", p, i, orig[i], logits[i])
			}
		}
	}
}

func TestNonFinite(t *testing.T) {
	params := []Params{
		{},
		{RepeatPenalty: 1.5},
		{Temperature: 1, Seed: 1},
		{Temperature: 100, TopK: 3, Seed: 2},
		{Temperature: 1, TopK: 2, Seed: 4},
		{Temperature: 1, TopP: 0.9, MinP: 0.1, Seed: 3},
	}
	for _, p := range params {
		// All NaN, all -Inf, or a mix: token 0, no panic.
		s := mustNew(t, 5, p)
		for _, l := range [][]float32{
			{nan, nan, nan, nan, nan},
			{nInf, nInf, nInf, nInf, nInf},
			{nInf, nan, nInf, nan, nan},
		} {
			if got := s.Sample(l, []int32{1, 2}); got != 0 {
				t.Errorf("%+v: Sample(%v) = %d, want 0", p, l, got)
			}
		}
		// NaN is never chosen, even when it would be the largest entry.
		l := []float32{nan, -30, nan, -31, nan}
		for range 2000 {
			if got := s.Sample(l, nil); got != 1 && got != 3 {
				t.Fatalf("%+v: Sample(%v) = %d", p, l, got)
			}
		}
		// A single +Inf wins outright.
		l = []float32{3, nan, pInf, 1e38, nInf}
		for range 200 {
			if got := s.Sample(l, nil); got != 2 {
				t.Fatalf("%+v: Sample(%v) = %d, want 2", p, l, got)
			}
		}
		// Two +Inf tie: greedy takes the first, sampling either.
		l = []float32{pInf, 1, 2, 0, pInf}
		got := counts(s, l, 400)
		if want := 2 - boolInt(p.Temperature == 0); got[0]+got[4] != 400 || len(got) != want {
			t.Errorf("%+v: Sample(%v) drew %v, want %d of ids 0 and 4", p, l, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	valid := []Params{
		{},
		{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, RepeatWindow: 64, Seed: 1},
		{Temperature: 1, TopP: 1, MinP: 1},
		{RepeatPenalty: 0.5},
	}
	for _, p := range valid {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{Temperature: -0.1}, "Temperature"},
		{Params{Temperature: nan}, "Temperature"},
		{Params{Temperature: pInf}, "Temperature"},
		{Params{TopK: -1}, "TopK"},
		{Params{TopP: -0.01}, "TopP"},
		{Params{TopP: 1.01}, "TopP"},
		{Params{TopP: nan}, "TopP"},
		{Params{MinP: -1}, "MinP"},
		{Params{MinP: 2}, "MinP"},
		{Params{MinP: nan}, "MinP"},
		{Params{RepeatPenalty: -1}, "RepeatPenalty"},
		{Params{RepeatPenalty: nan}, "RepeatPenalty"},
		{Params{RepeatPenalty: pInf}, "RepeatPenalty"},
		{Params{RepeatWindow: -1}, "RepeatWindow"},
	} {
		err := tc.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.p, err, tc.want)
		}
		if _, err := New(10, tc.p); err == nil {
			t.Errorf("New accepted %+v", tc.p)
		}
	}
	// Every problem is reported.
	err := Params{Temperature: -1, TopK: -1, TopP: 2, MinP: -1, RepeatPenalty: -1, RepeatWindow: -1}.Validate()
	for _, f := range []string{"Temperature", "TopK", "TopP", "MinP", "RepeatPenalty", "RepeatWindow"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("joined error %v does not name %s", err, f)
		}
	}
	bad := []int{0, -1}
	if big := int64(math.MaxInt32) + 1; int64(int(big)) == big { // 64-bit int
		bad = append(bad, int(big))
	}
	for _, v := range bad {
		if _, err := New(v, Params{}); err == nil {
			t.Errorf("New(%d) succeeded", v)
		}
	}
}

func TestWrongLengthPanics(t *testing.T) {
	s := mustNew(t, 4, Params{})
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if !strings.Contains(msg, "3 logits") || !strings.Contains(msg, "vocabulary of 4") {
			t.Fatalf("panic %v, want a message naming both lengths", r)
		}
	}()
	s.Sample(make([]float32, 3), nil)
}

func TestZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const vocab = 4096
	logits := randomLogits(r, vocab, 3)
	hist := make([]int32, 200)
	for i := range hist {
		hist[i] = int32(r.IntN(vocab))
	}
	for _, p := range []Params{
		{},
		{RepeatPenalty: 1.1},
		{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, Seed: 1},
		{Temperature: 0.8, TopP: 0.95, RepeatPenalty: 1.1, Seed: 1},
		{Temperature: 1, TopK: 2000, TopP: 0.9, Seed: 1},
		{Temperature: 1, MinP: 0.1, Seed: 1},
		{Temperature: 1},
	} {
		s := mustNew(t, vocab, p)
		if a := testing.AllocsPerRun(50, func() { s.Sample(logits, hist) }); a != 0 {
			t.Errorf("%+v: %v allocations per Sample", p, a)
		}
	}
}

// reference is the chain written the slow, obvious way: a full sort and
// cumulative walk. It returns the kept ids in ascending order.
func reference(logits []float32, history []int32, p Params) []int32 {
	l := slices.Clone(logits)
	if p.RepeatPenalty != 0 && p.RepeatPenalty != 1 {
		w := p.RepeatWindow
		if w == 0 {
			w = 64
		}
		h := history[max(0, len(history)-w):]
		done := map[int32]bool{}
		for _, t := range h {
			if t < 0 || int(t) >= len(l) || done[t] {
				continue
			}
			done[t] = true
			if l[t] > 0 {
				l[t] /= p.RepeatPenalty
			} else {
				l[t] *= p.RepeatPenalty
			}
		}
	}
	for i, v := range l {
		if math.IsNaN(float64(v)) {
			l[i] = nInf
		} else if math.IsInf(float64(v), 1) {
			l[i] = math.MaxFloat32
		}
	}
	var c []cand
	for i, v := range l {
		if v > nInf {
			c = append(c, cand{id: int32(i), logit: v})
		}
	}
	if len(c) == 0 {
		return nil
	}
	slices.SortStableFunc(c, cmpCand)
	if p.Temperature <= 0 {
		return []int32{c[0].id}
	}
	// Temperature is applied after the truncations (llama.cpp's order), so
	// they all see the T = 1 distribution.
	T := 1.0
	top := float64(c[0].logit)
	for i := range c {
		if (float64(c[i].logit)-top)/T < -negligible {
			c = c[:i]
			break
		}
	}
	if p.TopK > 0 && p.TopK < len(c) {
		c = c[:p.TopK]
	}
	z := 0.0
	for i := range c {
		c[i].w = math.Exp((float64(c[i].logit) - top) / T)
		z += c[i].w
	}
	if p.TopP > 0 && p.TopP < 1 {
		cum := 0.0
		for i := range c {
			cum += c[i].w / z
			if cum >= float64(p.TopP) {
				c = c[:i+1]
				break
			}
		}
	}
	var ids []int32
	for _, x := range c {
		if x.w/c[0].w >= float64(p.MinP) {
			ids = append(ids, x.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestAgainstReference checks the selection and partitioning fast paths
// against reference on random logits with ties, non-finite values and
// random settings.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for iter := range 400 {
		vocab := 1 + r.IntN(3000)
		scale := []float64{0.5, 3, 30}[r.IntN(3)]
		logits := randomLogits(r, vocab, scale)
		if iter%3 == 0 { // coarse grid: many ties
			for i := range logits {
				logits[i] = float32(math.Round(float64(logits[i])))
			}
		}
		if iter%5 == 0 {
			for range 1 + r.IntN(5) {
				logits[r.IntN(vocab)] = []float32{nan, nInf, pInf}[r.IntN(3)]
			}
		}
		hist := make([]int32, r.IntN(100))
		for i := range hist {
			hist[i] = int32(r.IntN(vocab+2) - 1)
		}
		p := Params{Seed: uint64(iter)}
		if r.IntN(8) != 0 {
			p.Temperature = float32(0.05 + 2*r.Float64())
		}
		if r.IntN(2) == 0 {
			p.TopK = 1 + r.IntN(vocab+5)
		}
		if r.IntN(3) != 0 {
			p.TopP = float32(r.Float64())
		}
		if r.IntN(3) == 0 {
			p.MinP = float32(r.Float64() * 0.3)
		}
		if r.IntN(2) == 0 {
			p.RepeatPenalty = float32(0.5 + r.Float64())
			p.RepeatWindow = r.IntN(80)
		}
		s := mustNew(t, vocab, p)
		got := s.candidates(logits, hist)
		ids := make([]int32, len(got))
		for i, c := range got {
			ids[i] = c.id
		}
		slices.Sort(ids)
		if want := reference(logits, hist, p); !slices.Equal(ids, want) {
			t.Fatalf("iter %d, vocab %d, %+v: kept %d tokens %v, reference %d %v",
				iter, vocab, p, len(ids), head(ids), len(want), head(want))
		}
	}
}

func head(x []int32) []int32 { return x[:min(len(x), 10)] }

// TestSelectionWorstCase feeds the selections inputs built to defeat a
// median-of-three pivot and checks they still select correctly (the depth
// limit falls back to sorting).
func TestSelectionWorstCase(t *testing.T) {
	for _, n := range []int{17, 100, 5000} {
		for _, order := range []string{"ascending", "descending", "equal", "organ"} {
			c := make([]cand, n)
			for i := range c {
				var l float32
				switch order {
				case "ascending":
					l = float32(i)
				case "descending":
					l = float32(n - i)
				case "equal":
					l = 1
				case "organ":
					l = float32(min(i, n-i))
				}
				c[i] = cand{id: int32(i), logit: l, w: 1}
			}
			sorted := slices.Clone(c)
			slices.SortFunc(sorted, cmpCand)
			for _, k := range []int{1, 2, n / 3, n - 1} {
				x := slices.Clone(c)
				selectTop(x, k)
				top := slices.Clone(x[:k])
				slices.SortFunc(top, cmpCand)
				if !slices.Equal(top, sorted[:k]) {
					t.Fatalf("%s n=%d: selectTop k=%d wrong", order, n, k)
				}
				// Unit weights: the smallest prefix weighing ≥ target is k
				// for targets in (k-1, k], the boundary included.
				for _, target := range []float64{float64(k) - 0.5, float64(k)} {
					x = slices.Clone(c)
					m := cutTopP(x, target)
					top = slices.Clone(x[:m])
					slices.SortFunc(top, cmpCand)
					if m != k || !slices.Equal(top, sorted[:k]) {
						t.Fatalf("%s n=%d: cutTopP for %v kept %d, want %d", order, n, target, m, k)
					}
				}
			}
		}
	}
}

func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := range 200001 {
		x := -60 * float64(i) / 200000
		got, want := expNeg(x), math.Exp(x)
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 1e-13 {
		t.Fatalf("expNeg: worst relative error %g over [-60, 0]", worst)
	}
	if got := expNeg(0); got != 1 {
		t.Fatalf("expNeg(0) = %v, want exactly 1", got)
	}
}

func TestCutBucket(t *testing.T) {
	s := mustNew(t, 4, Params{})
	s.hist[0], s.hist[1], s.hist[2], s.hist[5] = 1, 0.5, 0.25, 0.25
	for _, tc := range []struct {
		target float64
		want   int
		acc    float64
	}{{0.5, 0, 0}, {1, 0, 0}, {1.25, 1, 1}, {1.5, 1, 1}, {1.6, 2, 1.5}, {1.75, 2, 1.5}, {1.8, 5, 1.75}, {2, 5, 1.75}, {3, nBuckets - 1, 2}} {
		if got, acc := s.cutBucket(tc.target); got != tc.want || acc != tc.acc {
			t.Errorf("cutBucket(%v) = %d, %v; want %d, %v", tc.target, got, acc, tc.want, tc.acc)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTopKInf sends +Inf logits through the top-k heap after it has filled
// (a huge temperature keeps finite logits above the negligible floor): they
// count as MaxFloat32 and rank by id among themselves.
func TestTopKInf(t *testing.T) {
	for _, tc := range []struct {
		logits []float32
		want   []int32
	}{
		{[]float32{1, 2, 0, pInf, pInf}, []int32{3, 4}},
		{[]float32{pInf, pInf, 0, pInf}, []int32{0, 1}},
		{[]float32{pInf, 3, 0, math.MaxFloat32, pInf}, []int32{0, 3}},
	} {
		s := mustNew(t, len(tc.logits), Params{Temperature: 1e37, TopK: 2, Seed: 1})
		got := counts(s, tc.logits, 2000)
		if x2 := chiSquare(t, got, tc.want, []float64{1, 1}, 2000); x2 > 10.8 {
			t.Errorf("%v: drew %v, want ids %v evenly", tc.logits, got, tc.want)
		}
	}
}

// TestDraw checks the blocked walk against the plain one on weights that
// make every candidate and block boundary matter.
func TestDraw(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{2, 3, 15, 16, 17, 33, 100} {
		c := make([]cand, n)
		for i := range c {
			c[i] = cand{id: int32(i), w: float64(1 + r.IntN(4))} // exact sums
		}
		total := 0.0
		for _, x := range c {
			total += x.w
		}
		for j := range int(total) * 4 {
			u := (float64(j) + 0.5) / (total * 4)
			want, acc := int32(-1), 0.0
			for _, x := range c {
				if acc += x.w; u*total < acc {
					want = x.id
					break
				}
			}
			if got := draw(c, u); got != want {
				t.Fatalf("n=%d u=%v: draw = %d, want %d", n, u, got, want)
			}
		}
		if got := draw(c, math.Nextafter(1, 0)); got != int32(n-1) {
			t.Fatalf("n=%d: draw(1-ε) = %d", n, got)
		}
	}
}

// TestDistIsWhatSampleDraws: Dist's probabilities sum to 1, every token
// Sample draws is in its support, and Draw over it reproduces it (χ²);
// a greedy Dist is the argmax alone. Dist does not move the random stream.
func TestDistIsWhatSampleDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	logits := randomLogits(r, 300, 2)
	hist := []int32{3, 7, 7, 250}
	for _, p := range []Params{
		{},
		{Temperature: 1, Seed: 1},
		{Temperature: 0.7, TopK: 20, Seed: 2},
		{Temperature: 1.3, TopP: 0.8, MinP: 0.02, RepeatPenalty: 1.3, Seed: 3},
	} {
		s := mustNew(t, len(logits), p)
		d := s.Dist(logits, hist, nil)
		sum := 0.0
		support := map[int32]float64{}
		for _, e := range d {
			sum += e.P
			support[e.ID] = e.P
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("%+v: Dist sums to %v", p, sum)
		}
		if p.Temperature == 0 {
			best, _ := argmax(logits)
			if len(d) != 1 || d[0].ID != int32(best) {
				t.Fatalf("greedy Dist %v, argmax %d", d, best)
			}
			continue
		}
		a := mustNew(t, len(logits), p)
		b := mustNew(t, len(logits), p)
		_ = b.Dist(logits, hist, nil) // must not advance b's stream
		const n = 20000
		got := map[int32]int{}
		for range n {
			x := a.Sample(logits, hist)
			if support[x] == 0 {
				t.Fatalf("%+v: Sample drew %d, outside Dist's support", p, x)
			}
			got[b.Draw(d)]++
		}
		// Pearson's χ² over the tokens expected ≥ 5 times, the rest pooled;
		// the bound is about 5σ above the mean (dof).
		x2, bins, restE, restO := 0.0, 0, 0.0, n
		for _, e := range d {
			exp := e.P * n
			if exp < 5 {
				restE += exp
				continue
			}
			o := float64(got[e.ID])
			restO -= got[e.ID]
			x2 += (o - exp) * (o - exp) / exp
			bins++
		}
		if restE >= 5 {
			x2 += (float64(restO) - restE) * (float64(restO) - restE) / restE
			bins++
		}
		dof := float64(bins - 1)
		if x2 > dof+5*math.Sqrt(2*dof) {
			t.Fatalf("%+v: Draw over Dist gives χ² = %.1f on %v degrees of freedom", p, x2, dof)
		}
	}
}

// TestSetParamsIsNew: a sampler given new parameters samples as a new
// sampler with them does — from a penalty-free one to a penalised one and
// back, and with other seeds and cut-offs — and invalid parameters change
// nothing.
func TestSetParamsIsNew(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const vocab = 80
	logits := randomLogits(r, vocab, 1)
	run := func(s *Sampler) []int32 {
		hist := []int32{1, 2, 3}
		out := make([]int32, 0, 300)
		for range 300 {
			tok := s.Sample(logits, hist)
			hist = append(hist, tok)
			out = append(out, tok)
		}
		return out
	}
	s := mustNew(t, vocab, Params{Temperature: 0.8, Seed: 1})
	run(s)
	for _, p := range []Params{
		{Temperature: 1, TopK: 30, TopP: 0.95, MinP: 0.01, RepeatPenalty: 1.1, Seed: 42},
		{Temperature: 0.7, TopP: 0.5, Seed: 9},
		{Temperature: 1.2, RepeatPenalty: 1.3, RepeatWindow: 8, Seed: 5},
		{Temperature: 0},
	} {
		if err := s.SetParams(p); err != nil {
			t.Fatal(err)
		}
		if got, want := run(s), run(mustNew(t, vocab, p)); !slices.Equal(got, want) {
			t.Fatalf("%+v: SetParams samples differently from New", p)
		}
	}
	before := s.p
	if err := s.SetParams(Params{Temperature: -1}); err == nil || s.p != before {
		t.Fatalf("invalid parameters: err %v, params %+v (were %+v)", err, s.p, before)
	}
}
