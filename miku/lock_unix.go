//go:build unix

package miku

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
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

// openNonblock is the open(2) flag with which readFile opens a file it
// has checked is regular, so that one swapped for a FIFO since does not
// make the open wait for a writer.
const openNonblock = syscall.O_NONBLOCK

// renameOpen: Write renames its temporary file before closing it (and so
// releasing its lock).
const renameOpen = true

// acquire takes an exclusive flock on the lock file name, creating it if
// needed, polling until ctx is done (flock has no timeout). Holders remove
// the file when they release it, so a lock taken on a file that is no
// longer at name (removed by the previous holder while this one waited)
// is worthless: acquire checks and starts over.
func acquire(ctx context.Context, name string) (*os.File, error) {
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			st1, err1 := f.Stat()
			st2, err2 := os.Stat(name)
			if err1 == nil && err2 == nil && os.SameFile(st1, st2) {
				return f, nil
			}
			f.Close()
			continue // the previous holder removed it: take the new one
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (%w)", ErrLocked, context.Cause(ctx))
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// release removes the lock file (if it is still f: someone may have
// deleted it by hand and another process taken a new one) and then drops
// the lock by closing f.
func release(f *os.File, name string) error {
	if f == nil {
		return nil
	}
	st1, err1 := f.Stat()
	st2, err2 := os.Stat(name)
	if err1 == nil && err2 == nil && os.SameFile(st1, st2) {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			f.Close()
			return err
		}
	}
	return f.Close()
}
