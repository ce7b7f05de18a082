package model

import (
	"math"
	"testing"
)

func TestZZMeasureQuants(t *testing.T) {
	var g struct {
		Files map[string][]struct {
			Prompt    string    `json:"prompt"`
			PromptIDs []int32   `json:"prompt_ids"`
			GreedyIDs []int32   `json:"greedy_ids"`
			Margin    []float64 `json:"top2_logit_margin"`
		} `json:"files"`
	}
	readJSON(t, "quants/golden.json", &g)
	for _, file := range []string{"kjv-q4_0.gguf", "kjv-q5_k_m.gguf", "kjv-q6_k.gguf"} {
		m := openModel(t, "quants/"+file)
		s, _ := m.NewStateOn(0, testBackend())
		logits := make([]float32, m.Vocab)
		var worst0, worstAll float64
		for _, c := range g.Files[file] {
			s.Reset()
			if err := s.Forward(c.PromptIDs, logits); err != nil {
				t.Fatal(err)
			}
			for i, want := range c.GreedyIDs {
				second := math.Inf(-1)
				for j, v := range logits {
					if int32(j) != want {
						second = max(second, float64(v))
					}
				}
				ours := float64(logits[want]) - second
				d := math.Abs(ours - c.Margin[i])
				if i == 0 {
					worst0 = max(worst0, d)
				}
				worstAll = max(worstAll, d)
				if i < 3 || d > 0.05 {
					t.Logf("%s %q step %d: ours %.4f golden %.4f diff %.4f", file, c.Prompt, i, ours, c.Margin[i], d)
				}
				s.Forward([]int32{want}, logits)
			}
			s.Reset()
			free := greedy(t, s, c.PromptIDs, 32, -1)
			same := 0
			for same < 32 && free[same] == c.GreedyIDs[same] {
				same++
			}
			cut := 0
			for cut < 32 && c.Margin[cut] >= 0.3 {
				cut++
			}
			t.Logf("%s %q: free same %d, rule cut %d", file, c.Prompt, same, cut)
		}
		t.Logf("%s: worst first-step margin diff %.4f, all steps %.4f", file, worst0, worstAll)
	}
}
