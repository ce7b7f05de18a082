package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDraftKnob: /set draft makes replies speculative without changing a
// greedy reply, for the n-gram drafter, a compressed drafter with fixed γ
// and one with the online basis; the settings are saved with the session
// and come back with it; bad values are refused with a reason.
func TestDraftKnob(t *testing.T) {
	path := fixture(t, "kjv/kjv-f32.gguf")
	set := greedy()
	set.MaxTokens = 40
	plain := send(t, open(t, path, Options{Settings: set}), "And God said")
	for _, kv := range [][][2]string{
		{{"draft", "ngram"}},
		{{"draft", "rank:64,qkv,ffn"}, {"draft_n", "3"}},
		{{"draft", "rank:96"}, {"online_basis", "on"}, {"draft_n", "4"}},
	} {
		s := open(t, path, Options{Settings: set})
		for _, v := range kv {
			if err := s.Set(v[0], v[1]); err != nil {
				t.Fatalf("Set(%q, %q): %v", v[0], v[1], err)
			}
		}
		turn := send(t, s, "And God said")
		if turn.Text != plain.Text {
			t.Fatalf("%v: speculative reply %q, plain %q", kv, turn.Text, plain.Text)
		}
		if turn.Spec == nil || turn.Spec.Drafter == "" {
			t.Fatalf("%v: the turn reports no speculation", kv)
		}
		t.Logf("%v: %d steps, %d drafted, %d accepted", kv, turn.Spec.Steps, turn.Spec.Drafted, turn.Spec.Accepted)
		if strings.HasPrefix(kv[0][1], "rank") && turn.Spec.Steps == 0 {
			t.Fatalf("%v: no speculative step ran with a fixed γ", kv)
		}

		file := filepath.Join(t.TempDir(), "s.miku")
		if err := s.fl.Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		back := open(t, path, Options{Settings: greedy()})
		if _, err := back.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, want := back.Settings(), s.Settings(); got.Draft != want.Draft || got.DraftN != want.DraftN || got.OnlineBasis != want.OnlineBasis {
			t.Fatalf("loaded draft settings %q γ%d online %v, saved %q γ%d online %v", got.Draft, got.DraftN, got.OnlineBasis, want.Draft, want.DraftN, want.OnlineBasis)
		}
		if back.dr.draftKey == "" {
			t.Fatalf("the loaded session has no drafter (key %q)", back.dr.draftKey)
		}
	}

	s := open(t, path, Options{Settings: set})
	for _, bad := range [][2]string{
		{"draft", "rank:x"}, {"draft", "rank:0"}, {"draft", "rank:9999"}, {"draft", "fast"},
		{"draft_n", "17"}, {"draft_n", "-1"}, {"online_basis", "on"}, {"online_basis", "maybe"},
	} {
		if err := s.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if err := s.Set("draft", "ngram"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("online_basis", "on"); err == nil {
		t.Error("the online basis was accepted for the n-gram drafter")
	}
	if err := s.Set("draft", "off"); err != nil || s.dr.draftKey != "" {
		t.Fatalf("draft off: %v, key %q", err, s.dr.draftKey)
	}
}

// TestParseDraft: the drafter spellings, their canonical form (which the
// draft setting shows and takes back) and the refusals.
func TestParseDraft(t *testing.T) {
	for in, want := range map[string]string{
		"off": "off", "": "off", "ngram": "ngram", "lookup": "ngram",
		"rank:64": "rank:64", "rank:64,qkv": "rank:64", "rank:128,qkv,ffn": "rank:128,qkv,ffn",
		"rank:192,all": "rank:192,qkv,o,ffn", "rank:192,all,gp": "rank:192,qkv,o,ffn,gp",
		"rank:96,gp": "rank:96,qkv,gp", "rank:96,qkv,uniform": "rank:96", "rank:80,ffn,mcr": "rank:80,ffn,mcr",
		"flow:c.txt": "flow:c.txt", "flow:c.txt,gate=0.5,bits=16,gen=64": "flow:c.txt",
		"flow:/tmp/c d.txt,ngram,gen=0,gate=0.75,bits=8": "flow:/tmp/c d.txt,bits=8,gate=0.75,gen=0,ngram",
	} {
		d, err := ParseDraft(in)
		if err != nil {
			t.Errorf("ParseDraft(%q): %v", in, err)
			continue
		}
		if got := d.String(); got != want {
			t.Errorf("ParseDraft(%q) = %q, want %q", in, got, want)
		}
		if again, err := ParseDraft(d.String()); err != nil || again.String() != want {
			t.Errorf("%q does not read back: %v, %v", want, again, err)
		}
	}
	for _, bad := range []string{"rank:", "rank:0", "rank:-4", "rank:x", "rank:64,qkv,fast", "rank64", "ngram:3", "gp",
		"flow:", "flow:,ngram", "flow:c.txt,bits=0", "flow:c.txt,bits=33", "flow:c.txt,gate=0", "flow:c.txt,gate=1.5",
		"flow:c.txt,gate=NaN", "flow:c.txt,gen=-1", "flow:c.txt,ngram=1", "flow:c.txt,fast", "flow:c.txt,"} {
		if _, err := ParseDraft(bad); err == nil {
			t.Errorf("ParseDraft(%q) accepted", bad)
		}
	}
}

// TestDraftCancelKeepsOld: a /set draft whose build is cancelled changes
// nothing: the drafter in use and its online basis keep running.
func TestDraftCancelKeepsOld(t *testing.T) {
	path := fixture(t, "kjv/kjv-f32.gguf")
	set := greedy()
	set.MaxTokens = 24
	s := open(t, path, Options{Settings: set})
	for _, kv := range [][2]string{{"draft", "rank:64"}, {"online_basis", "on"}, {"draft_n", "2"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	old, oldRemove := s.dr.drafter, s.dr.draftRemove
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.SetCtx(ctx, "draft", "rank:96,qkv,ffn", nil); err == nil {
		t.Fatal("a cancelled build was accepted")
	}
	if s.dr.drafter != old || s.dr.draftRemove == nil || oldRemove == nil || s.Settings().Draft != "rank:64" {
		t.Fatalf("a cancelled /set draft changed the drafter (settings %q)", s.Settings().Draft)
	}
	if turn := send(t, s, "And God said"); turn.Spec == nil || turn.Spec.Drafter != "rank 64 qkv" || turn.Spec.Steps == 0 {
		t.Fatalf("after the cancelled build the reply did not speculate with the old drafter: %+v", turn.Spec)
	}
}

// FuzzParseDraft: whatever a user types, ParseDraft returns a drafter or
// an error, never panics, and what it accepts reads back as itself.
func FuzzParseDraft(f *testing.F) {
	for _, s := range []string{"ngram", "rank:64,qkv,ffn,gp", "flow:c.txt,bits=8,gate=0.7,gen=0,ngram", "flow:,", "off"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDraft(s)
		if err != nil || d == nil {
			return
		}
		again, err := ParseDraft(d.String())
		if err != nil || again.String() != d.String() {
			t.Fatalf("%q → %q does not read back: %v", s, d.String(), err)
		}
	})
}

// TestFlowDraftKnob: /set draft flow:FILE calibrates on FILE's lines and
// keeps a greedy reply as plain decoding gives it; a missing or empty
// file is refused with one error naming it, and the drafter in use stays.
func TestFlowDraftKnob(t *testing.T) {
	path := fixture(t, "kjv/kjv-q8_0.gguf")
	set := greedy()
	set.MaxTokens = 40
	plain := send(t, open(t, path, Options{Settings: set}), "And God said")
	dir := t.TempDir()
	calib := filepath.Join(dir, "calib.txt")
	if err := os.WriteFile(calib, []byte("And God said, Let there be light\n\nIn the beginning God created\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("\n  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, Options{Settings: set})
	if err := s.Set("draft", "flow:"+calib+",ngram"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("draft_n", "3"); err != nil {
		t.Fatal(err)
	}
	turn := send(t, s, "And God said")
	if turn.Text != plain.Text {
		t.Fatalf("speculative reply %q, plain %q", turn.Text, plain.Text)
	}
	if turn.Spec == nil || !strings.HasPrefix(turn.Spec.Drafter, "flow map") || turn.Spec.Steps == 0 {
		t.Fatalf("the turn reports no flow-map speculation: %+v", turn.Spec)
	}
	key := s.dr.draftKey
	for file, want := range map[string]string{filepath.Join(dir, "missing.txt"): "missing.txt", empty: "no text to calibrate on"} {
		err := s.Set("draft", "flow:"+file)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("flow:%s: %v, want an error saying %q", file, err, want)
		}
		if s.dr.draftKey != key {
			t.Errorf("a refused flow map replaced the drafter: key %q, was %q", s.dr.draftKey, key)
		}
	}
	if err := s.Set("online_basis", "on"); err == nil {
		t.Error("the online basis was accepted for the flow drafter")
	}
}
