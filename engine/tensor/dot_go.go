package tensor

import "encoding/binary"

// Portable dot products. They are the reference the assembly is tested
// against and the path on CPUs without AVX2; each mirrors the assembly's
// arithmetic (integer sums per 32-block, then one float multiply) so the two
// agree to float rounding.

func dotF32Go(w []byte, x []float32, _ act) float32 {
	wf := asF32(w)[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += wf[i] * x[i]
		s1 += wf[i+1] * x[i+1]
		s2 += wf[i+2] * x[i+2]
		s3 += wf[i+3] * x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += wf[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16Go(w []byte, x []float32, _ act) float32 {
	wh := asU16(w)[:len(x)]
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += F16ToF32(wh[i]) * x[i]
		s1 += F16ToF32(wh[i+1]) * x[i+1]
	}
	if i < len(x) {
		s0 += F16ToF32(wh[i]) * x[i]
	}
	return s0 + s1
}

func dotBF16Go(w []byte, x []float32, _ act) float32 {
	wh := asU16(w)[:len(x)]
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += BF16ToF32(wh[i]) * x[i]
		s1 += BF16ToF32(wh[i+1]) * x[i+1]
	}
	if i < len(x) {
		s0 += BF16ToF32(wh[i]) * x[i]
	}
	return s0 + s1
}

func f16At(b []byte, off int) float32 { return F16ToF32(binary.LittleEndian.Uint16(b[off:])) }

// Q8_0 block: f16 d, int8 q[32]; w = d·q.
func dotQ8_0Go(w []byte, _ []float32, a act) float32 {
	var acc float32
	for b := range len(a.d) {
		blk := w[b*34 : b*34+34]
		xq := a.qs[b*QK : b*QK+QK]
		var sum int32
		for i, q := range blk[2:34] {
			sum += int32(int8(q)) * int32(xq[i])
		}
		acc += f16At(blk, 0) * a.d[b] * float32(sum)
	}
	return acc
}

// Q4_0 block: f16 d, q[16] with weight j in the low nibble and j+16 in the
// high one; w = d·(q−8), so Σw·x = d·(dx·Σq·xq − 8·dx·Σxq) and the second
// term is the precomputed block sum a.s.
func dotQ4_0Go(w []byte, _ []float32, a act) float32 {
	var acc float32
	for b := range len(a.d) {
		blk := w[b*18 : b*18+18]
		xq := a.qs[b*QK : b*QK+QK]
		var sum int32
		for j, q := range blk[2:18] {
			sum += int32(q&15)*int32(xq[j]) + int32(q>>4)*int32(xq[j+16])
		}
		acc += f16At(blk, 0) * (a.d[b]*float32(sum) - 8*a.s[b])
	}
	return acc
}

// unpackK4 expands the 12 packed bytes of Q4_K/Q5_K scales into eight 6-bit
// scales and eight 6-bit mins. Sub-blocks 0–3 keep their values in the low
// six bits of bytes 0–3 (scales) and 4–7 (mins); sub-blocks 4–7 put their low
// four bits in bytes 8–11 (scale low nibble, min high nibble) and their top
// two bits in the spare top bits of bytes 0–3 (scales) and 4–7 (mins).
func unpackK4(p []byte) (sc, m [8]uint8) {
	for j := range 4 {
		sc[j] = p[j] & 63
		m[j] = p[j+4] & 63
		sc[j+4] = p[j+8]&15 | (p[j]>>6)<<4
		m[j+4] = p[j+8]>>4 | (p[j+4]>>6)<<4
	}
	return sc, m
}

// Q4_K super-block (144 bytes): f16 d, f16 dmin, 12 bytes of packed scales,
// 128 bytes of nibbles. Chunk c of 64 weights uses bytes 16+32c…: low
// nibbles are sub-block 2c, high nibbles sub-block 2c+1. w = d·sc·q − dmin·m.
func dotQ4KGo(w []byte, _ []float32, a act) float32 {
	var acc, accMin float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*144 : sb*144+144]
		d, dmin := f16At(blk, 0), f16At(blk, 2)
		sc, m := unpackK4(blk[4:16])
		for c := range 4 {
			qs := blk[16+32*c : 48+32*c]
			j := sb*8 + 2*c
			xlo := a.qs[j*QK : j*QK+QK]
			xhi := a.qs[(j+1)*QK : (j+1)*QK+QK]
			var slo, shi int32
			for l, q := range qs {
				slo += int32(q&15) * int32(xlo[l])
				shi += int32(q>>4) * int32(xhi[l])
			}
			acc += d * (float32(sc[2*c])*a.d[j]*float32(slo) + float32(sc[2*c+1])*a.d[j+1]*float32(shi))
			accMin += dmin * (float32(m[2*c])*a.s[j] + float32(m[2*c+1])*a.s[j+1])
		}
	}
	return acc - accMin
}

// Q5_K super-block (176 bytes): as Q4_K plus qh[32] before the nibbles; the
// fifth bit of position l in sub-block j is bit j of qh[l].
func dotQ5KGo(w []byte, _ []float32, a act) float32 {
	var acc, accMin float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*176 : sb*176+176]
		d, dmin := f16At(blk, 0), f16At(blk, 2)
		sc, m := unpackK4(blk[4:16])
		qh := blk[16:48]
		for c := range 4 {
			qs := blk[48+32*c : 80+32*c]
			j := sb*8 + 2*c
			xlo := a.qs[j*QK : j*QK+QK]
			xhi := a.qs[(j+1)*QK : (j+1)*QK+QK]
			var slo, shi int32
			for l, q := range qs {
				h := qh[l] >> (2 * c)
				slo += int32(q&15|(h&1)<<4) * int32(xlo[l])
				shi += int32(q>>4|(h&2)<<3) * int32(xhi[l])
			}
			acc += d * (float32(sc[2*c])*a.d[j]*float32(slo) + float32(sc[2*c+1])*a.d[j+1]*float32(shi))
			accMin += dmin * (float32(m[2*c])*a.s[j] + float32(m[2*c+1])*a.s[j+1])
		}
	}
	return acc - accMin
}

// Q6_K super-block (210 bytes): ql[128], qh[64], int8 scales[16], f16 d.
// Each half of 128 weights takes 64 ql bytes and 32 qh bytes; for l < 32 its
// weights l, l+32, l+64, l+96 are (low nibble of ql[l], low nibble of
// ql[l+32], high nibble of ql[l], high nibble of ql[l+32]) with qh[l]'s bit
// pairs 0–1, 2–3, 4–5, 6–7 on top, minus 32. Scale g covers weights 16g…16g+15.
func dotQ6KGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*210 : sb*210+210]
		d := f16At(blk, 208)
		scales := blk[192:208]
		x := a.qs[sb*256 : sb*256+256]
		for h := range 2 {
			ql := blk[64*h : 64*h+64]
			qh := blk[128+32*h : 160+32*h]
			xh := x[128*h : 128*h+128]
			// s[k][half16] collects Σ(q−32)·x for the 16-group of quarter k.
			var s [4][2]int32
			for l := range 32 {
				hb := qh[l]
				g := l / 16
				s[0][g] += (int32(ql[l]&15|(hb&3)<<4) - 32) * int32(xh[l])
				s[1][g] += (int32(ql[l+32]&15|(hb>>2&3)<<4) - 32) * int32(xh[l+32])
				s[2][g] += (int32(ql[l]>>4|(hb>>4&3)<<4) - 32) * int32(xh[l+64])
				s[3][g] += (int32(ql[l+32]>>4|(hb>>6&3)<<4) - 32) * int32(xh[l+96])
			}
			for k := range 4 {
				blk32 := sb*8 + 4*h + k
				sc := 8*h + 2*k
				acc += d * a.d[blk32] * (float32(int8(scales[sc]))*float32(s[k][0]) +
					float32(int8(scales[sc+1]))*float32(s[k][1]))
			}
		}
	}
	return acc
}
