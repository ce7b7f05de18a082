package generate

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// TestPerplexityKJV: perplexity of the kjv model on its held-out chapters.
// The batched scoring must equal a token-by-token recomputation, and the
// quantised files must score close to the float32 one in the expected
// order of precision.
func TestPerplexityKJV(t *testing.T) {
	ppl := map[string]float64{}
	for _, f := range []string{"kjv-f32.gguf", "kjv-q8_0.gguf", "kjv-q4_k_m.gguf"} {
		m, tok, st, ids := heldoutSetup(t, "kjv/"+f)
		r, err := Perplexity(context.Background(), st, ids, tok.BOS(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(r.PPL) || r.PPL <= 1 || r.PPL > 1000 || r.Chunks < 3 {
			t.Fatalf("%s: %+v", f, r)
		}
		ppl[f] = r.PPL
		t.Logf("%s: ppl %.3f over %d tokens in %d windows of 128", f, r.PPL, r.Scored, r.Chunks)

		if f == "kjv-f32.gguf" {
			// The same score computed one decoded token at a time, for the
			// first two windows.
			part, err := Perplexity(context.Background(), st, ids[:2*128], tok.BOS(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			n := 0
			logits := make([]float32, m.Vocab)
			for c := range 2 {
				chunk := append([]int32(nil), ids[c*128:(c+1)*128]...)
				chunk[0] = tok.BOS()
				st.Reset()
				for i := range 127 {
					if err := st.Forward(chunk[i:i+1], logits); err != nil {
						t.Fatal(err)
					}
					if i >= 64 {
						sum += NLL(logits, chunk[i+1])
						n++
					}
				}
			}
			if d := math.Abs(sum/float64(n) - part.NLL); n != part.Scored || d > 1e-4 {
				t.Fatalf("batched NLL %.6f over %d tokens, one by one %.6f over %d", part.NLL, part.Scored, sum/float64(n), n)
			}
		}
	}
	if q8 := ppl["kjv-q8_0.gguf"] / ppl["kjv-f32.gguf"]; q8 < 0.99 || q8 > 1.02 {
		t.Errorf("q8_0 perplexity is %.4f× the f32 one, want within [0.99, 1.02]", q8)
	}
	if q4 := ppl["kjv-q4_k_m.gguf"] / ppl["kjv-f32.gguf"]; q4 < 0.99 || q4 > 1.15 {
		t.Errorf("q4_k_m perplexity is %.4f× the f32 one, want within [0.99, 1.15]", q4)
	}
}

// TestPerplexityGRC: on the kjv held-out text, perplexity under GRC is
// finite, does not rise as k grows (within 1 %), and equals the baseline at
// full rank k = 256.
func TestPerplexityGRC(t *testing.T) {
	m, tok, st, ids := heldoutSetup(t, "kjv/kjv-f32.gguf")
	base, err := Perplexity(context.Background(), st, ids, tok.BOS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := grc.NewQKVBuilder(m)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	for _, k := range []int{64, 128, 192, 256} {
		g, err := gb.Build(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SetProjections(g); err != nil {
			t.Fatal(err)
		}
		r, err := Perplexity(context.Background(), st, ids, tok.BOS(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("k=%d: ppl %.3f (baseline %.3f)", k, r.PPL, base.PPL)
		if math.IsNaN(r.PPL) || math.IsInf(r.PPL, 0) || r.PPL > prev*1.01 {
			t.Fatalf("k=%d: ppl %.3f after %.3f at a smaller k", k, r.PPL, prev)
		}
		prev = r.PPL
	}
	if math.Abs(prev-base.PPL) > 1e-3*base.PPL {
		t.Fatalf("full-rank GRC perplexity %.4f, baseline %.4f", prev, base.PPL)
	}
}

// heldoutSetup opens a kjv model with a 128-token state and tokenises the
// first 4000 bytes of the held-out text (chapters the model never saw).
func heldoutSetup(t *testing.T, file string) (*model.Model, *tokenizer.Tokenizer, *model.State, []int32) {
	t.Helper()
	text, err := os.ReadFile(fixture(t, "kjv/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Open(fixture(t, file))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	tok, err := tokenizer.FromGGUF(m.File())
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode(string(text[:4000]), tokenizer.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.NewStateOn(128, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	return m, tok, st, ids
}
