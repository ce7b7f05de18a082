package chat

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// TestParseHarmony splits the replies llama.cpp's test-chat.cpp parses for
// gpt-oss into the same content and reasoning.
func TestParseHarmony(t *testing.T) {
	cases := []struct{ in, reply, thinking string }{
		{"<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
			"Hello, world!\nWhat's up?", "I'm\nthinking"},
		{"<|channel|>analysis<|message|>I'm\nthink", "", "I'm\nthink"},
		{"<|channel|>analysis<|message|>I'm\nthinking<|end|>", "", "I'm\nthinking"},
		// A preamble to nobody on the commentary channel is content.
		{"<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?",
			"Hello, world!\nWhat's up?", "I'm\nthinking"},
		// Tool calls are neither.
		{"<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}",
			"", "I'm\nthinking"},
		{"<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{\"arg1\": 1}",
			"", "I'm\nthinking"},
		// The stray commentary gpt-oss-20b sometimes writes first.
		{"<|channel|>commentary<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>final<|message|>ok<|return|>", "ok", "hmm"},
		// Several analysis messages join; the final answer ends at <|return|>.
		{"<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>analysis<|message|>b<|end|><|start|>assistant<|channel|>final<|message|>c<|return|>",
			"c", "ab"},
		// Straight to the answer.
		{"<|channel|>final<|message|>Just this.", "Just this.", ""},
		// A model ignoring the format: all of it is the answer.
		{"Plain words, no markers.", "Plain words, no markers.", ""},
		// A message whose <|end|><|start|>assistant the model left out.
		{"<|channel|>analysis<|message|>hmm<|channel|>final<|message|>ok", "ok", "hmm"},
		// "<|" that starts no marker is text.
		{"<|channel|>final<|message|>a <|b|> c <| d <", "a <|b|> c <| d <", ""},
	}
	for _, c := range cases {
		reply, thinking := ParseHarmony(c.in)
		if reply != c.reply || thinking != c.thinking {
			t.Errorf("ParseHarmony(%q)\n = %q, %q\nwant %q, %q", c.in, reply, thinking, c.reply, c.thinking)
		}
		// Streamed one byte at a time (markers split anywhere), the
		// pieces add up to the same.
		var h HarmonyReply
		var r, th strings.Builder
		for i := 0; i < len(c.in); i++ {
			a, b := h.Write(c.in[i : i+1])
			r.WriteString(a)
			th.WriteString(b)
		}
		a, b := h.Flush()
		r.WriteString(a)
		th.WriteString(b)
		if r.String() != c.reply || th.String() != c.thinking || h.Reply() != c.reply || h.Thinking() != c.thinking {
			t.Errorf("streamed %q\n = %q, %q (totals %q, %q)\nwant %q, %q", c.in, r.String(), th.String(), h.Reply(), h.Thinking(), c.reply, c.thinking)
		}
	}
}

// TestHarmonyLongPreambleIsReply: text that never reaches <|message|> is
// not held back forever.
func TestHarmonyLongPreambleIsReply(t *testing.T) {
	var h HarmonyReply
	long := strings.Repeat("word ", 200)
	r, _ := h.Write(long)
	if r == "" {
		t.Fatal("1000 bytes without a header's end produced nothing")
	}
	r2, _ := h.Write(" more")
	if got := r + r2; got != long+" more" {
		t.Errorf("got %q", got)
	}
}

func FuzzHarmonyReply(f *testing.F) {
	f.Add("<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>y", 3)
	f.Add("<|<|channel<|message|>|><|end", 1)
	f.Fuzz(func(t *testing.T, s string, step int) {
		step = max(1, step%16+1)
		want, wantT := ParseHarmony(s)
		var h HarmonyReply
		for i := 0; i < len(s); i += step {
			h.Write(s[i:min(len(s), i+step)])
		}
		h.Flush()
		if h.Reply() != want || h.Thinking() != wantT {
			t.Fatalf("step %d: %q, %q; whole: %q, %q", step, h.Reply(), h.Thinking(), want, wantT)
		}
		if len(want)+len(wantT) > len(s) {
			t.Fatalf("output longer than input")
		}
	})
}

// harmonyTokenizer writes a small byte-level vocabulary with harmony's
// special tokens (control tokens, <|return|> the EOS, as in gpt-oss's
// GGUF) and loads it.
func harmonyTokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tokens := []string{"a", "b", "analysis", "final", "assistant", "<|startoftext|>", "<|endoftext|>", "<|return|>", "<|constrain|>", "<|channel|>", "<|start|>", "<|end|>", "<|message|>", "<|call|>"}
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(tokenizer.TypeNormal)
		if i >= 5 {
			types[i] = int32(tokenizer.TypeControl)
		}
	}
	var w gguf.Writer
	for _, kv := range []struct {
		k string
		v gguf.Value
	}{
		{"tokenizer.ggml.model", gguf.String("gpt2")},
		{"tokenizer.ggml.pre", gguf.String("gpt2")},
		{"tokenizer.ggml.tokens", gguf.Array(tokens)},
		{"tokenizer.ggml.token_type", gguf.Array(types)},
		{"tokenizer.ggml.merges", gguf.Array([]string{"a b"})},
		{"tokenizer.ggml.bos_token_id", gguf.Uint32(5)},
		{"tokenizer.ggml.eos_token_id", gguf.Uint32(7)},
	} {
		if err := w.AddKV(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "harmony-tok.gguf")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestHarmonyStopTokens: gpt-oss stops on <|return|> and <|call|>; <|end|>
// (the end of the analysis message) and the rest go on.
func TestHarmonyStopTokens(t *testing.T) {
	tk := harmonyTokenizer(t)
	id := func(s string) int32 {
		v, ok := tk.TokenID(s)
		if !ok {
			t.Fatalf("no %s", s)
		}
		return v
	}
	// The tokenizer leaves a harmony vocabulary's <|end|> out, as
	// llama.cpp's loader does; the template writes it, so the end-of-turn
	// markers StopTokens adds would bring it back (as they do for the
	// ChatML template below) were the template not read as harmony.
	if slices.Contains(tk.EndOfGeneration(), id("<|end|>")) {
		t.Error("the tokenizer counts a harmony vocabulary's <|end|> as end of generation")
	}
	tmpl := harmonyTemplate(t)
	if !tmpl.Harmony() {
		t.Fatal("gpt-oss's template is not recognised as harmony")
	}
	stops := tmpl.StopTokens(tk)
	for _, s := range []string{"<|return|>", "<|call|>"} {
		if !slices.Contains(stops, id(s)) {
			t.Errorf("stops %v lack %s", stops, s)
		}
	}
	for _, s := range []string{"<|end|>", "<|channel|>", "<|message|>", "<|start|>"} {
		if slices.Contains(stops, id(s)) {
			t.Errorf("stops %v hold %s", stops, s)
		}
	}
	if !slices.IsSorted(stops) {
		t.Errorf("stops %v not sorted", stops)
	}
	// A ChatML template on the same vocabulary keeps <|end|>.
	other, err := Parse("{% for m in messages %}{{ m.content }}<|end|>{% endfor %}", nil)
	if err != nil {
		t.Fatal(err)
	}
	if other.Harmony() || !slices.Contains(other.StopTokens(tk), id("<|end|>")) {
		t.Errorf("a template without channels lost <|end|> as a stop")
	}
	// Decoded with control tokens rendered, a generated reply splits.
	ids := []int32{id("<|channel|>"), id("analysis"), id("<|message|>"), id("b"), id("<|end|>"),
		id("<|start|>"), id("assistant"), id("<|channel|>"), id("final"), id("<|message|>"), id("a"), id("a")}
	var h HarmonyReply
	dec := tk.NewDecoder(tokenizer.DecodeOptions{Special: true, Continuation: true})
	for _, x := range ids {
		h.Write(string(dec.Write(x)))
	}
	h.Flush()
	if h.Reply() != "aa" || h.Thinking() != "b" {
		t.Errorf("reply %q thinking %q", h.Reply(), h.Thinking())
	}
}

// TestHarmonyShowing: Showing says, piece by piece, whether the reader is
// in the answer: before any marker (it may be a reply without the format),
// not in a header or the analysis channel, again in the final channel.
func TestHarmonyShowing(t *testing.T) {
	var h HarmonyReply
	if !h.Showing() {
		t.Fatal("a fresh reader is not showing: a reply without markers would be hidden")
	}
	for _, step := range []struct {
		piece string
		want  bool
	}{
		{"<|channel|>", false}, {"analysis", false}, {"<|message|>", false}, {"think", false},
		{"<|end|>", false}, {"<|start|>assistant", false}, {"<|channel|>final", false},
		{"<|message|>", true}, {"ans", true}, {"<", true}, {"|re", true}, {"turn|>", false},
	} {
		h.Write(step.piece)
		if h.Showing() != step.want {
			t.Errorf("after %q: showing %v, want %v", step.piece, h.Showing(), step.want)
		}
	}
	var plain HarmonyReply
	plain.Write("no format at all")
	if !plain.Showing() {
		t.Error("text without markers is not shown")
	}
}
