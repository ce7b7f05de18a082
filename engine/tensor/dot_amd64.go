package tensor

import "golang.org/x/sys/cpu"

// Assembly dot products (dot_amd64.s). Each processes whole vectors of its
// block size and leaves any tail to the Go wrapper.

func cpuidF16C() bool

// hasAVX2 is decided once, at package initialisation, and never written
// again. It must not be asked per call: CPUID traps to the hypervisor in a
// VM, which measured ~5 µs here — more than a whole small matvec.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpuidF16C()

//go:noescape
func dotF32AVX2(w, x *float32, n int) float32

//go:noescape
func dotF16AVX2(w *uint16, x *float32, n int) float32

//go:noescape
func dotQ8_0AVX2(w *byte, xq *int8, xd *float32, nb int) float32

//go:noescape
func dotQ4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb int) float32

//go:noescape
func dotQ4KAVX2(w *byte, xq *int8, xd, xs *float32, nsb int) float32

//go:noescape
func dotQ5KAVX2(w *byte, xq *int8, xd, xs *float32, nsb int) float32

//go:noescape
func dotQ6KAVX2(w *byte, xq *int8, xd *float32, nsb int) float32

//go:noescape
func dotBF16AVX2(w *uint16, x *float32, n int) float32

// useArchDots installs the AVX2 kernels when the CPU (and OS) support AVX2,
// FMA and F16C — every x86-64 CPU since Haswell and Zen 1.
func useArchDots(dots *[BF16 + 1]dotFn, path string) string {
	if !hasAVX2 {
		return path
	}
	dots[F32] = dotF32Asm
	dots[F16] = dotF16Asm
	dots[Q8_0] = dotQ8_0Asm
	dots[Q4_0] = dotQ4_0Asm
	dots[Q4_K] = dotQ4KAsm
	dots[Q5_K] = dotQ5KAsm
	dots[Q6_K] = dotQ6KAsm
	dots[BF16] = dotBF16Asm
	return "avx2"
}

func dotF32Asm(w []byte, x []float32, _ act) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	wf := asF32(w)[:n]
	m := n &^ 7
	var s float32
	if m > 0 {
		s = dotF32AVX2(&wf[0], &x[0], m)
	}
	for i := m; i < n; i++ {
		s += wf[i] * x[i]
	}
	return s
}

func dotF16Asm(w []byte, x []float32, _ act) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	wh := asU16(w)[:n]
	m := n &^ 7
	var s float32
	if m > 0 {
		s = dotF16AVX2(&wh[0], &x[0], m)
	}
	for i := m; i < n; i++ {
		s += F16ToF32(wh[i]) * x[i]
	}
	return s
}

func dotQ8_0Asm(w []byte, _ []float32, a act) float32 {
	nb := len(a.d)
	_ = w[nb*34-1]
	return dotQ8_0AVX2(&w[0], &a.qs[0], &a.d[0], nb)
}

func dotQ4_0Asm(w []byte, _ []float32, a act) float32 {
	nb := len(a.d)
	_ = w[nb*18-1]
	return dotQ4_0AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb)
}

func dotQ4KAsm(w []byte, _ []float32, a act) float32 {
	nsb := len(a.d) / 8
	_ = w[nsb*144-1]
	return dotQ4KAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb)
}

func dotBF16Asm(w []byte, x []float32, _ act) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	wh := asU16(w)[:n]
	m := n &^ 7
	var s float32
	if m > 0 {
		s = dotBF16AVX2(&wh[0], &x[0], m)
	}
	for i := m; i < n; i++ {
		s += BF16ToF32(wh[i]) * x[i]
	}
	return s
}

func dotQ5KAsm(w []byte, _ []float32, a act) float32 {
	nsb := len(a.d) / 8
	_ = w[nsb*176-1]
	return dotQ5KAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb)
}

func dotQ6KAsm(w []byte, _ []float32, a act) float32 {
	nsb := len(a.d) / 8
	_ = w[nsb*210-1]
	return dotQ6KAVX2(&w[0], &a.qs[0], &a.d[0], nsb)
}

func dotF32Fast(a, b []float32) float32 {
	if !hasAVX2 {
		return dotF32Go(asBytes(a), b, act{})
	}
	return dotF32Asm(asBytes(a), b, act{})
}

//go:noescape
func axpyAVX2(alpha float32, x, y *float32, n int)

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
