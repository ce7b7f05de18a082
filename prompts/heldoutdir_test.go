package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseHeldoutLines(t *testing.T) {
	got, err := ParseHeldoutLines("x.jsonl", []byte("{\"prompt\": \"a\", \"task\": \"copy\"}\n\n  {\"prompt\":\"b\"}  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "a|b" {
		t.Fatalf("got %q, want a and b", got)
	}
	for _, bad := range []struct{ in, want string }{
		{"", "has no prompts"},
		{"{\"prompt\": \"a\"}\nnot json\n", "line 2"},
		{"{\"prompt\": \"  \"}", "line 1: no \"prompt\""},
		{"{\"text\": \"a\"}", "line 1: no \"prompt\""},
		{"[1, 2]", "line 1: not a JSON object"},
		{strings.Repeat("x", maxHeldoutLine+1), "longer than"},
	} {
		_, err := ParseHeldoutLines("x.jsonl", []byte(bad.in))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%.30q: error %v, want one containing %q", bad.in, err, bad.want)
		}
	}
}

// The chat fixture's held-out sets (committed beside its training script)
// replace the held-out pairs and nothing else.
func TestUseHeldoutDir(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	train := len(s.Categories[0].Train)
	dir := filepath.Join("..", "scripts", "fixtures", "chat", "heldout")
	if err := s.UseHeldoutDir(dir); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range s.Categories {
		if len(c.Heldout) == 0 {
			t.Fatalf("%s: no held-out pairs", c.Name)
		}
		for _, p := range c.Heldout {
			if p.Harm == "" || p.Benign == "" {
				t.Fatalf("%s: an empty side in %+v", c.Name, p)
			}
			seen[p.Benign] = true
		}
	}
	if len(s.Categories[0].Train) != train {
		t.Fatalf("the calibration pairs changed")
	}
	if len(seen) < 200 {
		t.Fatalf("%d distinct benign prompts used, want every one of the set's", len(seen))
	}
	// A category file missing is one sentence naming it.
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "benign.jsonl"), []byte("{\"prompt\":\"hi\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = s.UseHeldoutDir(tmp)
	if err == nil || !strings.Contains(err.Error(), "privacy.jsonl") {
		t.Fatalf("error %v, want one naming privacy.jsonl", err)
	}
}

func FuzzParseHeldoutLines(f *testing.F) {
	f.Add([]byte("{\"prompt\": \"a\"}\n{\"prompt\": \"b\", \"answer\": \"1\"}\n"))
	f.Add([]byte("\n\n"))
	f.Add([]byte("{\"prompt\": 1}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseHeldoutLines("f.jsonl", b)
		if err == nil && len(got) == 0 {
			t.Fatal("no error and no prompts")
		}
		for _, p := range got {
			if strings.TrimSpace(p) == "" {
				t.Fatal("an empty prompt passed")
			}
		}
	})
}

// BenignHeldout takes distinct benign prompts round the categories.
func TestBenignHeldout(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	got := s.BenignHeldout(10)
	if len(got) != 10 || got[0] != s.Categories[0].Heldout[0].Benign || got[1] != s.Categories[1].Heldout[0].Benign {
		t.Fatalf("got %q", got)
	}
	if all := s.BenignHeldout(1 << 20); len(all) == 0 || len(all) > 8*len(s.Categories[0].Heldout) {
		t.Fatalf("%d prompts when asking for more than there are", len(all))
	}
}
