package kjv2fixture

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

const (
	modelPath  = "../../../testdata/models/kjv2-q8_0.gguf"
	goldenPath = "../../../scripts/fixtures/kjv2/golden.json"
	// nearTie is the top-2 logit margin below which the Q8_0 arithmetic of
	// two engines may pick different tokens (the kjv README saw llama.cpp
	// flip at a margin of 0.020 on the first model, and on this one at
	// 0.0155 and 0.0022): ISAGI's greedy ids must equal PyTorch's up to
	// their first difference, and that only where PyTorch's margin is
	// below it.
	nearTie = 0.05
	// minCompared is the fewest leading greedy ids that must be equal, so
	// that an early near-tie cannot make a case vacuous.
	minCompared = 8
)

type golden struct {
	Seed  int `json:"seed"`
	Cases []struct {
		Prompt    string       `json:"prompt"`
		PromptIDs []int32      `json:"prompt_ids"`
		GreedyIDs []int32      `json:"greedy_ids"`
		Margins   []float64    `json:"greedy_top2_margin"`
		FirstTop8 [][2]float64 `json:"first_logits_top8"`
	} `json:"cases"`
}

func open(t *testing.T, path string) (*model.Model, *tokenizer.Tokenizer) {
	t.Helper()
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	tk, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		t.Fatal(err)
	}
	return m, tk
}

func readGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != 4 || g.Seed == 1234 {
		t.Fatalf("golden.json has %d cases and seed %d: want the 4 kjv prompts and a seed other than kjv's 1234", len(g.Cases), g.Seed)
	}
	return g
}

// TestSameShapeAndVocabularyAsKJV: kjv2 is kjv's architecture with kjv's
// vocabulary, id for id (pieces, scores, types), so the two models' states
// of one text are paired token by token.
func TestSameShapeAndVocabularyAsKJV(t *testing.T) {
	m2, _ := open(t, modelPath)
	m1, _ := open(t, fixtures.Path(t, "kjv/kjv-q8_0.gguf"))
	c1, c2 := m1.Config, m2.Config
	if c2.Arch != "llama" || c2.Dim != 256 || c2.Layers != 6 || c2.Vocab != 4096 || c2.CtxLen != 256 || !m2.TiedEmbed {
		t.Errorf("kjv2 config %+v, tied %v", c2, m2.TiedEmbed)
	}
	if c1.Dim != c2.Dim || c1.Layers != c2.Layers || c1.Heads != c2.Heads || c1.KVHeads != c2.KVHeads || c1.FFN != c2.FFN || c1.Vocab != c2.Vocab {
		t.Errorf("kjv %+v and kjv2 %+v differ in shape", c1, c2)
	}
	if n, _ := m2.File().String("general.name"); n != "kjv2-tiny-llama-5.8M" {
		t.Errorf("general.name %q", n)
	}
	for _, key := range []string{"tokenizer.ggml.tokens"} {
		a, err1 := m1.File().Strings(key)
		b, err2 := m2.File().Strings(key)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) {
			t.Errorf("%s differs (%v, %v)", key, err1, err2)
		}
	}
	s1, err1 := m1.File().Float32s("tokenizer.ggml.scores")
	s2, err2 := m2.File().Float32s("tokenizer.ggml.scores")
	if err1 != nil || err2 != nil || !slices.Equal(s1, s2) {
		t.Errorf("tokenizer.ggml.scores differ (%v, %v)", err1, err2)
	}
	t1, err1 := m1.File().Int32s("tokenizer.ggml.token_type")
	t2, err2 := m2.File().Int32s("tokenizer.ggml.token_type")
	if err1 != nil || err2 != nil || !slices.Equal(t1, t2) {
		t.Errorf("tokenizer.ggml.token_type differs (%v, %v)", err1, err2)
	}
}

// TestGreedyMatchesPyTorch: ISAGI tokenises the four prompts as
// SentencePiece did and decodes them greedily as PyTorch did on the same
// Q8_0 weights, up to the first near-tie.
func TestGreedyMatchesPyTorch(t *testing.T) {
	g := readGolden(t)
	m, tk := open(t, modelPath)
	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	logits := make([]float32, m.Vocab)
	for _, c := range g.Cases {
		ids, err := tk.Encode(c.Prompt, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, c.PromptIDs) {
			t.Errorf("%q: ISAGI tokenises as %v, SentencePiece as %v", c.Prompt, ids, c.PromptIDs)
			continue
		}
		st.Reset()
		if err := st.Forward(ids, logits); err != nil {
			t.Fatal(err)
		}
		for _, tl := range c.FirstTop8 {
			if d := float64(logits[int(tl[0])]) - tl[1]; d > 0.05 || d < -0.05 {
				t.Errorf("%q: first logit of token %d is %g, PyTorch %g", c.Prompt, int(tl[0]), logits[int(tl[0])], tl[1])
			}
		}
		var got []int32
		for len(got) < len(c.GreedyIDs) {
			best := int32(0)
			for i := int32(1); i < int32(len(logits)); i++ {
				if logits[i] > logits[best] {
					best = i
				}
			}
			got = append(got, best)
			if err := st.Forward([]int32{best}, logits); err != nil {
				t.Fatal(err)
			}
		}
		// Equal up to the first difference, and that difference (if any)
		// at a step where PyTorch itself nearly tied.
		n := 0
		for n < len(got) && got[n] == c.GreedyIDs[n] {
			n++
		}
		if n < len(got) && c.Margins[n] >= nearTie {
			t.Errorf("%q: ISAGI greedy %v\n PyTorch %v\n differ at step %d, where PyTorch's top-2 margin is %g (≥ %g)", c.Prompt, got, c.GreedyIDs, n, c.Margins[n], nearTie)
		}
		if n < minCompared {
			t.Errorf("%q: only the first %d greedy ids equal", c.Prompt, n)
		}
		t.Logf("%q: the first %d of %d greedy ids equal: %q", c.Prompt, n, len(got), tk.Decode(got[:n], tokenizer.DecodeOptions{}))
	}
}
