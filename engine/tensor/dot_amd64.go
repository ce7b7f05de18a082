package tensor

import "golang.org/x/sys/cpu"

// Assembly kernels (dot_amd64.s). The Rows kernels compute out[r] = row r·x
// for consecutive rows in one call: a small model's rows are a few hundred
// bytes, so a call per row would cost as much as the row itself.

func cpuidF16C() bool

// hasAVX2 is decided once, at package initialisation, and never written
// again. It must not be asked per call: CPUID traps to the hypervisor in a
// VM, which measured ~5 µs here — more than a whole small matvec.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpuidF16C()

//go:noescape
func dotF32AVX2(w, x *float32, n int) float32

//go:noescape
func dotF32RowsAVX2(w, x *float32, n, rows int, out *float32)

//go:noescape
func dotF16RowsAVX2(w *uint16, x *float32, n, rows int, out *float32)

//go:noescape
func dotBF16RowsAVX2(w *uint16, x *float32, n, rows int, out *float32)

//go:noescape
func dotQ8_0RowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)

//go:noescape
func dotQ4_0RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)

//go:noescape
func dotQ4KRowsAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)

//go:noescape
func dotQ5KRowsAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)

//go:noescape
func dotQ6KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func axpyAVX2(alpha float32, x, y *float32, n int)

// useArchDots installs the AVX2 kernels when the CPU (and OS) support AVX2,
// FMA and F16C — every x86-64 CPU since Haswell and Zen 1 — and the 512-bit
// VNNI ones where it has them, and names the path: "avx512vnni" when any
// VNNI kernel is in, else "avx2".
func useArchDots(rows *[typeSlots]rowsFn, path string) string {
	if !hasAVX2 {
		return path
	}
	rows[F32] = floatRows(F32, dotF32Go)
	rows[F16] = floatRows(F16, dotF16Go)
	rows[BF16] = floatRows(BF16, dotBF16Go)
	rows[Q8_0] = rowsQ8_0Asm
	rows[Q4_0] = rowsQ4_0Asm
	rows[Q4_K] = rowsQ4KAsm
	rows[Q5_K] = rowsQ5KAsm
	rows[Q6_K] = rowsQ6KAsm
	useKVNNIDots(rows) // Q4_K and Q6_K on AVX-512 VNNI, same results
	rows[Q4_1] = rowsQ4_1Asm
	rows[Q5_0] = rowsQ5_0Asm
	rows[Q5_1] = rowsQ5_1Asm
	rows[IQ4_NL] = rowsIQ4NLAsm
	rows[Q2_K] = rowsQ2KAsm
	rows[Q3_K] = rowsQ3KAsm
	rows[IQ4_XS] = rowsIQ4XSAsm
	rows[MXFP4] = rowsMXFP4Asm
	useIQ2Dots(rows)
	useIQ3Dots(rows)
	useIQ1Dots(rows)
	if hasZMM {
		// useKVNNIDots put the 512-bit VNNI kernels in for Q4_K and Q6_K.
		return "avx512vnni"
	}
	return "avx2"
}

// floatRows runs the float-weight Rows kernel when rows are a multiple of 8
// long, and the portable dot per row otherwise (stories260K's 172-wide FFN).
func floatRows(t Type, portable dotFn) rowsFn {
	return func(w []byte, x []float32, _ act, out []float32) {
		n := len(x)
		if n%8 != 0 || n == 0 {
			perRow(portable)(w, x, act{}, out)
			return
		}
		rb := n * int(t.BlockBytes())
		_ = w[len(out)*rb-1]
		switch t {
		case F32:
			dotF32RowsAVX2((*float32)(ptr(w)), &x[0], n, len(out), &out[0])
		case F16:
			dotF16RowsAVX2((*uint16)(ptr(w)), &x[0], n, len(out), &out[0])
		case BF16:
			dotBF16RowsAVX2((*uint16)(ptr(w)), &x[0], n, len(out), &out[0])
		}
	}
}

func rowsQ8_0Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*34-1]
	dotQ8_0RowsAVX2(&w[0], &a.qs[0], &a.d[0], nb, len(out), &out[0])
}

func rowsQ4_0Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*18-1]
	dotQ4_0RowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, len(out), &out[0])
}

func rowsQ4KAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*144-1]
	dotQ4KRowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb, len(out), &out[0])
}

func rowsQ5KAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*176-1]
	dotQ5KRowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb, len(out), &out[0])
}

func rowsQ6KAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*210-1]
	dotQ6KRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func dotF32Fast(a, b []float32) float32 {
	n := len(a)
	m := 0
	var s float32
	if hasAVX2 && n >= 8 {
		m = n &^ 7
		s = dotF32AVX2(&a[0], &b[0], m)
	}
	for i := m; i < n; i++ {
		s += a[i] * b[i]
	}
	return s
}

func axpyFast(alpha float32, x, y []float32) {
	m := 0
	if hasAVX2 && len(x) >= 8 {
		m = len(x) &^ 7
		axpyAVX2(alpha, &x[0], &y[0], m)
	}
	for i := m; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

func dotRowsF32(m, x, out []float32) {
	n := len(x)
	if !hasAVX2 || n%8 != 0 {
		for i := range out {
			out[i] = dotF32Fast(m[i*n:(i+1)*n], x)
		}
		return
	}
	dotF32RowsAVX2(&m[0], &x[0], n, len(out), &out[0])
}

//go:noescape
func siluMulAVX2(gate, u *float32, n int)

//go:noescape
func expShiftAVX2(x *float32, n int, m float32) float32

//go:noescape
func scaleMaxAVX2(x *float32, n int, s float32) float32

//go:noescape
func scaleAVX2(x *float32, n int, s float32)

//go:noescape
func weightedSumAVX2(out, v, w *float32, n, keys int)
