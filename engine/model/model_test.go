package model

import (
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"

	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

func fixture(t testing.TB, rel string) string { t.Helper(); return fixtures.Path(t, rel) }

func readJSON(t testing.TB, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

func openModel(t testing.TB, rel string) *Model {
	t.Helper()
	m, err := Open(fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}

// greedy prefills prompt in one Forward call, then decodes n tokens by
// argmax, stopping after eos when eos ≥ 0.
func greedy(t testing.TB, s *State, prompt []int32, n int, eos int32) []int32 {
	t.Helper()
	logits := make([]float32, s.Model().Vocab)
	if err := s.Forward(prompt, logits); err != nil {
		t.Fatal(err)
	}
	var out []int32
	for range n {
		id := argmax(logits)
		out = append(out, id)
		if id == eos {
			break
		}
		if err := s.Forward([]int32{id}, logits); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func maxAbsDiff(a []float32, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

type stories struct {
	Greedy      []int32     `json:"greedy_from_bos"`
	ProbeTokens []int32     `json:"probe_tokens"`
	ProbeLogits [][]float64 `json:"probe_logits"`
	ProbeHidden [][]float64 `json:"probe_final_hidden"`
	BOS         int32       `json:"bos_token_id"`
}

// hiddenRecorder is a NormHook that keeps the final hidden states.
type hiddenRecorder struct{ h map[int][]float32 }

func (r *hiddenRecorder) AfterNorm(pos int, h []float32) {
	r.h[pos] = append([]float32(nil), h...)
}

// TestStories260K pins the forward pass to llama2.c's run.c (golden.json) on
// the f32 and f16 files, with the tolerances the fixture README derives:
// f32 logits/hidden within 1e-3 and all 64 greedy ids; f16 logits within
// 0.15, probe argmax exact, and the greedy ids up to the step-37 near-tie.
func TestStories260K(t *testing.T) {
	var g stories
	readJSON(t, "stories260k/golden.json", &g)
	for _, tc := range []struct {
		file      string
		tol       float64
		greedyLen int
	}{
		{"stories260k/stories260K-f32.gguf", 1e-3, 64},
		{"stories260k/stories260K-f16.gguf", 0.15, 37},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			m := openModel(t, tc.file)
			if m.Vocab != 512 || m.Layers != 5 || m.KVHeads != 4 || m.HeadDim != 8 {
				t.Fatalf("config %+v", m.Config)
			}
			// Decode path: one token per call, logits and hidden per position.
			s, err := m.NewStateOn(0, testBackend())
			if err != nil {
				t.Fatal(err)
			}
			rec := &hiddenRecorder{h: map[int][]float32{}}
			if _, err := s.AddHook(rec); err != nil {
				t.Fatal(err)
			}
			logits := make([]float32, m.Vocab)
			for i, tok := range g.ProbeTokens {
				if err := s.Forward([]int32{tok}, logits); err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(logits, g.ProbeLogits[i]); d > tc.tol {
					t.Errorf("position %d: logits differ by %g > %g", i, d, tc.tol)
				}
				if d := maxAbsDiff(rec.h[i], g.ProbeHidden[i]); d > tc.tol {
					t.Errorf("position %d: final hidden differs by %g > %g", i, d, tc.tol)
				}
				if got, want := argmax(logits), argmax64(g.ProbeLogits[i]); got != want {
					t.Errorf("position %d: argmax %d, want %d", i, got, want)
				}
			}
			// Prefill path: all probe tokens in one matrix×matrix call must
			// agree with the golden at every position too.
			s.Reset()
			all := make([]float32, len(g.ProbeTokens)*m.Vocab)
			if err := s.Forward(g.ProbeTokens, all); err != nil {
				t.Fatal(err)
			}
			for i := range g.ProbeTokens {
				if d := maxAbsDiff(all[i*m.Vocab:(i+1)*m.Vocab], g.ProbeLogits[i]); d > tc.tol {
					t.Errorf("prefill position %d: logits differ by %g", i, d)
				}
			}
			s.Reset()
			got := greedy(t, s, []int32{g.BOS}, 64, -1)
			for i := range tc.greedyLen {
				if got[i] != g.Greedy[i] {
					t.Fatalf("greedy step %d: %d, want %d (got %v)", i, got[i], g.Greedy[i], got[:i+1])
				}
			}
		})
	}
}

func argmax64(v []float64) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return int32(best)
}

type kjvCase struct {
	Prompt       string    `json:"prompt"`
	PromptIDs    []int32   `json:"prompt_ids"`
	GreedyIDs    []int32   `json:"greedy_ids"`
	FirstEOSStep *int      `json:"first_eos_step"`
	Margin       []float64 `json:"greedy_top2_margin"`
	FirstLogits  []float64 `json:"first_logits"`
}

// TestKJV: our own small Llama (tied output, real vocabulary) against the
// PyTorch float32 reference in golden.json, from its prompt ids: f32 and
// f16 weights must give identical greedy ids (stopping at </s> exactly
// where the reference does) and first-step logits within tolerance; Q8_0
// must agree up to its documented divergence (step 16 of "And God said",
// a 0.020 margin llama.cpp flips too).
func TestKJV(t *testing.T) {
	var g struct {
		EOS   int32     `json:"eos_token_id"`
		Cases []kjvCase `json:"cases"`
	}
	readJSON(t, "kjv/golden.json", &g)
	for _, tc := range []struct {
		file string
		tol  float64
	}{
		{"kjv/kjv-f32.gguf", 1e-3},
		{"kjv/kjv-f16.gguf", 0.05},
		{"kjv/kjv-q8_0.gguf", 0.25},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			m := openModel(t, tc.file)
			if !m.TiedEmbed {
				t.Fatal("kjv has no output.weight: the classifier must be the tied embedding")
			}
			s, err := m.NewStateOn(0, testBackend())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range g.Cases {
				s.Reset()
				logits := make([]float32, m.Vocab)
				if err := s.Forward(c.PromptIDs, logits); err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(logits, c.FirstLogits); d > tc.tol {
					t.Errorf("%q: first-step logits differ by %g > %g", c.Prompt, d, tc.tol)
				}
				s.Reset()
				got := greedy(t, s, c.PromptIDs, len(c.GreedyIDs), g.EOS)
				want := c.GreedyIDs
				if c.FirstEOSStep != nil {
					want = want[:*c.FirstEOSStep+1]
				}
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						// Only a flip at a documented near-tie is acceptable,
						// and only for quantised weights.
						if tc.file != "kjv/kjv-f32.gguf" && c.Margin[i] < 0.025 {
							t.Logf("%q: step %d flips at margin %.3f (allowed for %s)", c.Prompt, i, c.Margin[i], tc.file)
							break
						}
						t.Fatalf("%q: greedy step %d: %d, want %d (margin %.3f)", c.Prompt, i, got[i], want[i], c.Margin[i])
					}
				}
				if len(got) != len(want) && tc.file == "kjv/kjv-f32.gguf" {
					t.Errorf("%q: %d tokens, want %d (EOS at the same step)", c.Prompt, len(got), len(want))
				}
			}
		})
	}
}

// nearTie is the top-2 logit margin below which a quantised model may
// legitimately pick the other token than llama.cpp: activation rounding
// differs between the two engines by a few hundredths of a logit (measured
// on the kjv K-quant files: the largest such gap is 0.020), while a layout
// or arithmetic bug moves logits by whole units.
const nearTie = 0.03

// TestKJVKQuant: the Q4_K_M and Q4_K_S files (Q4_K, Q5_K and Q6_K weights,
// quantised by llama.cpp) must reproduce llama.cpp's own greedy
// continuations (golden_kquant.json). Each step is teacher-forced on
// llama.cpp's ids, so every one of the 8×48 steps is checked on its own:
// our argmax must be llama.cpp's token unless our top-2 margin there is a
// near-tie. The free-running result is logged: 6 of the 8 runs are
// identical to llama.cpp's throughout.
func TestKJVKQuant(t *testing.T) {
	var g struct {
		Models map[string][]struct {
			Prompt    string  `json:"prompt"`
			PromptIDs []int32 `json:"prompt_ids"`
			GreedyIDs []int32 `json:"greedy_ids"`
		} `json:"models"`
	}
	readJSON(t, "kjv/golden_kquant.json", &g)
	if len(g.Models) != 2 {
		t.Fatalf("golden_kquant.json has %d models, want 2", len(g.Models))
	}
	for file, cases := range g.Models {
		t.Run(file, func(t *testing.T) {
			m := openModel(t, "kjv/"+file)
			s, err := m.NewStateOn(0, testBackend())
			if err != nil {
				t.Fatal(err)
			}
			logits := make([]float32, m.Vocab)
			for _, c := range cases {
				s.Reset()
				if err := s.Forward(c.PromptIDs, logits); err != nil {
					t.Fatal(err)
				}
				ties := 0
				for i, want := range c.GreedyIDs {
					if got := argmax(logits); got != want {
						if margin := logits[got] - logits[want]; margin >= nearTie {
							t.Fatalf("%q step %d: %d beats llama.cpp's %d by %.4f", c.Prompt, i, got, want, margin)
						}
						ties++
					}
					if err := s.Forward([]int32{want}, logits); err != nil {
						t.Fatal(err)
					}
				}
				s.Reset()
				free := greedy(t, s, c.PromptIDs, len(c.GreedyIDs), 2)
				same := 0
				for same < len(free) && same < len(c.GreedyIDs) && free[same] == c.GreedyIDs[same] {
					same++
				}
				t.Logf("%q: %d near-tie steps; free-running equal to llama.cpp for %d/%d tokens", c.Prompt, ties, same, len(c.GreedyIDs))
			}
		})
	}
}

// TestKJVLlamaCpp: llama.cpp's own greedy runs on the f32, f16 and q8_0
// files (llamacpp_check.json, "exact" setup: f32 KV cache, no flash
// attention) must be reproduced token for token, free-running — q8_0
// included, whose continuation departs from the float32 reference at step
// 16 of "And God said" in llama.cpp and must depart identically here.
func TestKJVLlamaCpp(t *testing.T) {
	var g struct {
		Runs []struct {
			File, Setup string
			Prompts     []struct {
				Prompt       string
				PromptTokens []int32 `json:"prompt_tokens"`
				GreedyIDs    []int32 `json:"greedy_ids"`
			}
		}
	}
	readJSON(t, "kjv/llamacpp_check.json", &g)
	runs := 0
	for _, r := range g.Runs {
		if r.Setup != "exact" {
			continue
		}
		runs++
		m := openModel(t, "kjv/"+r.File)
		s, err := m.NewStateOn(0, testBackend())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Prompts {
			s.Reset()
			// llama.cpp added the BOS (id 1) before the listed prompt tokens.
			got := greedy(t, s, append([]int32{1}, p.PromptTokens...), len(p.GreedyIDs), 2)
			if !slices.Equal(got, p.GreedyIDs) {
				t.Errorf("%s %q:\n got %v\nwant %v", r.File, p.Prompt, got, p.GreedyIDs)
			}
		}
	}
	if runs != 3 {
		t.Fatalf("found %d exact-setup runs in llamacpp_check.json, want 3", runs)
	}
}

func TestContextFull(t *testing.T) {
	m := openModel(t, "stories260k/stories260K-f32.gguf")
	s, err := m.NewStateOn(4, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Vocab)
	if err := s.Forward([]int32{1, 2, 3}, logits); err != nil {
		t.Fatal(err)
	}
	err = s.Forward([]int32{4, 5}, logits)
	if !errors.Is(err, ErrContextFull) {
		t.Fatalf("want ErrContextFull, got %v", err)
	}
	if s.Pos() != 3 {
		t.Fatalf("a refused Forward moved the position to %d", s.Pos())
	}
	if err := s.Forward([]int32{4}, logits); err != nil {
		t.Fatalf("the last free position must still be usable: %v", err)
	}
	if err := s.Forward([]int32{600}, logits); err == nil {
		t.Fatal("a token outside the vocabulary was accepted")
	}
}

func TestLoadErrors(t *testing.T) {
	src, err := gguf.Open(fixture(t, "stories260k/stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// Rebuild the file with one change each and check the error names it.
	rebuild := func(arch string, drop string) *gguf.File {
		p := rewrite(t, src.Path, func(w *gguf.Writer, f *gguf.File) error {
			if err := copyKeys(w, f, "", map[string]gguf.Value{"general.architecture": gguf.String(arch)}); err != nil {
				return err
			}
			return copyTensors(w, f, drop)
		})
		f, err := gguf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if _, err := Load(rebuild("mamba", "")); !errors.Is(err, ErrUnknownArchitecture) {
		t.Errorf("unknown architecture: %v", err)
	}
	_, err = Load(rebuild("llama", "blk.3.ffn_up.weight"))
	if !errors.Is(err, ErrMissingTensor) {
		t.Errorf("missing tensor: %v", err)
	} else if want := "blk.3.ffn_up.weight"; !contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Keep the kernels import used when the file is trimmed.
var _ = tensor.F32
