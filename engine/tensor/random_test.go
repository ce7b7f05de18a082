package tensor

import (
	"bytes"
	"math"
	"testing"
)

// TestFillRandom: every computable type's random blocks decode to finite
// weights of the asked size, and the same seed gives the same bytes.
func TestFillRandom(t *testing.T) {
	for _, typ := range ComputableTypes() {
		n := 4 * QKK
		b := make([]byte, n/typ.BlockLen()*typ.BlockBytes())
		if err := FillRandom(typ, b, 7, 0.01); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		w := make([]float32, n)
		if err := Dequantize(typ, w, b); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		var big float64
		for _, v := range w {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%v: a random block decodes to %v", typ, v)
			}
			big = max(big, math.Abs(float64(v)))
		}
		// Scales of about 0.01 times quants of at most 127 (IQ4's levels).
		if big == 0 || big > 0.01*8*128*64 {
			t.Errorf("%v: largest weight %g", typ, big)
		}
		c := make([]byte, len(b))
		FillRandom(typ, c, 7, 0.01)
		if !bytes.Equal(b, c) {
			t.Errorf("%v: the same seed gave other bytes", typ)
		}
	}
	if err := FillRandom(Q8_1, make([]byte, 36), 1, 1); err == nil {
		t.Error("Q8_1 random blocks were made; this engine cannot compute with them")
	}
	if err := FillRandom(Q8_0, make([]byte, 35), 1, 1); err == nil {
		t.Error("35 bytes of Q8_0 were accepted")
	}
}
