//go:build !amd64

package tensor

// usePacked has no packed kernels to offer off amd64: Kernels.Pack leaves
// matrices as they are and the portable kernels read Data.
func usePacked(*[BF16 + 1]packedFns, bool) {}
