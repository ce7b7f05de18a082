package tensor

import "math"

// Row kernels over a compact KV cache (engine/backend's KVF16 and KVQ8_0):
// the attention's two products, scores (DotRows) and the weighted sum of
// values (WeightedSum), with the cached rows in binary16 or in Q8_0 blocks
// and the query and the weights in float32. Rows are widened in registers
// as they are read, so a step never copies the cache to float32.
//
// The scores run four rows at a time where there are four: x is loaded
// once for the four and their sums are folded together, which for heads of
// 64 values costs as much as the products themselves when done per row
// (1.7× faster at 1536 rows of 64 than DotRows over float32, measured).
// That sums in another order than DotRows, so DotRowsF16 agrees with
// DotRows on the widened rows to float32 rounding, not bit for bit.
// WeightedSumF16 is WeightedSum's arithmetic on the widened values, in
// the same order: on the AVX2 path it gives WeightedSum's bits.

// EncodeF16 rounds src to binary16 into dst (len(src) values) as F32ToF16
// does, ties to even, eight at a time with F16C where the CPU has it.
func EncodeF16(dst []uint16, src []float32) {
	n := len(src)
	dst = dst[:n]
	m := 0
	if hasAVX2 && n >= 8 {
		m = n &^ 7
		f32ToF16AVX2(&dst[0], &src[0], m)
	}
	for i := m; i < n; i++ {
		dst[i] = F32ToF16(src[i])
	}
}

// DecodeF16 widens len(dst) binary16 values of src into dst, exactly.
func DecodeF16(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i, h := range src {
		// Normal halves are rebiased inline (as dequantF16 does); zeros,
		// subnormals, Inf and NaN take F16ToF32.
		if e := h & 0x7c00; e != 0 && e != 0x7c00 {
			dst[i] = math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h&0x7fff)<<13 + 112<<23))
			continue
		}
		dst[i] = F16ToF32(h)
	}
}

// Q8_0RowBytes is the bytes n values take in Q8_0 blocks (n a multiple of
// QK): 34 per 32.
func Q8_0RowBytes(n int) int { return n / QK * q8_0Bytes }

// EncodeQ8_0 encodes src (a multiple of QK values) as Q8_0 blocks into dst,
// with ggml's reference rounding (quantize_row_q8_0_ref, as quantQ8_0):
// d = max|x|/127 stored as f16, q = round(x/d). Unlike the weight encoder
// it cannot fail, because a KV cache's store cannot: a block holding a
// non-finite value, or one too large for an f16 scale, stores an infinite
// or NaN scale, which the attention then reads as a float32 cache would
// read the Inf or NaN itself.
func EncodeQ8_0(dst []byte, src []float32) {
	nb := len(src) / QK
	_ = dst[nb*q8_0Bytes-1]
	for i := range nb {
		x := (*[QK]float32)(src[i*QK:])
		d, id := q8_0Scale(x)
		q8_0Block((*[q8_0Bytes]byte)(dst[i*q8_0Bytes:]), F32ToF16(d), x, id)
	}
}

// DecodeQ8_0 decodes len(dst) values (a multiple of QK) of Q8_0 blocks.
func DecodeQ8_0(dst []float32, src []byte) { dequantQ8_0(dst, src) }

// DotRowsF16 sets out[i] = m[i·n:(i+1)·n]·x for the len(out) consecutive
// binary16 rows of n = len(x) values in m: the scores of one query against
// a run of cached f16 keys.
func DotRowsF16(m []uint16, x, out []float32) {
	if len(out) == 0 {
		return
	}
	n := len(x)
	_ = m[len(out)*n-1]
	if hasAVX2 && n%8 == 0 {
		// Four rows at a time, then the rest one by one.
		r4 := len(out) &^ 3
		if r4 > 0 {
			dotF16Rows4AVX2(&m[0], &x[0], n, r4, &out[0])
		}
		if r4 < len(out) {
			dotF16RowsAVX2(&m[r4*n], &x[0], n, len(out)-r4, &out[r4])
		}
		return
	}
	dotRowsF16Go(m, x, out)
}

// dotRowsF16Go is DotRowsF16's portable path.
func dotRowsF16Go(m []uint16, x, out []float32) {
	n := len(x)
	for i := range out {
		var s float32
		for j, h := range m[i*n : (i+1)*n] {
			s += F16ToF32(h) * x[j]
		}
		out[i] = s
	}
}

// WeightedSumF16 sets out = Σ_j w[j]·v[j·n:(j+1)·n] with n = len(out), over
// the len(w) binary16 rows of v, adding in key order: the weighted sum of
// cached f16 values.
func WeightedSumF16(out []float32, v []uint16, w []float32) {
	n := len(out)
	clear(out)
	if len(w) == 0 || n == 0 {
		return
	}
	_ = v[len(w)*n-1]
	if hasAVX2 && n%8 == 0 {
		weightedSumF16AVX2(&out[0], &v[0], &w[0], n, len(w))
		return
	}
	weightedSumF16Go(out, v, w)
}

// weightedSumF16Go is WeightedSumF16's portable path, over a cleared out.
func weightedSumF16Go(out []float32, v []uint16, w []float32) {
	n := len(out)
	for j, a := range w {
		for c, h := range v[j*n : (j+1)*n] {
			out[c] += a * F16ToF32(h)
		}
	}
}

// DotRowsQ8_0 sets out[i] = row i·x for the len(out) consecutive rows of m,
// each len(x)/QK Q8_0 blocks (len(x) a multiple of QK): the scores of one
// query against a run of cached q8_0 keys. Unlike the weight products, x
// stays float32: each block's codes are widened and scaled, so the result
// is the dot product with the decoded row up to float32 rounding.
func DotRowsQ8_0(m []byte, x, out []float32) {
	nb := len(x) / QK
	if len(out) == 0 || nb == 0 {
		clear(out)
		return
	}
	rb := nb * q8_0Bytes
	_ = m[len(out)*rb-1]
	if hasAVX2 {
		// Four rows at a time, then the rest one by one.
		r4 := len(out) &^ 3
		if r4 > 0 {
			dotQ8_0F32Rows4AVX2(&m[0], &x[0], nb, r4, &out[0])
		}
		if r4 < len(out) {
			dotQ8_0F32RowsAVX2(&m[r4*rb], &x[0], nb, len(out)-r4, &out[r4])
		}
		return
	}
	dotRowsQ8_0Go(m, x, out)
}

// dotRowsQ8_0Go is DotRowsQ8_0's portable path.
func dotRowsQ8_0Go(m []byte, x, out []float32) {
	nb := len(x) / QK
	rb := nb * q8_0Bytes
	for i := range out {
		row := m[i*rb : (i+1)*rb]
		var s float32
		for b := range nb {
			blk := (*[q8_0Bytes]byte)(row[b*q8_0Bytes:])
			xb := x[b*QK : (b+1)*QK]
			var t float32
			for j, q := range blk[2:] {
				t += float32(int8(q)) * xb[j]
			}
			s += F16ToF32(quantLoad16(blk[:2])) * t
		}
		out[i] = s
	}
}

// WeightedSumQ8_0 sets out = Σ_j w[j]·row j of v, over the len(w) rows of
// v, each len(out)/QK Q8_0 blocks (len(out) a multiple of QK), adding in
// key order: the weighted sum of cached q8_0 values. A row's block adds
// (w[j]·d)·q for each of its codes q.
func WeightedSumQ8_0(out []float32, v []byte, w []float32) {
	nb := len(out) / QK
	clear(out)
	if len(w) == 0 || nb == 0 {
		return
	}
	rb := nb * q8_0Bytes
	_ = v[len(w)*rb-1]
	if hasAVX2 {
		weightedSumQ8_0AVX2(&out[0], &v[0], &w[0], nb, len(w))
		return
	}
	weightedSumQ8_0Go(out, v, w)
}

// weightedSumQ8_0Go is WeightedSumQ8_0's portable path, over a cleared out.
func weightedSumQ8_0Go(out []float32, v []byte, w []float32) {
	nb := len(out) / QK
	rb := nb * q8_0Bytes
	for j, a := range w {
		row := v[j*rb : (j+1)*rb]
		for b := range nb {
			blk := (*[q8_0Bytes]byte)(row[b*q8_0Bytes:])
			s := a * F16ToF32(quantLoad16(blk[:2]))
			ob := out[b*QK : (b+1)*QK]
			for c, q := range blk[2:] {
				ob[c] += s * float32(int8(q))
			}
		}
	}
}
