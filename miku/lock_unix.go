//go:build unix

package miku

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for a removeStale that
// holds it to finish.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// removeIfStale deletes the temporary file at name if no live writer holds
// its lock (the kernel drops a killed process's locks). It holds the lock
// while deleting, so a writer that locks the file after can tell it lost
// the name (see createLocked).
func removeIfStale(name string) {
	f, err := os.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a live writer holds it (or flock is unsupported here)
	}
	os.Remove(name)
}

// renameOpen: Write renames its temporary file before closing it (and so
// releasing its lock).
const renameOpen = true
