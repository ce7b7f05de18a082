package tensor

import "golang.org/x/sys/cpu"

//go:noescape
func gemm16Q4KAMX(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

// useAMX installs the sixteen-token packed kernels that run on AMX (Q4_K,
// packk_amx_amd64.s) where the CPU has its tiles and int8 products beside
// the 512-bit VNNI ones (whose decode kernels the tokens' results must
// equal) and the operating system lets this process use them, and reports
// whether it did.
func useAMX(gemm16 *[BF16 + 1]packedGemm4Fn) bool {
	if !hasZMM || !cpu.X86.HasAMXTile || !cpu.X86.HasAMXInt8 || !amxPermitted() {
		return false
	}
	gemm16[Q4_K] = gemm16PackedQ4K
	return true
}

// gemm16PackedQ4K is the AMX packed Q4_K prefill kernel: per token, bit for
// bit rowsPackedQ4K.
func gemm16PackedQ4K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksS(p, a, 16, groups, packKBlockBytes/8, out, ostride) / 8
	gemm16Q4KAMX(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}
