//go:build unix

package miku

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesNonRegular: Read refuses a device, a directory and a FIFO
// at once with one sentence, rather than reading /dev/zero until memory
// runs out or blocking on a FIFO no one writes to.
func TestReadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.miku")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{"/dev/zero", "device"},
		{dir, "directory"},
		{fifo, "named pipe"},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := Read(c.path)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), "is a "+c.kind+", not a .miku file") {
				t.Errorf("Read(%s): %v", c.path, err)
			}
		case <-time.After(10 * time.Second):
			// The goroutine stays blocked: fail now rather than hang, and
			// unblock a FIFO reader so the test binary can exit.
			if c.path == fifo {
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
			}
			t.Fatalf("Read(%s) did not return in 10 s", c.path)
		}
	}
}
