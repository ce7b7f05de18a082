package tensor

import "golang.org/x/sys/cpu"

//go:noescape
func gemm16Q4KAMX(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

//go:noescape
func gemm16Q5KAMX(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

//go:noescape
func gemm16IQ4XSAMX(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32, ostride int)

// useAMX installs the sixteen-token packed kernels that run on AMX (Q4_K,
// Q5_K and IQ4_XS, packk_amx_amd64.s) where the CPU has its tiles and int8 products beside
// the 512-bit VNNI ones (whose decode kernels the tokens' results must
// equal) and the operating system lets this process use them, and reports
// whether it did.
func useAMX(gemm16 *[typeSlots]packedGemm4Fn) bool {
	if !hasZMM || !cpu.X86.HasAMXTile || !cpu.X86.HasAMXInt8 || !amxPermitted() {
		return false
	}
	gemm16[Q4_K] = gemm16PackedQ4K
	gemm16[Q5_K] = gemm16PackedQ5K
	gemm16[IQ4_XS] = gemm16PackedIQ4XS
	return true
}

// gemm16PackedQ4K is the AMX packed Q4_K prefill kernel: per token, bit for
// bit rowsPackedQ4K.
func gemm16PackedQ4K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksS(p, a, 16, groups, packKBlockBytes/8, out, ostride) / 8
	gemm16Q4KAMX(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}

// gemm16PackedQ5K is the AMX packed Q5_K prefill kernel: per token, bit for
// bit rowsPackedQ5K.
func gemm16PackedQ5K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksS(p, a, 16, groups, packK5BlockBytes/8, out, ostride) / 8
	gemm16Q5KAMX(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}

// gemm16PackedIQ4XS is the AMX packed IQ4_XS prefill kernel: per token, bit
// for bit rowsPackedIQ4XS. It needs no m8: TDPBSSD multiplies the signed
// levels as they are, where VPDPBUSD needs them offset.
func gemm16PackedIQ4XS(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecks(p, a, 16, groups, packXSBlockBytes/8, out, ostride) / 8
	gemm16IQ4XSAMX(&p[0], &a.qs[0], &a.d[0], nsb, groups, &out[0], ostride)
}
