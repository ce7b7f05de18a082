package miku

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Read reads and decodes the .miku file at path (see Decode). Errors name
// the file. Anything but a regular file (a directory, a device such as
// /dev/zero, a named pipe) is refused before it is opened, and no more
// than the file's size is read.
func Read(path string) (*File, error) {
	data, err := readFile(path, nil)
	if err != nil {
		return nil, err
	}
	f, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("miku: %s: %w", path, err)
	}
	return f, nil
}

// readFile reads the regular file at path. It stats first because opening
// a named pipe for reading blocks until a writer comes, and reading a
// device may never end; it then opens non-blocking, checks the open file
// again and reads what its size says. beforeOpen, when not nil, runs
// between the check and the open: a test swaps a FIFO in there, a race too
// narrow to provoke otherwise.
func readFile(path string, beforeOpen func(path string)) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("miku: %w", err) // *PathError names the file
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	if beforeOpen != nil {
		beforeOpen(path)
	}
	// Non-blocking, because path may have been replaced by a FIFO since
	// the check, and a plain open of a FIFO waits for a writer; the stat
	// through the handle below then refuses it. Reads of a regular file
	// ignore the flag.
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("miku: %w", err)
	}
	defer fh.Close()
	// Stat again through the handle: path may have been replaced since.
	if st, err = fh.Stat(); err != nil {
		return nil, fmt.Errorf("miku: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	size := st.Size()
	// A file that does not start with the magic (a model passed by
	// mistake) is refused before a buffer its size is allocated.
	var head [len(magic)]byte
	if size >= int64(len(head)) {
		if _, err := io.ReadFull(fh, head[:]); err != nil {
			return nil, fmt.Errorf("miku: %s: %w", path, err)
		}
		if head != magic {
			_, err := decode(head[:])
			return nil, fmt.Errorf("miku: %s: %w", path, err)
		}
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("miku: %s: %d bytes is too large to load", path, size)
	}
	data := make([]byte, size)
	// head holds the file's first bytes only when it was read above; a
	// file shorter than the magic is read whole below.
	n := 0
	if size >= int64(len(head)) {
		n = copy(data, head[:])
	}
	// A file that shrank under us (a writer not using Write) reads short
	// and then fails Decode as truncated; one that grew is read to its
	// size at open and fails the footer check.
	m, err := io.ReadFull(fh, data[n:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("miku: %s: %w", path, err)
	}
	return data[:n+m], nil
}

// notRegular is Read's error for a path that is not a regular file.
func notRegular(path string, mode fs.FileMode) error {
	kind := "special file"
	switch {
	case mode.IsDir():
		kind = "directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case mode&fs.ModeDevice != 0, mode&fs.ModeCharDevice != 0:
		kind = "device"
	case mode&fs.ModeSocket != 0:
		kind = "socket"
	}
	return fmt.Errorf("miku: %s is a %s, not a .miku file", path, kind)
}

// tempPrefix is the name prefix of Write's temporary files for a target
// named base: ".<base>.tmp-", then a random suffix.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// Write saves f to path atomically: it encodes f to a temporary file in
// the same directory (".<name>.tmp-<random>"), fsyncs and closes it,
// renames it over path and fsyncs the directory. A crash at any point
// leaves either the old file or the new one at path, complete. On an
// error before the rename, path is untouched and the temporary file is
// removed. A new file gets mode 0600; an existing file's permission bits
// are kept. If path is a symbolic link, the link itself is replaced.
//
// Stale temporary files, left by a process killed mid-save, are removed
// by the next Write to the same path. On Unix a writer holds an exclusive
// flock on its temporary file, and Write deletes only those it can lock,
// so a save in progress elsewhere is never disturbed; on other systems it
// deletes those not modified for 15 minutes. Readers never look at
// temporary files.
//
// Write takes no lock and overwrites whatever is at path: to save a file
// other processes may also save, use WriteIfUnchanged.
func Write(path string, f *File) error {
	if _, err := write(path, f); err != nil {
		return fmt.Errorf("miku: write %s: %w", path, err)
	}
	return nil
}

// write is Write, returning the stamp of the bytes written.
func write(path string, f *File) (_ Stamp, err error) {
	if f == nil {
		return Stamp{}, errors.New("nil File")
	}
	// Validate and lay out before touching the disk: a bad File must not
	// leave anything behind.
	if _, err := plan(f); err != nil {
		return Stamp{}, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return Stamp{}, errors.New("no file name")
	}
	removeStale(dir, base)

	tmp, err := createLocked(dir, base)
	if err != nil {
		return Stamp{}, err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close() // may already be closed; harmless
			os.Remove(tmpName)
		}
	}()
	if st, err := os.Stat(path); err == nil {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			return Stamp{}, err
		}
	}
	sum := newStampHash()
	if err := encode(io.MultiWriter(tmp, sum), f); err != nil {
		return Stamp{}, err
	}
	if err := tmp.Sync(); err != nil {
		return Stamp{}, err
	}
	if renameOpen {
		// Rename while still holding the lock, so that no removeStale can
		// take the finished file for a dead writer's.
		if err := os.Rename(tmpName, path); err != nil {
			return Stamp{}, err
		}
		if err := tmp.Close(); err != nil {
			return Stamp{}, err
		}
	} else {
		if err := tmp.Close(); err != nil {
			return Stamp{}, err
		}
		if err := os.Rename(tmpName, path); err != nil {
			return Stamp{}, err
		}
	}
	return sum.stamp(), syncDir(dir)
}

// encode is Encode without its error prefix, for write's wrapping.
func encode(w io.Writer, f *File) error {
	err := Encode(w, f)
	if err != nil {
		return errors.Unwrap(err)
	}
	return nil
}

// createLocked creates and locks a fresh temporary file for base in dir.
// It retries if a concurrent removeStale deleted the file between its
// creation and the lock.
func createLocked(dir, base string) (*os.File, error) {
	for range 5 {
		tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
		if err != nil {
			return nil, err
		}
		if err := lockFile(tmp); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, err
		}
		// Still ours at that name?
		st1, err1 := tmp.Stat()
		st2, err2 := os.Stat(tmp.Name())
		if err1 == nil && err2 == nil && os.SameFile(st1, st2) {
			return tmp, nil
		}
		tmp.Close()
	}
	return nil, errors.New("temporary file kept disappearing")
}

// removeStale deletes temporary files a killed writer left for base in
// dir. Best effort: errors are ignored.
func removeStale(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range ents {
		// Temporary names end in CreateTemp's digits, never in ".lock":
		// a name that does is the lock file of a target whose own name
		// starts with this one's temp prefix ("s.miku.tmp-x"), and
		// removing it would break that lock (see FileLock).
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) || strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		removeIfStale(filepath.Join(dir, e.Name()))
	}
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
