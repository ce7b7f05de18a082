//go:build !amd64

package tensor

// usePacked has no packed kernels to offer off amd64: Kernels.Pack leaves
// matrices as they are and the portable kernels read Data.
func usePacked(*[typeSlots]packedRowsFn, *[typeSlots]packedGemm4Fn, *[typeSlots]packLayout, bool) {}

// useAMX has no tile kernels to offer off amd64.
func useAMX(*[typeSlots]packedGemm4Fn) bool { return false }
