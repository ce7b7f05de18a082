package tensor

// The 1-bit importance-matrix types and the two ternary types: super-blocks
// of QKK = 256 weights (ggml-common.h block_iq1_s, block_iq1_m,
// block_tq1_0, block_tq2_0; ggml-quants.c dequantize_row_iq1_s/_iq1_m/
// _tq1_0/_tq2_0).
//
//	IQ1_S (50 bytes): f16 d, qs[32], qh[8] as u16.
//	IQ1_M (56 bytes): qs[32], qh[16], scales[8] (four u16, d in their top nibbles).
//	TQ1_0 (54 bytes): qs[48], qh[4], f16 d.
//	TQ2_0 (66 bytes): qs[64], f16 d.
//
// IQ1_S and IQ1_M index iq1s_grid (iqtables_gen.go), whose 2048 entries
// are eight weights −1, 0 or +1, one signed byte each (byte j of the
// little-endian uint64 is weight j). A run of 8 weights is one entry, its
// 11-bit index the byte qs[l] plus 3 high bits; the run's weights are
// g + δ with δ = ±1/8 (ggml's IQ1S_DELTA), times a scale d·(2s+1) with s
// 3 bits.
//
// IQ1_S: sub-block ib (weights 32ib..32ib+31) reads qs[4ib:4ib+4] and the
// u16 qh[ib], whose bits 3l..3l+2 are run l's high index bits, bits 12..14
// its scale s and bit 15 the sign of δ (set: −1/8).
//
// IQ1_M: sub-block ib reads qs[4ib:4ib+4] and qh[2ib], qh[2ib+1]: byte
// qh[2ib+l/2] holds run l's high index bits in its nibble l%2 (bits 0..2)
// and the sign of its δ in that nibble's bit 3. Each 16 weights have their
// own 3-bit scale: the u16 scales word ib/2 holds sub-block ib's two at
// bits 6(ib%2)..+2 (first 16 weights) and 6(ib%2)+3..+5 (second 16). The
// f16 d is the four words' top nibbles, word k's giving bits 4k..4k+3.
//
// TQ1_0: weights in base 3, w = d·(t − 1) with the trit t in 0..2. A byte
// holds trits as a fixed-point fraction: trit n of byte q is the integer
// part of 3·frac, where frac = (q·3ⁿ mod 256)/256, i.e. ((q·3ⁿ)&0xFF)·3>>8.
// Trit n of qs[m] (m < 32) is weight 32n+m (five trits: 0..159); of
// qs[32+m] (m < 16) weight 160+16n+m (160..239); of qh[j] (n < 4) weight
// 240+4n+j.
//
// TQ2_0: the 2-bit layout of Q2_K without scales: weight 128h+32j+l is
// bits 2j..2j+1 of qs[32h+l], and w = d·(q − 1).
//
// There are no encoders (Quantize reports the types unsupported), as for
// the other importance-matrix types: nothing in the engine writes them.

const (
	iq1sBytes = 50
	iq1mBytes = 56
	tq1Bytes  = 54
	tq2Bytes  = 66
)

// iq1Delta is ggml's IQ1S_DELTA (and IQ1M_DELTA): the offset ±1/8 added to
// every grid weight. The dot products work in eighths, 8·g ± 1, to stay
// in integers.
const iq1Delta = 0.125

// iq1Grid returns the 8 weights −1, 0, +1 of grid entry idx (0..2047).
func iq1Grid(idx uint16) (g [8]int8) {
	u := iq1s_grid[idx&2047]
	for j := range g {
		g[j] = int8(u >> (8 * j))
	}
	return g
}

// iq1SRun returns IQ1_S sub-block ib's grid index of run l (0..3), its
// scale 2s+1 and the sign ±1 of its δ.
func iq1SRun(b *[iq1sBytes]byte, ib, l int) (idx uint16, ls, sgn int32) {
	qh := quantLoad16(b[34+2*ib:])
	idx = uint16(b[2+4*ib+l]) | (qh>>(3*l)&7)<<8
	ls = 2*int32(qh>>12&7) + 1
	sgn = 1 - 2*int32(qh>>15)
	return idx, ls, sgn
}

// iq1MD returns IQ1_M's super-block scale d, the f16 spread over the top
// nibbles of the scale words.
func iq1MD(b *[iq1mBytes]byte) float32 {
	var h uint16
	for k := range 4 {
		h |= quantLoad16(b[48+2*k:]) >> 12 << (4 * k)
	}
	return F16ToF32(h)
}

// iq1MRun returns IQ1_M sub-block ib's grid index of run l (0..3), the
// scale 2s+1 of the 16 weights it lies in and the sign ±1 of its δ.
func iq1MRun(b *[iq1mBytes]byte, ib, l int) (idx uint16, ls, sgn int32) {
	h := b[32+2*ib+l/2] >> (4 * (l % 2))
	idx = uint16(b[4*ib+l]) | uint16(h&7)<<8
	sc := quantLoad16(b[48+2*(ib/2):]) >> (6*(ib%2) + 3*(l/2))
	ls = 2*int32(sc&7) + 1
	sgn = 1 - 2*int32(h>>3&1)
	return idx, ls, sgn
}

// tq1Trit returns trit n of byte q minus one: −1, 0 or +1.
func tq1Trit(q byte, n int) int32 {
	var pow3 = [5]byte{1, 3, 9, 27, 81}
	return int32(uint16(q*pow3[n])*3>>8) - 1
}

// tq1Weight returns the byte offset in the block and the trit number of
// weight e (0..255) of a TQ1_0 block.
func tq1Weight(e int) (off, n int) {
	switch {
	case e < 160:
		return e % 32, e / 32
	case e < 240:
		return 32 + (e-160)%16, (e - 160) / 16
	}
	return 48 + (e-240)%4, (e - 240) / 4
}

// dequantIQ1S decodes len(dst)/256 IQ1_S super-blocks from src.
func dequantIQ1S(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq1sBytes]byte)(src[i*iq1sBytes:])
		d := F16ToF32(quantLoad16(b[0:2]))
		for ib := range QKK / QK {
			for l := range 4 {
				idx, ls, sgn := iq1SRun(b, ib, l)
				dl, delta := d*float32(ls), float32(sgn)*iq1Delta
				y := dst[i*QKK+32*ib+8*l:][:8]
				for j, g := range iq1Grid(idx) {
					y[j] = dl * (float32(g) + delta)
				}
			}
		}
	}
}

// dequantIQ1M decodes len(dst)/256 IQ1_M super-blocks from src.
func dequantIQ1M(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[iq1mBytes]byte)(src[i*iq1mBytes:])
		d := iq1MD(b)
		for ib := range QKK / QK {
			for l := range 4 {
				idx, ls, sgn := iq1MRun(b, ib, l)
				dl, delta := d*float32(ls), float32(sgn)*iq1Delta
				y := dst[i*QKK+32*ib+8*l:][:8]
				for j, g := range iq1Grid(idx) {
					y[j] = dl * (float32(g) + delta)
				}
			}
		}
	}
}

// dequantTQ1 decodes len(dst)/256 TQ1_0 super-blocks from src.
func dequantTQ1(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[tq1Bytes]byte)(src[i*tq1Bytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[52:54]))
		for e := range QKK {
			off, n := tq1Weight(e)
			y[e] = float32(tq1Trit(b[off], n)) * d
		}
	}
}

// dequantTQ2 decodes len(dst)/256 TQ2_0 super-blocks from src.
func dequantTQ2(dst []float32, src []byte) {
	for i := range len(dst) / QKK {
		b := (*[tq2Bytes]byte)(src[i*tq2Bytes:])
		y := (*[QKK]float32)(dst[i*QKK:])
		d := F16ToF32(quantLoad16(b[64:66]))
		for e := range QKK {
			q := b[32*(e/128)+e%32] >> (2 * uint(e%128/32)) & 3
			y[e] = float32(int32(q)-1) * d
		}
	}
}
