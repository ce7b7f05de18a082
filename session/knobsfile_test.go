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
		{`"temperature":0`, `"temperature":"hot"`, `the JSON field "temperature" holds text where a number belongs`},
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

// TestDamagedSectionsSaidPlainly: a conversation or tree section whose JSON
// has a value of the wrong kind is refused in the file's words, not the
// decoder's ("Go value of type session.savedTree").
func TestDamagedSectionsSaidPlainly(t *testing.T) {
	s := open(t, chatModel(t), Options{Settings: greedy()})
	send(t, s, "Hello")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.miku")
	if err := s.Files().Save(context.Background(), good, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ section, data, want string }{
		{"conversation.tree", `{"nodes":5}`, `the conversation tree section is damaged: the JSON field "nodes" holds a number where a list belongs`},
		{"conversation", `{"mode":7}`, `the conversation section is damaged: the JSON field "mode" holds a number where text belongs`},
		{"conversation", `{"mode":`, "the conversation section is damaged: not valid JSON"},
	} {
		f, err := miku.Read(good)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i := range f.Sections {
			if f.Sections[i].Name == c.section {
				f.Sections[i].Data, found = []byte(c.data), true
			}
		}
		if !found {
			t.Fatalf("the saved file has no %s section", c.section)
		}
		bad := filepath.Join(dir, "bad.miku")
		if err := miku.Write(bad, f); err != nil {
			t.Fatal(err)
		}
		_, err = s.Files().Load(context.Background(), bad, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s %s: %v, want %q", c.section, c.data, err, c.want)
		}
		if _, err := Summarize(bad); err == nil || strings.Contains(err.Error(), "Go ") {
			t.Errorf("Summarize of %s %s: %v", c.section, c.data, err)
		}
	}
}

// TestConversationSectionNames: the conversation section spells its keys
// as every other JSON of ours does (role, content), and a file written
// with the older capitalised names still loads.
func TestConversationSectionNames(t *testing.T) {
	s := open(t, chatModel(t), Options{Settings: greedy()})
	send(t, s, "Hello")
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	if err := s.Files().Save(context.Background(), path, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := f.Section("conversation")
	data := string(sec.Data)
	if !strings.Contains(data, `"role":"user"`) || !strings.Contains(data, `"content":"Hello"`) || strings.Contains(data, `"Role"`) {
		t.Fatalf("conversation section: %s", data)
	}
	// The older spelling, as files before this change hold it.
	old := strings.NewReplacer(`"role"`, `"Role"`, `"content"`, `"Content"`).Replace(data)
	for i := range f.Sections {
		if f.Sections[i].Name == "conversation" {
			f.Sections[i].Data = []byte(old)
		}
	}
	oldPath := filepath.Join(dir, "old.miku")
	if err := miku.Write(oldPath, f); err != nil {
		t.Fatal(err)
	}
	o := open(t, chatModel(t), Options{Settings: greedy()})
	if _, err := o.Files().Load(context.Background(), oldPath, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if tr := o.Conversation().Transcript(); len(tr) != 2 || tr[0].Content != "Hello" || tr[0].Role != "user" {
		t.Fatalf("the older spelling loaded as %+v", tr)
	}
}
