package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// TestResolveRefusesSpecialFiles: a model value naming a device or a FIFO
// is refused at once, saying what it is (a directory keeps its own
// message, which wraps ErrNoModel).
func TestResolveRefusesSpecialFiles(t *testing.T) {
	isolate(t)
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			for _, src := range []string{"--model", "$" + EnvModel} {
				flag := c.Path
				if src != "--model" {
					flag = ""
					t.Setenv(EnvModel, c.Path)
				}
				paths := defaultPaths(t) // not in Within's goroutine, where t.Fatal must not run
				err := specialfile.Within(t, func() error { _, err := paths.Resolve(flag); return err })
				if c.Kind == "a directory" {
					if !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "which is a directory") {
						t.Errorf("%s: %v", src, err)
					}
					continue
				}
				want := src + ": " + c.Path + " is not a regular file (" + c.Kind + "): give the path of a .gguf model file"
				if !errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, ErrNoModel) || err.Error() != want {
					t.Errorf("got %v, want %q", err, want)
				}
			}
		})
	}
}

// TestConfigRefusesSpecialFiles: a config file that is a link to a device,
// a FIFO or a directory, or one too large to be a config, is an error
// naming it, returned without reading it.
func TestConfigRefusesSpecialFiles(t *testing.T) {
	_, config := isolate(t)
	paths := defaultPaths(t)
	p := paths.Config
	if err := os.MkdirAll(filepath.Join(config, App), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			os.Remove(p)
			if err := os.Symlink(c.Path, p); err != nil {
				t.Skip("no symbolic links:", err)
			}
			err := specialfile.Within(t, func() error { _, err := paths.LoadConfig(); return err })
			want := "config file: " + p + " is not a regular file (" + c.Kind + ")"
			if !errors.Is(err, regfile.ErrNotRegular) || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
	os.Remove(p)
	if err := os.WriteFile(p, []byte(`{"model": "`+strings.Repeat("x", 1<<20)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := paths.LoadConfig(); !errors.Is(err, regfile.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("oversized config: %v", err)
	}
}
