//go:build linux && (amd64 || arm64)

package cu

import (
	"strings"
	"testing"
)

// The two ways Load fails, checked on every machine whatever it has
// installed.
func TestLoadFailures(t *testing.T) {
	_, err := load("libcuda-isagi-missing.so.1", "libcuda-isagi-missing.so")
	if want := "no CUDA driver (libcuda-isagi-missing.so.1 not found)"; err == nil || err.Error() != want {
		t.Errorf("missing library: %v, want %q", err, want)
	}
	// The C library loads but has none of the driver's symbols.
	_, err = load("libc.so.6")
	if err == nil || !strings.HasPrefix(err.Error(), "CUDA driver libc.so.6 lacks cuGetErrorName") {
		t.Errorf("library without the driver's symbols: %v", err)
	}
}
