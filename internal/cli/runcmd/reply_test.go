package runcmd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// harmonyVocab is a small byte-level vocabulary with gpt-oss's control
// tokens.
func harmonyVocab(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tokens := []string{"a", "b", "analysis", "final", "assistant", "<|startoftext|>", "<|endoftext|>", "<|return|>", "<|constrain|>", "<|channel|>", "<|start|>", "<|end|>", "<|message|>", "<|call|>"}
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(tokenizer.TypeNormal)
		if strings.HasPrefix(tokens[i], "<|") {
			types[i] = int32(tokenizer.TypeControl)
		}
	}
	var w gguf.Writer
	for _, kv := range []struct {
		k string
		v gguf.Value
	}{
		{"tokenizer.ggml.model", gguf.String("gpt2")},
		{"tokenizer.ggml.pre", gguf.String("gpt-4o")},
		{"tokenizer.ggml.tokens", gguf.Array(tokens)},
		{"tokenizer.ggml.token_type", gguf.Array(types)},
		{"tokenizer.ggml.merges", gguf.Array([]string{"a b"})},
		{"tokenizer.ggml.eos_token_id", gguf.Uint32(7)},
	} {
		if err := w.AddKV(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	f, err := gguf.Open(clitest.WriteGGUF(t, t.TempDir(), "harmony.gguf", &w))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestReplyPrinterHarmony: of a gpt-oss reply only the final channel is
// printed; the analysis channel, the markers and the stop token are not.
func TestReplyPrinterHarmony(t *testing.T) {
	tok := harmonyVocab(t)
	id := func(s string) int32 {
		v, ok := tok.TokenID(s)
		if !ok {
			t.Fatalf("no %s", s)
		}
		return v
	}
	reply := []string{"<|channel|>", "analysis", "<|message|>", "b", "b", "<|end|>",
		"<|start|>", "assistant", "<|channel|>", "final", "<|message|>", "a", "b", "a"}
	for _, stop := range []string{"<|return|>", "<|endoftext|>"} {
		rp := newReplyPrinter(tok, true, false, tok.EndOfGeneration())
		var out strings.Builder
		for _, s := range append(reply, stop) {
			out.Write(rp.write(id(s)))
		}
		out.Write(rp.flush())
		if out.String() != "aba" {
			t.Errorf("ended by %s: printed %q, want %q", stop, out.String(), "aba")
		}
	}
	// Without a harmony template control tokens are dropped, text kept.
	rp := newReplyPrinter(tok, false, false, tok.EndOfGeneration())
	var out strings.Builder
	for _, s := range reply {
		out.Write(rp.write(id(s)))
	}
	out.Write(rp.flush())
	if want := "analysisbbassistantfinalaba"; out.String() != want {
		t.Errorf("plain: printed %q, want %q", out.String(), want)
	}
}

// harmonyLike is a minimal template in gpt-oss's harmony format.
const harmonyLike = "{% for m in messages %}<|start|>{{ m.role }}" +
	"{% if m.role == 'assistant' %}<|channel|>final{% endif %}<|message|>{{ m.content }}<|end|>{% endfor %}" +
	"{% if add_generation_prompt %}<|start|>assistant{% endif %}"

// TestRunChatHarmony: `run --chat` on a model with a harmony template
// prints what the channel reader makes of the generated ids (the random
// model writes no markers: all of it is the answer, held back while it
// could still be a header and printed at the end).
func TestRunChatHarmony(t *testing.T) {
	path := fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), "qwen2-harmony.gguf", fixtures.Change{ChatTemplate: harmonyLike})
	args := []string{"run", "--model", path, "--cpu", "--threads", "1", "--chat", "--prompt", "Hello", "--temp", "0", "-n", "12"}
	ids, errs, err := runCmd(t, append(args, "--ids")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	text, errs, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	var gen []int32
	for _, s := range strings.Fields(ids) {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		if !tok.IsEndOfGeneration(int32(v)) {
			gen = append(gen, int32(v))
		}
	}
	want, thinking := chat.ParseHarmony(tok.Decode(gen, tokenizer.DecodeOptions{Special: true}))
	if want == "" || thinking != "" {
		t.Fatalf("the random model's %d ids read as answer %q, thinking %q: this test checks nothing", len(gen), want, thinking)
	}
	if text != want+"\n" {
		t.Errorf("printed %q, want %q", text, want+"\n")
	}
}
