//go:build !(linux && cgo)

package gpu

import "fmt"

// NVML is a Source reading an NVIDIA GPU through NVML. This build (no cgo,
// or not Linux) has no NVML: NewNVML always fails.
type NVML struct{}

// NewNVML reports ErrNoNVML: NVML needs cgo on Linux.
func NewNVML() (*NVML, error) {
	return nil, fmt.Errorf("%w: this build has no cgo/Linux NVML support", ErrNoNVML)
}

// Sample reports ErrNoNVML.
func (n *NVML) Sample() (Stats, error) { return Stats{}, ErrNoNVML }

// Close does nothing.
func (n *NVML) Close() error { return nil }
