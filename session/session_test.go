package session

import (
	"reflect"
	"slices"

	"github.com/isagi-lab/isagi/internal/testkit/fixtures"

	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tokenizer"
)

func fixture(t testing.TB, rel string) string { t.Helper(); return fixtures.Path(t, rel) }

// chatModel writes the archs qwen2 model (random weights, GPT-2 BPE with
// <|im_start|>/<|im_end|>) with a ChatML template added, so the chat path
// runs end to end on a real forward pass.
func chatModel(t *testing.T) string {
	t.Helper()
	return fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), "qwen2-chat.gguf", fixtures.Change{ChatTemplate: fixtures.ChatML})
}

func greedy() Settings {
	s := DefaultSettings()
	s.Temperature = 0
	s.MaxTokens = 12
	return s
}

func open(t *testing.T, path string, o Options) *Session {
	t.Helper()
	s, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func send(t *testing.T, s *Session, text string) Turn {
	t.Helper()
	var streamed strings.Builder
	turn, err := s.Send(context.Background(), text, func(e Event) { streamed.WriteString(e.Piece) })
	if err != nil {
		t.Fatal(err)
	}
	if streamed.String() != turn.Text {
		t.Fatalf("streamed %q, turn text %q", streamed.String(), turn.Text)
	}
	return turn
}

// TestChatReusesCacheExactly: the second turn feeds only the tokens the
// cache lacks, and its reply equals the reply a fresh session computes
// from the whole conversation — so reuse never changes an answer.
func TestChatReusesCacheExactly(t *testing.T) {
	path := chatModel(t)
	a := open(t, path, Options{Settings: greedy()})
	if a.Info().Mode != ModeChat {
		t.Fatalf("mode %v, want chat", a.Info().Mode)
	}
	t1 := send(t, a, "Hello world")
	t2 := send(t, a, "In 2024, 1000 people paid")
	used, _ := a.Conversation().ContextUsed()
	if t2.PromptTok >= used-t2.Tokens || t2.PromptTok == 0 {
		t.Fatalf("second turn fed %d tokens of %d in context: the cache was not reused", t2.PromptTok, used)
	}

	b := open(t, path, Options{Settings: greedy()})
	rb, ra := b.cv.conv.Record(), a.cv.conv.Record()
	rb.Messages = append(rb.Messages, ra.Messages[:2]...) // user 1 and a's reply
	b.cv.conv.Restore(rb)
	t2b := send(t, b, "In 2024, 1000 people paid")
	if t2b.Text != t2.Text {
		t.Fatalf("reply with cache reuse %q, from scratch %q (first reply %q)", t2.Text, t2b.Text, t1.Text)
	}
}

// TestChatDropsOldestTurns: in a small window, a long conversation keeps
// going by dropping its oldest turns, and says so.
func TestChatDropsOldestTurns(t *testing.T) {
	s := open(t, chatModel(t), Options{Ctx: 96, Settings: greedy()})
	dropped := 0
	for i := range 12 {
		turn := send(t, s, "The quick brown fox jumps over the lazy dog")
		dropped += turn.Dropped
		if used, limit := s.cv.ContextUsed(); used > limit {
			t.Fatalf("turn %d: %d tokens in a %d-token window", i, used, limit)
		}
	}
	if dropped == 0 {
		t.Fatal("twelve turns fit a 96-token window without dropping any: the test proves nothing")
	}
	before := slices.Clone(s.cv.Transcript())
	big := strings.Repeat("words ", 200)
	if _, err := s.Send(context.Background(), big, func(Event) {}); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a message larger than the window: %v", err)
	}
	// The refused message takes nothing with it: the turns that would have
	// been dropped to make room are still there.
	if after := s.cv.Transcript(); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused message changed the conversation: %d messages before, %d after", len(before), len(after))
	}
}

// TestCompletionTrimIsReported: a text longer than the window is cut to its
// last tokens, and the turn says how many the model did not see.
func TestCompletionTrimIsReported(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-f32.gguf"), Options{Ctx: 64, Settings: greedy()})
	if turn := send(t, s, "And God said"); turn.Trimmed != 0 {
		t.Fatalf("a short text was trimmed by %d tokens", turn.Trimmed)
	}
	turn := send(t, s, strings.Repeat(" and the LORD spake unto Moses", 20))
	if turn.Trimmed <= 0 {
		t.Fatalf("a text longer than the window: Trimmed %d", turn.Trimmed)
	}
}

// TestCompletionMode: a model without a chat template continues text, and
// a second input continues the same text from the cache.
func TestCompletionMode(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-f32.gguf"), Options{Settings: greedy()})
	if s.Info().Mode != ModeCompletion {
		t.Fatalf("kjv has no chat template: mode %v", s.Info().Mode)
	}
	t1 := send(t, s, "And God said")
	// Greedy ids 325 336 4049 … decode to " unto him, I am the LORD, …".
	if !strings.HasPrefix(t1.Text, " unto him, I am") {
		t.Fatalf("continuation %q", t1.Text)
	}
	t2 := send(t, s, " And")
	if t2.PromptTok > 4 {
		t.Fatalf("continuing fed %d tokens: the running text was not reused", t2.PromptTok)
	}
}

func TestSettingsAndCancel(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{})
	if err := s.Set("temperature", "0.5"); err != nil || s.Settings().Temperature != 0.5 {
		t.Fatalf("set temperature: %v, %+v", err, s.Settings())
	}
	for _, bad := range [][2]string{{"temperature", "-1"}, {"top_k", "x"}, {"num_ctx", "99999"}, {"colour", "red"}, {"max_tokens", "0"}} {
		if err := s.Set(bad[0], bad[1]); err == nil {
			t.Errorf("/set %s %s accepted", bad[0], bad[1])
		}
	}
	if err := s.Set("num_ctx", "128"); err != nil {
		t.Fatal(err)
	}
	if _, limit := s.cv.ContextUsed(); limit != 128 {
		t.Fatalf("num_ctx 128 gave a %d-token window", limit)
	}
	if err := s.Set("max_tokens", "200"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	turn, err := s.Send(ctx, "And God said", func(Event) {
		if n++; n == 3 {
			cancel()
		}
	})
	if err != nil || turn.Stop != "cancelled" || turn.Tokens != 3 {
		t.Fatalf("cancel: err %v, %+v", err, turn)
	}
	s.Clear()
	if used, _ := s.cv.ContextUsed(); used != 0 {
		t.Fatalf("after Clear %d tokens remain", used)
	}
}

// TestRankKnob: /set rank switches the Q/K/V path between turns, reports
// what it keeps, switches back, and refuses ranks outside 1…d.
func TestRankKnob(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-f32.gguf"), Options{Settings: greedy()})
	full := send(t, s, "And God said")
	s.Clear()
	if err := s.Set("rank", "64"); err != nil {
		t.Fatal(err)
	}
	i := s.Info()
	if i.Rank != 64 || i.RankEnergy <= 0 || i.RankEnergy >= 1 || i.RankBytes <= 0 || s.Settings().Rank != 64 {
		t.Fatalf("after /set rank 64: %+v", i)
	}
	low := send(t, s, "And God said")
	if err := s.Set("rank", "off"); err != nil {
		t.Fatal(err)
	}
	s.Clear()
	again := send(t, s, "And God said")
	if s.Info().Rank != 0 || again.Text != full.Text {
		t.Fatalf("rank off: rank %d, reply %q, want %q", s.Info().Rank, again.Text, full.Text)
	}
	t.Logf("greedy reply at full rank %q, at rank 64 %q", full.Text, low.Text)
	for _, bad := range []string{"0x", "-3", "257"} {
		if err := s.Set("rank", bad); err == nil {
			t.Errorf("/set rank %s accepted", bad)
		}
	}
}

// TestRankCache: a built rank is cached on disk and used by the next
// session (same result); a flipped byte in the cache is detected and the
// rank rebuilt, never used.
func TestRankCache(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, "kjv/kjv-q8_0.gguf")
	a := open(t, path, Options{Settings: greedy(), CacheDir: dir})
	if err := a.Set("rank", "96"); err != nil {
		t.Fatal(err)
	}
	want := send(t, a, "And God said")
	files, _ := filepath.Glob(filepath.Join(dir, "grc-*-k96-qkv-v1.miku"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	b := open(t, path, Options{Settings: greedy(), CacheDir: dir})
	g, err := b.Compression().load(96)
	if err != nil {
		t.Fatalf("the cache written by the first session does not load: %v", err)
	}
	if g.K != 96 {
		t.Fatalf("loaded rank %d", g.K)
	}
	if err := b.Set("rank", "96"); err != nil {
		t.Fatal(err)
	}
	if got := send(t, b, "And God said"); got.Text != want.Text {
		t.Fatalf("from the cache %q, built %q", got.Text, want.Text)
	}
	data, _ := os.ReadFile(files[0])
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(files[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
	c := open(t, path, Options{Settings: greedy(), CacheDir: dir})
	if _, err := c.Compression().load(96); err == nil {
		t.Fatal("a corrupted cache loaded")
	}
	if err := c.Set("rank", "96"); err != nil {
		t.Fatal(err)
	}
	if got := send(t, c, "And God said"); got.Text != want.Text {
		t.Fatalf("after a rebuild %q, want %q", got.Text, want.Text)
	}
	if _, err := c.Compression().load(96); err != nil {
		t.Fatalf("the rebuild did not rewrite the cache: %v", err)
	}
}

// The slot set and allocation are knobs too; a build that is cancelled
// changes nothing, and progress is reported block by block.
func TestRankSlotsAllocAndCancel(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.SetCtx(ctx, "rank", "128", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	if s.Info().Rank != 0 || s.Settings().Rank != 0 {
		t.Fatalf("a cancelled build changed the rank: %+v", s.Info())
	}
	for _, kv := range [][2]string{{"slots", "qkv,o,ffn"}, {"alloc", "gp"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var last, total int
	if err := s.SetCtx(context.Background(), "rank", "192", func(d, n int) { last, total = d, n }); err != nil {
		t.Fatal(err)
	}
	i := s.Info()
	if i.Rank != 192 || len(i.RankSlots) != 7 || !strings.HasPrefix(i.RankSpec, "qkv,o,ffn") {
		t.Fatalf("after slots qkv,o,ffn, alloc gp, rank 192: %+v", i)
	}
	if total == 0 || last != total {
		t.Fatalf("progress ended at %d/%d", last, total)
	}
	for _, sl := range i.RankSlots {
		if sl.MinK < 1 || sl.MeanEnergy <= 0 || sl.MeanEnergy > 1.0000001 {
			t.Fatalf("slot %v: %+v", sl.Slot, sl)
		}
	}
	if r := send(t, s, "And God said"); r.Tokens == 0 {
		t.Fatal("no reply under the compression")
	}
	if err := s.Set("slots", "bogus"); err == nil {
		t.Fatal("slots bogus accepted")
	}
}

// AUGMENT shows the model an earlier answer for this turn only: the
// prompt carries it, the stored conversation keeps the message as typed.
func TestAugmentedPrompt(t *testing.T) {
	s := open(t, chatModel(t), Options{Settings: greedy()})
	p, err := s.cv.conv.Add("what is light?", "Light is what the LORD made first.", s.st.Cap(), 64)
	ids := p.IDs
	if err != nil {
		t.Fatal(err)
	}
	text := s.tok.Decode(ids, tokenizer.DecodeOptions{})
	if !strings.Contains(text, "Light is what the LORD made first.") || !strings.Contains(text, "what is light?") {
		t.Fatalf("the augmented prompt lacks the earlier answer or the message:\n%s", text)
	}
	msgs := s.cv.conv.Record().Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != "what is light?" {
		t.Fatalf("stored message %+v, want the message as typed", last)
	}
}

// TestDefaultSeedFromClock: a session opened without settings draws its
// seed, so two launches differ; explicit settings keep theirs.
func TestDefaultSeedFromClock(t *testing.T) {
	path := fixture(t, "kjv/kjv-q8_0.gguf")
	a := open(t, path, Options{})
	b := open(t, path, Options{})
	if a.Settings().Seed == b.Settings().Seed {
		t.Fatalf("two sessions without settings share seed %d", a.Settings().Seed)
	}
	if c := open(t, path, Options{Settings: greedy()}); c.Settings().Seed != 0 {
		t.Fatalf("explicit seed 0 became %d", c.Settings().Seed)
	}
}
