package tensor

import (
	"encoding/binary"
	"math"
)

// Packed Q2_K and Q3_K.
//
// Packed Q3_K: sixteen rows interleaved as for Q4_K (packk.go), one row per
// 512-bit lane, so that each 32-weight block's float work is one
// instruction for sixteen rows and the integer work is VPDPBUSD's, where
// the GGUF-layout kernels (dot_k23_amd64.s) unpack, scale and sum one row
// at a time.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packK3BlockBytes = 1856 bytes:
//
//	[0, 64)       the sixteen rows' d as float32 (f16 widened: exact);
//	[64, 320)     the signed scales (−32…31) of the sixteen 16-weight
//	              halves (unpacked from the 12 scale bytes), 32 bytes a
//	              block j at 64+32j: byte 2r the scale of row r's half 2j,
//	              byte 2r+1 that of its half 2j+1 (widened to words, one
//	              dword a row, for VPMADDWD);
//	[320, 1856)   eight 32-weight blocks of 192 bytes, block j at
//	              320+192j:
//	              [0, 64)    a vector A whose byte i of dword r holds, at
//	                         bits 2k…2k+1, the low two bits of row r's
//	                         weight 4k+i (k = 0…3: the block's first
//	                         half);
//	              [64, 128)  a vector B likewise for weights 16+4k+i
//	                         (the second half);
//	              [128, 192) eight 64-bit masks, mask k (k = 0…7) at
//	                         128+8k, its bit 4r+i the high bit of row r's
//	                         weight 4k+i.
//
// That is 3.625 bits a weight against the GGUF's 3.4375. Code k of a block
// (the four weights that meet activation dword k) is a shift of A or B and
// a mask of 0x03, plus 4 in the bytes its mask marks (VPADDB under an
// opmask, as packed Q5_K's fifth bits, packk5.go): c = low + 4·high, 0…7,
// and the weight is c − 4.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, block b (global index over the row's 32-blocks) gives the
// exact integer
//
//	p_b = s_0·Σ_{w<16} (c_w − 4)·x_w + s_1·Σ_{w≥16} (c_w − 4)·x_w
//
// with s_0, s_1 the scales of its two halves: each half's sum starts from
// −4·Σx over the half (the four m4 corrections of act.m4 that cover it,
// summed and divided by 8: m4 is −32·Σx per four codes) and is completed
// by VPDPBUSD (the codes, unsigned, times one signed activation dword
// broadcast to every lane); the two sums (|sum| ≤ 4·127·16, an int16) go
// into one dword's two words and VPMADDWD scales and adds them; then
//
//	acc = fma(f32(d)·dx_b, float(p_b), acc)
//
// with even blocks on one chain and odd ones on another, and the result
// is even + odd. |p_b| ≤ 2·32·16·4·127 < 2^24, exact in int32 and in
// float32. The GGUF-layout kernels sum in another order, so a packed
// matrix's outputs differ from its unpacked ones by float rounding only;
// the packed decode and prefill kernels agree bit for bit.

// packK3BlockBytes is one 256-column super-block of a group of sixteen Q3_K
// rows in the packed layout.
const packK3BlockBytes = 64 + 256 + 8*192

// packQ3K interleaves groups g0…g1−1 of src (Q3_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix. It moves four weights at
// a time: in the GGUF block, 32-block j has weight l's low bits in
// qs[32(j/4)+l] at bits 2(j%4)…2(j%4)+1 and its high bit in hmask[l] at
// bit j, so four consecutive weights are one dword of each, shifted and
// masked. On one thread it packs about 0.5 GB/s of GGUF rows
// (BenchmarkPack).
func packQ3K(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * q3KBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packK3BlockBytes:][:packK3BlockBytes]
			var masks [8][8]uint64 // [block][k]
			for r := range packRows {
				blk := gs[r*rb+sb*q3KBytes:][:q3KBytes]
				le.PutUint32(o[4*r:], math.Float32bits(f16At(blk, 108)))
				for h, s := range q3KScales((*[12]byte)(blk[96:108])) {
					o[64+32*(h/2)+2*r+h%2] = byte(s)
				}
				// Four weights' low bits are a dword of qs shifted (one
				// load serves the four blocks that share the bytes), and
				// their high bits a dword of hmask (one load serves all
				// eight blocks).
				var ab [8][2]uint32 // [block][half]
				for k := range 8 {
					for n := range 2 {
						q := le.Uint32(blk[32+32*n+4*k:])
						for s := range 4 {
							ab[4*n+s][k/4] |= (q >> (2 * s) & 0x03030303) << (2 * (k % 4))
						}
					}
					// The multiply moves bits 0, 8, 16, 24 to bits 24…27
					// (see packQ5K): row r's nibble of mask k.
					h := le.Uint32(blk[4*k:])
					for j := range 8 {
						masks[j][k] |= uint64((h>>j&0x01010101)*0x01020408>>24) << (4 * r)
					}
				}
				for j := range 8 {
					v := o[320+192*j:][:128]
					le.PutUint32(v[4*r:], ab[j][0])
					le.PutUint32(v[64+4*r:], ab[j][1])
				}
			}
			for j := range 8 {
				for k, m := range masks[j] {
					le.PutUint64(o[320+192*j+128+8*k:], m)
				}
			}
		}
	}
}

// Packed Q2_K: packed Q3_K's code vectors without the masks (Q2_K's codes
// are the two low bits alone, 0…3), behind the GGUF's own scale bytes, so
// that a group's super-block column is as many bytes as its sixteen GGUF
// super-blocks (packK2BlockBytes = 1344):
//
//	[0, 32)       the sixteen rows' f16 d, row r at 2r;
//	[32, 64)      their f16 dmin;
//	[64, 320)     the scale bytes of the sixteen 16-weight halves (scale
//	              in the low nibble, min in the high one, as the GGUF
//	              has them), 32 bytes a block j at 64+32j as packed
//	              Q3_K's scales: byte 2r row r's half 2j, byte 2r+1 its
//	              half 2j+1;
//	[320, 1344)   eight 32-weight blocks of 128 bytes, block j at
//	              320+128j: vectors A and B as packed Q3_K's.
//
// Arithmetic: for row r and token t, block b gives the exact integers
//
//	p_b = sc_0·Σ_{w<16} q_w·x_w + sc_1·Σ_{w≥16} q_w·x_w
//	n_b = −(m_0·Σ_{w<16} x_w + m_1·Σ_{w≥16} x_w)
//
// (each half's Σx from the four m4 corrections that cover it, summed and
// divided by −32; each pair of products by one VPMADDWD, as for Q3_K),
// then
//
//	acc = fma(f32(d)·dx_b, float(p_b), acc)
//	acc = fma(f32(dmin)·dx_b, float(n_b), acc)
//
// with even blocks on one chain and odd ones on another, even + odd.
// |p_b| ≤ 2·15·3·127·16 and |n_b| ≤ 2·15·127·16: exact in int32 and in
// float32.

// packK2BlockBytes is one 256-column super-block of a group of sixteen Q2_K
// rows in the packed layout.
const packK2BlockBytes = 64 + 256 + 8*128

// packQ2K interleaves groups g0…g1−1 of src (Q2_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix: the codes as packQ3K
// moves them (Q2_K's qs sit as Q3_K's do, from byte 16).
func packQ2K(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * q2KBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packK2BlockBytes:][:packK2BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*q2KBytes:][:q2KBytes]
				le.PutUint16(o[2*r:], le.Uint16(blk[80:]))
				le.PutUint16(o[32+2*r:], le.Uint16(blk[82:]))
				for h := range 16 {
					o[64+32*(h/2)+2*r+h%2] = blk[h]
				}
				var ab [8][2]uint32 // [block][half], as in packQ3K
				for k := range 8 {
					for n := range 2 {
						q := le.Uint32(blk[16+32*n+4*k:])
						for s := range 4 {
							ab[4*n+s][k/4] |= (q >> (2 * s) & 0x03030303) << (2 * (k % 4))
						}
					}
				}
				for j := range 8 {
					v := o[320+128*j:][:128]
					le.PutUint32(v[4*r:], ab[j][0])
					le.PutUint32(v[64+4*r:], ab[j][1])
				}
			}
		}
	}
}
