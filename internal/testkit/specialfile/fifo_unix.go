//go:build unix

package specialfile

import (
	"path/filepath"
	"syscall"
	"testing"
)

func fifo(t testing.TB, dir string) (string, bool) {
	t.Helper()
	p := filepath.Join(dir, "a-fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	return p, true
}
