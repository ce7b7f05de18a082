// Package regfile opens and reads the files isagi reads from a path (GGUF
// models, files to hash, and every file a user names: flags, arguments,
// the config file) and refuses anything that is not a regular file. A
// character device such as /dev/zero or /dev/urandom never reaches end of
// file, so reading or hashing it runs forever while memory climbs, and
// opening a FIFO for reading blocks until a writer appears: either would
// hang isagi instead of reporting a mistyped path. Symbolic links are
// followed: a link to a regular file is a regular file.
//
// It lives in the engine, the ground floor, because the engine imports
// nothing outside engine/ and every layer above reads files the same way.
package regfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by Open's error for a path that is not a
// regular file (a directory, a device, a FIFO, a socket).
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if, after following symbolic links, it is a
// regular file, and returns it with its FileInfo. Otherwise the error is
// one sentence naming the path and what it is, e.g. "/dev/zero is not a
// regular file (a character device)", wrapping ErrNotRegular; a path that
// cannot be stat'ed or opened gives the *fs.PathError.
//
// The path is stat'ed first, so a FIFO or a device is never opened, then
// opened non-blocking and checked again through the descriptor, in case
// it was replaced in between: a FIFO opened without O_NONBLOCK would block
// until a writer appears. The flag stays set; reads and mappings of
// regular files ignore it.
func Open(path string) (*os.File, fs.FileInfo, error) {
	if err := Check(path); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = check(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Check returns nil when path, after following symbolic links, is a
// regular file, and otherwise Open's error. It never opens the file, so
// it cannot block on a FIFO.
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(path, st.Mode())
}

func check(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %w (%s)", path, ErrNotRegular, kind(m))
}

// kind names what a file that is not regular is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}
