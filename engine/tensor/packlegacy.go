package tensor

import "encoding/binary"

// Packed IQ4_NL, Q5_0 and Q5_1: the remaining 32-weight block types in
// packed Q4_0's sixteen-row layout (pack.go), so that their decode streams
// sixteen rows' blocks as one run of whole cache lines and each block's
// float work is one instruction for sixteen rows. Each group's block
// column is as many bytes as the sixteen GGUF blocks it holds.
//
// IQ4_NL: packed Q4_0's layout exactly (an IQ4_NL block is a Q4_0 block
// whose nibbles index the kvalues table instead of standing for q+8), so
// packQ4_0 packs it. Packed MXFP4 is this layout too, with its own table
// (packmxfp4.go). The kernels look the nibbles up in the table of
// kvalues + 128 (1…241, unsigned) as packed IQ4_XS's do (packiq4xs.go)
// and start each block's integer sum from 16·m8 = −128·Σx, which takes the
// +128 back out.
//
// Q5_0: group g (rows 16g…16g+15) holds, for each block column b in turn,
// 16·22 = 352 bytes:
//
//	[0, 32)     the sixteen rows' f16 scales, row r at 2r;
//	[32, 96)    the fifth bits: eight 64-bit masks, the one at 32+8(2v+h)
//	            for the code vector that Vv's low (h = 0) or high (h = 1)
//	            nibbles make, its bit 4r+k the fifth bit of row r's weight
//	            16h+4v+k;
//	[96, 352)   four vectors V0…V3 of 64 bytes in packed Q4_0's code
//	            layout (Q5_0's low nibbles sit as Q4_0's do).
//
// Q5_1: likewise 16·24 = 384 bytes a block column: the f16 scales d at
// [0, 32), the f16 offsets m at [32, 64), the masks at [64, 128) and the
// code vectors at [128, 384).
//
// A mask bit stands where its code byte does in a 64-byte vector, so the
// kernels load it into an opmask register and add 16 to the bytes it marks
// (packed Q5_K's scheme, packk5.go). Unlike packed Q5_K's, these masks sit
// beside their block's codes: one block column is one contiguous run of
// 5.5 or 6 cache lines.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, block b gives the exact integer i_b:
//
//	IQ4_NL  i_b = Σ kvalue·x          (16·m8 plus the unsigned levels' products)
//	Q5_0    i_b = Σ (q − 16)·x        (2·m8 = −16·Σx plus the codes' products)
//	Q5_1    i_b = Σ q·x               (q = 0…31)
//
// then IQ4_NL and Q5_0 as packed Q4_0 (acc = fma(f32(d_b)·dx_b,
// float(i_b), acc), even blocks on one chain and odd on another, even +
// odd), Q5_1 as packed Q4_1 (acc = fma(f32(d_b)·dx_b, float(i_b), acc);
// acc = fma(f32(m_b), s_b, acc), one chain). |i_b| ≤ 32·127·127, exact in
// int32 and in float32. The GGUF-layout kernels sum these blocks in
// another order, so packed outputs differ from unpacked ones by float
// rounding only; each packed decode kernel and its four-token kernel agree
// bit for bit.

// packQ5_0 interleaves groups g0…g1−1 of src (Q5_0 rows of nb blocks) into
// dst, which holds the whole packed matrix.
func packQ5_0(dst, src []byte, nb, g0, g1 int) {
	packQ5(dst, src, nb, g0, g1, q5_0Bytes, 2)
}

// packQ5_1 interleaves groups g0…g1−1 of src (Q5_1 rows of nb blocks) into
// dst, which holds the whole packed matrix.
func packQ5_1(dst, src []byte, nb, g0, g1 int) {
	packQ5(dst, src, nb, g0, g1, q5_1Bytes, 4)
}

// packQ5 is packQ5_0 and packQ5_1: blocks of bb bytes whose first head
// bytes (d, or d and m) are f16 values, then the four qh bytes and the
// sixteen code bytes. The f16 values go at 32 bytes a value, the masks
// after them and the codes last. Mask 2v+h takes, at bits 4r…4r+3, the
// fifth bits of row r's weights 16h+4v…16h+4v+3: qh's bits 16h+4v…
// 16h+4v+3.
func packQ5(dst, src []byte, nb, g0, g1, bb, head int) {
	rb := nb * bb
	le := binary.LittleEndian
	mo, co := 16*head, 16*head+64 // masks' and codes' offsets
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for b := range nb {
			o := dst[(g*nb+b)*packRows*bb:][:packRows*bb]
			var m [8]uint64
			for r := range packRows {
				blk := gs[r*rb+b*bb:][:bb]
				le.PutUint16(o[2*r:], le.Uint16(blk))
				if head == 4 {
					le.PutUint16(o[32+2*r:], le.Uint16(blk[2:]))
				}
				qh, sh := uint64(le.Uint32(blk[head:])), 4*r
				m[0] |= qh & 15 << sh
				m[1] |= qh >> 16 & 15 << sh
				m[2] |= qh >> 4 & 15 << sh
				m[3] |= qh >> 20 & 15 << sh
				m[4] |= qh >> 8 & 15 << sh
				m[5] |= qh >> 24 & 15 << sh
				m[6] |= qh >> 12 & 15 << sh
				m[7] |= qh >> 28 & 15 << sh
				qs := blk[head+4:][:16]
				le.PutUint32(o[co+4*r:], le.Uint32(qs))
				le.PutUint32(o[co+64+4*r:], le.Uint32(qs[4:]))
				le.PutUint32(o[co+128+4*r:], le.Uint32(qs[8:]))
				le.PutUint32(o[co+192+4*r:], le.Uint32(qs[12:]))
			}
			for c, v := range m {
				le.PutUint64(o[mo+8*c:], v)
			}
		}
	}
}
