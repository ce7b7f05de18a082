package conversation

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// qwen2 opens the archs qwen2 fixture's tokenizer and a ChatML template.
func qwen2(t *testing.T) (*tokenizer.Tokenizer, *chat.Template, string) {
	t.Helper()
	path := fixtures.Path(t, "archs/qwen2.gguf")
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chat.ForTokenizer("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"+
		"{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}", tok)
	if err != nil {
		t.Fatal(err)
	}
	return tok, tmpl, path
}

// TestDropsOldestTurnsAndKeepsWhatCannotFit: a turn that does not fit
// drops the oldest exchanges (never the system message); a message too
// long even alone is ErrTooLong and leaves the conversation as it was.
func TestDropsOldestTurnsAndKeepsWhatCannotFit(t *testing.T) {
	tok, tmpl, _ := qwen2(t)
	c := New(tok, tmpl)
	c.SetSystem("Be brief.")
	for i := range 6 {
		p, err := c.Add(strings.Repeat("Hello there ", 4+i), "", 200, 40)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.IDs)+40 > 200 {
			t.Fatalf("turn %d: prompt of %d tokens leaves no room for 40 in 200", i, len(p.IDs))
		}
		c.AddReply(" Hello. ")
	}
	rec := c.Record()
	if rec.Messages[0].Role != "system" {
		t.Fatalf("the system message was dropped: %+v", rec.Messages[0])
	}
	if n := len(rec.Messages); n >= 13 {
		t.Fatalf("%d messages: nothing was dropped", n)
	}
	if last := rec.Messages[len(rec.Messages)-1]; last.Role != "assistant" || last.Content != "Hello." {
		t.Fatalf("reply stored as %+v, want trimmed", last)
	}
	before := c.Record()
	if _, err := c.Add(strings.Repeat("Hello there ", 200), "", 200, 40); !errors.Is(err, ErrTooLong) {
		t.Fatalf("an oversized message: %v, want ErrTooLong", err)
	}
	if !reflect.DeepEqual(c.Record().Messages, before.Messages) {
		t.Fatal("a refused message changed the conversation")
	}
}

// TestCompletionTrimAndPop: completion mode cuts the prompt, not the
// text, and takes back only an exchange it knows exactly.
func TestCompletionTrimAndPop(t *testing.T) {
	tok, _, _ := qwen2(t)
	c := New(tok, nil)
	p, err := c.Add(strings.Repeat("Hello there ", 100), "", 100, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.IDs) != 80 || p.Trimmed == 0 {
		t.Fatalf("%d ids, %d trimmed; want 80 kept", len(p.IDs), p.Trimmed)
	}
	c.AddReply(" General")
	c.AddExchange(" Kenobi", "!")
	if in, ok := c.PopExchange(" Kenobi", "!"); !ok || in != " Kenobi" {
		t.Fatalf("pop: %q %v", in, ok)
	}
	if _, ok := c.PopExchange(" Kenobi", "!"); ok {
		t.Fatal("popped an exchange the text does not end with")
	}
	tr := c.Transcript()
	if len(tr) != 2 || tr[0].Role != RolePrompt || tr[1].Role != RoleContinuation || tr[1].Content != " General" {
		t.Fatalf("transcript %+v", tr)
	}
}

// TestReuseFeedsOnlyNewTokens: the cached prefix is not fed again, and a
// fully cached prompt feeds its last token for fresh logits.
func TestReuseFeedsOnlyNewTokens(t *testing.T) {
	_, _, path := qwen2(t)
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.NewStateOn(64, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	g, err := generate.New(st, sample.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if feed := Reuse(g, []int32{10, 11, 12}); !slices.Equal(feed, []int32{10, 11, 12}) {
		t.Fatalf("empty cache feeds %v", feed)
	}
	if _, err := g.Generate(t.Context(), []int32{10, 11, 12}, generate.Options{MaxTokens: 1}, func(int32) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if feed := Reuse(g, []int32{10, 11, 12, 13, 14}); len(feed) > 3 || feed[len(feed)-1] != 14 {
		t.Fatalf("after 3 cached tokens, feeds %v", feed)
	}
	if feed := Reuse(g, []int32{10, 11}); !slices.Equal(feed, []int32{11}) {
		t.Fatalf("a cached prompt feeds %v, want its last token", feed)
	}
}
