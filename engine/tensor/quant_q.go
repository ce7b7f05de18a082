package tensor

import "math"

// Legacy ggml quants: blocks of QK = 32 weights with one float16 scale.
//
//	Q4_0 (18 bytes): f16 d, then qs[16]. Byte j holds weight j in its low
//	                 nibble and weight j+16 in its high nibble; w = d*(q-8).
//	Q8_0 (34 bytes): f16 d, then int8 qs[32]; w = d*q.
//
// (ggml-common.h block_q4_0 / block_q8_0; dequantize_row_q4_0 / _q8_0.)

const (
	q4_0Bytes = 18
	q8_0Bytes = 34
)

// dequantQ4_0 decodes len(dst)/32 Q4_0 blocks from src.
func dequantQ4_0(dst []float32, src []byte) {
	nb := len(dst) / QK
	for i := 0; i < nb; i++ {
		b := (*[q4_0Bytes]byte)(src[i*q4_0Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j := 0; j < QK/2; j++ {
			q := b[2+j]
			y[j] = d * float32(int32(q&0xF)-8)
			y[j+QK/2] = d * float32(int32(q>>4)-8)
		}
	}
}

// dequantQ8_0 decodes len(dst)/32 Q8_0 blocks from src.
func dequantQ8_0(dst []float32, src []byte) {
	nb := len(dst) / QK
	for i := 0; i < nb; i++ {
		b := (*[q8_0Bytes]byte)(src[i*q8_0Bytes:])
		y := (*[QK]float32)(dst[i*QK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for j := 0; j < QK; j++ {
			y[j] = d * float32(int8(b[2+j]))
		}
	}
}

// quantQ4_0 encodes src as Q4_0 exactly as ggml's quantize_row_q4_0_ref does:
// the element of largest magnitude (the first one on a tie), with its sign,
// sets d = max/-8, so it lands exactly on q = 0 (-8·d) and the opposite side
// gets the extra level: q = min(15, trunc(x/d + 8.5)).
//
// Error per element, with d' = float16(d): |x - d'(q-8)| ≤ |d|/2 + 8|d - d'|
// for x/d ≤ 7.5, but up to |d| for the values on the far side of the extreme
// (x/d in (7.5, 8]) that clamp to q = 15, i.e. the bound is
// |d|·(1 + 8·2⁻¹¹) in general and |d|·(1/2 + 8·2⁻¹¹) away from that edge.
func quantQ4_0(dst []byte, src []float32) error {
	nb := len(src) / QK
	for i := 0; i < nb; i++ {
		x := (*[QK]float32)(src[i*QK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		dh, id, err := quantSymScale(x[:], 8, i)
		if err != nil {
			return err
		}
		b := (*[q4_0Bytes]byte)(dst[i*q4_0Bytes:])
		quantStore16(b[0:2], dh)
		for j := 0; j < QK/2; j++ {
			b[2+j] = q4_0Level(x[j], id) | q4_0Level(x[j+QK/2], id)<<4
		}
	}
	return nil
}

// q4_0Level returns ggml's 4-bit level for x at inverse scale id. The
// explicit float32 conversion stops the compiler fusing x*id+8.5 into an FMA,
// which would round differently from ggml's reference on rare inputs.
func q4_0Level(x, id float32) byte {
	v := int32(float32(x*id) + 8.5) // truncation, as C's (int8_t) cast
	if v > 15 {
		v = 15
	}
	if v < 0 {
		v = 0
	}
	return byte(v)
}

// quantQ8_0 encodes src as Q8_0 exactly as ggml's quantize_row_q8_0_ref does:
// d = max|x|/127, q = round(x/d) half away from zero (C roundf), computed
// with the unrounded float32 d while float16(d) is stored.
//
// Error per element, with d' = float16(d): |x - d'q| ≤ |x - dq| + |q|·|d-d'|
// ≤ d/2 + 127·d·2⁻¹¹ ≈ 0.562·d. The second term is float16's relative
// rounding error (2⁻¹¹ for normal d) times the largest |q|.
func quantQ8_0(dst []byte, src []float32) error {
	nb := len(src) / QK
	for i := 0; i < nb; i++ {
		x := (*[QK]float32)(src[i*QK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		d, id := q8_0Scale(x)
		dh, err := quantScaleF16(d, i)
		if err != nil {
			return err
		}
		q8_0Block((*[q8_0Bytes]byte)(dst[i*q8_0Bytes:]), dh, x, id)
	}
	return nil
}

// q8_0Scale is a Q8_0 block's scale d = max|x|/127 and its inverse (0 for
// an all-zero block), as ggml's reference computes them.
func q8_0Scale(x *[QK]float32) (d, id float32) {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	d = amax / 127
	if d != 0 {
		id = 1 / d
	}
	return d, id
}

// q8_0Block writes the block: the f16 scale dh, then q = round(x·id) half
// away from zero (C roundf), clamped to ±127.
func q8_0Block(b *[q8_0Bytes]byte, dh uint16, x *[QK]float32, id float32) {
	quantStore16(b[0:2], dh)
	for j, v := range x {
		q := math.Round(float64(float32(v * id))) // round the product to float32 first, as C does
		q = math.Max(-127, math.Min(127, q))
		b[2+j] = byte(int8(q))
	}
}
