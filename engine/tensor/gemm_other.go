//go:build !amd64

package tensor

// useArchGemm4 installs nothing off amd64: prefill runs the one-token kernels.
func useArchGemm4(*[typeSlots]gemm4Fn, *[typeSlots]vnniAct, bool) string { return "" }

// prepActVNNI is never called off amd64 (no kernel needs it).
func prepActVNNI(*actBuf, int, int, vnniAct) {}
