package regfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// TestSpecialFilesRefused: devices, a directory and a FIFO are refused by
// every entry point, promptly, with a sentence naming the path and its kind.
func TestSpecialFilesRefused(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			want := c.Path + " is not a regular file (" + c.Kind + ")"
			for name, f := range map[string]func() error{
				"CheckRegular": func() error { return Check(c.Path) },
				"Open": func() error {
					f, _, err := Open(c.Path)
					if err == nil {
						f.Close()
					}
					return err
				},
				"ReadRegular": func() error { _, err := ReadRegular(c.Path, 1<<20); return err },
			} {
				err := specialfile.Within(t, f)
				if !errors.Is(err, ErrNotRegular) || err.Error() != want {
					t.Errorf("%s: got %v, want %q", name, err, want)
				}
			}
		})
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(p, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, path := range []string{p, link} {
		b, err := ReadRegular(path, 5)
		if err != nil || !bytes.Equal(b, []byte("hello")) {
			t.Errorf("%s: got %q, %v", path, b, err)
		}
	}
	_, err := ReadRegular(p, 4)
	if want := p + " is too large (5 bytes; the limit is 4 bytes)"; !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("over the limit: got %v, want %q", err, want)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 5); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		devlink := filepath.Join(dir, "zero")
		if err := os.Symlink("/dev/zero", devlink); err != nil {
			t.Fatal(err)
		}
		if err := Check(devlink); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("link to /dev/zero: %v", err)
		}
	}
}

func TestSizeString(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 1<<30 + 1: "1 GiB", 64 << 20: "64 MiB", 70<<20 + 1: "70 MiB", 3 << 30: "3 GiB", 3<<30 + 3<<29: "4.5 GiB"} {
		if got := sizeString(n); got != want {
			t.Errorf("sizeString(%d) = %q, want %q", n, got, want)
		}
	}
}
