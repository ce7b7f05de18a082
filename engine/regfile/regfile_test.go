package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

func TestOpenRefusesSpecialFiles(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			err := specialfile.Within(t, func() error {
				f, _, err := Open(c.Path)
				if err == nil {
					f.Close()
				}
				return err
			})
			if want := c.Path + " is not a regular file (" + c.Kind + ")"; !errors.Is(err, ErrNotRegular) || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "model.gguf")
	if err := os.WriteFile(p, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.gguf")
	if err := os.Symlink(p, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, path := range []string{p, link} {
		f, st, err := Open(path)
		if err != nil || st.Size() != 4 {
			t.Fatalf("%s: %v", path, err)
		}
		f.Close()
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
