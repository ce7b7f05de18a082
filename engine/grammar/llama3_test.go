package grammar

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// fixtureRoot is the repository root's ../shared/fixtures, seen from this
// package directory.
const fixtureRoot = "../../../shared/fixtures"

// llama3 holds the llama3 tokenizer and its prepared vocabulary, built once
// per test binary.
var llama3 struct {
	once  sync.Once
	tok   *tokenizer.Tokenizer
	vocab *Vocab
	err   error
}

// llama3Vocab loads shared/fixtures/tokenizers/llama3-bpe/tokenizer.gguf
// (128256 tokens) and prepares its vocabulary: control tokens are never
// text, and the tokenizer's end-of-generation ids end the grammar. A missing
// fixture fails the test rather than skipping it.
func llama3Vocab(tb testing.TB) (*tokenizer.Tokenizer, *Vocab) {
	tb.Helper()
	p := filepath.Join(fixtureRoot, "tokenizers/llama3-bpe/tokenizer.gguf")
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("fixture %s is missing (expected at shared/fixtures/tokenizers/llama3-bpe relative to the repository root's parent): %v", p, err)
	}
	llama3.once.Do(func() {
		f, err := gguf.Open(p)
		if err != nil {
			llama3.err = err
			return
		}
		defer f.Close()
		tk, err := tokenizer.FromGGUF(f)
		if err != nil {
			llama3.err = err
			return
		}
		toks := make([][]byte, tk.VocabSize())
		for id := range toks {
			if !tk.IsControl(int32(id)) {
				toks[id] = tk.TokenBytes(int32(id))
			}
		}
		v, err := NewVocab(toks, tk.EndOfGeneration())
		llama3.tok, llama3.vocab, llama3.err = tk, v, err
	})
	if llama3.err != nil {
		tb.Fatal(llama3.err)
	}
	return llama3.tok, llama3.vocab
}

// tokenIDs finds the ids whose text is exactly each of texts.
func tokenIDs(tk *tokenizer.Tokenizer, texts ...string) []int32 {
	var ids []int32
	for _, s := range texts {
		for id := range int32(tk.VocabSize()) {
			if !tk.IsControl(id) && string(tk.TokenBytes(id)) == s {
				ids = append(ids, id)
				break
			}
		}
	}
	return ids
}

// TestLlama3Generation drives matchers with the llama3 vocabulary, choosing
// random allowed tokens (any of the ~128k) until the grammar is complete,
// and checks at every step that the mask agrees with walking each token's
// bytes (a sample each step, the whole vocabulary every 32 steps), that the
// end-of-generation tokens are allowed exactly when the match is done, that
// there is always some allowed token, and at the end that the text is JSON
// valid against the schema. After a random budget of steps it prefers
// tokens that close things (", ], }, 0, null) so that documents end.
func TestLlama3Generation(t *testing.T) {
	tk, v := llama3Vocab(t)
	closers := tokenIDs(tk, `"`, `]`, `}`, `0`, `null`)
	type target struct {
		name   string
		g      *Grammar
		schema string // "" when only JSON validity is checked
	}
	var targets []target
	for _, sc := range testSchemas {
		targets = append(targets, target{sc.name, schemaGrammar(t, sc.strict, sc.schema), sc.schema})
	}
	targets = append(targets,
		target{"json_object", mustParse(t, JSONObjectGrammar()), ""},
		target{"json.gbnf-like", mustParse(t, featureGrammars["json"]), ""})
	docs := 3
	if testing.Short() {
		docs = 1
	}
	for ti, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			m := NewMatcher(tg.g, v)
			mask := m.NewMask()
			r := rand.New(rand.NewPCG(7, uint64(ti)))
			var allowed []int32
			for doc := range docs {
				m.Reset()
				var text []byte
				budget := 30 + r.IntN(90)
				for step := 0; ; step++ {
					if step > 3000 {
						t.Fatalf("doc %d: no end after %d steps: %q", doc, step, text)
					}
					m.Allowed(mask)
					if mask.Has(tk.EndOfGeneration()[0]) != m.Done() {
						t.Fatalf("doc %d step %d: EOG allowed %v but Done %v", doc, step, mask.Has(tk.EndOfGeneration()[0]), m.Done())
					}
					check := func(id int32) {
						if mask.Has(id) != m.Allows(id) {
							t.Fatalf("doc %d step %d after %q: token %d %q: mask %v, walk %v", doc, step, text, id, tk.TokenBytes(id), mask.Has(id), m.Allows(id))
						}
					}
					if step%32 == 0 {
						for id := range int32(v.Size()) {
							check(id)
						}
					} else {
						for range 2000 {
							check(int32(r.IntN(v.Size())))
						}
					}
					allowed = allowed[:0]
					for id := range int32(v.Size()) {
						if mask.Has(id) {
							allowed = append(allowed, id)
						}
					}
					if len(allowed) == 0 {
						t.Fatalf("doc %d step %d: no token allowed after %q", doc, step, text)
					}
					if m.Done() && (step > budget || r.IntN(4) == 0) {
						if err := m.Accept(tk.EndOfGeneration()[0]); err != nil {
							t.Fatal(err)
						}
						break
					}
					id := allowed[r.IntN(len(allowed))]
					if step > budget {
						for _, c := range closers {
							if mask.Has(c) {
								id = c
								break
							}
						}
					}
					if v.isEOG[id] {
						if err := m.Accept(id); err != nil {
							t.Fatal(err)
						}
						break
					}
					if err := m.Accept(id); err != nil {
						t.Fatalf("doc %d step %d: allowed token refused: %v", doc, step, err)
					}
					text = append(text, tk.TokenBytes(id)...)
				}
				if !json.Valid(text) {
					t.Fatalf("doc %d: not JSON: %q", doc, text)
				}
				if tg.schema != "" {
					root := decodeSchema(tg.schema)
					dv, err := decodeDoc(text)
					if err != nil || !valid(root, root, dv) {
						t.Fatalf("doc %d: not valid against the schema (%v): %s", doc, err, text)
					}
				}
				if doc == 0 {
					t.Logf("%d bytes, %d states: %.200q", len(text), m.States(), text)
				}
			}
		})
	}
}

// TestNoAllocPerToken checks that Allowed and Accept allocate nothing in
// steady state: over a realistic document (a schema object as the llama3
// tokenizer splits it) once the matcher has seen it, both with the mask
// cache and with every mask walked.
func TestNoAllocPerToken(t *testing.T) {
	tk, v := llama3Vocab(t)
	g := schemaGrammar(t, false, testSchemas[0].schema)
	ids, err := tk.Encode(benchDoc, tokenizer.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, tk.EndOfGeneration()[0])
	m := NewMatcher(g, v)
	mask := m.NewMask()
	pass := func(walk bool) {
		m.Reset()
		for _, id := range ids {
			if walk {
				m.fill(mask, m.cur)
			} else {
				m.Allowed(mask)
			}
			if err := m.Accept(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	pass(false)
	for _, walk := range []bool{false, true} {
		if n := testing.AllocsPerRun(5, func() { pass(walk) }); n != 0 {
			t.Errorf("walk=%v: %v allocations per document of %d tokens", walk, n, len(ids))
		}
	}
	if !m.Done() {
		t.Fatal("document not complete")
	}
}
