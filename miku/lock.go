package miku

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrChanged: WriteIfUnchanged found the file on disk other than the
// caller last saw it (rewritten, created or removed by someone else), and
// refused to overwrite it.
var ErrChanged = errors.New("changed by another process")

// ErrLocked: another process (or another FileLock in this one) holds the
// file's lock, and the wait for it ended.
var ErrLocked = errors.New("in use by another process")

// LockWait is how long WriteIfUnchanged waits for the file's lock. Saves
// hold it for milliseconds; a longer wait means a whole turn is under way
// elsewhere (isagi run --session holds the lock while it generates), and
// a caller such as the TUI is better told at once than frozen.
const LockWait = 3 * time.Second

// Stamp identifies the exact content of a file as this process last read
// or wrote it: its length and SHA-256. The zero Stamp means "no file".
// Stamps are comparable with ==.
type Stamp struct {
	size int64
	sum  [sha256.Size]byte
	ok   bool // a file was there
}

// IsZero reports whether s is the stamp of no file.
func (s Stamp) IsZero() bool { return !s.ok }

// String is a short form for messages: "absent", or the length and the
// first 12 hex digits of the SHA-256.
func (s Stamp) String() string {
	if !s.ok {
		return "absent"
	}
	return fmt.Sprintf("%d bytes, sha256 %s…", s.size, hex.EncodeToString(s.sum[:6]))
}

// stampOf is the stamp of data.
func stampOf(data []byte) Stamp {
	return Stamp{size: int64(len(data)), sum: sha256.Sum256(data), ok: true}
}

// stampHash accumulates a Stamp over bytes as they are written.
type stampHash struct {
	h hash.Hash
	n int64
}

func newStampHash() *stampHash { return &stampHash{h: sha256.New()} }

func (s *stampHash) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	return s.h.Write(p)
}

func (s *stampHash) stamp() Stamp {
	st := Stamp{size: s.n, ok: true}
	s.h.Sum(st.sum[:0])
	return st
}

// currentStamp is the stamp of the file at path now: zero if there is
// none. Anything but a regular file is an error, as for Read.
func currentStamp(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return Stamp{}, nil
	}
	if err != nil {
		return Stamp{}, err
	}
	if !st.Mode().IsRegular() {
		return Stamp{}, notRegular(path, st.Mode())
	}
	// Non-blocking and checked again through the handle, as readFile
	// does: path may have become a FIFO since the stat.
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Stamp{}, nil
	}
	if err != nil {
		return Stamp{}, err
	}
	defer fh.Close()
	if st, err = fh.Stat(); err != nil {
		return Stamp{}, err
	}
	if !st.Mode().IsRegular() {
		return Stamp{}, notRegular(path, st.Mode())
	}
	h := newStampHash()
	if _, err := io.Copy(h, fh); err != nil {
		return Stamp{}, err
	}
	return h.stamp(), nil
}

// ReadStamped is Read that also returns the stamp of the bytes read, for
// a later WriteIfUnchanged.
func ReadStamped(path string) (*File, Stamp, error) {
	data, err := readFile(path, nil)
	if err != nil {
		return nil, Stamp{}, err
	}
	f, err := decode(data)
	if err != nil {
		return nil, Stamp{}, fmt.Errorf("miku: %s: %w", path, err)
	}
	return f, stampOf(data), nil
}

// lockName is the lock file of the .miku file at path: ".<name>.lock"
// beside it. The lock cannot live on the file itself, since every Write
// replaces the file (a new inode) by a rename.
func lockName(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// FileLock is a held cross-process lock on one .miku path (Lock). While it
// is held, other Lock calls and WriteIfUnchanged on the same path, in any
// process, wait; plain Write and Read do not take it. Write under it with
// its methods: the package-level WriteIfUnchanged would wait for it like
// any other process (the lock belongs to this FileLock, not to the
// process), and fail with ErrLocked after LockWait.
//
// On Unix the lock is a flock on the lock file ".<name>.lock" beside the
// target, created on the way in and removed on Unlock; the kernel drops
// it when a holder dies, so a crash never leaves the file locked. On
// systems without flock, Lock excludes nothing, and WriteIfUnchanged's
// comparison is the only protection (leaving a short race).
type FileLock struct {
	path string
	lf   *os.File // the locked lock file; nil once unlocked, or without flock
	held bool
}

// Lock takes the lock of the .miku file at path, waiting until it is free
// or ctx is done (the error then wraps ErrLocked and ctx's error). It tries
// at least once, so a ctx already done makes it a try-lock. The file at
// path need not exist; its directory must.
func Lock(ctx context.Context, path string) (*FileLock, error) {
	lf, err := acquire(ctx, lockName(path))
	if err != nil {
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("miku: %s is %w", path, err)
		}
		// The lock file is ours, not the user's: name the folder that
		// refused it and why, not the hidden file's path.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			dir := filepath.Dir(path)
			if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
				return nil, fmt.Errorf("miku: cannot save %s: the folder %s does not exist", path, dir)
			}
			return nil, fmt.Errorf("miku: cannot save %s: the folder %s does not take new files (%w)", path, dir, pe.Err)
		}
		return nil, fmt.Errorf("miku: cannot lock %s: %w", path, err)
	}
	return &FileLock{path: path, lf: lf, held: true}, nil
}

// Path is the .miku file the lock is for.
func (l *FileLock) Path() string { return l.path }

// Unlock releases the lock. Later calls do nothing.
func (l *FileLock) Unlock() error {
	if !l.held {
		return nil
	}
	l.held = false
	lf := l.lf
	l.lf = nil
	if err := release(lf, lockName(l.path)); err != nil {
		return fmt.Errorf("miku: unlock %s: %w", l.path, err)
	}
	return nil
}

// Write is the package-level Write under the lock, returning the stamp of
// what it wrote: it overwrites whatever is there.
func (l *FileLock) Write(f *File) (Stamp, error) {
	if !l.held {
		return Stamp{}, fmt.Errorf("miku: write %s: the lock was released", l.path)
	}
	st, err := write(l.path, f)
	if err != nil {
		return Stamp{}, fmt.Errorf("miku: write %s: %w", l.path, err)
	}
	return st, nil
}

// WriteIfUnchanged writes f to the lock's path (as Write does) only if the
// file there is still the one expect stamps (the zero Stamp: there is no
// file), and returns the new file's stamp. Otherwise it writes nothing and
// returns an error wrapping ErrChanged that says what happened.
func (l *FileLock) WriteIfUnchanged(f *File, expect Stamp) (Stamp, error) {
	if !l.held {
		return Stamp{}, fmt.Errorf("miku: write %s: the lock was released", l.path)
	}
	cur, err := currentStamp(l.path)
	if err != nil {
		return Stamp{}, fmt.Errorf("miku: write %s: %w", l.path, err)
	}
	if cur != expect {
		switch {
		case expect.IsZero():
			return Stamp{}, fmt.Errorf("miku: %s already exists (%w)", l.path, ErrChanged)
		case cur.IsZero():
			return Stamp{}, fmt.Errorf("miku: %s was removed since it was loaded or last saved (%w)", l.path, ErrChanged)
		}
		return Stamp{}, fmt.Errorf("miku: %s was %w since it was loaded or last saved", l.path, ErrChanged)
	}
	return l.Write(f)
}

// WriteIfUnchanged is FileLock.WriteIfUnchanged under the file's lock,
// taken for the call: it waits up to LockWait for the lock (then fails
// with ErrLocked). It never overwrites a file someone else wrote since
// the caller read or wrote the version stamped by expect.
func WriteIfUnchanged(path string, f *File, expect Stamp) (Stamp, error) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), LockWait, fmt.Errorf("still locked after %v", LockWait))
	defer cancel()
	l, err := Lock(ctx, path)
	if err != nil {
		return Stamp{}, err
	}
	st, err := l.WriteIfUnchanged(f, expect)
	if uerr := l.Unlock(); err == nil && uerr != nil {
		return st, uerr
	}
	return st, err
}
