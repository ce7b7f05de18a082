package tensor

import "encoding/binary"

// Packed MXFP4: packed IQ4_NL's layout (packlegacy.go), so that the packed
// IQ4_NL kernels run it with MXFP4's table of levels in place of
// kvalues_iq4nl. An MXFP4 block is an IQ4_NL block with a one-byte E8M0
// exponent in place of the f16 scale and the doubled E2M1 values
// (mxfp4Values) as its levels, so packMXFP4 writes each block's scale
// 2^(e−128) as an f16 and its codes where packQ4_0 puts them. A group's
// block column is then 288 bytes for the 272 of its sixteen GGUF blocks.
//
// The f16 holds 2^(e−128) exactly for e in 104…143 (2^−24, its least
// subnormal, to 2^15); a trained model's blocks lie well inside (gpt-oss's
// experts: weights of about 2^−10 to 2^0). A block whose codes are all ±0
// (0 or 8) contributes 0 at any scale and stores 0. A matrix with any
// other block out of that range is not packed (packMXFP4 reports it and
// Kernels.Pack returns the matrix as it is), and runs its GGUF-layout
// kernels, which take every exponent: an f32 scale in the packed layout
// would cost every matrix 64 bytes a block column more and kernels of
// its own, for blocks a model does not have.
//
// The arithmetic is packed IQ4_NL's: i_b = Σ level·x exact (16·m8 plus
// the levels + 128 times the codes), acc = fma(f32(d_b)·dx_b, float(i_b),
// acc) on even and odd chains. f32(d_b) is E8M0Half(e) exactly, so this
// is the unpacked kernels' arithmetic up to the order of the float sums.

// mxfp4LevelsU is mxfp4Values + 128 as unsigned bytes, the table the
// packed kernels look MXFP4's codes up in.
const mxfp4LevelsU = "\x80\x81\x82\x83\x84\x86\x88\x8c\x80\x7f\x7e\x7d\x7c\x7a\x78\x74"

// mxfp4F16Scale returns the f16 that holds E8M0Half(e) exactly, and false
// when there is none (e < 104 or e > 143).
func mxfp4F16Scale(e uint8) (uint16, bool) {
	k := int(e) - 128 // the scale is 2^k
	switch {
	case k < -24 || k > 15:
		return 0, false
	case k < -14:
		return 1 << (k + 24), true // subnormal: 2^−24 · 2^(k+24)
	default:
		return uint16(k+15) << 10, true
	}
}

// mxfp4Zero reports whether every code of the MXFP4 block's 16 code bytes
// qs is ±0 (0 or 8).
func mxfp4Zero(qs []byte) bool {
	le := binary.LittleEndian
	return (le.Uint64(qs)|le.Uint64(qs[8:]))&0x7777777777777777 == 0
}

// packMXFP4 interleaves groups g0…g1−1 of src (MXFP4 rows of nb blocks)
// into dst, which holds the whole packed matrix, in packed IQ4_NL's layout.
// It reports false, leaving the rest of its groups unwritten, at the first
// block whose scale no f16 holds (see above).
func packMXFP4(dst, src []byte, nb, g0, g1 int) bool {
	rb := nb * mxfp4Bytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for b := range nb {
			o := dst[(g*nb+b)*packBlockBytes:][:packBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+b*mxfp4Bytes:][:mxfp4Bytes]
				qs := blk[1:]
				var h uint16
				if !mxfp4Zero(qs) {
					var ok bool
					if h, ok = mxfp4F16Scale(blk[0]); !ok {
						return false
					}
				}
				le.PutUint16(o[2*r:], h)
				le.PutUint32(o[32+4*r:], le.Uint32(qs))
				le.PutUint32(o[96+4*r:], le.Uint32(qs[4:]))
				le.PutUint32(o[160+4*r:], le.Uint32(qs[8:]))
				le.PutUint32(o[224+4*r:], le.Uint32(qs[12:]))
			}
		}
	}
	return true
}
