package tensor_test

import (
	"bytes"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// The KJV model re-quantised by llama.cpp's llama-quantize from kjv-f16.gguf
// into Q4_1, Q5_0, Q5_1 and IQ4_NL (shared/fixtures/quants/README.md): every
// weight matrix in the file's type except token_embd, the tied output matrix,
// which llama.cpp keeps at Q6_K. kjvCompare (kjv_test.go) dequantises each
// tensor and compares it with kjv-f16.gguf; a missing file fails the test.
//
// The quants directory is a sibling of kjvDir, so the names below are
// relative to it.
const kjvQuantsDir = "../quants/"

// Measured relative RMS error against kjv-f16.gguf (mean / max over the 42
// matrices of each file's type; token_embd is Q6_K in all four files):
//
//	IQ4_NL (4.5 bits/weight)  7.60 % / 7.72 %  → bound 9.6 %
//	Q4_1   (5.0 bits/weight)  7.80 % / 8.04 %  → bound 10 %
//	Q5_0   (5.5 bits/weight)  4.25 % / 4.43 %  → bound 5.5 %
//	Q5_1   (6.0 bits/weight)  3.78 % / 3.87 %  → bound 4.8 %
//	Q6_K   (token_embd)       1.70 %           → bound 2.25 % (as in kjv_test.go)
//
// (For comparison, kjv-q4_0.gguf's Q4_0 matrices measure 8.57 % / 8.87 %.)
// Q4_1's min costs half a bit over Q4_0 and gains little; IQ4_NL's levels,
// denser near zero, beat both with fewer bits; the fifth bit halves the error.
// As for the K-quants, the bounds leave ~25 % headroom over the worst tensor
// and stay far below the ~100 % of a wrong layout.
func TestKJVQ4_1(t *testing.T) {
	kjvCompare(t, kjvQuantsDir+"kjv-q4_1.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.Q4_1: 0.10, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.Q4_1: 42, tensor.Q6_K: 1, tensor.F32: 13})
}

func TestKJVQ5_0(t *testing.T) {
	kjvCompare(t, kjvQuantsDir+"kjv-q5_0.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.Q5_0: 0.055, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.Q5_0: 42, tensor.Q6_K: 1, tensor.F32: 13})
}

func TestKJVQ5_1(t *testing.T) {
	kjvCompare(t, kjvQuantsDir+"kjv-q5_1.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.Q5_1: 0.048, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.Q5_1: 42, tensor.Q6_K: 1, tensor.F32: 13})
}

func TestKJVIQ4NL(t *testing.T) {
	kjvCompare(t, kjvQuantsDir+"kjv-iq4_nl.gguf", "kjv-f16.gguf",
		map[tensor.Type]float64{tensor.IQ4_NL: 0.096, tensor.Q6_K: 0.0225},
		map[tensor.Type]int{tensor.IQ4_NL: 42, tensor.Q6_K: 1, tensor.F32: 13})
}

// TestKJVLegacyQuantizeMatchesFiles re-encodes the f16 weights with this
// package's Q4_1, Q5_0 and Q5_1 encoders and requires the exact bytes
// llama-quantize wrote (it runs ggml's reference quantisers when given no
// importance matrix). This pins the encoders, and with them every field of
// the three block layouts, to ggml's bit for bit: 147,456 blocks per file.
func TestKJVLegacyQuantizeMatchesFiles(t *testing.T) {
	ref := kjvOpen(t, "kjv-f16.gguf")
	for _, c := range []struct {
		file string
		ty   tensor.Type
	}{{"kjv-q4_1.gguf", tensor.Q4_1}, {"kjv-q5_0.gguf", tensor.Q5_0}, {"kjv-q5_1.gguf", tensor.Q5_1}} {
		f := kjvOpen(t, kjvQuantsDir+c.file)
		checked := 0
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			if ti.Type != c.ty {
				continue
			}
			ri, ok := ref.Tensor(ti.Name)
			if !ok {
				t.Fatalf("%s: no tensor %s in kjv-f16.gguf", c.file, ti.Name)
			}
			buf := make([]byte, ti.Size)
			if err := tensor.Quantize(c.ty, buf, kjvDequant(t, ref, ri)); err != nil {
				t.Fatalf("%s: Quantize %s: %v", c.file, ti.Name, err)
			}
			if want := f.TensorData(ti); !bytes.Equal(buf, want) {
				j := 0
				for buf[j] == want[j] {
					j++
				}
				t.Errorf("%s: %s: our %v encoding differs from the file at byte %d of %d", c.file, ti.Name, c.ty, j, len(buf))
			}
			checked++
		}
		if checked != 42 {
			t.Errorf("%s: %d %v tensors checked, want 42", c.file, checked, c.ty)
		}
	}
}
