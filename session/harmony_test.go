package session

import (
	"testing"

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
		turn := send(t, s, in)
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
