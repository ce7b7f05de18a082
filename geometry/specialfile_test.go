package geometry_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// TestLoadProfileRefusesSpecialFiles: a device never ends and a FIFO
// blocks its reader, so LoadProfile refuses them (and directories)
// promptly, and refuses an oversized file before reading it.
func TestLoadProfileRefusesSpecialFiles(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			err := specialfile.Within(t, func() error { _, err := geometry.LoadProfile(c.Path, -1); return err })
			want := "geometry: " + c.Path + " is not a regular file (" + c.Kind + ")"
			if !errors.Is(err, regfile.ErrNotRegular) || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
	t.Run("huge", func(t *testing.T) {
		// Sparse: its size costs no disk, and no byte of it is read.
		p := filepath.Join(t.TempDir(), "huge.miku")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(1<<30 + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, err = geometry.LoadProfile(p, -1)
		if want := "geometry: " + p + " is too large (1073741825 bytes; the limit is 1 GiB)"; !errors.Is(err, regfile.ErrTooLarge) || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}
