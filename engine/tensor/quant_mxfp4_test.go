package tensor

import (
	"math"
	"testing"
)

// TestMXFP4Codec pins the block layout by hand-built blocks (exponent
// byte first, weight j in the low nibble of byte 1+j, weight j+16 in its
// high nibble; values the doubled E2M1 table times 2^(e−128)) and checks
// that the encoder's output decodes to the nearest representable value.
func TestMXFP4Codec(t *testing.T) {
	blk := make([]byte, mxfp4Bytes)
	blk[0] = 128 // 2^(128−128) = 1: the doubled values themselves
	for j := range 16 {
		blk[1+j] = byte(j) | byte(15-j)<<4
	}
	got := make([]float32, QK)
	if err := Dequantize(MXFP4, got, blk); err != nil {
		t.Fatal(err)
	}
	for j := range 16 {
		if got[j] != float32(mxfp4Values[j]) || got[j+16] != float32(mxfp4Values[15-j]) {
			t.Fatalf("weight %d/%d: %v %v, want %v %v", j, j+16, got[j], got[j+16], mxfp4Values[j], mxfp4Values[15-j])
		}
	}
	for e, want := range map[uint8]float32{0: 0x1p-128, 1: 0x1p-127, 2: 0x1p-126, 127: 0.5, 128: 1, 130: 4, 254: 0x1p126} {
		if g := E8M0Half(e); g != want {
			t.Errorf("E8M0Half(%d) = %g, want %g", e, g, want)
		}
	}

	src := make([]float32, 4*QK)
	for i := range src {
		src[i] = float32(math.Sin(float64(i)*0.37)) * float32(1+i/QK*3)
	}
	src[QK+5] = 0 // a zero among others
	for i := range QK {
		src[3*QK+i] = 0 // an all-zero block
	}
	enc := make([]byte, 4*mxfp4Bytes)
	if err := Quantize(MXFP4, enc, src); err != nil {
		t.Fatal(err)
	}
	dec := make([]float32, len(src))
	if err := Dequantize(MXFP4, dec, enc); err != nil {
		t.Fatal(err)
	}
	for i, x := range src {
		d := E8M0Half(enc[i/QK*mxfp4Bytes])
		for _, v := range mxfp4Values {
			if e := float32(math.Abs(float64(float32(v)*d - x))); e < float32(math.Abs(float64(dec[i]-x))) {
				t.Fatalf("weight %d = %v decodes to %v, but %v is nearer", i, x, dec[i], float32(v)*d)
			}
		}
	}
	if enc[3*mxfp4Bytes] != 0 {
		t.Errorf("an all-zero block stores exponent %d, want 0", enc[3*mxfp4Bytes])
	}
	// The largest weight of a block lands on the top magnitudes (8 or 12
	// of the doubled table): the exponent is ⌊log₂ amax⌋ − 2 + 127.
	amax := float32(0)
	for _, v := range src[:QK] {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	if r := amax / E8M0Half(enc[0]); r < 8 || r >= 16 {
		t.Errorf("block 0: amax/scale = %v, want [8, 16)", r)
	}
	src[7] = float32(math.NaN())
	if err := Quantize(MXFP4, enc, src); err == nil {
		t.Error("NaN input quantised without an error")
	}
}
