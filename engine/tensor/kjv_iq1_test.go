package tensor_test

import (
	"math"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The KJV model quantised by llama.cpp into IQ1_S, IQ1_M, TQ1_0 and TQ2_0
// (shared/fixtures/quants2/README.md). The IQ1 files also hold IQ2_XXS,
// Q2_K and Q5_K tensors; kjvCompareOnly checks the IQ1 ones (and the Q2_K
// and Q5_K) and skips the rest. Measured (relative RMS against
// kjv-f16.gguf, mean / max over the tensors of each type):
//
//	IQ1_S (1.5625 bits/weight, 30)  49.16 % / 52.68 %  → bound 58 %
//	IQ1_M (1.75 bits/weight, 30)    45.84 % / 49.23 %  → bound 55 %
//	TQ1_0, TQ2_0 (42 each)          80.73 % / 82.29 %  → bound 90 %
//
// The ternary types keep one scale per 256 weights and every weight in
// −1, 0, +1, so a model not trained ternary loses most of its weights to
// zero; the two files hold the same ternary weights, and every TQ1_0
// tensor decodes equal to its TQ2_0 twin, value for value. The bounds
// leave ~10 % headroom (the slips sit close above these types' large
// errors). Decoding with plausible slips measured: the IQ1_S δ sign
// inverted 62.9 % mean (66.9 % max), its scale read one bit high 60.0 %
// (66.2 %); IQ1_M's δ sign inverted 61.7 % (64.8 %), its two per-16 scales
// swapped 60.1 % (67.4 %); the grid's bytes in reverse order 146–150 %;
// TQ2_0's bit pairs reversed 147 %, TQ1_0's trits reversed 118 % (and
// both then differ from their twins).
const kjvQuants2Dir = "../quants2/"

// kjvCompareOnly is kjvCompare for files with types this package does not
// decode: only the tensors of the types in bounds are dequantised and
// compared; want counts the tensors of those types.
func kjvCompareOnly(t *testing.T, file, refFile string, bounds map[tensor.Type]float64, want map[tensor.Type]int) map[tensor.Type][2]float64 {
	t.Helper()
	f := kjvOpen(t, file)
	ref := kjvOpen(t, refFile)
	n := map[tensor.Type]int{}
	stats := map[tensor.Type][2]float64{} // mean, max
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		bound, ok := bounds[ti.Type]
		if !ok {
			continue
		}
		ri, ok := ref.Tensor(ti.Name)
		if !ok {
			t.Fatalf("%s: tensor %s not in %s", file, ti.Name, refFile)
		}
		r := kjvRelRMS(kjvDequant(t, f, ti), kjvDequant(t, ref, ri))
		if r > bound || math.IsNaN(r) {
			t.Errorf("%s: %s (%v, dims %v): relative RMS error %.4f vs %s exceeds %.3f", file, ti.Name, ti.Type, ti.Dims, r, refFile, bound)
		}
		n[ti.Type]++
		s := stats[ti.Type]
		s[0] += r
		s[1] = max(s[1], r)
		stats[ti.Type] = s
	}
	for ty, s := range stats {
		s[0] /= float64(n[ty])
		stats[ty] = s
		t.Logf("%s: %2d × %-5v rel RMS vs %s: mean %.3f%%, max %.3f%%", file, n[ty], ty, refFile, 100*s[0], 100*s[1])
	}
	for ty, w := range want {
		if n[ty] != w {
			t.Errorf("%s: %d tensors of type %v, want %d", file, n[ty], ty, w)
		}
	}
	return stats
}

func TestKJVIQ1(t *testing.T) {
	s := kjvCompareOnly(t, kjvQuants2Dir+"kjv-iq1_s.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.IQ1_S: 0.58, tensor.Q2_K: 0.37, tensor.Q5_K: 0.045},
		map[tensor.Type]int{tensor.IQ1_S: 30, tensor.Q2_K: 6, tensor.Q5_K: 1})
	m := kjvCompareOnly(t, kjvQuants2Dir+"kjv-iq1_m.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.IQ1_M: 0.55, tensor.Q2_K: 0.37, tensor.Q5_K: 0.045},
		map[tensor.Type]int{tensor.IQ1_M: 30, tensor.Q2_K: 6, tensor.Q5_K: 1})
	if !(s[tensor.IQ1_S][0] > m[tensor.IQ1_M][0]) {
		t.Errorf("IQ1_S mean error %.4f is not above IQ1_M's %.4f", s[tensor.IQ1_S][0], m[tensor.IQ1_M][0])
	}
}

func TestKJVTQ(t *testing.T) {
	kjvCompareOnly(t, kjvQuants2Dir+"kjv-tq1_0.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.TQ1_0: 0.9, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.TQ1_0: 42, tensor.Q6_K: 1})
	kjvCompareOnly(t, kjvQuants2Dir+"kjv-tq2_0.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.TQ2_0: 0.9, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.TQ2_0: 42, tensor.Q6_K: 1})
	// The same ternary weights packed two ways: llama.cpp quantises both
	// from f16 with the same rule, so every TQ1_0 tensor must decode to
	// the values of its TQ2_0 twin.
	f1 := kjvOpen(t, kjvQuants2Dir+"kjv-tq1_0.gguf")
	f2 := kjvOpen(t, kjvQuants2Dir+"kjv-tq2_0.gguf")
	same := 0
	for i := range f1.Tensors {
		ti := &f1.Tensors[i]
		if ti.Type != tensor.TQ1_0 {
			continue
		}
		t2, ok := f2.Tensor(ti.Name)
		if !ok || t2.Type != tensor.TQ2_0 {
			t.Fatalf("%s is not TQ2_0 in kjv-tq2_0.gguf", ti.Name)
		}
		a, b := kjvDequant(t, f1, ti), kjvDequant(t, f2, t2)
		diff := 0
		for j := range a {
			if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
				diff++
			}
		}
		if diff != 0 {
			t.Errorf("%s: %d of %d TQ1_0 values differ from TQ2_0's", ti.Name, diff, len(a))
		} else {
			same++
		}
	}
	t.Logf("%d TQ1_0 tensors decode equal to their TQ2_0 twins", same)
}
