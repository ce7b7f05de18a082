// Package specialfile gives tests the special files that every reader of a
// user-named path must refuse promptly: devices that never reach end of
// file, a directory, and a FIFO, whose opening blocks until a writer
// appears.
package specialfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Case is one special file.
type Case struct {
	Name string // for subtest names
	Path string
	Kind string // what the refusal should call it, e.g. "a character device"
}

// Special returns /dev/zero, /dev/urandom, a fresh directory and, where the
// system has them, a FIFO, both under t.TempDir(). Devices this system
// lacks are left out.
func Special(t testing.TB) []Case {
	t.Helper()
	var cs []Case
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if st, err := os.Stat(dev); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			cs = append(cs, Case{Name: filepath.Base(dev), Path: dev, Kind: "a character device"})
		}
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "a-directory")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cs = append(cs, Case{Name: "directory", Path: sub, Kind: "a directory"})
	if p, ok := fifo(t, dir); ok {
		cs = append(cs, Case{Name: "fifo", Path: p, Kind: "a FIFO"})
	}
	return cs
}

// Timeout is how long Within waits: far longer than any refusal takes, so
// that only a hang trips it.
const Timeout = 10 * time.Second

// Within runs f in a goroutine and returns its error, failing the test at
// once if f has not returned within Timeout: a reader that blocks on a
// FIFO or reads a device forever fails the test instead of hanging it.
// (The stuck goroutine is left behind; the test binary ends soon after.)
func Within(t testing.TB, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Timeout):
		t.Fatalf("still running after %v: the special file was read or waited on instead of refused", Timeout)
		return nil
	}
}
