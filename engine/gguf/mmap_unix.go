//go:build unix

package gguf

import (
	"math"
	"syscall"
)

// Open maps the file at path read-only and parses it. Tensor data is read
// straight from the mapping, so opening a multi-gigabyte model costs only
// its metadata; call Close to unmap it. If the file cannot be mapped, Open
// reads it into memory instead. A path that is not a regular file (a
// device, a FIFO, a directory) is refused without being read.
//
// Truncating the file while it is mapped makes later access to its tensor
// data fault, as with any mmap.
func Open(path string) (*File, error) {
	fd, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	// The mapping stays valid after the descriptor is closed.
	defer fd.Close()
	size := st.Size()
	if size <= 0 || uint64(size) > math.MaxInt {
		// mmap rejects empty files, and cannot map more than the address
		// space; reading gives the same result or a precise error.
		return readAll(path, fd)
	}
	data, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readAll(path, fd)
	}
	f, err := Parse(path, data)
	if err != nil {
		_ = syscall.Munmap(data) // the parse error is the one worth reporting
		return nil, err
	}
	f.release = func() error { return syscall.Munmap(data) }
	return f, nil
}
