//go:build !race

// The retrieval model's tests decode contexts of up to 4,096 tokens: run
// without the race detector (make unit runs them so), where they take seconds.

package kvfixture

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/kvpress"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/kveval"
	"github.com/isagi-lab/isagi/internal/kvtask"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

const (
	modelPath  = "../../../testdata/models/retrieval.gguf"
	fixtureDir = "../../../scripts/fixtures/retrieval"
)

func open(t *testing.T) (*model.Model, *tokenizer.Tokenizer) {
	t.Helper()
	m, err := model.Open(modelPath)
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

// TestAgreeWithLlamaCpp: ISAGI's greedy answers to the held-out cases that
// check.mjs ran through llama.cpp are llama.cpp's, token for token.
func TestAgreeWithLlamaCpp(t *testing.T) {
	m, tk := open(t)
	b, err := os.ReadFile(fixtureDir + "/llamacpp_replies.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Task     string  `json:"task"`
			NCtx     int     `json:"n_ctx"`
			Context  string  `json:"context"`
			Question string  `json:"question"`
			Prompt   int     `json:"prompt_tokens"`
			Reply    []int32 `json:"reply_ids"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) < 8 {
		t.Fatalf("%d cross-checked cases", len(doc.Cases))
	}
	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logits := make([]float32, m.Vocab)
	for _, c := range doc.Cases {
		ids, err := tk.Encode(c.Context+c.Question, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != c.Prompt {
			t.Errorf("%s/%d: %d prompt tokens, llama.cpp %d", c.Task, c.NCtx, len(ids), c.Prompt)
			continue
		}
		st.Reset()
		if err := st.Forward(ids, logits); err != nil {
			t.Fatal(err)
		}
		var got []int32
		for range c.Reply {
			id := int32(slices.Index(logits, slices.Max(logits)))
			got = append(got, id)
			if err := st.Forward([]int32{id}, logits); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, c.Reply) {
			t.Errorf("%s/%d: ISAGI %v %q, llama.cpp %v", c.Task, c.NCtx, got, tk.Decode(got, tokenizer.DecodeOptions{}), c.Reply)
		}
	}
}

// TestEvalKVSmall: `isagi eval kv`'s measurement at a small size on cases
// generated here (Go's seed, never the training's): with the whole cache
// the model retrieves, and at half the cache StreamingLLM, which keeps only
// the start and the end of the context, loses the needles in between that
// ManifoldKV keeps more of.
func TestEvalKVSmall(t *testing.T) {
	m, tk := open(t)
	f, err := os.Open(fixtures.Path(t, "kjv/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	verses, err := kvtask.Verses(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	g := kvtask.Generator{Verses: verses, Keys: kvtask.KeyPool(tk, verses), Count: func(s string) int {
		ids, _ := tk.Encode(s, tokenizer.EncodeOptions{})
		return len(ids)
	}}
	if len(g.Keys) < 100 {
		t.Fatalf("%d keys of one token in the vocabulary", len(g.Keys))
	}
	cases, err := g.Cases(42, []kvtask.Task{kvtask.Single, kvtask.MultiKey}, []int{1024}, 6)
	if err != nil {
		t.Fatal(err)
	}
	o := kveval.Options{Scorers: []kvpress.Kind{kvpress.Manifold, kvpress.Streaming}, Keeps: []float64{1, 0.5}, Extra: 4}
	cells, err := kveval.Retrieval(context.Background(), m, tk, func(n int) (*model.State, error) { return m.NewStateOn(n, cpu.New(nil)) }, cases, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, c := range cells {
		score[fmt.Sprintf("%s/%s/%g", c.Task, c.Scorer, c.Keep)] = c.Score
		t.Logf("%-9s %-9s keep %.2f: %.2f (%d cases)", c.Task, c.Scorer, c.Keep, c.Score, c.Cases)
	}
	if s := score["single/manifold/1"]; s < 5.0/6 {
		t.Errorf("single-key with the whole cache: %.2f, want at least 5 of 6", s)
	}
	if score["single/streaming/0.5"] >= score["single/manifold/0.5"] && score["multikey/streaming/0.5"] >= score["multikey/manifold/0.5"] {
		t.Errorf("at keep 0.5 StreamingLLM did as well as ManifoldKV on both tasks: %v", score)
	}
}
