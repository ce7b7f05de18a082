//go:build !amd64

package tensor

// useBF16Pairs: the pair kernels are amd64 assembly; elsewhere BF16 runs
// the float kernels over rounded activations.
func useBF16Pairs(*[BF16 + 1]rowsFn, *[BF16 + 1]gemm4Fn) bool { return false }

// toBF16Arch is toBF16.
func toBF16Arch(dst []uint16, src []float32) { toBF16(dst, src) }
