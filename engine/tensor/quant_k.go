package tensor

import "math"

// K-quants: super-blocks of QKK = 256 weights (ggml-common.h block_q4_K,
// block_q5_K, block_q6_K; ggml-quants.c dequantize_row_q4_K/_q5_K/_q6_K).
//
//	Q4_K (144 bytes): f16 d, f16 dmin, scales[12], qs[128].
//	Q5_K (176 bytes): f16 d, f16 dmin, scales[12], qh[32], qs[128].
//	Q6_K (210 bytes): ql[128], qh[64], int8 scales[16], f16 d.
//
// Q4_K and Q5_K split the super-block into 8 sub-blocks of 32 weights, each
// with a 6-bit scale sc and a 6-bit min m (packed into scales[12], see
// kScaleMin), and decode w = d·sc·q − dmin·m. The weights come in 4 chunks of
// 64: chunk c uses qs[32c:32c+32], whose low nibbles are sub-block 2c and high
// nibbles sub-block 2c+1. Q5_K adds a fifth bit: bit 2c (low nibble) or 2c+1
// (high nibble) of qh[l] for position l of the chunk.
//
// Q6_K has 16 sub-blocks of 16 weights with signed 8-bit scales and 6-bit
// quants q−32 (−32..31), w = d·sc·(q−32). The super-block is two halves of
// 128 weights; half h uses ql[64h:64h+64] and qh[32h:32h+32] and fills, for
// l in 0..31, positions l, l+32, l+64, l+96 from: the low nibble of ql[l],
// the low nibble of ql[l+32], the high nibble of ql[l], the high nibble of
// ql[l+32], topped with bits 0–1, 2–3, 4–5, 6–7 of qh[l]. Element e of the
// super-block uses scale e/16.
//
// Decoders round every product to float32 before the subtraction (explicit
// conversions) so no platform fuses them into an FMA: the result is identical
// everywhere and matches ggml's scalar reference built without contraction.

const (
	q4KBytes = 144
	q5KBytes = 176
	q6KBytes = 210
)

// kScaleMin unpacks the 6-bit scale and min of sub-block j (0..7) from the 12
// packed bytes. Bytes 0–3 hold the scales of sub-blocks 0–3 and bytes 4–7
// their mins, in the low 6 bits; sub-blocks 4–7 keep their low 4 bits in
// bytes 8–11 (scale low nibble, min high nibble) and their top 2 bits in the
// spare top bits of bytes 0–3 (scales) and 4–7 (mins).
func kScaleMin(j int, s *[12]byte) (sc, m uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&0xF | (s[j-4]>>6)<<4, s[j+4]>>4 | (s[j]>>6)<<4
}

// kPackScaleMin is the inverse of kScaleMin for 6-bit ls and lm.
func kPackScaleMin(s *[12]byte, ls, lm *[8]uint8) {
	*s = [12]byte{}
	for j := 0; j < 4; j++ {
		s[j] = ls[j]&63 | (ls[j+4]>>4)<<6
		s[j+4] = lm[j]&63 | (lm[j+4]>>4)<<6
		s[j+8] = ls[j+4]&0xF | (lm[j+4]&0xF)<<4
	}
}

// dequantQ4K decodes len(dst)/256 Q4_K super-blocks from src.
func dequantQ4K(dst []float32, src []byte) {
	nb := len(dst) / QKK
	for i := 0; i < nb; i++ {
		b := (*[q4KBytes]byte)(src[i*q4KBytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		dmin := F16ToF32(quantLoad16(b[2:4]))
		sc := (*[12]byte)(b[4:16])
		for c := 0; c < 4; c++ {
			s0, m0 := kScaleMin(2*c, sc)
			s1, m1 := kScaleMin(2*c+1, sc)
			d0, o0 := d*float32(s0), dmin*float32(m0)
			d1, o1 := d*float32(s1), dmin*float32(m1)
			q := (*[32]byte)(b[16+32*c:])
			lo := (*[32]float32)(y[64*c:])
			hi := (*[32]float32)(y[64*c+32:])
			for l, v := range q {
				lo[l] = float32(d0*float32(v&0xF)) - o0
				hi[l] = float32(d1*float32(v>>4)) - o1
			}
		}
	}
}

// dequantQ5K decodes len(dst)/256 Q5_K super-blocks from src.
func dequantQ5K(dst []float32, src []byte) {
	nb := len(dst) / QKK
	for i := 0; i < nb; i++ {
		b := (*[q5KBytes]byte)(src[i*q5KBytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[0:2]))
		dmin := F16ToF32(quantLoad16(b[2:4]))
		sc := (*[12]byte)(b[4:16])
		qh := (*[32]byte)(b[16:48])
		for c := 0; c < 4; c++ {
			s0, m0 := kScaleMin(2*c, sc)
			s1, m1 := kScaleMin(2*c+1, sc)
			d0, o0 := d*float32(s0), dmin*float32(m0)
			d1, o1 := d*float32(s1), dmin*float32(m1)
			q := (*[32]byte)(b[48+32*c:])
			lo := (*[32]float32)(y[64*c:])
			hi := (*[32]float32)(y[64*c+32:])
			sh := uint(2 * c)
			for l, v := range q {
				h := qh[l] >> sh
				lo[l] = float32(d0*float32(v&0xF|(h&1)<<4)) - o0
				hi[l] = float32(d1*float32(v>>4|(h&2)<<3)) - o1
			}
		}
	}
}

// dequantQ6K decodes len(dst)/256 Q6_K super-blocks from src.
func dequantQ6K(dst []float32, src []byte) {
	nb := len(dst) / QKK
	for i := 0; i < nb; i++ {
		b := (*[q6KBytes]byte)(src[i*q6KBytes:])
		d := F16ToF32(quantLoad16(b[208:210]))
		for h := 0; h < 2; h++ {
			ql := (*[64]byte)(b[64*h:])
			qh := (*[32]byte)(b[128+32*h:])
			sc := (*[8]byte)(b[192+8*h:])
			y := (*[128]float32)(dst[i*QKK+128*h:])
			var s [8]float32
			for k, v := range sc {
				s[k] = d * float32(int8(v))
			}
			for l := 0; l < 32; l++ {
				is := l / 16
				hb := qh[l]
				a, c := ql[l], ql[l+32]
				y[l] = s[is] * float32(int32(a&0xF|(hb&3)<<4)-32)
				y[l+32] = s[is+2] * float32(int32(c&0xF|(hb>>2&3)<<4)-32)
				y[l+64] = s[is+4] * float32(int32(a>>4|(hb>>4&3)<<4)-32)
				y[l+96] = s[is+6] * float32(int32(c>>4|(hb>>6)<<4)-32)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Quantisers.
//
// These are this package's own, not llama.cpp's (which weights its fits by
// |x| and an importance matrix). They minimise the plain squared error of the
// decoded super-block in three steps:
//
//  1. Fit each sub-block on its own in float64: for a grid of candidate steps
//     around range/nmax, assign levels by rounding, then solve the 2×2 least
//     squares problem for (scale, offset) given those levels and keep the
//     candidate with the smallest squared error (kFitScaleMin; for Q6_K a
//     symmetric scale from the signed extreme).
//  2. Quantise the sub-block scales (and mins) to 6 (Q6_K: 8) bits against a
//     float16 super-block scale chosen so the largest lands on the top code.
//  3. Because step 2 moves every sub-block's scale by up to half a code, search
//     a few integer codes around the rounded ones, re-assign the levels with
//     the float16 values the decoder will really use, and keep the codes with
//     the smallest squared error of the actually decoded weights. The all-zero
//     codes are always among the candidates.
//
// Step 3 makes the result exact in its own terms: the error the search sees
// is the error Dequantize will produce, and no sub-block decodes worse than
// zeroing it would (relative RMS ≤ 1 even when the super-block scales
// underflow float16). The error bounds the tests check, with their
// derivations, are in quant_k_test.go. Encoding costs about 0.1 s per
// million weights on one core; it is meant for tools, not the hot path.

// kFitScaleMin fits w = s·q + b (q in 0..nmax, b ≤ 0) to the sub-block x and
// returns s ≥ 0 and the min m = −b ≥ 0. b is kept ≤ 0 because the format
// subtracts an unsigned 6-bit min; all-positive data therefore start at 0, as
// in ggml.
func kFitScaleMin(x []float32, nmax int) (s, m float64) {
	lo, hi := float64(x[0]), float64(x[0])
	var sx, sxx float64
	for _, v := range x {
		f := float64(v)
		if f < lo {
			lo = f
		}
		if f > hi {
			hi = f
		}
		sx += f
		sxx += f * f
	}
	lo = min(lo, 0)
	if hi == lo {
		return 0, -lo
	}
	n := float64(len(x))
	fmax := float64(nmax)
	bestErr := math.Inf(1)
	s, b := (hi-lo)/fmax, lo
	// Try level assignments with steps between range/(nmax+1) and
	// range/(nmax−1). The plain min/max step is rarely the least-squares
	// optimum: the few extreme values count for less than the many middle
	// ones, so clipping or stretching the grid a little often pays.
	for k := -10; k <= 10; k++ {
		inv := (fmax + 0.1*float64(k)) / (hi - lo)
		var sl, sll, slx float64
		for _, v := range x {
			l := clampLevel(math.Floor((float64(v)-lo)*inv+0.5), 0, fmax)
			sl += l
			sll += l * l
			slx += l * float64(v)
		}
		det := n*sll - sl*sl
		if det <= 0 {
			continue
		}
		cs := (n*slx - sx*sl) / det
		cb := (sll*sx - sl*slx) / det
		if cb > 0 {
			cb, cs = 0, slx/sll
		}
		if cs <= 0 {
			continue
		}
		// Σ(cs·l + cb − x)² expanded in the sums already at hand.
		e := sxx + cs*cs*sll + n*cb*cb - 2*cs*slx - 2*cb*sx + 2*cs*cb*sl
		if e < bestErr {
			bestErr, s, b = e, cs, cb
		}
	}
	return s, -b
}

// clampLevel limits the (already rounded) level q to lo..hi.
func clampLevel(q, lo, hi float64) float64 {
	if q < lo {
		return lo
	}
	if q > hi {
		return hi
	}
	return q
}

// kLevel returns the level in 0..nmax nearest to (v+M)·inv, where inv is
// 1/S (0 when S is 0, which gives level 0).
func kLevel(v, M float32, inv float64, nmax int) uint8 {
	return uint8(clampLevel(math.Floor((float64(v)+float64(M))*inv+0.5), 0, float64(nmax)))
}

// kInv returns 1/S, or 0 for S = 0.
func kInv(S float32) float64 {
	if S == 0 {
		return 0
	}
	return 1 / float64(S)
}

// kSubErr is the squared error of decoding x with scale S and min M exactly as
// dequantQ4K/Q5K do.
func kSubErr(x []float32, S, M float32, nmax int) float64 {
	inv := kInv(S)
	var e float64
	for _, v := range x {
		r := float32(S*float32(kLevel(v, M, inv, nmax))) - M
		d := float64(r) - float64(v)
		e += d * d
	}
	return e
}

// kCodeRange returns the codes to try around the real code c/unit: the
// nearest one and its neighbours, within 0..63 (only 0 when unit is 0).
func kCodeRange(c, unit float64) (lo, hi int) {
	if unit == 0 {
		return 0, 0
	}
	r := int(math.Round(math.Min(63, c/unit)))
	return max(0, r-1), min(63, r+1)
}

// quantKSuper quantises one Q4_K/Q5_K super-block (nmax 15 or 31): it fills
// the packed scales, the levels L and returns d and dmin as float16.
func quantKSuper(x *[QKK]float32, nmax int, L *[QKK]uint8, scales *[12]byte, block int) (dh, mh uint16, err error) {
	var s, m [8]float64
	var maxS, maxM float64
	for j := 0; j < 8; j++ {
		s[j], m[j] = kFitScaleMin(x[32*j:32*j+32], nmax)
		maxS = math.Max(maxS, s[j])
		maxM = math.Max(maxM, m[j])
	}
	if dh, err = quantScaleF16(float32(maxS/63), block); err != nil {
		return 0, 0, err
	}
	if mh, err = quantScaleF16(float32(maxM/63), block); err != nil {
		return 0, 0, err
	}
	d, dmin := F16ToF32(dh), F16ToF32(mh)
	var ls, lm [8]uint8
	for j := 0; j < 8; j++ {
		sub := x[32*j : 32*j+32]
		sLo, sHi := kCodeRange(s[j], float64(d))
		mLo, mHi := kCodeRange(m[j], float64(dmin))
		// Codes (0, 0) decode the sub-block to zeros. Starting from them
		// guarantees the result is never worse than zeroing, which matters
		// when d or dmin underflow float16 and the rounded codes are far off.
		ls[j], lm[j] = 0, 0
		best := kSubErr(sub, 0, 0, nmax)
		for a := sLo; a <= sHi; a++ {
			for c := mLo; c <= mHi; c++ {
				if e := kSubErr(sub, d*float32(a), dmin*float32(c), nmax); e < best {
					best, ls[j], lm[j] = e, uint8(a), uint8(c)
				}
			}
		}
		S, M := d*float32(ls[j]), dmin*float32(lm[j])
		inv := kInv(S)
		for l, v := range sub {
			L[32*j+l] = kLevel(v, M, inv, nmax)
		}
	}
	kPackScaleMin(scales, &ls, &lm)
	return dh, mh, nil
}

// quantQ4K encodes src as Q4_K super-blocks (see the comment above kFitScaleMin).
func quantQ4K(dst []byte, src []float32) error {
	nb := len(src) / QKK
	for i := 0; i < nb; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		b := (*[q4KBytes]byte)(dst[i*q4KBytes:])
		var L [QKK]uint8
		dh, mh, err := quantKSuper(x, 15, &L, (*[12]byte)(b[4:16]), i)
		if err != nil {
			return err
		}
		quantStore16(b[0:2], dh)
		quantStore16(b[2:4], mh)
		for c := 0; c < 4; c++ {
			for l := 0; l < 32; l++ {
				b[16+32*c+l] = L[64*c+l] | L[64*c+32+l]<<4
			}
		}
	}
	return nil
}

// quantQ5K encodes src as Q5_K super-blocks (see the comment above kFitScaleMin).
func quantQ5K(dst []byte, src []float32) error {
	nb := len(src) / QKK
	for i := 0; i < nb; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		b := (*[q5KBytes]byte)(dst[i*q5KBytes:])
		var L [QKK]uint8
		dh, mh, err := quantKSuper(x, 31, &L, (*[12]byte)(b[4:16]), i)
		if err != nil {
			return err
		}
		quantStore16(b[0:2], dh)
		quantStore16(b[2:4], mh)
		qh := (*[32]byte)(b[16:48])
		*qh = [32]byte{}
		for c := 0; c < 4; c++ {
			for l := 0; l < 32; l++ {
				a, h := L[64*c+l], L[64*c+32+l]
				b[48+32*c+l] = a&0xF | (h&0xF)<<4
				qh[l] |= (a>>4)<<(2*c) | (h>>4)<<(2*c+1)
			}
		}
	}
	return nil
}

// q6Err is the squared error of decoding the 16 values x with scale S exactly
// as dequantQ6K does, levels q−32 in −32..31 chosen nearest.
func q6Err(x []float32, S float32) float64 {
	inv := kInv(S)
	var e float64
	for _, v := range x {
		r := S * float32(q6Level(v, inv))
		d := float64(r) - float64(v)
		e += d * d
	}
	return e
}

// q6Level returns the signed level in −32..31 nearest to v·inv, where inv is
// 1/S (0 when S is 0, which gives level 0).
func q6Level(v float32, inv float64) int {
	return int(clampLevel(math.Floor(float64(v)*inv+0.5), -32, 31))
}

// quantQ6K encodes src as Q6_K super-blocks. Each 16-weight sub-block starts
// from the symmetric scale s = x_ext/−32, where x_ext is its element of largest
// magnitude with its sign, so x_ext lands exactly on level −32 and the other
// side keeps 31 levels. d = max|s|/127 is stored as float16; each sub-block
// then tries every int8 code from 0.8·|s|/d (a smaller step that clips the
// extreme can lower the total error) up to |s|/d+1, with the sign of s, and
// keeps the one whose decoded values have the least squared error.
func quantQ6K(dst []byte, src []float32) error {
	nb := len(src) / QKK
	for i := 0; i < nb; i++ {
		x := (*[QKK]float32)(src[i*QKK:])
		if err := quantCheckFinite(x[:], i); err != nil {
			return err
		}
		var s [16]float64
		var maxAbs float64
		for j := 0; j < 16; j++ {
			var amax, ext float64
			for _, v := range x[16*j : 16*j+16] {
				if a := math.Abs(float64(v)); a > amax {
					amax, ext = a, float64(v)
				}
			}
			s[j] = ext / -32
			maxAbs = math.Max(maxAbs, amax/32)
		}
		dh, err := quantScaleF16(float32(maxAbs/127), i)
		if err != nil {
			return err
		}
		d := F16ToF32(dh)
		var sc [16]int8
		var L [QKK]uint8
		for j := 0; j < 16; j++ {
			sub := x[16*j : 16*j+16]
			if d != 0 && s[j] != 0 {
				ideal := math.Abs(s[j]) / float64(d)
				sign := 1
				if s[j] < 0 {
					sign = -1
				}
				// When d is a float16 subnormal its rounding can push ideal
				// past 127; the clamp keeps at least the code 127 on trial.
				hi := min(127, int(math.Ceil(ideal))+1)
				lo := min(hi, max(1, int(math.Floor(0.8*ideal))))
				best := q6Err(sub, 0) // code 0 (all zeros) as the fallback, as in quantKSuper
				for k := lo; k <= hi; k++ {
					if e := q6Err(sub, d*float32(sign*k)); e < best {
						best, sc[j] = e, int8(sign*k)
					}
				}
			}
			inv := kInv(d * float32(sc[j]))
			for l, v := range sub {
				L[16*j+l] = uint8(q6Level(v, inv) + 32)
			}
		}
		b := (*[q6KBytes]byte)(dst[i*q6KBytes:])
		for h := 0; h < 2; h++ {
			ql := (*[64]byte)(b[64*h:])
			qh := (*[32]byte)(b[128+32*h:])
			y := (*[128]uint8)(L[128*h:])
			for l := 0; l < 32; l++ {
				ql[l] = y[l]&0xF | (y[l+64]&0xF)<<4
				ql[l+32] = y[l+32]&0xF | (y[l+96]&0xF)<<4
				qh[l] = y[l]>>4 | (y[l+32]>>4)<<2 | (y[l+64]>>4)<<4 | (y[l+96]>>4)<<6
			}
		}
		for j, v := range sc {
			b[192+j] = byte(v)
		}
		quantStore16(b[208:210], dh)
	}
	return nil
}
