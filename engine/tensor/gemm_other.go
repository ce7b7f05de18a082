//go:build !amd64

package tensor

// useArchGemm4 installs nothing off amd64: prefill runs the one-token kernels.
func useArchGemm4(*[BF16 + 1]gemm4Fn, *[BF16 + 1]vnniAct, bool) string { return "" }

// prepActVNNI is never called off amd64 (no kernel needs it).
func prepActVNNI(*actBuf, int, int, vnniAct) {}
