//go:build linux && (amd64 || arm64)

package cu

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
)

// Load dlopens libcuda.so.1 (then libcuda.so) and resolves every driver
// entry point this package uses, so that a driver too old for one of them
// fails here, once, with the symbol's name, rather than at first use. It
// does not call cuInit: Init does, and reports ErrNoDevice on a machine with
// a driver but no GPU. Without a driver it returns an error reading "no CUDA
// driver (libcuda.so.1 not found)". The library is never closed: the driver
// does not support being unloaded, and a process loads it once.
func Load() (*Driver, error) {
	// libcuda.so.1 is the driver's soname, which every driver install
	// provides; libcuda.so is the development link, present on some setups
	// that lack the versioned name.
	return load("libcuda.so.1", "libcuda.so")
}

// load opens the first of names that dlopen accepts and resolves the
// driver's symbols in it; the names are parameters so tests can point it at
// a missing library or at one without the symbols.
func load(names ...string) (*Driver, error) {
	var (
		h       uintptr
		lib     string
		openErr error
	)
	for _, name := range names {
		var err error
		// dlopen's reason is read back with dlerror, which is per thread:
		// a goroutine moved to another thread between the two calls gets
		// an empty reason, and a missing library would then read as one
		// that could not be loaded.
		runtime.LockOSThread()
		h, err = purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		runtime.UnlockOSThread()
		if err == nil {
			lib = name
			break
		}
		// Keep the first failure that is not plain absence: a driver that
		// exists but cannot load (wrong architecture, missing dependency)
		// must not be reported as "not found".
		if openErr == nil && !strings.Contains(err.Error(), "No such file") {
			openErr = err
		}
	}
	if lib == "" {
		if openErr != nil {
			return nil, fmt.Errorf("no CUDA driver (%s could not be loaded: %v)", names[0], openErr)
		}
		return nil, fmt.Errorf("no CUDA driver (%s not found)", names[0])
	}
	d := &Driver{lib: lib}
	for _, s := range d.sym.table() {
		p, err := purego.Dlsym(h, s.name)
		if err != nil || p == 0 {
			purego.Dlclose(h) // nothing of it has run yet
			return nil, fmt.Errorf("CUDA driver %s lacks %s (driver too old?): %v", lib, s.name, err)
		}
		*s.fn = p
	}
	// The graph entry points are optional: without them the backend
	// launches each kernel, as before CUDA 11.4.
	for _, s := range d.gsym.graphTable() {
		p, err := purego.Dlsym(h, s.name)
		if err != nil || p == 0 {
			d.gsym, d.graphMissing = graphSymbols{}, s.name
			break
		}
		*s.fn = p
	}
	// The profiler's region marks are optional too (profile.go).
	d.profStart, _ = purego.Dlsym(h, "cuProfilerStart")
	d.profStop, _ = purego.Dlsym(h, "cuProfilerStop")
	return d, nil
}

// syscallN calls the C function fn with integer and pointer arguments and
// returns its CUresult. A zero fn (a Driver that did not come from Load)
// reports ErrNotInitialized instead of crashing.
func syscallN(fn uintptr, args []uintptr) Result {
	if fn == 0 {
		return ErrNotInitialized
	}
	r, _, _ := purego.SyscallN(fn, args...)
	// CUresult is a 32-bit C enum: only the low half of the register is set.
	return Result(int32(uint32(r)))
}
