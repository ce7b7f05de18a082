//go:build !unix

package gguf

// Open reads the file at path into memory and parses it. (On Unix systems
// Open maps the file instead.) Close releases nothing but is still required
// for portability.
func Open(path string) (*File, error) { return openRead(path) }
