package tensor

import (
	"encoding/binary"
	"math"
)

// Packed IQ4_XS: sixteen rows interleaved as for Q4_K (packk.go), one row
// per 512-bit lane, so that each 32-weight sub-block's float work (its
// scale, the int→float conversion, the FMA) is one instruction for sixteen
// rows where the GGUF-layout kernels (dot_k23_amd64.s, gemm_k23_amd64.s)
// do it per row, and the integer work is VPDPBUSD's four products a lane
// instead of AVX2's VPSIGNB/VPMADDUBSW/VPMADDWD chain.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packXSBlockBytes = 2240 bytes:
//
//	[0, 64)       the sixteen rows' super-block scales d as float32 (f16
//	              widened: exact);
//	[64, 192)     the signed sub-block scales ls_j − 32 (−32…31) as int8,
//	              sub-block j's sixteen rows at 64+16j (unpacked from
//	              scales_l and scales_h);
//	[192, 2240)   eight sub-blocks of 256 bytes, each in packed Q4_0's
//	              code layout: four vectors V0…V3 of 64 bytes, dword r of
//	              Vv holding row r's weights 4v…4v+3 in its low nibbles and
//	              16+4v…16+4v+3 in its high ones. IQ4_XS's sub-block codes
//	              sit as a Q4_0 block's do, so each dword is four GGUF bytes
//	              moved as they are.
//
// That is 4.375 bits a weight against the GGUF's 4.25.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): the
// kernels look the nibbles up in a 16-byte table of kvalues + 128 (1…241,
// unsigned) with VPSHUFB, so that VPDPBUSD multiplies them by the signed
// activation dword broadcast to every lane; the +128 comes back out by
// starting each sub-block's integer sum from 16·m8 = −128·Σx, as packed
// Q8_0 does (pack.go). For row r and token t, sub-block j (global index J
// over the row's 32-blocks) so gives the exact integer i = Σ kvalue·x
// (|i| ≤ 32·127·127, exact in float32 too), then
//
//	acc = fma(f32(d·ls_j)·dx_J, float(i), acc)
//
// where d·ls_j is exact (an 11-bit significand times a 6-bit integer) and
// is the very scale the GGUF-layout kernels form. One chain per (row,
// token), sub-blocks in order; the result is acc. The GGUF-layout kernels
// keep one chain per sub-block position j instead (eight lanes summed at
// the end), so a packed matrix's outputs differ from its unpacked ones by
// float rounding only; the packed decode and prefill kernels agree bit for
// bit.

// packXSBlockBytes is one 256-column super-block of a group of sixteen
// IQ4_XS rows in the packed layout.
const packXSBlockBytes = 64 + 8*16 + 8*256

// packIQ4XS interleaves groups g0…g1−1 of src (IQ4_XS rows of nsb
// super-blocks) into dst, which holds the whole packed matrix. It writes
// each super-block column of a group row by row, moving the codes four
// bytes at a time.
func packIQ4XS(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq4xsBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packXSBlockBytes:][:packXSBlockBytes]
			for r := range packRows {
				blk := (*[iq4xsBytes]byte)(gs[r*rb+sb*iq4xsBytes:])
				le.PutUint32(o[4*r:], math.Float32bits(f16At(blk[:], 0)))
				for j := range 8 {
					o[64+16*j+r] = byte(int8(iq4xsScale(blk, j)))
					qs := blk[8+16*j:][:16]
					v := o[192+256*j:][:256]
					for c := range 4 {
						le.PutUint32(v[64*c+4*r:], le.Uint32(qs[4*c:]))
					}
				}
			}
		}
	}
}
