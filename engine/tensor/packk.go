package tensor

import (
	"encoding/binary"
	"math"
)

// Packed Q4_K: the rows of a Q4_K matrix interleaved sixteen at a time, as
// packed Q4_0 (pack.go) interleaves its rows, so that a 512-bit lane holds
// one row and each 32-weight sub-block's float work is one instruction for
// sixteen rows. In the GGUF layout the K-quant kernels do that work once
// per row, which on the Xeon of the third session kept Q4_K's prefill at a
// quarter of the VNNI unit's rate while packed Q4_0 ran near it.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packKBlockBytes = 2432 bytes:
//
//	[0, 64)       the sixteen rows' super-block scales d as float32;
//	[64, 128)     their −dmin as float32 (f16 widened: exact);
//	[128, 256)    the 6-bit sub-block scales, sub-block j's sixteen rows
//	              at 128+16j (unpacked from the 12 scale bytes);
//	[256, 384)    the 6-bit sub-block mins, likewise at 256+16j;
//	[384, 2432)   eight sub-blocks of 256 bytes, each in packed Q4_0's code
//	              layout: four vectors V0…V3 of 64 bytes, dword r of Vv
//	              holding row r's weights 4v…4v+3 in its low nibbles and
//	              16+4v…16+4v+3 in its high ones.
//
// That is 4.75 bits a weight against the GGUF's 4.5.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, sub-block j (global index J over the row's 32-blocks)
// gives the exact integer i = Σ q·x (nibbles 0…15 times the activation
// codes), then
//
//	acc = fma(f32(d·sc_j)·dx_J, float(i), acc)
//	acc = fma(f32(−dmin·m_j), s_J, acc)
//
// where dx_J is the token's block scale and s_J its block sum dx·Σx (act.s),
// and d·sc_j and −dmin·m_j are exact (an 11-bit significand times a 6-bit
// integer). One chain per (row, token): its two FMAs a sub-block are
// shorter than the sub-block's other work. The result is acc.

// packKBlockBytes is one 256-column super-block of a group of sixteen Q4_K
// rows in the packed layout.
const packKBlockBytes = 2432

// packQ4K interleaves groups g0…g1−1 of src (Q4_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix.
func packQ4K(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * q4KBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packKBlockBytes:][:packKBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*q4KBytes:][:q4KBytes]
				le.PutUint32(o[4*r:], math.Float32bits(f16At(blk, 0)))
				le.PutUint32(o[64+4*r:], math.Float32bits(-f16At(blk, 2)))
				sc, m := unpackK4(blk[4:16])
				for j := range 8 {
					o[128+16*j+r] = sc[j]
					o[256+16*j+r] = m[j]
					// Sub-block 2c is the low nibbles of bytes
					// 16+32c…, sub-block 2c+1 their high ones.
					qs, shift := blk[16+32*(j/2):][:32], uint(4*(j%2))
					v := o[384+256*j:][:256]
					for b := range 16 {
						lo, hi := qs[b]>>shift&15, qs[b+16]>>shift&15
						v[64*(b/4)+4*r+b%4] = lo | hi<<4
					}
				}
			}
		}
	}
}

// Packed Q6_K: sixteen rows interleaved as for Q4_K. Per 256-weight
// super-block column a group holds packK6BlockBytes = 3392 bytes:
//
//	[0, 64)       the sixteen rows' d as float32;
//	[64, 320)     the sixteen 8-bit scales of each row's 16-weight halves,
//	              half k's sixteen rows at 64+16k;
//	[320, 3392)   eight 32-weight blocks of 384 bytes: four vectors N0…N3
//	              holding the low four bits of the 6-bit codes in packed
//	              Q4_0's layout (dword r of Nv: row r's weights 4v…4v+3 in
//	              the low nibbles, 16+4v…16+4v+3 in the high ones), then
//	              two vectors H0, H1 of the top two bits: byte k of dword r
//	              of H0 holds, at bits 2v…2v+1, weight 4v+k's (v = 0…3),
//	              and H1 the same for weights 16+4v+k.
//
// That is 6.6 bits a weight against the GGUF's 6.56.
//
// Arithmetic: for row r and token t, each 16-weight half h (first the
// block's weights 0…15, then 16…31) of 32-block J gives the exact integer
// i = Σ (q−32)·x, started from the token's −32·Σx of the half (act.m32),
// then acc = fma(f32(d·sc_h)·dx_J, float(i), acc); d·sc_h is exact. The
// result is acc.

// packK6BlockBytes is one 256-column super-block of a group of sixteen
// Q6_K rows in the packed layout.
const packK6BlockBytes = 3392

// q6KCodes returns the 256 six-bit codes (0…63) of a Q6_K super-block in
// weight order.
func q6KCodes(blk []byte) (q [256]uint8) {
	for h := range 2 {
		ql := blk[64*h : 64*h+64]
		qh := blk[128+32*h : 160+32*h]
		for l := range 32 {
			hb := qh[l]
			q[128*h+l] = ql[l]&15 | (hb&3)<<4
			q[128*h+l+32] = ql[l+32]&15 | (hb>>2&3)<<4
			q[128*h+l+64] = ql[l]>>4 | (hb>>4&3)<<4
			q[128*h+l+96] = ql[l+32]>>4 | (hb>>6&3)<<4
		}
	}
	return q
}

// packQ6K interleaves groups g0…g1−1 of src (Q6_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix.
func packQ6K(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * q6KBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packK6BlockBytes:][:packK6BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*q6KBytes:][:q6KBytes]
				le.PutUint32(o[4*r:], math.Float32bits(f16At(blk, 208)))
				for k := range 16 {
					o[64+16*k+r] = blk[192+k]
				}
				q := q6KCodes(blk)
				for j := range 8 {
					qb := q[32*j:][:32]
					v := o[320+384*j:][:384]
					for b := range 16 {
						lo, hi := qb[b], qb[b+16]
						vec, k := b/4, b%4
						v[64*vec+4*r+k] = lo&15 | (hi&15)<<4
						v[256+4*r+k] |= (lo >> 4) << (2 * vec)
						v[320+4*r+k] |= (hi >> 4) << (2 * vec)
					}
				}
			}
		}
	}
}
