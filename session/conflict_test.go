package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/miku"
)

// conversationOf is the running text saved in a completion-mode session
// file (the kjv model has no chat template).
func conversationOf(t *testing.T, file string) string {
	t.Helper()
	c := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{})
	if _, err := c.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range c.Conversation().Transcript() {
		b.WriteString(m.Content)
	}
	return b.String()
}

// TestSaveRefusesAnotherSessionsSave: two sessions (two TUIs) load one
// file; B saves a turn; A's save then fails with miku.ErrChanged instead
// of overwriting B's turn, and the file still holds it.
func TestSaveRefusesAnotherSessionsSave(t *testing.T) {
	model := fixture(t, "kjv/kjv-q8_0.gguf")
	file := filepath.Join(t.TempDir(), "s.miku")
	w := open(t, model, Options{Settings: greedy()})
	send(t, w, "And God said")
	if err := w.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	a := open(t, model, Options{Settings: greedy()})
	b := open(t, model, Options{Settings: greedy()})
	for _, s := range []*Session{a, b} {
		if _, err := s.fl.Load(context.Background(), file, LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	send(t, b, " And the LORD spake")
	if err := b.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatalf("B's save: %v", err)
	}
	send(t, a, " In the beginning")
	before, _ := os.ReadFile(file)
	err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock})
	if !errors.Is(err, miku.ErrChanged) || !strings.Contains(err.Error(), "s.miku") {
		t.Fatalf("A's save over B's: %v", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("the refused save changed the file")
	}
	if got := conversationOf(t, file); !strings.Contains(got, "And the LORD spake") || strings.Contains(got, "In the beginning") {
		t.Fatalf("the file holds %q", got)
	}
	// B goes on saving (autosave) over its own file.
	send(t, b, " unto Moses")
	if err := b.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatalf("B's second save: %v", err)
	}
	// A asked to overwrite, and did; now B is the one refused.
	if err := a.Files().Save(context.Background(), file, SaveOptions{Overwrite: true, AppVersion: "test", Now: clock}); err != nil {
		t.Fatalf("A's overwrite: %v", err)
	}
	if err := b.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); !errors.Is(err, miku.ErrChanged) {
		t.Fatalf("B's save after A's overwrite: %v", err)
	}
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatalf("A's save over its own overwrite: %v", err)
	}
}

// TestSaveRefusesAnExistingFile: saving to a file that exists but that this
// session neither loaded nor saved fails with ErrExists (the TUI asks
// before it overwrites), touching nothing; with overwrite it goes through,
// and the file is then the session's own.
func TestSaveRefusesAnExistingFile(t *testing.T) {
	model := fixture(t, "kjv/kjv-q8_0.gguf")
	dir := t.TempDir()
	file := filepath.Join(dir, "s.miku")
	w := open(t, model, Options{Settings: greedy()})
	send(t, w, "And God said")
	if err := w.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(file)
	x := open(t, model, Options{Settings: greedy()})
	send(t, x, "In the beginning")
	err := x.Files().Save(context.Background(), file, SaveOptions{})
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "s.miku") {
		t.Fatalf("save over a file not this session's: %v", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) || x.Files().Path() != "" {
		t.Fatalf("the refused save changed something (file %q)", x.Files().Path())
	}
	if err := x.Files().Save(context.Background(), file, SaveOptions{Overwrite: true}); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if x.Files().Path() != file || !strings.HasPrefix(conversationOf(t, file), "In the beginning") {
		t.Fatalf("after the overwrite: file %q, holds %q", x.Files().Path(), conversationOf(t, file))
	}
	send(t, x, " God created")
	// The same file named another way is still this session's.
	if err := x.Files().Save(context.Background(), filepath.Join(dir, ".", "s.miku"), SaveOptions{}); err != nil {
		t.Fatalf("autosave after the overwrite: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d entries in the directory (lock or temporary files left?)", len(ents))
	}
}
