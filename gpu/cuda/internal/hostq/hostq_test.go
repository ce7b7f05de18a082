package hostq

import (
	"math"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestDecodersMatchEngine decodes random rows of every type with the
// kernels' decoders and with engine/tensor's, and wants the same bits: the
// two are written independently (32-weight units against whole blocks).
func TestDecodersMatchEngine(t *testing.T) {
	if !Available {
		t.Skip("built without cgo: the host harness of the kernels' decoders needs a C compiler")
	}
	const cols = 512
	for _, typ := range tensor.ComputableTypes() { // every type the CPU engine computes with
		if BlockBytes(typ) != typ.BlockBytes() || BlockLen(typ) != typ.BlockLen() {
			t.Errorf("%v: kernels say blocks of %d weights in %d bytes, the engine %d in %d", typ, BlockLen(typ), BlockBytes(typ), typ.BlockLen(), typ.BlockBytes())
			continue
		}
		for trial := range 20 {
			row := make([]byte, cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, row, uint64(trial), 0.05); err != nil {
				t.Fatal(err)
			}
			want := make([]float32, cols)
			if err := tensor.Dequantize(typ, want, row); err != nil {
				t.Fatalf("%v: engine: %v", typ, err)
			}
			got, err := DecodeRow(typ, row, cols)
			if err != nil {
				t.Fatalf("%v: %v", typ, err)
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
					t.Fatalf("%v trial %d: weight %d (unit %d) decodes to %g, the engine's to %g", typ, trial, i, i/32, got[i], want[i])
				}
			}
		}
	}
}

// TestUnknownType: a type the kernels do not decode is an error, not zeros.
func TestUnknownType(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	if _, err := DecodeRow(tensor.IQ2_XXS, make([]byte, 1024), 256); err == nil {
		t.Fatal("IQ2_XXS decoded; the kernels have no decoder for it")
	}
}
