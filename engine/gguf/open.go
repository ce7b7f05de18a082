package gguf

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/isagi-lab/isagi/engine/regfile"
)

// openRead parses a file by reading it whole into memory. It is the only
// way to open a file where mmap is unavailable, and the fallback where it
// fails (a file system that cannot map, a file too large for the address
// space).
func openRead(path string) (*File, error) {
	fd, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	return readAll(path, fd)
}

// openRegular opens path for reading if it is a regular file. Reading a
// device such as /dev/zero whole would never end, and opening a FIFO
// would wait for a writer, so anything else is refused, unopened, in one
// sentence that says what to pass instead.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fd, st, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		// The sentence names the path already: no "gguf:" before it.
		return nil, nil, fmt.Errorf("%w: give the path of a .gguf model file", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gguf: %w", err)
	}
	return fd, st, nil
}

func readAll(path string, fd *os.File) (*File, error) {
	data, err := io.ReadAll(fd)
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	return Parse(path, data)
}
