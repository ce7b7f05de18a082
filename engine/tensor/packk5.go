package tensor

import (
	"encoding/binary"
	"math"
)

// Packed Q5_K: packed Q4_K's layout (packk.go) with each sub-block's fifth
// bits right after its codes, so that the Q5_K kernels are the Q4_K ones
// plus one masked byte add per code vector. Group g (rows 16g…16g+15)
// holds, for each 256-weight super-block column in turn, packK5BlockBytes
// = 2944 bytes:
//
//	[0, 384)      packed Q4_K's head: d, −dmin, the sub-block scales and
//	              mins;
//	[384, 2944)   eight sub-blocks of 320 bytes, sub-block j at 384+320j:
//	              four nibble vectors V0…V3 as packed Q4_K's (the Q5_K
//	              codes' low four bits), then the fifth bits: eight 64-bit
//	              masks, the one at 384+320j+256+8(2v+h) for the code
//	              vector that V_v's low (h = 0) or high (h = 1) nibbles
//	              make, its bit 4r+k the fifth bit of row r's weight
//	              16h+4v+k of sub-block j.
//
// That is 5.75 bits a weight against the GGUF's 5.5. A mask bit stands
// where its code byte does in the 64-byte vector, so the kernels load the
// mask into an opmask register and add 16 to the nibbles it marks (VPADDB
// under the mask): codes 0…31 for one vector instruction and one mask load
// each, where rebuilding them from a shifted bit plane takes a shift and a
// VPTERNLOGD.
//
// Until the wave's seventh session the masks sat after all eight
// sub-blocks' nibbles (at 2432+64j), which kept the nibbles at packed
// Q4_K's offsets but had each sub-block read from two places 0.7–2 KiB
// apart; with them beside the codes, as packed Q5_0's are (packlegacy.go),
// a sub-block is one run of five cache lines and the decode streams
// faster (docs/performance.md).
//
// Arithmetic: packed Q4_K's, codes 0…31 for 0…15. For row r and token t,
// sub-block j (global index J over the row's 32-blocks) gives the exact
// integer i = Σ q·x, then
//
//	acc = fma(f32(d·sc_j)·dx_J, float(i), acc)
//	acc = fma(f32(−dmin·m_j), s_J, acc)
//
// one chain per (row, token); the result is acc. i is at most
// 31·127·32 in magnitude, exact in the int32 sums and in float32.

// packK5BlockBytes is one 256-column super-block of a group of sixteen
// Q5_K rows in the packed layout: packed Q4_K's plus 8·64 mask bytes.
const packK5BlockBytes = packKBlockBytes + 8*64

// packK5Sub is one sub-block's codes and masks in packed Q5_K.
const packK5Sub = 256 + 64

// packQ5K interleaves groups g0…g1−1 of src (Q5_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix. It moves the nibbles four
// bytes at a time as packQ4K does, and gathers each row's four mask bits
// of a (sub-block, vector) from one qh dword.
func packQ5K(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * q5KBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packK5BlockBytes:][:packK5BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*q5KBytes:][:q5KBytes]
				le.PutUint32(o[4*r:], math.Float32bits(f16At(blk, 0)))
				le.PutUint32(o[64+4*r:], math.Float32bits(-f16At(blk, 2)))
				sc, m := unpackK4(blk[4:16])
				for j := range 8 {
					o[128+16*j+r] = sc[j]
					o[256+16*j+r] = m[j]
				}
				// The nibbles: packQ4K's moves, from byte 48, each
				// sub-block 320 bytes on from the last.
				for c := range 4 {
					qs := blk[48+32*c:][:32]
					lo, hi := o[384+packK5Sub*2*c:][:256], o[384+packK5Sub*(2*c+1):][:256]
					for v := range 4 {
						a, b := le.Uint32(qs[4*v:]), le.Uint32(qs[16+4*v:])
						le.PutUint32(lo[64*v+4*r:], a&0x0f0f0f0f|(b&0x0f0f0f0f)<<4)
						le.PutUint32(hi[64*v+4*r:], a>>4&0x0f0f0f0f|b&0xf0f0f0f0)
					}
				}
				// The fifth bits: u's byte k is qh[16h+4v+k], whose bit j
				// is weight 16h+4v+k's of sub-block j. The multiply
				// moves bits j, 8+j, 16+j, 24+j of u to bits 24…27
				// (no two partial products meet or carry), the nibble
				// that row r puts at bits 4r…4r+3 of the mask: the low
				// or high half of the mask's byte r/2. Even rows come
				// first and set the byte, odd ones add their half.
				qh := blk[16:48]
				for h := range 2 {
					for v := range 4 {
						u := le.Uint32(qh[16*h+4*v:])
						for j := range 8 {
							nib := byte((u >> j & 0x01010101) * 0x01020408 >> 24)
							at := 384 + packK5Sub*j + 256 + 8*(2*v+h) + r/2
							if r%2 == 0 {
								o[at] = nib
							} else {
								o[at] |= nib << 4
							}
						}
					}
				}
			}
		}
	}
}
