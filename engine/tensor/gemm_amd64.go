package tensor

import "golang.org/x/sys/cpu"

// hasVNNI reports the EVEX VPDPBUSD on 256-bit registers (AVX512-VNNI with
// AVX512VL) that gemm_vnni_amd64.s uses; decided once, like hasAVX2.
var hasVNNI = hasAVX2 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL

//go:noescape
func gemm4Q8_0VNNI(w *byte, xu *uint8, dT *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q4_0VNNI(w *byte, xq *int8, dT, xs *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func toUnsignedAVX2(dst *uint8, src *int8, n int)

//go:noescape
func gemm4Q8_0AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm2F16x3AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)

//go:noescape
func gemm2F16AVX2(w *uint16, x *float32, n, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

// useArchGemm4 installs the four-token prefill kernels the CPU can run,
// the VNNI ones where it has them and vnni is true, marks in u what of
// prepActVNNI's each type's kernel reads, and returns the path's name
// ("avx2", "avx512vnni") or "" for none.
func useArchGemm4(g *[typeSlots]gemm4Fn, u *[typeSlots]vnniAct, vnni bool) string {
	if !hasAVX2 {
		return ""
	}
	g[Q8_0] = gemm4Q8_0Asm
	g[Q4_0] = gemm4Q4_0Asm
	g[F16] = gemm4F16Asm
	useKQuantGemm4(g)
	useLegacyGemm4(g)
	useK23Gemm4(g)
	useIQ2Gemm4(g)
	useIQ3Gemm4(g)
	useIQ1Gemm4(g)
	if !vnni || !hasVNNI {
		return "avx2"
	}
	g[Q8_0] = gemm4Q8_0VNNIAsm
	g[Q4_0] = gemm4Q4_0VNNIAsm
	u[Q8_0], u[Q4_0] = actU|actDT, actU|actDT
	if hasZMM {
		g[IQ4_NL], u[IQ4_NL] = gemm4IQ4NLVNNIAsm, actDT // and m8
		if hasQ50Z {
			g[Q5_0], u[Q5_0] = gemm4Q5_0VNNIAsm, actDT|actST|actQX
		}
		// 512-bit kernels (f16_avx512_amd64.go).
		g[F16] = gemm4F16ZAsm
		g[BF16] = gemm4BF16ZAsm
	} else {
		g[F16] = gemm4F16AVX512Asm // any CPU with AVX512-VNNI has AVX512F and VL
	}
	return "avx512vnni"
}

// prepActVNNI adds to n activation rows of cols elements (n a multiple of
// four) what the VNNI kernels read besides the codes, as far as what asks
// for it: per group of four tokens, the four scales of each block side by
// side (actDT) and likewise the four block sums (actST); the codes plus
// 128 (actU); and the codes as the Q5_0 kernel reads them (actQX, see
// byPairs).
func prepActVNNI(b *actBuf, n, cols int, what vnniAct) {
	nb := cols / QK
	if what&actU != 0 {
		if need := n * cols; cap(b.u) < need {
			b.u = make([]uint8, need)
		}
		toUnsignedAVX2(&b.u[0], &b.qs[0], n*cols)
	}
	if what&actDT != 0 {
		if need := n * nb; cap(b.dT) < need {
			b.dT = make([]float32, need)
		}
		sideBySide(b.dT, b.d, n, nb)
	}
	if what&actST != 0 {
		if need := n * nb; cap(b.sT) < need {
			b.sT = make([]float32, need)
		}
		sideBySide(b.sT, b.s, n, nb)
	}
	if what&actQX != 0 {
		if need := n * cols; cap(b.qX) < need {
			b.qX = make([]int8, need)
		}
		byPairs(b.qX, b.qs, n, cols)
	}
}

// sideBySide sets dst, per group of four rows of nb values of src, to the
// four rows' values of each column side by side: dst[4j+t] = src[t·nb+j]
// within the group, the order in which a four-token kernel's lane 4b+t
// reads token t's value for block b.
func sideBySide(dst, src []float32, n, nb int) {
	for g := range n / 4 {
		dT, d := dst[g*4*nb:(g+1)*4*nb], src[g*4*nb:(g+1)*4*nb]
		for t := range 4 {
			for j := range nb {
				dT[4*j+t] = d[t*nb+j]
			}
		}
	}
}

func gemm4Q8_0Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*34-1]
	_ = out[3*ostride+rows-1]
	gemm4Q8_0AVX2(&w[0], &a.qs[0], &a.d[0], nb, rows, &out[0], ostride)
}

func gemm4Q4_0Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*18-1]
	_ = a.s[4*nb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q4_0AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}

// gemm4HalfChecks serves the four-token kernels of 16-bit float weights:
// rows whose length is not a multiple of 8 (or empty) take portable,
// token by token, as floatRows has them, and it reports done; otherwise it
// bounds-checks what the kernels read and write, which the assembly
// cannot, and returns the row length n.
func gemm4HalfChecks(w []byte, x []float32, rows int, out []float32, ostride int, portable dotFn) (n int, done bool) {
	n = len(x) / 4
	if n%8 != 0 || n == 0 {
		for t := range 4 {
			perRow(portable)(w[:rows*2*n], x[t*n:(t+1)*n], act{}, out[t*ostride:t*ostride+rows])
		}
		return n, true
	}
	_ = w[rows*2*n-1]
	_ = out[3*ostride+rows-1]
	return n, false
}

// gemm4F16Asm mirrors floatRows: rows whose length is not a multiple of 8
// take the portable dot, token by token, as they do there.
func gemm4F16Asm(w []byte, x []float32, _ act, rows int, out []float32, ostride int) {
	n, done := gemm4HalfChecks(w, x, rows, out, ostride, dotF16Go)
	if done {
		return
	}
	// Two tokens per pass (four would need sixteen accumulators).
	gemm2F16AVX2((*uint16)(ptr(w)), &x[0], n, rows, &out[0], ostride)
	gemm2F16AVX2((*uint16)(ptr(w)), &x[2*n], n, rows, &out[2*ostride], ostride)
}

func gemm4Q8_0VNNIAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*34-1]
	_ = a.u[4*nb*QK-1]
	_ = a.dT[4*nb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q8_0VNNI(&w[0], &a.u[0], &a.dT[0], nb, rows, &out[0], ostride)
}

func gemm4Q4_0VNNIAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*18-1]
	_ = a.s[4*nb-1]
	_ = a.dT[4*nb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q4_0VNNI(&w[0], &a.qs[0], &a.dT[0], &a.s[0], nb, rows, &out[0], ostride)
}

// gemm4F16AVX512Asm runs three rows at a time through the AVX-512 kernel
// and the rest (one or two rows) through the AVX2 one: the same arithmetic.
func gemm4F16AVX512Asm(w []byte, x []float32, a act, rows int, out []float32, ostride int) {
	n := len(x) / 4
	r3 := rows - rows%3
	if n%8 != 0 || n == 0 || r3 == 0 {
		gemm4F16Asm(w, x, a, rows, out, ostride)
		return
	}
	_ = w[rows*2*n-1]
	_ = out[3*ostride+rows-1]
	gemm2F16x3AVX512((*uint16)(ptr(w)), &x[0], n, r3, &out[0], ostride)
	gemm2F16x3AVX512((*uint16)(ptr(w)), &x[2*n], n, r3, &out[2*ostride], ostride)
	if r3 < rows {
		gemm4F16Asm(w[r3*2*n:], x, a, rows-r3, out[r3:], ostride)
	}
}
