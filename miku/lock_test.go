package miku

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteIfUnchanged: a save goes through only over the file the caller
// last saw; a file created, rewritten or removed by someone else since is
// refused with ErrChanged and left as it is; no lock file is left behind.
func TestWriteIfUnchanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.miku")
	a, b := sample(), sample()
	b.Header.AppVersion = "someone else"

	st1, err := WriteIfUnchanged(path, a, Stamp{})
	if err != nil {
		t.Fatalf("new file: %v", err)
	}
	if st1.IsZero() {
		t.Fatal("zero stamp for a written file")
	}
	_, rst, err := ReadStamped(path)
	if err != nil || rst != st1 {
		t.Fatalf("ReadStamped: %v, stamp %v, Write's %v", err, rst, st1)
	}
	if _, err := WriteIfUnchanged(path, a, Stamp{}); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("expecting no file over an existing one: %v", err)
	}
	st2, err := WriteIfUnchanged(path, a, st1)
	if err != nil {
		t.Fatalf("over its own save: %v", err)
	}
	// Someone else saves; the stale stamp is refused.
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	theirs, _ := os.ReadFile(path)
	_, err = WriteIfUnchanged(path, a, st2)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed by another process") {
		t.Fatalf("over someone else's save: %v", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, theirs) {
		t.Fatal("a refused save changed the file")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteIfUnchanged(path, a, st2); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("over a removed file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
