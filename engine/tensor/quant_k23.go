package tensor

// The 2- and 3-bit K-quants: super-blocks of QKK = 256 weights cut into 16
// sub-blocks of 16 weights, each with its own small scale (ggml-common.h
// block_q2_K, block_q3_K; ggml-quants.c dequantize_row_q2_K/_q3_K).
//
//	Q2_K  (84 bytes): scales[16], qs[64], f16 d, f16 dmin.
//	Q3_K (110 bytes): hmask[32], qs[64], scales[12], f16 d.
//
// Both store the 2 low bits of every weight the same way: the super-block
// is two halves of 128 weights, half h using qs[32h:32h+32]; weight
// 128h + 32j + l (j = 0..3, l = 0..31) is bits 2j..2j+1 of qs[32h+l]. So a
// 32-weight run (one activation block of act) is one bit pair of 32
// consecutive bytes, and its two 16-weight sub-blocks are the bytes' first
// and second sixteen. Weight e uses sub-block scale e/16.
//
// Q2_K: scales[k] holds sub-block k's 4-bit scale in its low nibble and its
// 4-bit min in its high nibble; w = d·sc·q − dmin·m with q in 0..3.
//
// Q3_K: the third bit of weight e is bit e/32 of hmask[e%32], and a clear
// bit subtracts 4, so q = low2 + 4·hbit − 4 is in −4..3; w = d·(s−32)·q with
// the 6-bit scale s of sub-block k packed in scales[12] (see q3KScales).
//
// Decoders round every product to float32 before the subtraction (explicit
// conversions), as quant_k.go does, so the result is the same everywhere.
//
// There are no encoders (Quantize reports the types unsupported): nothing
// in the engine writes them, and llama.cpp's reference encoders are
// iterative scale searches (make_qkx2_quants, make_q3_quants) that only a
// test needing our own Q2_K or Q3_K data would justify porting.

const (
	q2KBytes = 84
	q3KBytes = 110
)

// q3KScales unpacks the sixteen 6-bit Q3_K scales and removes their offset
// of 32. Scale k keeps its low 4 bits in byte k%8 of p (the low nibble for
// k < 8, the high nibble for k ≥ 8) and its top 2 bits in byte 8 + k%4, at
// bits 2·(k/4)..2·(k/4)+1.
func q3KScales(p *[12]byte) (s [16]int8) {
	for k := range 16 {
		lo := p[k%8] >> (4 * (k / 8)) & 0xF
		hi := p[8+k%4] >> (2 * (k / 4)) & 3
		s[k] = int8(lo|hi<<4) - 32
	}
	return s
}

// dequantQ2K decodes len(dst)/256 Q2_K super-blocks from src.
func dequantQ2K(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[q2KBytes]byte)(src[i*q2KBytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[80:82]))
		dmin := F16ToF32(quantLoad16(b[82:84]))
		for e := 0; e < QKK; e += 16 {
			sc := b[e/16]
			dl, ml := d*float32(sc&0xF), dmin*float32(sc>>4)
			q := b[16+32*(e/128)+e%32:]
			shift := 2 * uint(e%128/32)
			for l := range 16 {
				y[e+l] = float32(dl*float32(q[l]>>shift&3)) - ml
			}
		}
	}
}

// dequantQ3K decodes len(dst)/256 Q3_K super-blocks from src.
func dequantQ3K(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[q3KBytes]byte)(src[i*q3KBytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[108:110]))
		s := q3KScales((*[12]byte)(b[96:108]))
		for e := 0; e < QKK; e += 16 {
			dl := d * float32(s[e/16])
			q := b[32+32*(e/128)+e%32:]
			hm := b[e%32:]
			shift, hbit := 2*uint(e%128/32), uint(e/32)
			for l := range 16 {
				v := int32(q[l]>>shift&3) + 4*int32(hm[l]>>hbit&1) - 4
				y[e+l] = dl * float32(v)
			}
		}
	}
}
