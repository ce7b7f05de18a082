package tensor

// Portable dot products for Q4_1, Q5_0, Q5_1, IQ4_NL and MXFP4 (layouts in
// quant_legacy.go, quant_mxfp4.go). Like dot_go.go's, each keeps the weights' integer codes
// and meets the 8-bit activation codes in an exact int32 sum per 32-block,
// then applies the block's float scales once, with the arithmetic of the
// AVX2 kernels of dot_legacy_amd64.s: d·dx·Σq·xq per block into one
// accumulator, the offset terms (m, or d to be taken 16 times, times the
// activation block sum a.s) into a second, combined at the end. Only the
// order of the float additions differs, so the two agree to float rounding.

// Q4_1: w = d·q + m, so Σw·x = d·dx·Σq·xq + m·(dx·Σxq), and dx·Σxq is a.s.
func dotQ4_1Go(w []byte, _ []float32, a act) float32 {
	var acc, accMin float32
	for b := range len(a.d) {
		blk := w[b*q4_1Bytes : b*q4_1Bytes+q4_1Bytes]
		xq := a.qs[b*QK : b*QK+QK]
		var sum int32
		for j, q := range blk[4:] {
			sum += int32(q&15)*int32(xq[j]) + int32(q>>4)*int32(xq[j+16])
		}
		acc += f16At(blk, 0) * a.d[b] * float32(sum)
		accMin += f16At(blk, 2) * a.s[b]
	}
	return acc + accMin
}

// Q5_0: w = d·(q−16) with q's fifth bit from qh, so Σw·x = d·dx·Σq·xq −
// 16·d·a.s, with the codes kept unsigned (0..31) as the assembly needs them.
func dotQ5_0Go(w []byte, _ []float32, a act) float32 {
	var acc, accMin float32
	for b := range len(a.d) {
		blk := w[b*q5_0Bytes : b*q5_0Bytes+q5_0Bytes]
		xq := a.qs[b*QK : b*QK+QK]
		qh := legacyQH(blk[2:6])
		var sum int32
		for j, q := range blk[6:] {
			lo := int32(q&15) | int32(qh>>j&1)<<4
			hi := int32(q>>4) | int32(qh>>(j+16)&1)<<4
			sum += lo*int32(xq[j]) + hi*int32(xq[j+16])
		}
		d := f16At(blk, 0)
		acc += d * a.d[b] * float32(sum)
		accMin += d * a.s[b]
	}
	return acc - 16*accMin
}

// Q5_1: w = d·q + m with q in 0..31; as Q4_1 plus the fifth bits.
func dotQ5_1Go(w []byte, _ []float32, a act) float32 {
	var acc, accMin float32
	for b := range len(a.d) {
		blk := w[b*q5_1Bytes : b*q5_1Bytes+q5_1Bytes]
		xq := a.qs[b*QK : b*QK+QK]
		qh := legacyQH(blk[4:8])
		var sum int32
		for j, q := range blk[8:] {
			lo := int32(q&15) | int32(qh>>j&1)<<4
			hi := int32(q>>4) | int32(qh>>(j+16)&1)<<4
			sum += lo*int32(xq[j]) + hi*int32(xq[j+16])
		}
		acc += f16At(blk, 0) * a.d[b] * float32(sum)
		accMin += f16At(blk, 2) * a.s[b]
	}
	return acc + accMin
}

// IQ4_NL: w = d·kvalues[q]; the table values are signed bytes, so the sum is
// a plain int8 × int8 dot as for Q8_0 and needs no block sum.
func dotIQ4NLGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for b := range len(a.d) {
		blk := w[b*iq4nlBytes : b*iq4nlBytes+iq4nlBytes]
		xq := a.qs[b*QK : b*QK+QK]
		var sum int32
		for j, q := range blk[2:] {
			sum += int32(iq4nlValue(q))*int32(xq[j]) + int32(iq4nlValue(q>>4))*int32(xq[j+16])
		}
		acc += f16At(blk, 0) * a.d[b] * float32(sum)
	}
	return acc
}

// MXFP4: w = 2^(e−128)·mxfp4Values[q] (quant_mxfp4.go), IQ4_NL's arithmetic
// with the doubled E2M1 table for the levels and the block's E8M0 exponent
// for the scale, as ggml_vec_dot_mxfp4_q8_0 has it: the scale times dx,
// times the exact int32 sum.
func dotMXFP4Go(w []byte, _ []float32, a act) float32 {
	var acc float32
	for b := range len(a.d) {
		blk := w[b*mxfp4Bytes : b*mxfp4Bytes+mxfp4Bytes]
		xq := a.qs[b*QK : b*QK+QK]
		var sum int32
		for j, q := range blk[1:] {
			sum += int32(mxfp4Value(q))*int32(xq[j]) + int32(mxfp4Value(q>>4))*int32(xq[j+16])
		}
		acc += E8M0Half(blk[0]) * a.d[b] * float32(sum)
	}
	return acc
}
