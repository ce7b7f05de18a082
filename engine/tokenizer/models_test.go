package tokenizer

import (
	"slices"
	"testing"
)

// TestKJV checks the KJV model's SentencePiece vocabulary against the
// PyTorch golden (prompt ids with BOS, sentencepiece decodes of the
// generations) and the llama.cpp/sentencepiece cross-check strings.
func TestKJV(t *testing.T) {
	tk := load(t, "kjv/kjv-q4_k_s.gguf")
	if tk.Model() != ModelSPM || tk.BOS() != 1 || tk.EOS() != 2 || !tk.AddBOS() || tk.AddEOS() {
		t.Fatalf("model %v bos %d eos %d addBOS %v addEOS %v", tk.Model(), tk.BOS(), tk.EOS(), tk.AddBOS(), tk.AddEOS())
	}
	var g struct {
		Cases []struct {
			Prompt     string  `json:"prompt"`
			PromptIDs  []int32 `json:"prompt_ids"`
			GreedyIDs  []int32 `json:"greedy_ids"`
			GreedyText string  `json:"greedy_text"`
			FullText   string  `json:"full_text"`
		} `json:"cases"`
	}
	loadJSON(t, "kjv/golden.json", &g)
	if len(g.Cases) != 4 {
		t.Fatalf("kjv golden: %d cases, want 4", len(g.Cases))
	}
	pass := 0
	for _, c := range g.Cases {
		ok := true
		got, _ := tk.Encode(c.Prompt, EncodeOptions{AddSpecial: true})
		if !slices.Equal(got, c.PromptIDs) {
			ok = false
			t.Errorf("Encode(%q) = %v, want %v", c.Prompt, got, c.PromptIDs)
		}
		if s := tk.Decode(c.GreedyIDs, DecodeOptions{}); s != c.GreedyText {
			ok = false
			t.Errorf("Decode(greedy of %q) = %q, want %q", c.Prompt, s, c.GreedyText)
		}
		full := append(slices.Clone(c.PromptIDs), c.GreedyIDs...)
		if s := tk.Decode(full, DecodeOptions{}); s != c.FullText {
			ok = false
			t.Errorf("Decode(prompt+greedy of %q) = %q, want %q", c.Prompt, s, c.FullText)
		}
		if ok {
			pass++
		}
	}
	t.Logf("kjv golden: %d/%d cases exact", pass, len(g.Cases))

	var chk struct {
		Tokenizer struct {
			Cases []struct {
				Text          string  `json:"text"`
				LlamaCpp      []int32 `json:"llama_cpp"`
				SentencePiece []int32 `json:"sentencepiece"`
			} `json:"cases"`
		} `json:"tokenizer"`
	}
	loadJSON(t, "kjv/llamacpp_check.json", &chk)
	if len(chk.Tokenizer.Cases) != 20 {
		t.Fatalf("kjv llamacpp_check: %d tokenizer cases, want 20", len(chk.Tokenizer.Cases))
	}
	pass = 0
	for _, c := range chk.Tokenizer.Cases {
		ok := true
		if got, _ := tk.Encode(c.Text, EncodeOptions{}); !slices.Equal(got, c.SentencePiece) {
			ok = false
			t.Errorf("Encode(%q) = %v, want sentencepiece %v", c.Text, got, c.SentencePiece)
		}
		// llama.node tokenizes with parse_special=true.
		if got, _ := tk.EncodeMarkup(c.Text, EncodeOptions{}); !slices.Equal(got, c.LlamaCpp) {
			ok = false
			t.Errorf("EncodeMarkup(%q) = %v, want llama.cpp %v", c.Text, got, c.LlamaCpp)
		}
		if ok {
			pass++
		}
	}
	t.Logf("kjv llamacpp_check: %d/%d strings exact (sentencepiece and llama.cpp views)", pass, len(chk.Tokenizer.Cases))
}

// TestArchPrompts checks the synthetic architecture fixtures' prompt ids
// (llama.cpp's tokenize with add_special) for qwen2, llama-bpe and gemma2
// vocabularies, and their end-of-generation sets.
func TestArchPrompts(t *testing.T) {
	var g struct {
		Variants map[string]struct {
			Files struct {
				F32 string `json:"f32"`
			} `json:"files"`
			AddBOS bool  `json:"add_bos"`
			BOS    int32 `json:"bos_id"`
			EOS    int32 `json:"eos_id"`
			Cases  []struct {
				Prompt    string  `json:"prompt"`
				PromptIDs []int32 `json:"prompt_ids"`
			} `json:"cases"`
		} `json:"variants"`
	}
	loadJSON(t, "archs/golden.json", &g)
	eog := map[string][]int32{
		"qwen2": {328, 330}, "qwen3": {328, 330}, "llama-rope-freqs": {329, 330}, "gemma2": {329, 330},
	}
	if len(g.Variants) != len(eog) {
		t.Fatalf("archs golden: %d variants, want %d", len(g.Variants), len(eog))
	}
	total, pass := 0, 0
	for name, v := range g.Variants {
		tk := load(t, "archs/"+name+".gguf")
		if tk.AddBOS() != v.AddBOS || tk.BOS() != v.BOS || tk.EOS() != v.EOS {
			t.Errorf("%s: addBOS %v bos %d eos %d, want %v %d %d", name, tk.AddBOS(), tk.BOS(), tk.EOS(), v.AddBOS, v.BOS, v.EOS)
		}
		if got := tk.EndOfGeneration(); !slices.Equal(got, eog[name]) {
			t.Errorf("%s: end-of-generation ids %v, want %v (llama.cpp)", name, got, eog[name])
		}
		for _, c := range v.Cases {
			total++
			got, _ := tk.Encode(c.Prompt, EncodeOptions{AddSpecial: true})
			if !slices.Equal(got, c.PromptIDs) {
				t.Errorf("%s: Encode(%q) = %v, want %v", name, c.Prompt, got, c.PromptIDs)
				continue
			}
			pass++
		}
	}
	t.Logf("archs prompt_ids: %d/%d exact", pass, total)
}
