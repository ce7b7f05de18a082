//go:build !(linux && (amd64 || arm64))

package cu

import (
	"fmt"
	"runtime"
)

// Load reports that this platform has no CUDA driver support: the driver is
// only loaded on linux/amd64 and linux/arm64. The function exists so that
// the rest of the program builds, and falls back to the CPU, everywhere.
func Load() (*Driver, error) {
	return nil, fmt.Errorf("no CUDA driver (not supported on %s/%s)", runtime.GOOS, runtime.GOARCH)
}

// syscallN is never reached with a loaded driver on this platform, since
// Load always fails; a hand-made Driver gets ErrNotInitialized from every
// call.
func syscallN(fn uintptr, args []uintptr) Result {
	return ErrNotInitialized
}
