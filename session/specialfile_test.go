package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// TestFileSHA256RefusesSpecialFiles: hashing /dev/zero would never end and
// a FIFO would block the open, so both (and directories) are refused.
func TestFileSHA256RefusesSpecialFiles(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			err := specialfile.Within(t, func() error { _, err := FileSHA256(c.Path); return err })
			want := "session: " + c.Path + " is not a regular file (" + c.Kind + ")"
			if !errors.Is(err, regfile.ErrNotRegular) || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "abc")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := FileSHA256(p); err != nil || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("sha256 of abc: %s, %v", sum, err)
	}
}
