//go:build !amd64

package tensor

// spinPause is one iteration's delay of a spin-wait loop; off amd64 the
// loop's atomic load is delay enough.
func spinPause() {}
