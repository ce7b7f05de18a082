package tensor

import "golang.org/x/sys/cpu"

// hasBF16Pairs reports what bf16_amd64.s needs: AVX512-BF16 next to the
// 512-bit registers; decided once, like hasAVX2.
var hasBF16Pairs = hasZMM && cpu.X86.HasAVX512BF16

//go:noescape
func dotBF16PairsRows(w, h *uint16, n, rows int, out *float32)

//go:noescape
func gemm4BF16Pairs(w, h *uint16, n, rows int, out *float32, ostride int)

//go:noescape
func toBF16Pairs(dst *uint16, src *float32, n int)

// useBF16Pairs installs BF16's pair kernels where the CPU has them and
// reports whether it did: the caller then feeds BF16 products bfloat16
// activations (act.h) instead of rounded float32 ones.
func useBF16Pairs(rows *[BF16 + 1]rowsFn, g *[BF16 + 1]gemm4Fn) bool {
	if !hasBF16Pairs {
		return false
	}
	rows[BF16] = rowsBF16PairsAsm
	g[BF16] = gemm4BF16PairsAsm
	return true
}

// rowsBF16PairsAsm runs dotBF16PairsRows over rows a multiple of 32 long,
// and dotBF16PairsGo, the same arithmetic, over the others.
func rowsBF16PairsAsm(w []byte, _ []float32, a act, out []float32) {
	n := len(a.h)
	if n%32 != 0 || n == 0 {
		perRow(dotBF16PairsGo)(w, nil, a, out)
		return
	}
	_ = w[len(out)*2*n-1]
	dotBF16PairsRows((*uint16)(ptr(w)), &a.h[0], n, len(out), &out[0])
}

// gemm4BF16PairsAsm is the four-token kernel over a.h, the four tokens'
// bfloat16 activations end to end; rows not a multiple of 32 long take
// dotBF16PairsGo token by token, as rowsBF16PairsAsm does.
func gemm4BF16PairsAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	n := len(a.h) / 4
	if n%32 != 0 || n == 0 {
		for t := range 4 {
			at := act{h: a.h[t*n : (t+1)*n]}
			perRow(dotBF16PairsGo)(w[:rows*2*n], nil, at, out[t*ostride:t*ostride+rows])
		}
		return
	}
	_ = w[rows*2*n-1]
	_ = out[3*ostride+rows-1]
	gemm4BF16Pairs((*uint16)(ptr(w)), &a.h[0], n, rows, &out[0], ostride)
}

// toBF16Arch is toBF16, on the AVX-512 conversion where the CPU has it
// (the same results: round to nearest even, subnormals to zero).
func toBF16Arch(dst []uint16, src []float32) {
	n := len(src) &^ 31
	if hasBF16Pairs && n > 0 {
		_ = dst[len(src)-1]
		toBF16Pairs(&dst[0], &src[0], n)
	}
	toBF16(dst[n:], src[n:])
}
