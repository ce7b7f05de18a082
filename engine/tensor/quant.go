package tensor

import (
	"fmt"
	"math"
)

// This file holds the exported entry points that convert between float32 and
// the stored element types. The per-type codecs live in quant_float.go (F32,
// F16, BF16), quant_q.go (Q4_0, Q8_0) and quant_k.go (Q4_K, Q5_K, Q6_K).
// quant_legacy.go has Q4_1, Q5_0, Q5_1 and IQ4_NL (whose encoder is absent).
// quant_k23.go has Q2_K and Q3_K, quant_iq4xs.go IQ4_XS (decoders only),
// quant_mxfp4.go MXFP4.
//
// Every unexported dequantiser has the signature func(dst []float32, src
// []byte): it decodes len(dst)/BlockLen whole blocks from the front of src and
// does no length checking, so the hot loops carry no error paths. Dequantize is
// the checked wrapper. The quantisers are func(dst []byte, src []float32) error
// with the same convention; they return an error only for values the format
// cannot hold (non-finite input, a block scale beyond the float16 range).

// dequantFunc returns the decoder for t, or nil if t cannot be dequantised.
// A switch rather than a table keeps the package free of mutable state.
func dequantFunc(t Type) func(dst []float32, src []byte) {
	switch t {
	case F32:
		return dequantF32
	case F16:
		return dequantF16
	case BF16:
		return dequantBF16
	case Q4_0:
		return dequantQ4_0
	case Q8_0:
		return dequantQ8_0
	case Q4_1:
		return dequantQ4_1
	case Q5_0:
		return dequantQ5_0
	case Q5_1:
		return dequantQ5_1
	case IQ4_NL:
		return dequantIQ4NL
	case Q4_K:
		return dequantQ4K
	case Q5_K:
		return dequantQ5K
	case Q6_K:
		return dequantQ6K
	case Q2_K:
		return dequantQ2K
	case Q3_K:
		return dequantQ3K
	case IQ4_XS:
		return dequantIQ4XS
	case IQ3_XXS:
		return dequantIQ3XXS
	case IQ3_S:
		return dequantIQ3S
	case IQ1_S:
		return dequantIQ1S
	case IQ1_M:
		return dequantIQ1M
	case TQ1_0:
		return dequantTQ1
	case TQ2_0:
		return dequantTQ2
	case MXFP4:
		return dequantMXFP4
	case IQ2_XXS:
		return dequantIQ2XXS
	case IQ2_XS:
		return dequantIQ2XS
	case IQ2_S:
		return dequantIQ2S
	}
	return nil
}

// quantFunc returns the encoder for t, or nil if this package cannot write t.
func quantFunc(t Type) func(dst []byte, src []float32) error {
	switch t {
	case F32:
		return quantF32
	case F16:
		return quantF16
	case BF16:
		return quantBF16
	case Q4_0:
		return quantQ4_0
	case Q8_0:
		return quantQ8_0
	case Q4_1:
		return quantQ4_1
	case Q5_0:
		return quantQ5_0
	case Q5_1:
		return quantQ5_1
	case Q4_K:
		return quantQ4K
	case Q5_K:
		return quantQ5K
	case Q6_K:
		return quantQ6K
	case MXFP4:
		return quantMXFP4
	}
	return nil
}

// quantCheckSizes verifies that n elements of t occupy exactly nbytes bytes.
// op names the caller for the error message.
func quantCheckSizes(op string, t Type, n, nbytes int) error {
	want, err := t.RowBytes(uint64(n))
	if err != nil {
		return fmt.Errorf("%s %v: %w", op, t, err)
	}
	if uint64(nbytes) != want {
		return fmt.Errorf("%s %v: %d elements need %d bytes, got %d", op, t, n, want, nbytes)
	}
	return nil
}

// Dequantize decodes len(dst) elements of type t from src, which must hold
// exactly RowBytes(len(dst)) bytes of t (so len(dst) must be a whole number of
// blocks). It fails, writing nothing, on a type this package cannot decode or
// on any length mismatch. The decoding is bit-exact with ggml's reference
// dequantisers except that products are never fused into FMAs, so the result
// is the same on every platform.
func Dequantize(t Type, dst []float32, src []byte) error {
	fn := dequantFunc(t)
	if fn == nil {
		return fmt.Errorf("dequantize: unsupported type %v", t)
	}
	if err := quantCheckSizes("dequantize", t, len(dst), len(src)); err != nil {
		return err
	}
	fn(dst, src)
	return nil
}

// Quantize encodes src, a whole number of blocks of t, into dst, which must be
// exactly RowBytes(len(src)) bytes long. F32, F16 and BF16 are plain
// conversions (round to nearest even; NaN and ±Inf are kept). Q4_0, Q4_1,
// Q5_0, Q5_1 and Q8_0 follow ggml's reference quantisers; Q4_K, Q5_K and
// Q6_K use this package's own error-minimising search (see quant_k.go), whose
// output is valid ggml data but not byte-identical to llama.cpp's. IQ4_NL
// has no encoder. For the block types Quantize fails on NaN or ±Inf input
// and when a block's scale does not fit in float16, because either would
// silently store garbage; dst may then be partly written.
func Quantize(t Type, dst []byte, src []float32) error {
	fn := quantFunc(t)
	if fn == nil {
		return fmt.Errorf("quantize: unsupported type %v", t)
	}
	if err := quantCheckSizes("quantize", t, len(src), len(dst)); err != nil {
		return err
	}
	if err := fn(dst, src); err != nil {
		return fmt.Errorf("quantize %v: %w", t, err)
	}
	return nil
}

// quantLoad16 reads a little-endian uint16 at b[0:2].
func quantLoad16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

// quantStore16 writes v little-endian to b[0:2].
func quantStore16(b []byte, v uint16) {
	b[0] = byte(v)
	b[1] = byte(v >> 8)
}

// quantCheckFinite returns an error naming the block if x holds a NaN or ±Inf.
func quantCheckFinite(x []float32, block int) error {
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("block %d: element %d is %v", block, i, v)
		}
	}
	return nil
}

// quantScaleF16 rounds a block scale to float16, failing if it overflows to
// ±Inf (the block's values are too large for the format).
func quantScaleF16(s float32, block int) (uint16, error) {
	h := F32ToF16(s)
	if h&0x7fff == 0x7c00 {
		return 0, fmt.Errorf("block %d: scale %g overflows float16", block, s)
	}
	return h, nil
}

// quantSymScale is the scale of a symmetric block (Q4_0, Q5_0), as ggml's
// reference encoders choose it: d = extreme/−levels, where extreme is the
// value of largest magnitude (its sign kept, so that it lands on the
// lowest level exactly), stored as f16, with id = 1/d (0 for an all-zero
// block) taken from the unrounded d, as ggml does.
func quantSymScale(x []float32, levels float32, block int) (dh uint16, id float32, err error) {
	var amax, extreme float32
	for _, v := range x {
		if a := abs32(v); a > amax {
			amax, extreme = a, v
		}
	}
	d := extreme / -levels
	if d != 0 {
		id = 1 / d
	}
	dh, err = quantScaleF16(d, block)
	return dh, id, err
}
