package session

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/chat"

	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// harmonyLike is a minimal template in gpt-oss's harmony format: replies
// come in channels after a bare "<|start|>assistant".
const harmonyLike = "{% for m in messages %}<|start|>{{ m.role }}" +
	"{% if m.role == 'assistant' %}<|channel|>final{% endif %}<|message|>{{ m.content }}<|end|>{% endfor %}" +
	"{% if add_generation_prompt %}<|start|>assistant{% endif %}"

// TestHarmonyChatRuns: with a harmony template the reply goes through the
// channel reader. The random model writes no channel markers, so all it
// writes is the answer (held back while it could still be a header, then
// streamed in full); the conversation keeps it and the next turn renders.
func TestHarmonyChatRuns(t *testing.T) {
	path := fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), "qwen2-harmony.gguf", fixtures.Change{ChatTemplate: harmonyLike})
	s := open(t, path, Options{Settings: greedy()})
	for _, in := range []string{"Hello", "Again"} {
		var events []Event
		turn, err := s.Send(context.Background(), in, func(e Event) { events = append(events, e) })
		if err != nil {
			t.Fatal(err)
		}
		// No marker came: every token's text is the answer.
		for _, e := range events {
			if e.Hidden {
				t.Fatalf("%s: token %d (%q) hidden in a reply without markers", in, e.ID, e.Piece)
			}
		}
		if turn.Tokens == 0 {
			t.Fatalf("%s: no tokens generated", in)
		}
		if turn.Text == "" {
			t.Errorf("%s: empty reply", in)
		}
		if turn.Thinking != "" {
			t.Errorf("%s: thinking %q from a reply without channels", in, turn.Thinking)
		}
	}
	msgs := s.Conversation().Transcript()
	if len(msgs) != 4 || msgs[1].Role != "assistant" || msgs[3].Role != "assistant" {
		t.Fatalf("transcript %+v", msgs)
	}
}

// TestReadHarmonyHidden: of a gpt-oss reply's tokens, the markers, the
// headers and the chain of thought are hidden; the answer's are not, even
// one whose text the reader holds back (a '<' that may start a marker).
func TestReadHarmonyHidden(t *testing.T) {
	var hr chat.HarmonyReply
	var reply, thinking strings.Builder
	var hidden []string
	for _, p := range []string{"<|channel|>", "analysis", "<|message|>", "Let me", " think", "<|end|>",
		"<|start|>", "assistant", "<|channel|>", "final", "<|message|>", "2", " <", " 3", "<|return|>"} {
		r, th, h := readHarmony(&hr, p)
		reply.WriteString(r)
		thinking.WriteString(th)
		if h {
			hidden = append(hidden, p)
		}
	}
	if reply.String() != "2 < 3" || thinking.String() != "Let me think" {
		t.Fatalf("answer %q, thinking %q", reply.String(), thinking.String())
	}
	want := []string{"<|channel|>", "analysis", "<|message|>", "Let me", " think", "<|end|>",
		"<|start|>", "assistant", "<|channel|>", "final", "<|message|>", "<|return|>"}
	if !slices.Equal(hidden, want) {
		t.Errorf("hidden %q, want %q", hidden, want)
	}
	// Without markers all of it is the answer: nothing is hidden.
	var plain chat.HarmonyReply
	for _, p := range []string{"Hello", " <", "b"} {
		if _, _, h := readHarmony(&plain, p); h {
			t.Errorf("%q hidden in a reply without markers", p)
		}
	}
}
