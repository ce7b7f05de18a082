//go:build !unix

package gguf

// Open reads the file at path into memory and parses it. (On Unix systems
// Open maps the file instead.) Close releases nothing but is still required
// for portability. A path that is not a regular file (a device, a FIFO, a
// directory) is refused without being read.
func Open(path string) (*File, error) { return openRead(path) }
