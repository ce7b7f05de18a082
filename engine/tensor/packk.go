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
				}
				// Sub-blocks 2c and 2c+1 are the low and high nibbles
				// of bytes 16+32c…; four bytes at a time (bytes b and
				// b+16 of a sub-block become one packed byte).
				for c := range 4 {
					qs := blk[16+32*c:][:32]
					lo, hi := o[384+256*2*c:][:256], o[384+256*(2*c+1):][:256]
					for v := range 4 {
						a, b := le.Uint32(qs[4*v:]), le.Uint32(qs[16+4*v:])
						le.PutUint32(lo[64*v+4*r:], a&0x0f0f0f0f|(b&0x0f0f0f0f)<<4)
						le.PutUint32(hi[64*v+4*r:], a>>4&0x0f0f0f0f|b&0xf0f0f0f0)
					}
				}
			}
		}
	}
}

// Packed Q4_1: sixteen rows interleaved as packed Q4_0's, each 32-block
// column of a group 16·20 = 320 bytes, the size of the GGUF rows:
//
//	[0, 32)     the sixteen rows' f16 scales d, row r at 2r;
//	[32, 64)    their f16 offsets m;
//	[64, 320)   four vectors V0…V3 of 64 bytes in packed Q4_0's code
//	            layout (Q4_1's nibbles sit as Q4_0's do).
//
// Arithmetic: for row r and token t, block b gives the exact integer
// i = Σ q·x (nibbles 0…15 times the activation codes), then
//
//	acc = fma(f32(d)·dx_b, float(i), acc)
//	acc = fma(f32(m), s_b, acc)
//
// with s_b the token's block sum dx·Σx (act.s), one chain per (row,
// token) as packed Q4_K's; the result is acc.

// packQ4_1 interleaves groups g0…g1−1 of src (Q4_1 rows of nb blocks) into
// dst, which holds the whole packed matrix.
func packQ4_1(dst, src []byte, nb, g0, g1 int) {
	rb := nb * q4_1Bytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for b := range nb {
			o := dst[(g*nb+b)*packRows*q4_1Bytes:][:packRows*q4_1Bytes]
			for r := range packRows {
				blk := gs[r*rb+b*q4_1Bytes:][:q4_1Bytes]
				le.PutUint16(o[2*r:], le.Uint16(blk))
				le.PutUint16(o[32+2*r:], le.Uint16(blk[2:]))
				for v := range 4 {
					le.PutUint32(o[64+64*v+4*r:], le.Uint32(blk[4+4*v:]))
				}
			}
		}
	}
}
