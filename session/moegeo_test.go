package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// moeChatModel is the qwen3 arch fixture rebuilt as a qwen3moe chat
// model: every block's 128-wide feed-forward cut into four experts of 32,
// two per token, behind a fixed random router, with a ChatML template.
func moeChatModel(t *testing.T) string {
	t.Helper()
	return fixtures.Rebuilt(t, "archs/qwen3.gguf", t.TempDir(), "qwen3moe-chat.gguf",
		fixtures.Change{Arch: "qwen3moe", ChatTemplate: fixtures.ChatML, Experts: 4, ExpertsUsed: 2})
}

// TestMoEOutsideTheForwardPass: what reads a model's weights or its
// residual stream outside the forward pass works on a mixture of experts.
// The session opens it and replies, telling its experts and the bytes a
// token reads (the chosen experts') apart from the bytes it keeps (all);
// /set rank compresses the attention and leaves the experts dense (and
// ffn alone is refused with the reason); a GRC drafter drafts; and with a
// geometry profile every turn has its TEH gauge and COG decision while
// Snipe and Safe OGD run.
func TestMoEOutsideTheForwardPass(t *testing.T) {
	set := greedy()
	set.MaxTokens = 6
	s := open(t, moeChatModel(t), Options{Settings: set, CacheDir: t.TempDir()})
	i := s.Info()
	if i.Experts != "4 (2 per token, 32 wide)" || i.Arch != "qwen3moe" {
		t.Fatalf("info: experts %q, arch %q", i.Experts, i.Arch)
	}
	if i.TokenBytes <= 0 || i.TokenBytes >= i.FileBytes {
		t.Errorf("a token reads %d weight bytes of the %d held: a mixture reads only its chosen experts", i.TokenBytes, i.FileBytes)
	}
	dense := send(t, s, "Hello there")
	if dense.Tokens == 0 {
		t.Fatal("no reply")
	}

	// The rank knob over every slot: attention compresses, experts stay
	// dense.
	for _, kv := range [][2]string{{"slots", "all"}, {"rank", "16"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("/set %s %s: %v", kv[0], kv[1], err)
		}
	}
	g := grc.Of(s.st)
	if g == nil || !strings.Contains(g.String(), "experts stay dense in 2 of 2 blocks") {
		t.Fatalf("compression in use: %v", g)
	}
	var slots []string
	for _, sl := range s.Info().RankSlots {
		slots = append(slots, sl.Slot.String())
	}
	if !slices.Equal(slots, []string{"q", "k", "v", "o"}) {
		t.Errorf("compressed slots %v, want the attention's only", slots)
	}
	s.Clear()
	if turn := send(t, s, "Hello there"); turn.Tokens == 0 {
		t.Fatal("no reply under rank 16")
	}
	if err := s.Set("slots", "ffn"); err == nil || !strings.Contains(err.Error(), "experts stay dense") {
		t.Errorf("/set slots ffn at rank 16 on a model of experts: %v", err)
	}
	for _, kv := range [][2]string{{"rank", "0"}, {"slots", "qkv"}, {"draft", "rank:16"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("/set %s %s: %v", kv[0], kv[1], err)
		}
	}
	s.Clear()
	if turn := send(t, s, "Hello there"); turn.Spec == nil || turn.Spec.Drafted == 0 || turn.Text != dense.Text {
		t.Fatalf("a GRC drafter's greedy reply %q (%+v), want the plain %q", turn.Text, turn.Spec, dense.Text)
	}
	if err := s.Set("draft", "off"); err != nil {
		t.Fatal(err)
	}

	// The geometry monitors read the residual stream through block hooks.
	p := quickProfile(t, s)
	if len(p.Categories) == 0 {
		t.Fatal("the quick profile has no Snipe category")
	}
	for _, kv := range [][2]string{{"snipe", p.Categories[0].Name}, {"ogd_alpha", "0.1"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("/set %s %s: %v", kv[0], kv[1], err)
		}
	}
	s.Clear()
	turn := send(t, s, "Tell me about the sea")
	if turn.Geometry == nil || turn.COG == nil || turn.Tokens == 0 {
		t.Fatalf("geometry %+v, COG %+v, %d tokens", turn.Geometry, turn.COG, turn.Tokens)
	}
	if len(s.gm.Snipes()) != 1 {
		t.Errorf("snipes on: %v", s.gm.Snipes())
	}
	if again := send(t, s, "Tell me about the sea"); again.COG == nil {
		t.Fatal("no COG decision on the second turn")
	}
}
