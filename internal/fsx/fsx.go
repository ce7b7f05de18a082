// Package fsx opens and reads the files a user names (flags, arguments,
// the config file) and refuses anything that is not a regular file. A
// character device such as /dev/zero or /dev/urandom never reaches end of
// file, so reading it whole eats memory until the process dies, and
// opening a FIFO for reading blocks until a writer appears: either would
// hang isagi instead of reporting a mistyped path.
//
// Symbolic links are followed: a link to a regular file is a regular file.
package fsx

import (
	"errors"
	"fmt"
	"github.com/isagi-lab/isagi/engine/regfile"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ErrNotRegular is wrapped by the errors for paths that are not regular
// files (directories, devices, FIFOs, sockets). It is the engine's own
// sentinel: a model path refused by the engine matches it too.
var ErrNotRegular = regfile.ErrNotRegular

// ErrTooLarge is wrapped by ReadRegular's error for a file over its limit.
var ErrTooLarge = errors.New("too large")

// CheckRegular returns nil when path, after following symbolic links, is a
// regular file. Otherwise the error is one sentence naming the path and
// what it is, e.g. "/dev/zero is not a regular file (a character
// device)", wrapping ErrNotRegular; a path that cannot be stat'ed gives
// the *fs.PathError (so errors.Is(err, fs.ErrNotExist) still works).
// It never opens the file, so it cannot block on a FIFO.
func CheckRegular(path string) error { return regfile.Check(path) }

// Open opens path for reading if it is a regular file (see CheckRegular),
// without blocking when path is, or is swapped for, a FIFO.
func Open(path string) (*os.File, error) {
	f, _, err := open(path)
	return f, err
}

// ReadRegular reads the whole of path, which must be a regular file (see
// CheckRegular) of at most limit bytes. A larger file is refused before
// any of it is read, with an error naming the path, its size and the
// limit and wrapping ErrTooLarge.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, st, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n := st.Size(); n > limit {
		size := sizeString(n)
		if size == sizeString(limit) {
			// Rounded, it would read as the limit itself.
			size = fmt.Sprintf("%d bytes", n)
		}
		return nil, tooLarge(path, size, limit)
	}
	// The file may grow while it is read; read one byte past the limit
	// to notice.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, "more than "+sizeString(limit), limit)
	}
	return data, nil
}

func tooLarge(path, size string, limit int64) error {
	return fmt.Errorf("%s is %w (%s; the limit is %s)", path, ErrTooLarge, size, sizeString(limit))
}

// open is regfile.Open: stat first so that a FIFO or a device is never
// opened, then open non-blocking and check the descriptor again.
func open(path string) (*os.File, fs.FileInfo, error) { return regfile.Open(path) }

// sizeString writes n bytes in binary units to one decimal, dropping a
// ".0" ("64 MiB", "1.5 KiB", "12 bytes").
func sizeString(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + units[i:i+1] + "iB"
}
