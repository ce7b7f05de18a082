package backendtest

import (
	"math"
	"testing"

	"github.com/isagi-lab/isagi/engine/model"
)

// GreedyResult is how a model's greedy decoding on a backend agreed with
// the CPU engine's (Greedy).
type GreedyResult struct {
	// Equal counts the steps at which both chose the same token.
	Equal int
	// NearTieAt is the step at which they chose differently where the
	// CPU's two best logits were within twice the tolerance — what the two
	// sides may differ by — and the comparison stopped; -1 if none.
	NearTieAt int
	// MaxLogit is the first step's largest |logit difference|, LogitScale
	// the first step's largest |CPU logit|, and Tol the absolute
	// tolerance they were held to: the relative one times max(scale, 1).
	MaxLogit, LogitScale, Tol float64
	// OK says that the first step's logits were within Tol and no step
	// diverged outside a near-tie.
	OK bool
}

// Greedy is a model-level conformance check beside Run's operations: it
// runs the same 12-token prompt through got (the backend under test) and
// want (the CPU engine), then decodes greedily up to steps tokens, feeding
// both the CPU's choice, and wants the same token at every step up to the
// first near-tie. rel is the tolerance relative to the largest first-step
// logit. A divergence outside a near-tie, or first-step logits past the
// tolerance, fail t; the result says how far they agreed either way.
func Greedy(t testing.TB, got, want *model.State, steps int, rel float64) GreedyResult {
	t.Helper()
	V := want.Model().Config.Vocab
	prompt := []int32{1}
	for i := 1; i < 12; i++ {
		prompt = append(prompt, int32((i*7919+13)%(V-3)+3))
	}
	gl, cl := make([]float32, V), make([]float32, V)
	if err := got.Forward(prompt, gl); err != nil {
		t.Fatal(err)
	}
	if err := want.Forward(prompt, cl); err != nil {
		t.Fatal(err)
	}
	r := GreedyResult{NearTieAt: -1}
	for i := range cl {
		if d := math.Abs(float64(gl[i] - cl[i])); d > r.MaxLogit || math.IsNaN(d) {
			r.MaxLogit = d
		}
		r.LogitScale = max(r.LogitScale, math.Abs(float64(cl[i])))
	}
	r.Tol = rel * max(r.LogitScale, 1)
	r.OK = r.MaxLogit <= r.Tol
	if !r.OK {
		t.Errorf("first-step logits differ by %g (largest logit %g)", r.MaxLogit, r.LogitScale)
	}
	for step := range steps {
		best, second := top2(cl)
		if g := Argmax(gl); g != best {
			if float64(cl[best]-cl[second]) <= 2*r.Tol {
				r.NearTieAt = step
				break
			}
			r.OK = false
			t.Errorf("step %d: the backend chose %d (%g), the CPU %d (%g); the CPU's margin %g", step, g, gl[g], best, cl[best], cl[best]-cl[second])
			break
		}
		r.Equal++
		if step == steps-1 {
			break
		}
		next := []int32{int32(best)}
		if err := got.Forward(next, gl); err != nil {
			t.Fatal(err)
		}
		if err := want.Forward(next, cl); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d greedy steps equal, near-tie at %d, first logits max |Δ| %.3g of %.3g", r.Equal, r.NearTieAt, r.MaxLogit, r.LogitScale)
	return r
}

// Argmax is the index of v's largest value: the greedy choice.
func Argmax(v []float32) int {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return b
}

// top2 returns the indices of v's largest and second largest values.
func top2(v []float32) (int, int) {
	a, b := 0, -1
	for i := 1; i < len(v); i++ {
		switch {
		case v[i] > v[a]:
			a, b = i, a
		case b < 0 || v[i] > v[b]:
			b = i
		}
	}
	return a, b
}
