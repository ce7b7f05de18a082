package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hardening II, item 15: a bare name that is also a directory where isagi
// runs (`--model demo` in the source tree, which has demo/) names the
// installed model of that name, or is an error — never the directory.
func TestResolveNameThatIsADirectoryHere(t *testing.T) {
	isolate(t)
	t.Chdir(t.TempDir())
	if err := os.Mkdir("demo", 0o755); err != nil {
		t.Fatal(err)
	}
	paths := defaultPaths(t)
	_, err := paths.Resolve("demo")
	if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "which is a directory") ||
		!strings.Contains(err.Error(), "nor an installed model (looked for demo, demo.gguf") || !strings.Contains(err.Error(), "isagi --demo") {
		t.Fatalf("--model demo with demo/ here and no model installed: %v", err)
	}

	if err := os.MkdirAll(paths.Models, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(paths.Models, "demo.gguf")
	if err := os.WriteFile(want, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := paths.Resolve("demo"); err != nil || got != want {
		t.Fatalf("--model demo with demo/ here and demo.gguf installed: %q, %v; want %s", got, err, want)
	}
	// A path to a directory is still refused as one.
	if _, err := paths.Resolve("./demo"); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "which is a directory") {
		t.Fatalf("--model ./demo: %v", err)
	}
}
