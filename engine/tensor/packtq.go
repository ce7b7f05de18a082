package tensor

import "encoding/binary"

// Packed TQ2_0: sixteen rows interleaved as for Q4_K (packk.go), one row
// per 512-bit lane, so that a block's float work is one instruction for
// sixteen rows and its integer work VPDPBUSD's (unsigned 2-bit codes times
// one signed activation dword broadcast to every lane), where the
// GGUF-layout kernel (dot_iq1_amd64.s) multiplies, folds and converts one
// row at a time.
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

// Packed TQ1_0 is packed TQ2_0: each trit t (0…2) becomes the 2-bit code
// q = t of the same weight, and the sixteen rows are laid out as above,
// with the f16 scales copied. The GGUF-layout TQ1_0 kernel
// (dot_iq1_amd64.s) computes the same exact block sums Σ(t − 1)·x and the
// same float operations as TQ2_0's (eight block lanes of FMAs, IQ1G4HSUM's
// order), so the packed TQ2_0 kernels give a packed TQ1_0 matrix the very
// numbers of the unpacked one.
//
// The cost is bytes: 66 a row and super-block against the file's 54, 1.22
// times, in memory and in what a token reads. Decoding base 3 in the
// kernel would keep the file's bytes but spend about twice the vector
// work per weight of the 2-bit codes (a trit plane needs v·3 mod 256
// twice and two VPDPBUSD, t = (3v − (3v mod 256))/256). That kernel is not
// written: whether its fewer bytes would outrun its arithmetic on the
// 2-vCPU Xeon is an estimate, not a measurement (docs/quants.md).

// packTQ1 interleaves groups g0…g1−1 of src (TQ1_0 rows of nsb
// super-blocks) into dst in packed TQ2_0's layout. Trits are taken four
// bytes at a time (tq1Planes), and a packed dword is four of those planes
// shifted into bit pairs 0…3: block n < 5 is trit plane n of qs[0:32]
// (half v from its dwords 4v…4v+3), blocks 5, 6 and the first half of 7
// planes 0…4 of qs[32:48], and the second half of block 7 the four planes
// of qh (tq1Weight's map).
func packTQ1(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * tq1Bytes
	le := binary.LittleEndian
	var pl [12][5]uint32 // one row's trit planes: qs dwords 0…7, 8…11
	var ph [5]uint32     // and qh's
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packTQ2BlockBytes:][:packTQ2BlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*tq1Bytes:][:tq1Bytes]
				o[2*r], o[2*r+1] = blk[52], blk[53]
				for c := range pl {
					tq1Planes(le.Uint32(blk[4*c:]), &pl[c])
				}
				tq1Planes(le.Uint32(blk[48:]), &ph)
				put := func(j, v int, u uint32) { le.PutUint32(o[32+64*(2*j+v)+4*r:], u) }
				for n := range 5 {
					for v := range 2 {
						put(n, v, pl[4*v][n]|pl[4*v+1][n]<<2|pl[4*v+2][n]<<4|pl[4*v+3][n]<<6)
					}
					put(5+n/2, n%2, pl[8][n]|pl[9][n]<<2|pl[10][n]<<4|pl[11][n]<<6)
				}
				put(7, 1, ph[0]|ph[1]<<2|ph[2]<<4|ph[3]<<6)
			}
		}
	}
}

// tq1Planes sets t[n] to trit n (n = 0…4) of each of the four bytes of d,
// byte for byte: with v = q·3ⁿ mod 256, the trit is floor(3v/256) and
// v·3 mod 256 the next v. The bytes go into 16-bit lanes, where 3v does
// not overflow.
func tq1Planes(d uint32, t *[5]uint32) {
	const lo8, lo2 = 0x00FF00FF00FF00FF, 0x0003000300030003
	u := uint64(d)
	u = (u | u<<16) & 0x0000FFFF0000FFFF
	u = (u | u<<8) & lo8
	for n := range t {
		u3 := u * 3
		x := u3 >> 8 & lo2
		x = (x | x>>8) & 0x0000FFFF0000FFFF
		t[n] = uint32(x | x>>16)
		u = u3 & lo8
	}
}
