package tensor

// useKQuantGemm4 installs the four-token prefill kernels of the K-quants.
func useKQuantGemm4(g *[BF16 + 1]gemm4Fn) {}
