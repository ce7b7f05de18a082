package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/session"
)

// /clear starts new conversations on the session.
var _ Restarter = (*session.Session)(nil)

// Hardening II, item 2: /clear after /save starts a conversation that is
// saved to a new file in the session directory, named in the message with
// what was forgotten; the saved conversation's file stays as it was, and
// the new file holds none of the old conversation's text.
func TestClearAfterSaveStartsANewFile(t *testing.T) {
	set := session.DefaultSettings()
	set.Temperature, set.MaxTokens = 0, 8
	s, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Settings: set, AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dir := t.TempDir()
	m := New(s, Options{SessionDir: dir})
	t.Cleanup(m.Close)
	ask := func(text string) string {
		t.Helper()
		turn, err := s.Send(context.Background(), text, func(session.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		return turn.Text
	}

	const oldPrompt = "Zerubbabel spake unto Darius"
	oldAnswer := ask(oldPrompt)
	old := filepath.Join(dir, "old.miku")
	if err := s.Files().Save(context.Background(), m.files.savePath(old), session.SaveOptions{}); err != nil { // /save old.miku
		t.Fatal(err)
	}
	oldBytes, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}

	m.runCommand("/clear")
	next := s.Files().Path()
	if next == "" || next == old || filepath.Dir(next) != dir {
		t.Fatalf("after /clear the session saves to %q (the old file is %q, the session directory %q)", next, old, dir)
	}
	if _, err := os.Lstat(next); !os.IsNotExist(err) {
		t.Fatalf("the new file exists already: %v", err)
	}
	if len(m.chat.entries) != 1 {
		t.Fatalf("the chat after /clear: %+v", m.chat.entries)
	}
	msg := m.chat.entries[0].text
	for _, want := range []string{"conversation cleared", session.ClearForgets, old + " keeps the old conversation", "the next save goes to " + next} {
		if !strings.Contains(msg, want) {
			t.Errorf("the /clear message lacks %q: %q", want, msg)
		}
	}

	const newPrompt = "In the beginning"
	newAnswer := ask(newPrompt)
	for _, text := range []string{oldPrompt, oldAnswer} {
		if strings.Contains(newPrompt+newAnswer, text) {
			t.Fatalf("the new conversation itself holds %q: pick other prompts", text)
		}
	}
	if got := m.files.savePath(""); got != next { // where ctrl+s and /save go
		t.Fatalf("the next save goes to %q, /clear said %q", got, next)
	}
	if err := s.Files().Save(context.Background(), s.Files().Path(), session.SaveOptions{}); err != nil { // the autosave after the turn
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(old); !bytes.Equal(got, oldBytes) {
		t.Fatal("the autosave after /clear changed the saved conversation's file")
	}
	newBytes, err := os.ReadFile(next)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{oldPrompt, oldAnswer} {
		if bytes.Contains(newBytes, []byte(text)) {
			t.Errorf("the new conversation's file holds the forgotten %q", text)
		}
	}

	// Another /clear in the same second names yet another file.
	m.runCommand("/clear")
	if again := s.Files().Path(); again == next || again == old || again == "" {
		t.Fatalf("the second /clear saves to %q", again)
	}
}
