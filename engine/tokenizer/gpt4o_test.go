package tokenizer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// byteLevelVocab writes a byte-level BPE vocabulary: the 256 byte
// characters, then extra normal tokens, then control tokens, with the
// given merges and pre-tokenizer, and loads it.
func byteLevelVocab(t *testing.T, pre string, extra, control, merges []string) *Tokenizer {
	t.Helper()
	var tokens []string
	for b := range 256 {
		tokens = append(tokens, string(byteChar[b]))
	}
	tokens = append(tokens, extra...)
	types := make([]int32, len(tokens), len(tokens)+len(control))
	for i := range types {
		types[i] = int32(TypeNormal)
	}
	for _, c := range control {
		tokens = append(tokens, c)
		types = append(types, int32(TypeControl))
	}
	var w gguf.Writer
	for _, kv := range []struct {
		k string
		v gguf.Value
	}{
		{keyModel, gguf.String("gpt2")},
		{keyPre, gguf.String(pre)},
		{keyTokens, gguf.Array(tokens)},
		{keyTypes, gguf.Array(types)},
		{keyMerges, gguf.Array(merges)},
	} {
		if err := w.AddKV(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "vocab.gguf")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// harmonySpecials are o200k_harmony's named control tokens (gpt-oss).
var harmonySpecials = []string{"<|startoftext|>", "<|endoftext|>", "<|return|>", "<|constrain|>", "<|channel|>", "<|start|>", "<|end|>", "<|message|>", "<|call|>"}

// TestHarmonyEndOfGeneration: a harmony vocabulary ends a reply with
// <|return|> or <|call|> (and <|endoftext|>), never with <|end|>, which
// closes the analysis message before the answer; llama.cpp's loader
// gives the same set. A vocabulary with <|end|> but no <|return|> and
// <|call|> (Phi-3) keeps <|end|>.
func TestHarmonyEndOfGeneration(t *testing.T) {
	tk := byteLevelVocab(t, "gpt-4o", nil, harmonySpecials, nil)
	id := func(tk *Tokenizer, s string) int32 {
		v, ok := tk.TokenID(s)
		if !ok {
			t.Fatalf("no %s", s)
		}
		return v
	}
	var want []int32
	for _, s := range []string{"<|endoftext|>", "<|return|>", "<|call|>"} {
		want = append(want, id(tk, s))
	}
	if got := tk.EndOfGeneration(); !slices.Equal(got, want) {
		t.Errorf("harmony end of generation %v, want %v (<|endoftext|> <|return|> <|call|>)", got, want)
	}
	for _, s := range []string{"<|end|>", "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|startoftext|>"} {
		if tk.IsEndOfGeneration(id(tk, s)) {
			t.Errorf("%s ends a harmony reply", s)
		}
	}
	phi := byteLevelVocab(t, "gpt2", nil, []string{"<|endoftext|>", "<|user|>", "<|assistant|>", "<|end|>"}, nil)
	if !phi.IsEndOfGeneration(id(phi, "<|end|>")) {
		t.Error("<|end|> of a vocabulary without <|return|> and <|call|> no longer ends generation")
	}
}

// TestGPT4oEncode: the gpt-4o pre-tokenizer is used for tokenizer.ggml.pre
// "gpt-4o", and a pre-token that is itself a token is emitted whole even
// when the merges would not build it, as tiktoken does.
func TestGPT4oEncode(t *testing.T) {
	extra := []string{"ab", "Hello", "Ġworld's"}
	merges := []string{"a b"}
	tk := byteLevelVocab(t, "gpt-4o", extra, harmonySpecials, merges)
	if tk.PreTokenizer() != "gpt-4o" {
		t.Fatalf("pre-tokenizer %q", tk.PreTokenizer())
	}
	id := func(s string) int32 {
		v, ok := tk.TokenID(s)
		if !ok {
			t.Fatalf("no %q", s)
		}
		return v
	}
	bid := func(b byte) int32 { return id(string(byteChar[b])) }
	text := "Hello world's abc<|end|>"
	got, err := tk.Encode(text, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Pre-tokens: "Hello", " world's", " abc", "<|", "end", "|>": the
	// first two are tokens though no merge builds them; "ab" is merged;
	// the control token's text stays plain text.
	want := []int32{id("Hello"), id("Ġworld's"), bid(' '), id("ab"), bid('c'), bid('<'), bid('|'), bid('e'), bid('n'), bid('d'), bid('|'), bid('>')}
	if !slices.Equal(got, want) {
		t.Errorf("Encode(%q) = %v, want %v", text, got, want)
	}
	if s := tk.Decode(got, DecodeOptions{}); s != text {
		t.Errorf("round trip %q", s)
	}
	// Byte-level: any text comes back.
	s := "नमस्ते, 世界! DON'T\r\n\t 12345 e\u0301"
	ids, _ := tk.Encode(s, EncodeOptions{})
	if got := tk.Decode(ids, DecodeOptions{}); got != s {
		t.Errorf("round trip of %q gave %q", s, got)
	}
}
