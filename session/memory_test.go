package session

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/cog"
)

// chatMemory is the chat fixture with a quickly calibrated profile: the
// model is random, so the geometry means nothing, but every mechanism
// runs on a real forward pass through a chat template.
func chatMemory(t *testing.T) *Session {
	t.Helper()
	s := open(t, chatModel(t), Options{Settings: greedy()})
	quickProfile(t, s)
	if err := s.Set("max_tokens", "3"); err != nil {
		t.Fatal(err)
	}
	return s
}

// In chat mode the system prompt is part of the live state: an answer
// given under one is not served under another, and is again once the
// system prompt is back.
func TestMemoryChatSystemPrompt(t *testing.T) {
	s := chatMemory(t)
	st := s.mem.state()
	if !strings.HasPrefix(st.Template, "chat:") || st.System != "none" || st.Temp != "greedy" {
		t.Fatalf("chat state %+v", st)
	}
	first := send(t, s, "Hello there")
	if first.COG == nil || first.COG.Retrieved {
		t.Fatalf("first turn %+v", first.COG)
	}
	answer := strings.ToValidUTF8(strings.TrimSpace(first.Text), "\uFFFD") // as chat mode stores a reply
	again := send(t, s, "Hello there")
	if !again.COG.Retrieved || again.Text != answer {
		t.Fatalf("a repeat under the same state was not served: %+v %q, want %q", again.COG, again.Text, answer)
	}
	s.cv.SetSystem("Answer like a pirate.")
	other := send(t, s, "Hello there")
	if other.COG.Retrieved || other.COG.Decision != "other-state" || !strings.Contains(other.COG.Why, "system prompt changed") {
		t.Fatalf("served under another system prompt: %+v", other.COG)
	}
	s.cv.SetSystem("")
	if back := send(t, s, "Hello there"); !back.COG.Retrieved || back.Text != answer {
		t.Fatalf("not served once the system prompt was back: %+v", back.COG)
	}
	if served := s.mem.Served(); len(served) != 2 {
		t.Fatalf("%d served answers recorded, want 2", len(served))
	}
	s.Clear()
	if len(s.mem.Served()) != 0 {
		t.Fatal("Clear kept the record of served answers")
	}
}

func TestLengthClass(t *testing.T) {
	for _, c := range []struct {
		stop   string
		tokens int
		want   string
		fits   map[int]bool
	}{
		{"token limit", 40, "max:40", map[int]bool{40: true, 39: false, 41: false}},
		{"stop token", 12, "end:12", map[int]bool{12: true, 40: true, 11: false}},
		{"context full", 30, "cut", map[int]bool{30: false, 40: false}},
	} {
		got := lengthClass(c.stop, c.tokens, 40)
		if got != c.want {
			t.Errorf("lengthClass(%q, %d) = %q, want %q", c.stop, c.tokens, got, c.want)
		}
		for n, want := range c.fits {
			if lengthFits(got, n) != want {
				t.Errorf("lengthFits(%q, %d) = %v", got, n, !want)
			}
		}
	}
	if lengthFits("end:x", 4) || lengthFits("", 4) {
		t.Error("a malformed length class fits")
	}
}

func TestMemKeys(t *testing.T) {
	st := memState{Template: "completion", System: "none", Temp: "greedy", Snipe: "a;b", OGD: "off", GRC: "k8-qkv"}
	key := memKey(st, "max:4")
	if !accepts(st, 4)(key) || accepts(st, 5)(key) || !sameState(key, st) {
		t.Fatalf("key %q not accepted under its own state", key)
	}
	f, ok := parseMemKey(key)
	if !ok || f["snipe"] != "a,b" || f["length"] != "max:4" || f["grc"] != "k8-qkv" {
		t.Fatalf("parsed %v, %v", f, ok)
	}
	hot := st
	hot.Temp, hot.GRC = "hot", "off"
	if accepts(hot, 4)(key) {
		t.Fatal("a key accepted under another temperature class")
	}
	if d := stateDiff(key, hot, 4); d != "temperature greedy → hot, GRC k8-qkv → off" {
		t.Fatalf("diff %q", d)
	}
	if _, ok := parseMemKey(""); ok {
		t.Fatal("the empty key parsed")
	}
	for set, want := range map[Settings]string{
		{Temperature: 0}: "greedy", {Temperature: 0.7, TopK: 1}: "greedy", {Temperature: 0.7}: "sampled",
		{Temperature: 1}: "sampled", {Temperature: 1.5}: "hot",
	} {
		if got := tempClass(set); got != want {
			t.Errorf("tempClass(%+v) = %q, want %q", set, got, want)
		}
	}
}

// TestAugmentWith: the nearest answer of the same live state is shown to
// the model for RETRIEVE- and AUGMENT-close turns that were not served,
// never beyond AUGMENT and never with memory off.
func TestAugmentWith(t *testing.T) {
	near := func(tier cog.Tier) *memTurn {
		return &memTurn{look: cog.Lookup{Near: cog.Match{Found: true, Tier: tier, Trajectory: cog.Trajectory{Answer: "stored"}}}}
	}
	for tier, want := range map[cog.Tier]string{cog.Retrieve: "stored", cog.Augment: "stored", cog.Expand: "", cog.Explore: ""} {
		if got := near(tier).augmentWith(false); got != want {
			t.Errorf("%v: augment %q, want %q", tier, got, want)
		}
	}
	if got := near(cog.Retrieve).augmentWith(true); got != "" {
		t.Errorf("memory off: augment %q", got)
	}
	if got := (&memTurn{}).augmentWith(false); got != "" {
		t.Errorf("nothing near: augment %q", got)
	}
}
