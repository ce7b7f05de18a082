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

// TestReadFIFOSwappedIn: a regular file replaced by a FIFO between Read's
// check and its open is refused at once, in Read's words, instead of the
// open waiting for a writer that never comes.
func TestReadFIFOSwappedIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.miku")
	if err := os.WriteFile(path, []byte("not yet a FIFO"), 0o600); err != nil {
		t.Fatal(err)
	}
	swap := func(p string) {
		if err := os.Remove(p); err != nil {
			t.Error(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Error(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := readFile(path, swap)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || err.Error() != "miku: "+path+" is a named pipe, not a .miku file" {
			t.Fatalf("Read of a FIFO swapped in: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so that the test binary can exit.
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("Read of a FIFO swapped in after the check blocked in open")
	}
}
