package model

import (
	"math"
	"testing"
)

// TestAttnRes: a default-initialised (uniform) AttnRes and strength 0 are
// the identity on a pre-norm model, as the doc argues — logits within
// float rounding of the plain model's, at strengths 0.35 and 1 — while the
// state-query form at s > 0 changes them; the profile sees every block;
// decoding with it allocates nothing once warm; a strength outside [0, 1]
// is refused.
func TestAttnRes(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	s, err := m.NewStateOn(0, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prompt := []int32{1, 300, 391, 394, 325, 341}
	run := func(h *AttnRes) []float32 {
		t.Helper()
		out := make([]float32, m.Vocab)
		s.Reset()
		if h != nil {
			remove, err := s.AddHook(h)
			if err != nil {
				t.Fatal(err)
			}
			defer remove()
		}
		// The prompt in two calls, so a position's sources are kept
		// across a batch and a single token both.
		if err := s.Forward(prompt[:4], nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Forward(prompt[4:5], nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Forward(prompt[5:], out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain := run(nil)
	maxDiff := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d = max(d, math.Abs(float64(a[i]-b[i])))
		}
		return d
	}
	for _, c := range []struct {
		s       float64
		uniform bool
	}{{0, false}, {0.35, true}, {1, true}} {
		h, err := NewAttnRes(m, c.s, c.uniform)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(run(h), plain); d > 1e-3 {
			t.Errorf("s %g uniform %v: logits moved by %g, want the identity", c.s, c.uniform, d)
		}
	}
	for _, st := range []float64{0.35, 1} {
		h, err := NewAttnRes(m, st, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(run(h), plain); d < 0.01 {
			t.Errorf("s %g: logits moved by only %g", st, d)
		}
		pl, mx := h.Profile()
		for l := range pl {
			if pl[l] <= 0 || mx[l] <= 0 || math.IsNaN(pl[l]+mx[l]) {
				t.Errorf("s %g: block %d profile %g / %g", st, l, pl[l], mx[l])
			}
		}
		if len(h.slots) != 0 {
			t.Errorf("s %g: %d positions still held after the forward passes", st, len(h.slots))
		}
	}
	h, _ := NewAttnRes(m, 0.35, false)
	remove, err := s.AddHook(h)
	if err != nil {
		t.Fatal(err)
	}
	s.Reset()
	logits := make([]float32, m.Vocab)
	if err := s.Forward(prompt, logits); err != nil {
		t.Fatal(err)
	}
	tok := []int32{5}
	if a := testing.AllocsPerRun(10, func() {
		if err := s.Forward(tok, logits); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("a decode step with AttnRes allocates %.0f times", a)
	}
	remove()
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := NewAttnRes(m, bad, false); err == nil {
			t.Errorf("strength %g accepted", bad)
		}
	}
}
