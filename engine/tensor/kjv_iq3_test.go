package tensor_test

import (
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The KJV model quantised by llama.cpp with an importance matrix into its
// IQ3_XXS and IQ3_S mixes (shared/fixtures/quants2/README.md). Their other
// tensors are of types this test is not about (IQ2_S, Q5_K, Q6_K), so
// kjvCompareIQ3 dequantises only the tensors of the types named, against
// the same tensors of kjv-f16.gguf.
//
// Measured relative RMS error (mean / max over each type's matrices):
//
//	IQ3_XXS (3.06 bits/weight, 24, iq3_xxs)  18.48 % / 19.53 %  → bound 24.5 %
//	IQ3_S   (3.44 bits/weight, 6, iq3_xxs)   13.70 % / 13.89 %  → bound 18 %
//	        (42, iq3_s)                      13.80 % / 14.52 %
//
// IQ3_S, with twice IQ3_XXS's codebook and plain sign bits, sits by Q3_K
// (15.1 %, kjv_k23_test.go) at the same 3.44 bits. The bounds leave ~25 %
// headroom over the worst matrix, as for the other types. Layout slips
// measured far above them: the grid entry's bytes in reverse order
// 85–89 %, the sign bits in reverse order 141–145 %, IQ3_XXS's eighth
// (parity) sign dropped 54–56 %, IQ3_S's ninth index bit dropped 61–62 %
// and its scale nibbles swapped 33–38 %. One slip stays inside: IQ3_XXS's
// scale taken as d·s/2 instead of d·(s + 1/2)/2 measures 18.37 %, a hair
// better than llama.cpp's own (its scales are fitted under the importance
// matrix, not for this plain RMS), so TestDequantIQ3Hand pins the scales.
const kjvIQ3Dir = "../quants2/"

// kjvCompareIQ3 checks the tensors of file whose types are in bounds, and
// that file holds want[type] of each.
func kjvCompareIQ3(t *testing.T, file string, bounds map[tensor.Type]float64, want map[tensor.Type]int) {
	f := kjvOpen(t, file)
	ref := kjvOpen(t, "kjv-f16.gguf")
	got := map[tensor.Type]int{}
	sum, worst := map[tensor.Type]float64{}, map[tensor.Type]float64{}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		bound, ok := bounds[ti.Type]
		if !ok {
			continue
		}
		ri, ok := ref.Tensor(ti.Name)
		if !ok || !slices.Equal(ti.Dims, ri.Dims) {
			t.Fatalf("%s: tensor %s (dims %v) has no match in kjv-f16.gguf", file, ti.Name, ti.Dims)
		}
		r := kjvRelRMS(kjvDequant(t, f, ti), kjvDequant(t, ref, ri))
		got[ti.Type]++
		sum[ti.Type] += r
		worst[ti.Type] = max(worst[ti.Type], r)
		if r > bound {
			t.Errorf("%s: %s (%v): relative RMS error %.4f exceeds %.3f", file, ti.Name, ti.Type, r, bound)
		}
	}
	for ty, n := range want {
		if got[ty] != n {
			t.Errorf("%s: %d tensors of type %v, want %d", file, got[ty], ty, n)
			continue
		}
		t.Logf("%s: %2d × %-7v rel RMS vs kjv-f16.gguf: mean %.3f%%, max %.3f%%", file, n, ty, 100*sum[ty]/float64(n), 100*worst[ty])
	}
}

func TestKJVIQ3XXS(t *testing.T) {
	kjvCompareIQ3(t, kjvIQ3Dir+"kjv-iq3_xxs.gguf",
		map[tensor.Type]float64{tensor.IQ3_XXS: 0.245, tensor.IQ3_S: 0.18},
		map[tensor.Type]int{tensor.IQ3_XXS: 24, tensor.IQ3_S: 6})
}

func TestKJVIQ3S(t *testing.T) {
	kjvCompareIQ3(t, kjvIQ3Dir+"kjv-iq3_s.gguf",
		map[tensor.Type]float64{tensor.IQ3_S: 0.18},
		map[tensor.Type]int{tensor.IQ3_S: 42})
}
