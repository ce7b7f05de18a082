package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/miku"
)

// TestLoadedKnobsChecked: knobs in a session file are held to the ranges
// /set enforces, and a value of the wrong kind is said in the file's
// words; either way the file is refused before anything changes.
func TestLoadedKnobsChecked(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	send(t, s, "And God said")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.miku")
	if err := s.Files().Save(context.Background(), good, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"max_tokens":12`, `"max_tokens":-100`, "max_tokens -100: must be at least 1"},
		{`"max_tokens":12`, `"max_tokens":0`, "max_tokens 0: must be at least 1"},
		{`"max_tokens":12`, `"max_tokens":12,"draft_n":99`, "draft_n 99: want auto or 1…"},
		{`"max_tokens":12`, `"max_tokens":12,"rank":100000`, "rank 100000: want off or 1…"},
		{`"max_tokens":12`, `"max_tokens":12,"ogd_alpha":3`, "ogd_alpha 3: want off or 0…0.5"},
		{`"temperature":0`, `"temperature":"hot"`, "temperature holds string where a number was expected"},
	} {
		f, err := miku.Read(good)
		if err != nil {
			t.Fatal(err)
		}
		knobs := string(f.Header.Knobs)
		if !strings.Contains(knobs, c.from) {
			t.Fatalf("the saved knobs %s lack %s", knobs, c.from)
		}
		f.Header.Knobs = []byte(strings.Replace(knobs, c.from, c.to, 1))
		bad := filepath.Join(dir, "bad.miku")
		if err := miku.Write(bad, f); err != nil {
			t.Fatal(err)
		}
		before := s.Settings()
		_, err = s.Files().Load(context.Background(), bad, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "struct")) {
			t.Errorf("%s: the message speaks Go: %v", c.to, err)
		}
		if s.Settings() != before {
			t.Errorf("%s: a refused file changed the settings", c.to)
		}
	}
}
