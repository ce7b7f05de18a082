package gguf

import (
	"fmt"
	"io"
	"os"
)

// openRead parses a file by reading it whole into memory. It is the only
// way to open a file where mmap is unavailable, and the fallback where it
// fails (a pipe, a file system that cannot map, a file too large for the
// address space).
func openRead(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer fd.Close()
	return readAll(path, fd)
}

func readAll(path string, fd *os.File) (*File, error) {
	data, err := io.ReadAll(fd)
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	return Parse(path, data)
}
