package tensor

// Packed IQ2_S: sixteen rows interleaved as for TQ2_0 (packtq.go), one row
// per 32-bit lane of the kernels' vectors, so that a block's scale and
// float work is one instruction for sixteen rows and its codebook lookups
// are gathers of eight rows' 8-byte grid entries at once
// (packiq2s_amd64.s), where the GGUF-layout kernel (dot_iq2_amd64.s) loads
// one entry at a time.
//
// Group g (rows 16g…16g+15) holds, for each 256-weight super-block column
// in turn, packIQ2SBlockBytes = 1312 bytes: at [0, 32) the sixteen rows'
// f16 scales d, row r at 2r, as in the file, then for each 32-weight block
// j = 0…7 (runs 4j…4j+3 of eight weights) 160 bytes at 32+160j:
//
//	[0, 64)     the low eight bits of the runs' grid indices, run l
//	            (l = 0…3) of row r at 16l+r (the file's qs[4j+l]);
//	[64, 128)   the runs' sign bytes, run l of row r at 64+16l+r (the
//	            file's signs[4j+l]);
//	[128, 144)  the block's qh byte of row r at 128+r (bits 2l, 2l+1: the
//	            two high index bits of run l);
//	[144, 160)  the block's scale byte of row r at 144+r (low nibble:
//	            weights 0…15, high nibble: 16…31).
//
// That is 82 bytes a row and super-block, the file's own size. The layout
// is what the kernels' loads want: VPMOVZXBD of sixteen bytes widens a
// run's (or the block's qh or scale) bytes of all sixteen rows into
// dwords, and eight consecutive sign bytes (rows 0…7 or 8…15 of a run),
// taken by KMOVQ, are the 64-bit byte mask of the gather that holds those
// rows' entries (row r's run in qword r, weight i at byte 8r+i, whose sign
// is bit i of the row's sign byte).
//
// Arithmetic (decode and prefill kernels alike, every lane alike): the
// gathers read iq2sGrid43 (packiq2s_amd64.s), iq2s_grid with 43 added to
// every byte, so a weight is w′ = 43 + m, and a negative one becomes
// 43 − m by one merge-masked byte subtraction from 86; w′ is unsigned for
// VPDPBUSD and Σ(w′ − 43)·x = Σ±m·x comes out exact from a sum started at
// −43·Σx over each sixteen-weight half (computed per token and
// super-block from the activation codes). For row r and token t, half h of
// block j gives the exact s_h = Σ grid·sign·x, and the block
//
//	p = (2·ls_0 + 1)·s_0 + (2·ls_1 + 1)·s_1
//
// (|p| < 2²⁴, exact in int32 and float32; the kernels form float(p) as
// fma(float(s_1), 2·ls_1 + 1, float(s_0)·(2·ls_0 + 1)), exact since every
// value on the way is an integer below 2²⁴), then
//
//	acc_j = fma(float(p), (f32(d)·0.125)·dx, acc_j)
//
// with one accumulator per block position j = 0…7, super-blocks in order,
// and the result ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) +
// (acc_3 + acc_7)): lane for lane the GGUF-layout AVX2 kernel's
// arithmetic (its eight block lanes, then IQ2HSUM), so a packed matrix
// gives the very numbers of an unpacked one. The packed decode and prefill
// kernels agree bit for bit.

// packIQ2SBlockBytes is one 256-column super-block of a group of sixteen
// IQ2_S rows in the packed layout.
const packIQ2SBlockBytes = packRows * iq2sBytes

// packIQ2S interleaves groups g0…g1−1 of src (IQ2_S rows of nsb
// super-blocks) into dst, which holds the whole packed matrix. Every byte
// of the file keeps its value; only its place changes.
func packIQ2S(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq2sBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ2SBlockBytes:][:packIQ2SBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq2sBytes:][:iq2sBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for j := range 8 {
					b := o[32+160*j:][:160]
					for l := range 4 {
						b[16*l+r] = blk[2+4*j+l]
						b[64+16*l+r] = blk[34+4*j+l]
					}
					b[128+r] = blk[66+j]
					b[144+r] = blk[74+j]
				}
			}
		}
	}
}
