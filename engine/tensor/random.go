package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// FillRandom fills dst, whole blocks of type t, with random encoded
// weights: random quants and bits, with every scale field (and every F16,
// BF16 or F32 element) a finite value of about scale in size. Encoding
// random floats with Quantize is exact but slow (the K-quant search takes
// about 0.1 s per million weights); random blocks are instant, which
// benchmarks at 8B-parameter shapes and tests of other decoders (the CUDA
// kernels') need. Same seed, same bytes.
func FillRandom(t Type, dst []byte, seed uint64, scale float64) error {
	bb := t.BlockBytes()
	if !t.Computable() || bb == 0 {
		return fmt.Errorf("tensor: no random blocks of %s", t)
	}
	if len(dst)%bb != 0 {
		return fmt.Errorf("tensor: %d bytes are not whole %s blocks of %d", len(dst), t, bb)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := 0; i+8 <= len(dst); i += 8 {
		u := r.Uint64()
		for k := range 8 {
			dst[i+k] = byte(u >> (8 * k))
		}
	}
	for i := len(dst) &^ 7; i < len(dst); i++ {
		dst[i] = byte(r.Uint32())
	}
	put16 := func(off int) {
		h := F32ToF16(float32(r.NormFloat64() * scale))
		dst[off], dst[off+1] = byte(h), byte(h>>8)
	}
	for o := 0; o < len(dst); o += bb {
		switch t {
		case F32:
			u := math.Float32bits(float32(r.NormFloat64() * scale))
			dst[o], dst[o+1], dst[o+2], dst[o+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		case F16:
			put16(o)
		case BF16:
			u := math.Float32bits(float32(r.NormFloat64()*scale)) >> 16
			dst[o], dst[o+1] = byte(u), byte(u>>8)
		case Q4_0, Q5_0, Q8_0, IQ4_NL, IQ4_XS:
			put16(o)
		case IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S:
			put16(o)
		case Q4_1, Q5_1, Q4_K, Q5_K:
			put16(o)
			put16(o + 2)
		case Q2_K:
			put16(o + 80)
			put16(o + 82)
		case Q3_K:
			put16(o + 108)
		case Q6_K:
			put16(o + 208)
		case IQ1_S:
			put16(o)
		case TQ1_0:
			put16(o + 52)
		case TQ2_0:
			put16(o + 64)
		case IQ1_M:
			// d's four nibbles are the scale words' top nibbles.
			h := F32ToF16(float32(r.NormFloat64() * scale))
			for k := range 4 {
				dst[o+49+2*k] = dst[o+49+2*k]&0x0F | byte(h>>(4*k))<<4
			}
		case MXFP4:
			// An E8M0 exponent whose scale 2^(e−128) is within a factor
			// of 16 of scale (2^(exp−1) ≤ scale < 2^exp).
			_, exp := math.Frexp(scale)
			dst[o] = byte(min(max(127+exp+r.IntN(7)-3, 0), 255))
		default:
			return fmt.Errorf("tensor: no random blocks of %s", t)
		}
	}
	return nil
}
