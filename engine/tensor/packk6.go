package tensor

import (
	"encoding/binary"
	"math"
)

// Packed Q6_K: sixteen rows interleaved as for Q4_K (packk.go), one row per
// 512-bit lane, with the arithmetic of the GGUF-layout kernels kept bit for
// bit. The Q4_K_M golden (TestKJVKQuant) sits near a tie that a different
// float order for Q6_K moved past its bound (a packing with one FMA per
// 16-weight half was tried and reverted, see docs/performance.md), so
// here each row keeps the eight float accumulators of dotQ6KRowsAVX2, one
// per four-weight group of a 32-block:
//
//	lane k (k = 0…7) of block b: i = Σ (q−32)·x over weights 4k…4k+3,
//	acc_k = fma(float(i)·sc, d·dx_b, acc_k), block after block, with sc
//	the scale of the 16-weight half holding the lane (float(i)·sc is
//	exact); the row is ((acc_0+acc_4)+(acc_1+acc_5)) +
//	((acc_2+acc_6)+(acc_3+acc_7)), the AVX2 kernel's horizontal sum.
//
// So a packed matrix gives exactly what it gave unpacked, in decode and in
// prefill. Group g (rows 16g…16g+15) holds, for each 256-weight
// super-block column in turn, packK6BlockBytes = 3392 bytes:
//
//	[0, 64)       the sixteen rows' d as float32 (f16 widened: exact);
//	[64, 320)     the 8-bit scales of the sixteen 16-weight halves, half
//	              h's sixteen rows at 64+16h;
//	[320, 3392)   eight 32-weight blocks of 384 bytes, in two parts of
//	              192 bytes, part p holding lanes 4p…4p+3 (weights
//	              16p…16p+15): a vector A whose dword r holds row r's
//	              lane 4p in its low nibbles and lane 4p+2 in its high ones
//	              (the low four bits of the 6-bit codes, byte i of the dword
//	              being the lane's weight i), a vector B likewise for lanes
//	              4p+1 and 4p+3, and a vector H whose byte i of dword r
//	              holds at bits 2k…2k+1 the top two bits of lane 4p+k's
//	              weight i.
//
// That is 6.625 bits a weight against the GGUF's 6.5625. The four-token
// kernel runs each part over the whole row in turn, so that its sixteen
// accumulators (four tokens, four lanes) fit the register file, and reads
// each part's bytes once.

// packK6BlockBytes is one 256-column super-block of a group of sixteen Q6_K
// rows in the packed layout.
const packK6BlockBytes = 3392

// packQ6K interleaves groups g0…g1−1 of src (Q6_K rows of nsb super-blocks)
// into dst, which holds the whole packed matrix. It moves four weights at
// a time: in the GGUF block, 32-block j = 4h+c (half h of 128 weights) has
// weight l's low four bits in ql[64h+32(c&1)+l], shifted by 4(c>>1), and
// its top two in qh[32h+l] at bits 2c…2c+1, so four consecutive weights
// are one dword of each, shifted and masked.
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
				for h := range 16 {
					o[64+16*h+r] = blk[192+h]
				}
				for j := range 8 {
					h, c := j/4, j%4
					ql := blk[64*h+32*(c&1):][:32]
					qh := blk[128+32*h:][:32]
					nsh, hsh := uint(4*(c>>1)), uint(2*c)
					// Weights l…l+3 of the block, a byte each.
					nib := func(l int) uint32 { return le.Uint32(ql[l:]) >> nsh & 0x0f0f0f0f }
					top := func(l int) uint32 { return le.Uint32(qh[l:]) >> hsh & 0x03030303 }
					for p := range 2 {
						v := o[320+384*j+192*p:][:192]
						l := 16 * p
						le.PutUint32(v[4*r:], nib(l)|nib(l+8)<<4)
						le.PutUint32(v[64+4*r:], nib(l+4)|nib(l+12)<<4)
						le.PutUint32(v[128+4*r:], top(l)|top(l+4)<<2|top(l+8)<<4|top(l+12)<<6)
					}
				}
			}
		}
	}
}
