package tensor

import "encoding/binary"

// Packed IQ3_S: sixteen rows interleaved, one row per 32-bit lane of a ZMM,
// so that each of a sub-block's eight grid lookups is one VPGATHERDD for
// sixteen rows (four magnitudes a row: the dword VPDPBUSD multiplies by one
// activation dword broadcast to every lane), and a block's float work one
// instruction for sixteen rows, where the GGUF-layout kernel
// (dot_iq3_amd64.s) gathers, multiplies and folds one row at a time.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packIQ3SBlockBytes = 1760 bytes; entry e = 8j+m is group m
// (weights 4m…4m+3) of sub-block j:
//
//	[0, 32)       the sixteen rows' f16 scales d, row r at 2r, as in the
//	              file (the kernels widen them with VCVTPH2PS: exact);
//	[32, 1056)    the low index bytes: byte r of the 16 at 32+16e is row
//	              r's qs[e] (VPMOVZXBD makes them the gather's indices);
//	[1056, 1184)  the ninth index bits: bit r of the little-endian word at
//	              1056+2e is bit m of row r's qh[j] (a KMOVW mask for a
//	              merge-masked VPORD of 256);
//	[1184, 1696)  the signs: bit 4r+i of the little-endian qword at
//	              1184+8e is the sign bit of row r's weight 32j+4m+i (bit
//	              4(m%2)+i of its signs[4j+m/2]): the KMOVQ mask of the
//	              gathered vector's bytes;
//	[1696, 1760)  the scales: dword r is row r's four scale bytes, as in
//	              the file (sub-block j's s is its nibble j: one VPSRLD,
//	              and VPERMPS reads the low four bits).
//
// That is 110 bytes a row and super-block, the file's own size.
//
// The kernels gather from iq3sGrid16 (packiq3s_amd64.s), iq3s_grid with 16
// added to every byte: w' = 16 + m, and a negative weight's byte becomes
// 32 − w' = 16 − m by one VPSUBB merge-masked by its sign bits, so every
// weight is 16 + (±m) in [1, 31], unsigned as VPDPBUSD wants it. (An
// offset of 16 rather than the least, 15, makes the start of the sum one
// doubling of m8.)
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, sub-block j of super-block s gives the exact integer
//
//	i = Σ(±m)·x = −16·Σx + Σw'·x
//
// started from −16·Σx = 2·m8 (m8 = −8·Σx) and completed by eight VPDPBUSD
// (|Σw'·x| ≤ 32·31·128: exact in int32), then p = (2s+1)·i, the
// GGUF-layout kernel's exact integer (|p| < 2²⁴), formed as the float
// product float(i)·float(2s+1), which is exact and so the same float, and
//
//	acc_j = fma(float(p), f32(d)·dx, acc_j)
//
// with one accumulator per block position j = 0…7, super-blocks in order,
// and the result ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) +
// (acc_3 + acc_7)). That is, lane for lane, the GGUF-layout AVX2 kernel's
// arithmetic (its eight sub-block lanes and IQ3HSUM), so a packed matrix
// gives the very numbers of an unpacked one and the models' goldens do not
// move. The packed decode and prefill kernels agree bit for bit.

// Offsets inside a packed IQ3_S group super-block.
const (
	packIQ3SQs         = 32
	packIQ3SQh         = packIQ3SQs + 64*packRows
	packIQ3SSigns      = packIQ3SQh + 8*packRows
	packIQ3SScales     = packIQ3SSigns + 32*packRows
	packIQ3SBlockBytes = packRows * iq3sBytes // one super-block column of a group
)

// A packed super-block ends with its scales: this fails to compile if the
// sections do not add up to the file's bytes.
var _ = [1]struct{}{}[packIQ3SScales+4*packRows-packIQ3SBlockBytes]

// packIQ3S interleaves groups g0…g1−1 of src (IQ3_S rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ3S(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq3sBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ3SBlockBytes:][:packIQ3SBlockBytes]
			var qh [64]uint16
			var sg [64]uint64
			for r := range packRows {
				blk := gs[r*rb+sb*iq3sBytes:][:iq3sBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for e := range 64 {
					j, m := e/8, e%8
					o[packIQ3SQs+16*e+r] = blk[2+e]
					qh[e] |= uint16(blk[66+j]>>m&1) << r
					sg[e] |= uint64(blk[74+4*j+m/2]>>(4*(m%2))&0xF) << (4 * r)
				}
				copy(o[packIQ3SScales+4*r:][:4], blk[106:110])
			}
			for e := range 64 {
				le.PutUint16(o[packIQ3SQh+2*e:], qh[e])
				le.PutUint64(o[packIQ3SSigns+8*e:], sg[e])
			}
		}
	}
}
