package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomSteering is a direction of norm scale after every layer from 1 on
// (llama.cpp never steers after layer 0).
func randomSteering(m *Model, rng *rand.Rand, scale float32) [][]float32 {
	dirs := make([][]float32, len(m.layers))
	for l := 1; l < len(dirs); l++ {
		d := make([]float32, m.Dim)
		var n float64
		for i := range d {
			d[i] = float32(rng.NormFloat64())
			n += float64(d[i]) * float64(d[i])
		}
		for i := range d {
			d[i] *= scale / float32(math.Sqrt(n))
		}
		dirs[l] = d
	}
	return dirs
}

// adder is a writing block hook that adds dirs[l] after layer l: what
// steering is, written as a hook.
type adder struct{ dirs [][]float32 }

func (a *adder) AfterBlock(layer, _ int, x []float32) {
	if d := a.dirs[layer]; d != nil {
		for i := range x {
			x[i] += d[i]
		}
	}
}

// TestSteeringIsAddition: steering gives bit for bit the logits of a hook
// that adds the same directions after the same blocks, moves them, and
// turning it off gives back the unsteered logits; a new direction is
// rewritten in place.
func TestSteeringIsAddition(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	rng := rand.New(rand.NewPCG(7, 1))
	dirs := randomSteering(m, rng, 6)
	dirs[2] = nil // a layer without a direction
	prompt := []int32{1, 300, 391, 394, 12}
	run := func(setup func(s *State)) [][]float32 {
		s, err := m.NewStateOn(64, testBackend())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		setup(s)
		logits := make([]float32, m.Vocab)
		var out [][]float32
		if err := s.Forward(prompt, logits); err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]float32(nil), logits...))
		for range 6 {
			if err := s.Forward([]int32{argmax(logits)}, logits); err != nil {
				t.Fatal(err)
			}
			out = append(out, append([]float32(nil), logits...))
		}
		return out
	}
	plain := run(func(*State) {})
	hooked := run(func(s *State) {
		if _, err := s.AddHook(&adder{dirs}); err != nil {
			t.Fatal(err)
		}
	})
	steered := run(func(s *State) {
		if err := s.SetSteering(dirs); err != nil {
			t.Fatal(err)
		}
		if !s.Steered() {
			t.Fatal("Steered() false")
		}
	})
	if d := maxDiff(hooked, steered); d != 0 {
		t.Fatalf("steering differs from the adding hook by %g", d)
	}
	if d := maxDiff(plain, steered); d < 1e-3 {
		t.Fatalf("steering moved the logits by only %g", d)
	}
	// Other directions first, then these: rewritten in place, the same.
	again := run(func(s *State) {
		if err := s.SetSteering(randomSteering(m, rng, 1)); err != nil {
			t.Fatal(err)
		}
		v := s.steer.vecs[1]
		if err := s.SetSteering(dirs); err != nil {
			t.Fatal(err)
		}
		if s.steer.vecs[1] != v {
			t.Fatal("the vector of layer 1 was made again, not rewritten")
		}
	})
	if d := maxDiff(again, steered); d != 0 {
		t.Fatalf("rewritten steering differs by %g", d)
	}
	off := run(func(s *State) {
		if err := s.SetSteering(dirs); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSteering(nil); err != nil {
			t.Fatal(err)
		}
		if s.Steered() {
			t.Fatal("Steered() after turning it off")
		}
	})
	if d := maxDiff(off, plain); d != 0 {
		t.Fatalf("steering turned off differs from none by %g", d)
	}
}

func TestSteeringRefuses(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	s, err := m.NewStateOn(16, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	good := randomSteering(m, rand.New(rand.NewPCG(1, 1)), 1)
	if err := s.SetSteering(good); err != nil {
		t.Fatal(err)
	}
	nan := make([]float32, m.Dim)
	nan[3] = float32(math.NaN())
	for _, c := range []struct {
		dirs [][]float32
		want string
	}{
		{make([][]float32, len(m.layers)+1), "the model has"},
		{[][]float32{nil, make([]float32, m.Dim-1)}, "residual stream has"},
		{[][]float32{nil, nan}, "not finite"},
	} {
		if err := s.SetSteering(c.dirs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if !s.Steered() || !s.steer.on[1] {
		t.Fatal("a refused steering changed the one in use")
	}
	s.Close()
	if err := s.SetSteering(good); err == nil {
		t.Fatal("a closed state took steering")
	}
}
