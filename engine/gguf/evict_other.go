//go:build !linux

package gguf

// Evict does nothing here: only Linux's MADV_DONTNEED is known to drop a
// shared read-only mapping's pages without changing what they read.
func (f *File) Evict([]byte) {}
