package session

import (
	"strings"
	"testing"
)

// TestKnobTable: every entry is complete and no two spellings collide, so
// LookupKnob is unambiguous and the generated usage has no holes.
func TestKnobTable(t *testing.T) {
	seen := map[string]string{}
	for _, k := range Knobs() {
		if k.Name == "" || k.Help == "" || k.Values == "" || k.Value == nil || k.set == nil {
			t.Errorf("incomplete knob %+v", k)
		}
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			if other, dup := seen[n]; dup {
				t.Errorf("%q names both %s and %s", n, other, k.Name)
			}
			seen[n] = k.Name
			if got, ok := LookupKnob(n); !ok || got.Name != k.Name {
				t.Errorf("LookupKnob(%q) = %q, %v; want %s", n, got.Name, ok, k.Name)
			}
		}
	}
	if _, ok := LookupKnob("system"); ok {
		t.Error("system is a knob: /set system is the TUI's, Set has no such setting")
	}
}

// roundTrip sets every knob to its own formatted value: it must be accepted
// and leave the value as it was.
func roundTrip(t *testing.T, s *Session) {
	t.Helper()
	for _, k := range Knobs() {
		before := k.Value(s.Settings(), s.Info())
		if err := s.Set(k.Name, before); err != nil {
			t.Errorf("Set(%q, %q), its own value: %v", k.Name, before, err)
			continue
		}
		if after := k.Value(s.Settings(), s.Info()); after != before {
			t.Errorf("Set(%q, %q) changed it to %q", k.Name, before, after)
		}
	}
}

// TestKnobsRoundTrip: what /show prints for a knob, /set takes back —
// at the defaults and with a compression, odd sampler values and a seed
// that needs all 64 bits.
func TestKnobsRoundTrip(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	roundTrip(t, s)

	for _, kv := range [][2]string{
		{"draft", "rank:64,qkv,ffn"}, {"draft_n", "3"}, {"online_basis", "on"},
		{"temp", "0.7"}, {"top_p", "0.9"}, {"top_k", "7"}, {"min_p", "0.1"}, {"repeat_penalty", "1.1"},
		{"seed", "18446744073709551615"}, {"num_ctx", "200"}, {"num_predict", "33"},
		{"slots", "qkv,o"}, {"alloc", "gp"}, {"rank", "64"}, {"ogd_alpha", "off"},
		{"kv_keep", "0.5"}, {"kv_scorer", "KeyDiff"},
	} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%q, %q): %v", kv[0], kv[1], err)
		}
	}
	want := map[string]string{
		"temperature": "0.7", "top_p": "0.9", "top_k": "7", "min_p": "0.1", "repeat_penalty": "1.1",
		"seed": "18446744073709551615", "num_ctx": "200", "max_tokens": "33",
		"slots": "qkv,o", "alloc": "gp", "rank": "64", "snipe": "off", "ogd_alpha": "off", "memory": "on",
		"draft": "rank:64,qkv,ffn", "draft_n": "3", "online_basis": "on",
		"kv_keep": "0.5", "kv_scorer": "keydiff",
		"gauge": "off", "sink_channels": "0", "sink_bypass": "off", "kv_proj": "off",
		"expert_off": "none", "steer": "off", "format": "off",
	}
	for _, k := range Knobs() {
		if got := k.Value(s.Settings(), s.Info()); got != want[k.Name] {
			t.Errorf("%s reads %q, want %q", k.Name, got, want[k.Name])
		}
	}
	roundTrip(t, s)
	// num_ctx makes a new KV state: the compression in use must come
	// with it, not stay in the settings only.
	if i := s.Info(); i.Rank == 0 || i.RankSpec != "qkv,o gp" {
		t.Fatalf("after num_ctx the state runs rank %d (%q); the settings say rank 64, qkv,o gp", i.Rank, i.RankSpec)
	}
	if r := send(t, s, "And God said"); r.Tokens == 0 || r.Spec == nil || r.Spec.Steps == 0 {
		t.Fatal("no speculative reply after the round trip (num_ctx must bring the drafter to the new state)")
	}
}

// TestUnknownSetting: the error lists every name in the table and, for a
// near miss, suggests the setting meant; a bad value keeps its message.
func TestUnknownSetting(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	before := s.Settings()
	for _, c := range []struct{ name, mean string }{
		{"tempreature", "temperature"}, {"top-p", "top_p"}, {"Seed", "seed"}, {"num_ctxx", "num_ctx"},
		{"ogdalpha", "ogd_alpha"}, {"colour", ""}, {"", ""},
	} {
		err := s.Set(c.name, "1")
		if err == nil {
			t.Fatalf("Set(%q) accepted", c.name)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "unknown setting "+`"`+c.name+`"`) {
			t.Errorf("Set(%q): %v", c.name, err)
		}
		for _, n := range KnobNames() {
			if !strings.Contains(msg, n) {
				t.Errorf("Set(%q): %q does not list %s", c.name, msg, n)
			}
		}
		hint := "(did you mean " + c.mean + "?)"
		if c.mean != "" && !strings.Contains(msg, hint) {
			t.Errorf("Set(%q): %q lacks %q", c.name, msg, hint)
		}
		if c.mean == "" && strings.Contains(msg, "did you mean") {
			t.Errorf("Set(%q): %q suggests something unrelated", c.name, msg)
		}
	}
	for _, c := range [][3]string{
		{"num_ctx", "99999", `num_ctx "99999": the model allows 16 to`},
		{"max_tokens", "0", `max_tokens "0": must be at least 1`},
		{"rank", "257", `rank "257": want off or 1…256 (the embedding width)`},
		{"ogd_alpha", "0.2", `ogd_alpha "0.2": ` + ErrNoGeometry.Error()},
		{"snipe", "privacy", `snipe "privacy": ` + ErrNoGeometry.Error()},
		{"top_k", "x", `top_k "x": strconv.Atoi`},
		{"temperature", "-1", "Temperature must be finite and ≥ 0"},
	} {
		if err := s.Set(c[0], c[1]); err == nil || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("Set(%q, %q): %v; want %q", c[0], c[1], err, c[2])
		}
	}
	if s.Settings() != before {
		t.Errorf("refused settings changed them: %+v, was %+v", s.Settings(), before)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"seed", "seed", 0}, {"", "rank", 4}, {"sed", "seed", 1}, {"seeds", "seed", 1},
		{"tempreature", "temperature", 1}, {"top-p", "top_p", 1}, {"kanr", "rank", 2}, {"σeed", "seed", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := editDistance(c.b, c.a); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}
