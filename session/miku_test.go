package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/miku"
)

var clock = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// TestSaveLoadSaveIsByteIdentical: a saved conversation loads into a fresh
// session and saves back to the same bytes (fixed clock), and the loaded
// session continues exactly as the original would.
func TestSaveLoadSaveIsByteIdentical(t *testing.T) {
	path := chatModel(t)
	a := open(t, path, Options{Settings: greedy()})
	send(t, a, "Hello world")
	a.Conversation().SetSystem("Answer briefly.")
	send(t, a, "In 2024, 1000 people paid")
	dir := t.TempDir()
	f1 := filepath.Join(dir, "a.miku")
	if err := a.Files().Save(context.Background(), f1, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}

	b := open(t, path, Options{})
	notes, err := b.Files().Load(context.Background(), f1, LoadOptions{})
	if err != nil || len(notes) != 0 {
		t.Fatalf("load: %v %v", err, notes)
	}
	if b.Settings() != a.Settings() || len(b.Conversation().Transcript()) != len(a.Conversation().Transcript()) {
		t.Fatalf("loaded settings %+v / %d messages, saved %+v / %d", b.Settings(), len(b.Conversation().Transcript()), a.Settings(), len(a.Conversation().Transcript()))
	}
	f2 := filepath.Join(dir, "b.miku")
	if err := b.Files().Save(context.Background(), f2, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	d1, _ := os.ReadFile(f1)
	d2, _ := os.ReadFile(f2)
	if !bytes.Equal(d1, d2) {
		t.Fatalf("save → load → save changed the file (%d vs %d bytes)", len(d1), len(d2))
	}
	if ta, tb := send(t, a, "Thanks"), send(t, b, "Thanks"); ta.Text != tb.Text {
		t.Fatalf("the resumed session answers %q, the original %q", tb.Text, ta.Text)
	}
}

// TestLoadRefusesAnotherModel: a session saved with another model is
// refused unless forced; forced, the conversation loads and a note says so.
func TestLoadRefusesAnotherModel(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	send(t, s, "And God said")
	file := filepath.Join(t.TempDir(), "kjv.miku")
	if err := s.fl.Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	other := open(t, fixture(t, "kjv/kjv-f32.gguf"), Options{})
	if _, err := other.Files().Load(context.Background(), file, LoadOptions{}); !errors.Is(err, ErrOtherModel) || !strings.Contains(err.Error(), "kjv-q8_0.gguf") {
		t.Fatalf("loading another model's session: %v", err)
	}
	notes, err := other.Files().Load(context.Background(), file, LoadOptions{Force: true})
	if err != nil || len(notes) == 0 {
		t.Fatalf("forced load: %v, notes %v", err, notes)
	}
	if got := other.Conversation().Transcript(); len(got) != 2 || got[0].Role != RolePrompt || got[0].Content != "And God said" {
		t.Fatalf("forced load transcript %+v", got)
	}
}

// TestLoadSkipsUnknownSections: a section from a newer ISAGI is skipped
// with a note; a required one it cannot read is refused.
func TestLoadSkipsUnknownSections(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	send(t, s, "And God said")
	dir := t.TempDir()
	file := filepath.Join(dir, "s.miku")
	if err := s.fl.Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	f, err := miku.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	f.Sections = append(f.Sections, miku.Section{Name: "hologram", Data: []byte{1, 2, 3}})
	if err := miku.Write(file, f); err != nil {
		t.Fatal(err)
	}
	notes, err := s.fl.Load(context.Background(), file, LoadOptions{})
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "hologram") {
		t.Fatalf("unknown optional section: %v, %v", err, notes)
	}
	f.Sections[len(f.Sections)-1].Required = true
	if err := miku.Write(file, f); err != nil {
		t.Fatal(err)
	}
	if _, err := s.fl.Load(context.Background(), file, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "hologram") {
		t.Fatalf("unknown required section: %v", err)
	}
}

// TestCompletionTranscriptKeepsTurns: a completion-mode session resumed
// from its file shows who wrote what, turn by turn, not one run-together
// text; a file without the turn cuts still shows its text whole.
func TestCompletionTranscriptKeepsTurns(t *testing.T) {
	path := fixture(t, "kjv/kjv-q8_0.gguf")
	a := open(t, path, Options{Settings: greedy()})
	t1 := send(t, a, "And God said")
	t2 := send(t, a, "In the beginning")
	file := filepath.Join(t.TempDir(), "c.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	b := open(t, path, Options{})
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	got := b.Conversation().Transcript()
	want := []string{RolePrompt + ":And God said", RoleContinuation + ":" + t1.Text, RolePrompt + ":In the beginning", RoleContinuation + ":" + t2.Text}
	if len(got) != len(want) {
		t.Fatalf("%d transcript entries, want %d: %+v", len(got), len(want), got)
	}
	for i, m := range got {
		if m.Role+":"+m.Content != want[i] {
			t.Fatalf("entry %d is %s:%q, want %q", i, m.Role, m.Content, want[i])
		}
	}
	// An older file: the same text without parts shows as one block.
	rec := b.cv.conv.Record()
	rec.Parts = nil
	b.cv.conv.Restore(rec)
	if tr := b.Conversation().Transcript(); len(tr) != 1 || tr[0].Role != "text" {
		t.Fatalf("text without parts: %+v", tr)
	}
}

// TestLoadCtxBuildsWithProgressAndCancels: loading a session saved with a
// compression rank builds it with progress; a cancelled load leaves the
// session as it was.
func TestLoadCtxBuildsWithProgressAndCancels(t *testing.T) {
	path := fixture(t, "kjv/kjv-f32.gguf")
	a := open(t, path, Options{Settings: greedy()})
	if err := a.Set("rank", "64"); err != nil {
		t.Fatal(err)
	}
	send(t, a, "And God said")
	file := filepath.Join(t.TempDir(), "r.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	b := open(t, path, Options{Settings: greedy()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Files().Load(ctx, file, LoadOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled load: %v", err)
	}
	if b.Info().Rank != 0 || len(b.Conversation().Transcript()) != 0 || b.Files().Path() != "" {
		t.Fatalf("a cancelled load changed the session: rank %d, %d messages, file %q", b.Info().Rank, len(b.Conversation().Transcript()), b.Files().Path())
	}
	calls := 0
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{Progress: func(done, total int) { calls++ }}); err != nil {
		t.Fatal(err)
	}
	if b.Info().Rank != 64 || calls == 0 || len(b.Conversation().Transcript()) == 0 {
		t.Fatalf("after the load: rank %d, %d progress calls, %d messages", b.Info().Rank, calls, len(b.Conversation().Transcript()))
	}
}
