package tensor

import (
	"fmt"
	"math"
)

// MXFP4 (17 bytes per 32 weights), ggml's block_mxfp4 and the OCP
// microscaling format gpt-oss ships its experts in:
//
//	e  uint8     E8M0 shared exponent: the block's scale is 2^(e−127)
//	qs [16]byte  4-bit E2M1 codes, weight j in the low nibble of qs[j],
//	             weight j+16 in the high nibble (Q4_0's interleave)
//
// An E2M1 code is a sign bit and three bits indexing the magnitudes
// {0, 0.5, 1, 1.5, 2, 3, 4, 6}. ggml stores them doubled, as the signed
// bytes of mxfp4Values, and halves the scale instead
// (GGML_E8M0_TO_FP32_HALF): w = mxfp4Values[q] · 2^(e−128). The doubled
// values are integers, so a product with 8-bit activations is an integer
// dot product, as for IQ4_NL.
const mxfp4Bytes = 17

// mxfp4Values are ggml's kvalues_mxfp4: the E2M1 values doubled.
var mxfp4Values = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// mxfp4Value is mxfp4Values[q&15] without reading package state (the
// array is never written; the accessor keeps the hot loops bound-check
// free).
func mxfp4Value(q byte) int8 { return mxfp4Values[q&15] }

// E8M0Half is ggml's GGML_E8M0_TO_FP32_HALF: half the scale an E8M0
// exponent e stands for, 2^(e−128), exactly (e < 2 gives the subnormals
// 2^−128 and 2^−127).
func E8M0Half(e uint8) float32 {
	if e < 2 {
		return math.Float32frombits(0x00200000 << e)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

// dequantMXFP4 decodes len(dst)/32 MXFP4 blocks from src.
func dequantMXFP4(dst []float32, src []byte) {
	for i := range len(dst) / QK {
		b := (*[mxfp4Bytes]byte)(src[i*mxfp4Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := E8M0Half(b[0])
		for j, q := range b[1:] {
			y[j] = float32(mxfp4Value(q)) * d
			y[j+QK/2] = float32(mxfp4Value(q>>4)) * d
		}
	}
}

// quantMXFP4 encodes src as ggml's quantize_row_mxfp4_ref does: the block's
// exponent is e = ⌊log₂ amax⌋ − 2 + 127 (so that amax/2^(e−128) lies in
// [8, 16) and the largest doubled value 12 covers it), and each weight the
// nearest of the 16 values scaled by 2^(e−128), the first on a tie. ggml
// takes ⌊log₂⌋ of a float32 log2f; here it is the exact binary exponent,
// which differs only for an amax within a float32 ulp below a power of two
// (both encodings are valid; ggml's is then the coarser). An all-zero
// block stores e = 0. NaN or ±Inf input fails.
func quantMXFP4(dst []byte, src []float32) error {
	for i := range len(src) / QK {
		x := (*[QK]float32)(src[i*QK:])
		b := (*[mxfp4Bytes]byte)(dst[i*mxfp4Bytes:])
		amax := float32(0)
		for _, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("block %d holds %v", i, v)
			}
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		e := 0
		if amax > 0 {
			_, exp := math.Frexp(float64(amax)) // amax = f·2^exp, f in [0.5, 1)
			e = min(max(exp-1-2+127, 0), 254)
		}
		b[0] = uint8(e)
		d := E8M0Half(uint8(e))
		for j := range QK / 2 {
			b[1+j] = mxfp4Best(x[j], d) | mxfp4Best(x[j+QK/2], d)<<4
		}
	}
	return nil
}

// mxfp4Best is ggml's best_index_mxfp4: the code whose scaled value is
// nearest to x, the lowest code on a tie.
func mxfp4Best(x, d float32) byte {
	best, bestErr := 0, float32(math.Abs(float64(float32(mxfp4Values[0])*d-x)))
	for q := 1; q < 16; q++ {
		if err := float32(math.Abs(float64(float32(mxfp4Values[q])*d - x))); err < bestErr {
			best, bestErr = q, err
		}
	}
	return byte(best)
}
