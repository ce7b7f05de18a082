package grammar

import (
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
