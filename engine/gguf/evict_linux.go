//go:build linux

package gguf

import (
	"os"
	"syscall"
	"unsafe"
)

// Evict lets the operating system drop the pages of b from this process's
// resident memory, where b lies within the file's mapping: a weight that
// the CPU backend has copied into a layout of its own (tensor.Kernels.Pack)
// would otherwise be resident twice. The bytes stay valid: the mapping is
// read-only and shared, so a later read faults them back in from the file
// (or the page cache). Only whole pages inside b are dropped. Where the
// file was read into memory instead of mapped, or b is not part of the
// mapping, Evict does nothing: dropping ordinary memory would zero it.
func (f *File) Evict(b []byte) {
	if f.release == nil || len(b) == 0 || len(f.data) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(&f.data[0]))
	start := uintptr(unsafe.Pointer(&b[0]))
	end := start + uintptr(len(b))
	if start < base || end > base+uintptr(len(f.data)) {
		return
	}
	page := uintptr(os.Getpagesize())
	lo, hi := (start+page-1)&^(page-1), end&^(page-1)
	if lo >= hi {
		return
	}
	// Advice only: should the kernel refuse, the pages stay resident and
	// nothing else changes.
	_ = syscall.Madvise(f.data[lo-base:hi-base], syscall.MADV_DONTNEED)
}
