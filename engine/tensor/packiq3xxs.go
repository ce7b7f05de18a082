package tensor

import "encoding/binary"

// Packed IQ3_XXS: sixteen rows interleaved, one row per 32-bit lane of a
// ZMM, so that a sub-block's float work is one instruction for sixteen
// rows and its integer work VPDPBUSD's (unsigned weights, one dword of four
// per row, times one signed activation dword broadcast to every lane),
// where the GGUF-layout kernel (dot_iq3_amd64.s) decodes, folds and
// converts one row at a time.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packIQ3XXSBlockBytes = 1568 bytes:
//
//	[0, 32)       the sixteen rows' f16 scales d, row r at 2r;
//	[32, 1056)    the grid indices, 128 bytes a sub-block j = 0…7: at
//	              32+128j+64h+packIQ3XXSLine(m, r) row r's qs[8j+4h+m],
//	              the index of entry 4h+m (the magnitudes of weights
//	              32j+16h+4m…+3), h = 0, 1, m = 0…3, in the order the
//	              in-register lookup wants (packIQ3XXSLine);
//	[1056, 1568)  the signs-and-scale words: dword 1056+64j+4r is row r's
//	              aux_j as in the file, one vector a sub-block.
//
// That is 98 bytes a row and super-block, the file's own size: a packed
// IQ3_XXS matrix reads no more bytes per token than the GGUF one.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): the
// entries of sub-block j come in for sixteen rows from lookups in
// registers (the entry's twelve-bit code of 3-bit levels by VPERMT2B, its
// fields by VPMULTISHIFTQB, 62 + level by VPERMB; no gathers, which cost
// more in the model than in the kernel benchmarks); a negative weight becomes 124 − (62+g) = 62 − g by one merge-masked
// VPSUBB, the mask from the sign word (VPSHUFBITQMB). So each weight is
// w' = 62 + sign·g in [0, 124], and the block's exact integer
//
//	isum = Σ sign·g·x = −62·Σx + Σ w'·x
//
// is started from −62·Σx = 62·(m8/8) and completed by eight VPDPBUSD
// (|isum| ≤ 32·62·127, exact in int32). Then, as the GGUF-layout kernel:
//
//	acc_j = fma(float((2s+1)·isum), (f32(d)·0.25)·dx, acc_j)
//
// with the exact int32 product first, one accumulator per sub-block
// position j = 0…7, super-blocks in order, and the result ((acc_0 +
// acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) + (acc_3 + acc_7)) (its
// eight lanes, then IQ3HSUM's order). So a packed matrix gives the very
// numbers of an unpacked one and the models' goldens do not move. The
// packed decode and prefill kernels agree bit for bit.
//
// The sign word of a row's sub-block (its byte l ksigns_iq2xs[field l of
// aux], the seven stored signs and their parity) is formed for sixteen
// rows at once in the kernel: VPMULTISHIFTQB moves field l to byte l, and
// VPOPCNTB's bit 0 is the parity, shifted to bit 7.

// packIQ3XXSBlockBytes is one 256-column super-block of a group of sixteen
// IQ3_XXS rows in the packed layout.
const packIQ3XXSBlockBytes = packRows * iq3xxsBytes

// packIQ3XXSLine is where, in the first (second) 64 bytes of a
// sub-block's index bytes, entry m (4+m) of row r goes: byte 16L + 8u + 4v + i with L = r/4,
// v = r/2 % 2, u = m/2 and i = 2(m%2) + r%2, so that after the kernels'
// lookups VPUNPCKLBW (u = 0) and VPUNPCKHBW (u = 1) of the codes' low and
// high bytes leave in qword q = 2L + v the words of rows 2q, 2q+1 of entry
// 2u (words 0, 1) and 2u+1 (words 2, 3) of the half.
func packIQ3XXSLine(m, r int) int {
	return 16*(r/4) + 8*(m/2) + 4*(r/2%2) + 2*(m%2) + r%2
}

// packIQ3XXS interleaves groups g0…g1−1 of src (IQ3_XXS rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ3XXS(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq3xxsBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ3XXSBlockBytes:][:packIQ3XXSBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq3xxsBytes:][:iq3xxsBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for j := range 8 {
					for m := range 4 {
						o[32+128*j+packIQ3XXSLine(m, r)] = blk[2+8*j+m]
						o[96+128*j+packIQ3XXSLine(m, r)] = blk[6+8*j+m]
					}
				}
				for j := range 8 {
					le.PutUint32(o[1056+64*j+4*r:], le.Uint32(blk[66+4*j:]))
				}
			}
		}
	}
}

// Packed IQ3_XXS for AVX2 (CPUs without the VBMI lookups above): eight
// rows to a YMM, one row per 32-bit lane, and the signs folded into the
// codebook index when the matrix is packed. The GGUF-layout AVX2 kernel
// spends most of its time turning each sub-block's four 7-bit sign fields
// into bytes (dot_iq3_amd64.s); here each entry's index carries its four
// sign bits, and iq3xxsSigned (4,096 entries, 16 KB, iqgen) holds the four
// weights ready as unsigned bytes 62 ± g. So an entry costs one index and
// one table load, and eight rows' entries make one VPMADDUBSW operand
// against one broadcast activation dword, with no sign work, no
// horizontal folds and the float work shared by eight rows.
//
// Group g (rows 16g…16g+15) is two halves of eight rows, each its own
// run of nsb blocks of packIQ3XXSA8Bytes = 848 bytes, so that each pass
// streams forward: half h's block of super-block sb holds, for its rows
// r = 0…7 (rows 16g+8h+r),
//
//	[0, 16)      the f16 scales d, row r at 2r;
//	[16, 784)    the indices, 96 bytes a sub-block j and 12 an entry m
//	             (weights 32j+4m…+3): at 16+96j+12m rows 0…3's twelve
//	             bits each (grid index | four sign bits << 8),
//	             little-endian in six bytes, then rows 4…7's;
//	[784, 848)   the sub-block scales as 2s+1, one byte each: 784+8j+r.
//
// That is 106 bytes a row and super-block against the file's 98. (A
// sixteen-bit index a entry, 138 bytes, was no faster.)
//
// Arithmetic: isum = Σ sign·g·x = −62·Σx + Σ w'·x, started from
// 62·(m8/8) and completed by VPMADDUBSW/VPMADDWD (pair sums ≤ 2·124·128,
// within int16), then acc_j = fma(float((2s+1)·isum), (f32(d)·0.25)·dx,
// acc_j) and ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) +
// (acc_3 + acc_7)): the GGUF-layout AVX2 kernel's operations lane for
// lane, so its numbers bit for bit.
const packIQ3XXSA8Bytes = 16 + 768 + 64

// packIQ3XXSAVX2 packs groups g0…g1−1 of src (IQ3_XXS rows of nsb
// super-blocks) into dst, 2·nsb·packIQ3XXSA8Bytes bytes a group.
func packIQ3XXSAVX2(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq3xxsBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for h := range 2 {
			for sb := range nsb {
				o := dst[((2*g+h)*nsb+sb)*packIQ3XXSA8Bytes:][:packIQ3XXSA8Bytes]
				var blks [8]*[iq3xxsBytes]byte
				for r := range blks {
					blks[r] = (*[iq3xxsBytes]byte)(gs[(8*h+r)*rb+sb*iq3xxsBytes:])
					o[2*r], o[2*r+1] = blks[r][0], blks[r][1]
				}
				for j := range 8 {
					var sg [8]uint32
					for r, blk := range blks {
						aux := iq3xxsAux(blk, j)
						o[784+8*j+r] = byte(2*(aux>>28) + 1)
						sg[r] = iq3xxsSigns(aux)
					}
					for m := range 8 {
						var v [8]uint64
						for r, blk := range blks {
							v[r] = uint64(blk[2+8*j+m]) | uint64(sg[r]>>(4*m)&15)<<8
						}
						putFields(o[16+96*j+12*m:][:12], 12, v[:])
					}
				}
			}
		}
	}
}
