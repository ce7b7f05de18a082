package cpu

import (
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// ropeTables fills cos/sin (length r.Dim/2 each) for position pos:
// angle_i = pos · PosScale · base^(−2i/Dim) / Freqs[i], in float64 so the
// angles stay exact at long positions, cos and sin multiplied by r.Scale.
// Freqs is Llama 3.1's rope_freqs or phi3's LongRoPE factors, nil for other
// models; a zero PosScale or Scale means 1. With r.YaRN the angles and the
// magnitude are YaRN's (see backend.YaRN), r.Scale unused.
func ropeTables(cos, sin []float32, pos int, r backend.Rope) {
	m, ps := 1.0, 1.0
	if r.Scale != 0 {
		m = float64(r.Scale)
	}
	if r.PosScale != 0 {
		ps = float64(r.PosScale)
	}
	var lo, hi, ext float64
	if y := r.YaRN; y != nil {
		m, ext = float64(y.AttnFactor), float64(y.ExtFactor)
		if ext != 0 {
			lo, hi = yarnCorrDims(r.Dim, y.OrigCtx, r.Base, y.BetaFast, y.BetaSlow)
			m *= 1 + 0.1*math.Log(1/ps)
		}
	}
	p := float64(pos)
	for i := range cos {
		theta := p * math.Pow(r.Base, -2*float64(i)/float64(r.Dim))
		if r.Freqs != nil {
			theta /= float64(r.Freqs[i])
		}
		if ext == 0 {
			theta *= ps
		} else {
			// The ramp is 1 below the correction range (high-frequency
			// pairs keep their original angle), 0 above it (low-frequency
			// pairs are interpolated), linear between.
			mix := ext * (1 - min(1, max(0, (float64(i)-lo)/max(0.001, hi-lo))))
			theta = theta*ps*(1-mix) + theta*mix
		}
		s, c := math.Sincos(theta)
		cos[i], sin[i] = float32(c*m), float32(s*m)
	}
}

// yarnCorrDims is ggml_rope_yarn_corr_dims: the pair indices between which
// YaRN's ramp falls, [max(0, ⌊d(βfast)⌋), min(dim−1, ⌈d(βslow)⌉)] with
// d(β) = dim·ln(origCtx/(2πβ))/(2·ln base). It is computed in float32, as
// ggml does, because the floor and the ceiling would carry a float64
// difference a whole pair across the boundary.
func yarnCorrDims(dim, origCtx int, base float64, betaFast, betaSlow float32) (lo, hi float64) {
	d := func(beta float32) float32 {
		n := float32(origCtx) / (beta * 2 * float32(math.Pi))
		return float32(dim) * log32(n) / (2 * log32(float32(base)))
	}
	lo = max(0, math.Floor(float64(d(betaFast))))
	hi = min(float64(dim-1), math.Ceil(float64(d(betaSlow))))
	return lo, hi
}

// log32 is a float32 logarithm: the float64 one rounded, which is logf's
// correctly rounded result except in rare last-bit cases.
func log32(x float32) float32 { return float32(math.Log(float64(x))) }

// rope rotates the first 2·len(cos) dimensions of one head vector x.
// neox pairs x[i] with x[i+half] (qwen2/qwen3); otherwise adjacent pairs
// x[2i], x[2i+1] (llama) — llama.cpp's rope types NEOX and NORM.
func rope(x, cos, sin []float32, neox bool) {
	half := len(cos)
	for i := range half {
		a, b := 2*i, 2*i+1
		if neox {
			a, b = i, i+half
		}
		x0, x1 := x[a], x[b]
		x[a] = x0*cos[i] - x1*sin[i]
		x[b] = x0*sin[i] + x1*cos[i]
	}
}

// rmsnorm writes x/√(mean(x²)+eps)·w to out (which may alias x). The sum of
// squares is accumulated in float64, as ggml does.
func rmsnorm(out, x, w []float32, eps float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	scale := float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
	for i, v := range x {
		out[i] = v * scale * w[i]
	}
}

// geluTanh is GELU in its tanh form, 0.5·x·(1+tanh(√(2/π)·(x+0.044715·x³))),
// evaluated the way llama.cpp's CPU backend does, so that Gemma's outputs
// agree with it token for token: the input rounded to f16, the result
// rounded to f16 (ggml reads it from a 65,536-entry f16 table), the
// function taken as 0 below −10 and as x above 10. The exact function
// moves Gemma's first-step probabilities by up to 6e-4 on the gemma3
// fixtures and flips a near-tie greedy step; this form agrees within 1.5e-4.
func geluTanh(x float32) float32 {
	switch {
	case x <= -10:
		return 0
	case x >= 10:
		return x
	}
	const c = 0.7978845608028654 // √(2/π)
	v := tensor.F16ToF32(tensor.F32ToF16(x))
	g := 0.5 * v * (1 + float32(math.Tanh(float64(c*v*(1+0.044715*v*v)))))
	return tensor.F16ToF32(tensor.F32ToF16(g))
}
