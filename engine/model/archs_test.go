package model

import (
	"math"
	"testing"
)

type archCase struct {
	Prompt    string  `json:"prompt"`
	PromptIDs []int32 `json:"prompt_ids"`
	F32       archRun `json:"f32"`
	F16       archRun `json:"f16"`
}

type archRun struct {
	GreedyIDs []int32      `json:"greedy_ids"`
	Top5      [][2]float64 `json:"first_step_top5"`
}

// TestArchs runs the tiny random-weight models of each architecture variant
// (../shared/fixtures/archs) against llama.cpp's goldens: all 32 greedy ids
// exact for the F32 and F16 files, and first-step probabilities of the top 5
// within the README's bounds (1e-5 for F32, 3e-3 for F16). qwen2 covers Q/K/V
// biases, NEOX RoPE and the tied output; llama-rope-freqs covers Llama 3.1's
// rope_freqs divisors and an untied output; qwen3 per-head Q/K RMSNorm and a
// head size that is not Dim/Heads; gemma2 the embedding scale, post-norms,
// GeGLU, both soft-caps and the sliding window on alternate layers. Its F32
// bound is the README's 1e-4 for GELU evaluated as llama.cpp's CPU backend
// does (f16 in and out; the exact function would need 3e-4).
func TestArchs(t *testing.T) {
	var g struct {
		Variants map[string]struct {
			Arch  string `json:"arch"`
			Files struct {
				F32 string `json:"f32"`
				F16 string `json:"f16"`
			} `json:"files"`
			Cases []archCase `json:"cases"`
		} `json:"variants"`
	}
	readJSON(t, "archs/golden.json", &g)
	for _, name := range []string{"qwen2", "llama-rope-freqs", "qwen3", "gemma2"} {
		f32Tol := 1e-5
		if name == "gemma2" {
			f32Tol = 1e-4
		}
		v, ok := g.Variants[name]
		if !ok || len(v.Cases) == 0 {
			t.Fatalf("archs/golden.json has no variant %q", name)
		}
		for _, f := range []struct {
			file string
			tol  float64
			run  func(c archCase) archRun
		}{
			{v.Files.F32, f32Tol, func(c archCase) archRun { return c.F32 }},
			{v.Files.F16, 3e-3, func(c archCase) archRun { return c.F16 }},
		} {
			t.Run(f.file, func(t *testing.T) {
				m := openModel(t, "archs/"+f.file)
				if m.Arch != v.Arch {
					t.Fatalf("architecture %q, want %q", m.Arch, v.Arch)
				}
				s, err := m.NewStateOn(0, testBackend())
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range v.Cases {
					want := f.run(c)
					s.Reset()
					logits := make([]float32, m.Vocab)
					if err := s.Forward(c.PromptIDs, logits); err != nil {
						t.Fatal(err)
					}
					p := softmax(logits)
					for _, e := range want.Top5 {
						if d := math.Abs(p[int(e[0])] - e[1]); d > f.tol {
							t.Errorf("%q: first-step p(%d) = %.6f, llama.cpp %.6f (|diff| %.2g > %g)", c.Prompt, int(e[0]), p[int(e[0])], e[1], d, f.tol)
						}
					}
					s.Reset()
					got := greedy(t, s, c.PromptIDs, len(want.GreedyIDs), -1)
					for i := range want.GreedyIDs {
						if got[i] != want.GreedyIDs[i] {
							t.Errorf("%q: greedy step %d: %d, llama.cpp %d", c.Prompt, i, got[i], want.GreedyIDs[i])
							break
						}
					}
				}
			})
		}
	}
}

func softmax(logits []float32) []float64 {
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v))
	}
	p := make([]float64, len(logits))
	var sum float64
	for i, v := range logits {
		p[i] = math.Exp(float64(v) - mx)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}
