package tensor

import "encoding/binary"

// Packed TQ2_0: sixteen rows interleaved as for Q4_K (packk.go), one row
// per 512-bit lane, so that a block's float work is one instruction for
// sixteen rows and its integer work VPDPBUSD's (unsigned 2-bit codes times
// one signed activation dword broadcast to every lane), where the
// GGUF-layout kernel (dot_iq1_amd64.s) multiplies, folds and converts one
// row at a time. On AVX2 (packtq_avx2_amd64.s) the same layout is read
// eight rows at a time, one row per 256-bit lane, a half-group per pass:
// VPMADDUBSW pair sums in int16 lanes in place of VPDPBUSD, and no
// horizontal folding either.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packTQ2BlockBytes = 1056 bytes:
//
//	[0, 32)      the sixteen rows' f16 scales d, row r at 2r, as in the
//	             file (the kernels widen them with VCVTPH2PS: exact);
//	[32, 1056)   sixteen vectors of 64 bytes, vector 2j+v (block j = 0…7,
//	             half v = 0, 1) at 32+64(2j+v): byte i of its dword r holds
//	             at bits 2k…2k+1 (k = 0…3) the code q (0…3) of row r's
//	             weight 32j+16v+4k+i.
//
// That is 66 bytes a row and super-block, the file's own size: a packed
// TQ2_0 matrix reads no more bytes per token than the GGUF one. Code k of
// a vector (the four weights of each row that meet activation dword
// 8j+4v+k) is its bit pair k of every byte, which the kernels take out
// with a mask of 0x03 (k = 0) or one GF(2) affine map (GF2P8AFFINEQB).
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, block j of super-block s gives the exact integer
//
//	p = Σ(q − 1)·x = −Σx + Σq·x
//
// started from −Σx = m8/8 and completed by VPDPBUSD (|p| ≤ 32·2·127, exact
// in int32 and float32), then
//
//	acc_j = fma(f32(d)·dx, float(p), acc_j)
//
// with one accumulator per block position j = 0…7, super-blocks in order,
// and the result ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) +
// (acc_3 + acc_7)). That is, lane for lane, the GGUF-layout AVX2 kernel's
// arithmetic (its eight block lanes, then IQ1HSUM), so a packed matrix
// gives the very numbers of an unpacked one and the models' goldens do not
// move. The packed decode and prefill kernels agree bit for bit.

// packTQ2BlockBytes is one 256-column super-block of a group of sixteen
// TQ2_0 rows in the packed layout.
const packTQ2BlockBytes = packRows * tq2Bytes

// packTQ2 interleaves groups g0…g1−1 of src (TQ2_0 rows of nsb
// super-blocks) into dst, which holds the whole packed matrix. Each output
// dword gathers, for one row, block j and half v, the codes of the four
// runs of four weights 4k…4k+3 from the four GGUF dwords that hold them
// (bit pair j%4 of qs[32(j/4)+16v+4k:][:4]).
func packTQ2(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * tq2Bytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packTQ2BlockBytes:][:packTQ2BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*tq2Bytes:][:tq2Bytes]
				o[2*r], o[2*r+1] = blk[64], blk[65]
				for j := range 8 {
					sh := 2 * uint(j%4)
					for v := range 2 {
						qs := blk[32*(j/4)+16*v:][:16]
						var u uint32
						for k := range 4 {
							u |= (le.Uint32(qs[4*k:]) >> sh & 0x03030303) << (2 * k)
						}
						le.PutUint32(o[32+64*(2*j+v)+4*r:], u)
					}
				}
			}
		}
	}
}

// Packed TQ1_0 keeps the file's bytes, 54 a row and super-block: sixteen
// rows interleaved as for TQ2_0, one row per 512-bit lane, the trits left
// in their base-3 bytes for the kernel to decode (packtq1_amd64.s). Group
// g holds, for each super-block column in turn, packTQ1BlockBytes = 864
// bytes:
//
//	[0, 32)     the sixteen rows' f16 scales d, row r at 2r;
//	[32, 544)   eight vectors of 64 bytes, vector k at 32+64k: dword r
//	            is row r's qs[4k:4k+4];
//	[544, 800)  four vectors, vector k at 544+64k: row r's qs[32+4k:][:4];
//	[800, 864)  one vector: row r's qh[0:4].
//
// Trit n of byte m of qs[0:32] is weight 32n+m, of qs[32:48] weight
// 160+16n+m and of qh weight 240+4n+m (tq1Weight), so byte i of vector k's
// dwords meets activation dword 8n+k (qs[0:32]), 40+4n+k (qs[32:48]) or
// 60+n (qh) in trit plane n: blocks 0…4 are the planes of the first eight
// vectors, blocks 5 and 6 two planes each of the next four, and block 7
// their last plane and qh's four. The kernels compute each block's exact
// integer sum Σ(t − 1)·x from the bytes (packtq1_amd64.s) and the float
// operations of packed TQ2_0's kernels, which are those of the GGUF-layout
// TQ1_0 kernel (dot_iq1_amd64.s: eight block lanes of FMAs, IQ1G4HSUM's
// order): a packed TQ1_0 matrix gives the unpacked one's numbers bit for
// bit.
//
// (Before this layout TQ1_0 was repacked into packed TQ2_0's 2-bit codes,
// 66 bytes a row and super-block: 1.22 times the file's bytes in memory
// and per token. Decoding base 3 costs about twice the vector work per
// weight of the 2-bit codes, which the kernel has to spare: docs/quants.md
// has the measurement.)

// packTQ1BlockBytes is one 256-column super-block of a group of sixteen
// TQ1_0 rows in the packed layout.
const packTQ1BlockBytes = packRows * tq1Bytes

// packTQ1 interleaves groups g0…g1−1 of src (TQ1_0 rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packTQ1(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * tq1Bytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packTQ1BlockBytes:][:packTQ1BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*tq1Bytes:][:tq1Bytes]
				o[2*r], o[2*r+1] = blk[52], blk[53]
				for k := range 8 {
					copy(o[32+64*k+4*r:][:4], blk[4*k:])
				}
				for k := range 4 {
					copy(o[544+64*k+4*r:][:4], blk[32+4*k:])
				}
				copy(o[800+4*r:][:4], blk[48:52])
			}
		}
	}
}
