package session

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// renderedTokens is how many tokens s's chat conversation is through its
// template, without a reply header: what a resumed conversation occupies
// once the next turn has recomputed it (issue 27, item 11).
func renderedTokens(t *testing.T, s *Session) int {
	t.Helper()
	p, err := s.cv.conv.Template().Render(s.cv.Transcript(), chat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(ids)
}

// TestContextUsedAfterLoad: a conversation resumed from a .miku file fills
// the context window before its next turn recomputes it (the Perf pane
// read "context 0/256" after --load), capped at a smaller window; after the
// next turn the figure is the cache's, the same as the session that never
// left — the count made at the load is not added to it.
func TestContextUsedAfterLoad(t *testing.T) {
	path := chatModel(t)
	a := open(t, path, Options{Settings: greedy()})
	send(t, a, "Hello world")
	send(t, a, "In 2024, 1000 people paid")
	file := filepath.Join(t.TempDir(), "a.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}

	b := open(t, path, Options{})
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	want := renderedTokens(t, b)
	used, limit := b.Conversation().ContextUsed()
	if used == 0 || used != want || used > limit {
		t.Fatalf("after the load: context %d/%d, want the conversation's %d tokens", used, limit, want)
	}
	// The count is of the same conversation the cache of a held: the two
	// differ only by how its replies tokenize as text.
	if held, _ := a.Conversation().ContextUsed(); used < held/2 || used > held*2 {
		t.Fatalf("after the load: context %d, the original session's cache %d", used, held)
	}

	small := open(t, path, Options{Ctx: 16})
	if _, err := small.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if used, limit := small.Conversation().ContextUsed(); want <= 16 || used != limit {
		t.Fatalf("a %d-token conversation in a 16-token window: context %d/%d", want, used, limit)
	}

	send(t, a, "Thanks")
	send(t, b, "Thanks")
	ua, _ := a.Conversation().ContextUsed()
	ub, _ := b.Conversation().ContextUsed()
	if ub != ua || ub != len(b.gen.History()) {
		t.Fatalf("after the next turn: the resumed session reads %d (cache %d), the original %d", ub, len(b.gen.History()), ua)
	}
}

// TestContextUsedAfterServedAnswer: an answer served from memory is in the
// conversation though nothing was decoded, so the window it fills grows
// with it; the next decoded turn reads the cache again.
func TestContextUsedAfterServedAnswer(t *testing.T) {
	s := chatMemory(t)
	first := send(t, s, "Hello there")
	again := send(t, s, "Hello there")
	if again.COG == nil || !again.COG.Retrieved {
		t.Fatalf("the repeat was not served: %+v", again.COG)
	}
	if again.ContextUsed <= first.ContextUsed || again.ContextUsed != renderedTokens(t, s) {
		t.Fatalf("context %d after the first turn, %d after the served one, want the conversation's %d",
			first.ContextUsed, again.ContextUsed, renderedTokens(t, s))
	}
	next := send(t, s, "Something else entirely")
	if next.COG.Retrieved || next.ContextUsed != len(s.gen.History()) {
		t.Fatalf("after a decoded turn: context %d, cache %d (served %v)", next.ContextUsed, len(s.gen.History()), next.COG.Retrieved)
	}
}
