package tensor

import "math"

// Plain floating-point element types: F32 (4 bytes), F16 and BF16 (2 bytes),
// all little-endian. Decoding is exact; encoding rounds to nearest even.

// dequantF32 copies len(dst) little-endian float32 values out of src.
func dequantF32(dst []float32, src []byte) {
	src = src[:4*len(dst)] // one bounds check here instead of one per element
	for i := range dst {
		b := src[4*i : 4*i+4 : 4*i+4]
		dst[i] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	}
}

// dequantF16 widens len(dst) little-endian IEEE binary16 values from src.
// Normal halves (the common case in weights) are widened inline by rebiasing
// the exponent (15 → 127, i.e. adding 112 to the field); zeros, subnormals,
// Inf and NaN go through F16ToF32. That doubles the speed over calling
// F16ToF32 for every element and gives the same bits.
func dequantF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		h := uint32(src[2*i]) | uint32(src[2*i+1])<<8
		if e := h & 0x7c00; e != 0 && e != 0x7c00 {
			dst[i] = math.Float32frombits((h&0x8000)<<16 | ((h&0x7fff)<<13 + 112<<23))
			continue
		}
		dst[i] = F16ToF32(uint16(h))
	}
}

// dequantBF16 widens len(dst) little-endian bfloat16 values from src.
func dequantBF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits((uint32(src[2*i]) | uint32(src[2*i+1])<<8) << 16)
	}
}

// quantF32 stores src as little-endian float32; it cannot fail.
func quantF32(dst []byte, src []float32) error {
	dst = dst[:4*len(src)]
	for i, v := range src {
		u := math.Float32bits(v)
		b := dst[4*i : 4*i+4 : 4*i+4]
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return nil
}

// quantF16 rounds src to binary16 (ties to even, overflow to ±Inf, as ggml
// and numpy do); it cannot fail.
func quantF16(dst []byte, src []float32) error {
	dst = dst[:2*len(src)]
	for i, v := range src {
		quantStore16(dst[2*i:], F32ToF16(v))
	}
	return nil
}

// quantBF16 rounds src to bfloat16 (ties to even, NaN kept a NaN); it cannot fail.
func quantBF16(dst []byte, src []float32) error {
	dst = dst[:2*len(src)]
	for i, v := range src {
		quantStore16(dst[2*i:], F32ToBF16(v))
	}
	return nil
}
