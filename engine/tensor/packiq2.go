package tensor

import (
	"encoding/binary"
	"math/bits"
)

// Packed IQ2_XXS and IQ2_XS: sixteen rows interleaved as for TQ2_0
// (packtq.go), one row per 32-bit lane of a ZMM, so that a block's float
// work is one instruction for sixteen rows. A weight's signed value m·s
// (m = 8, 25 or 43) becomes the unsigned byte w = 43 + s·m, which
// VPDPBUSD multiplies by the signed activations.
//
// IQ2_XXS: group g (rows 16g…16g+15) holds, for each 256-weight
// super-block column in turn, packIQ2XXSBlockBytes = 1056 bytes:
//
//	[0, 32)          the sixteen rows' f16 scales d, row r at 2r;
//	[32+128j, …)     block j = 0…7 (weights 32j…32j+31), 128 bytes:
//	  [0, 64)        grid indices: byte 4r+l the index of row r's run l
//	                 (the file's qs byte 8j+l);
//	  [64, 128)      row r's uint32 of signs and scale at 4r: the file's
//	                 (qs bytes 8j+4…8j+7) rotated left by 4, so the scale
//	                 ls is in bits 0…3 and run l's sign index at 4+7l.
//
// That is 66 bytes a row and super-block, the file's own size. The kernels
// look the grid up without gathers (packiq2_amd64.s): byte 4r+l of a
// 64-byte vector is row r's run l, so that weight position p of all four
// runs of a row is one dword, which meets the activations (x[p], x[8+p],
// x[16+p], x[24+p]); iq2xxsCodes gives each grid index's levels, two
// positions a byte, and iq2xxsLevels maps a position's level and sign to
// w. The eighth sign of a run is the parity of its seven (ksigns_iq2xs[i]
// = i | parity(i)<<7), computed by VGF2P8AFFINEQB.
//
// IQ2_XS is looked up the same way (packiq2_amd64.s), its 9-bit grid
// indices split into the low eight bits, one byte a run as for IQ2_XXS,
// and the ninth, kept with the second half's scale; iq2xsCodes gives two
// grid entries' levels a byte (index bit 7 picks one). packIQ2XSBlockBytes
// = 1184 bytes a super-block column:
//
//	[0, 32)          the sixteen rows' f16 scales d, row r at 2r;
//	[32+144j, …)     block j, 144 bytes:
//	  [0, 64)        grid indices' low bytes: byte 4r+l that of row r's
//	                 run l (the file's qs word 4j+l);
//	  [64, 128)      row r's uint32 at 64+4r: the scale of weights 0…15
//	                 (the low four bits of the file's scales byte j) in
//	                 bits 0…3 and run l's 7-bit sign index at 4+7l;
//	  [128, 144)     row r's byte at 128+r: the scale of weights 16…31
//	                 (the scales byte's high four bits) in bits 0…3 and
//	                 bit 8 of run l's grid index at bit 4+l.
//
// 74 bytes a row and super-block, the file's size.
//
// Arithmetic (decode and prefill kernels alike, every lane alike): for row
// r and token t, block j of super-block s gives the exact integer sum p of
// dotIQ2XXSGo / dotIQ2XSGo: the sums of w·x are started from −43·Σx over
// the weights they cover (IQ2_XXS: 43·m8/8 for the block; IQ2_XS: per
// half-block of sixteen weights, −43·Σx from VPDPBUSD of 43s with the
// activations, as its two scales multiply the halves apart), and the scales
// 2·ls + 1 multiply in float32 (IQ2_XS: float(p₀₁)·s₀₁ + float(p₂₃)·s₂₃,
// one VMULPS and one FMA): every product and sum is an integer below 2²⁴,
// exact, so the result is float(p) of the int32 p. Then, as the
// GGUF-layout AVX2 kernels (dot_iq2_amd64.s) do,
//
//	acc_j = fma(float(p), (f32(d)·0.125)·dx, acc_j)
//
// with one accumulator per block position j, super-blocks in order, and
// the result ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) +
// (acc_3 + acc_7)): a packed matrix gives the very numbers of an unpacked
// one, and the packed decode and prefill kernels agree bit for bit.

// The packed IQ2 super-block columns of a group of sixteen rows.
const (
	packIQ2XXSBlockBytes = packRows * iq2xxsBytes
	packIQ2XSBlockBytes  = packRows * iq2xsBytes
)

// packIQ2XXS interleaves groups g0…g1−1 of src (IQ2_XXS rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ2XXS(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq2xxsBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ2XXSBlockBytes:][:packIQ2XXSBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq2xxsBytes:][:iq2xxsBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for j := range 8 {
					ob := o[32+128*j:][:128]
					q := blk[2+8*j:][:8]
					copy(ob[4*r:][:4], q[:4])
					aux := binary.LittleEndian.Uint32(q[4:])
					binary.LittleEndian.PutUint32(ob[64+4*r:], bits.RotateLeft32(aux, 4))
				}
			}
		}
	}
}

// packIQ2XS interleaves groups g0…g1−1 of src (IQ2_XS rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ2XS(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq2xsBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ2XSBlockBytes:][:packIQ2XSBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq2xsBytes:][:iq2xsBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for j := range 8 {
					ob := o[32+144*j:][:144]
					sc := blk[66+j]
					aux, hi := uint32(sc&15), sc>>4
					for l := range 4 {
						q := le.Uint16(blk[2+2*(4*j+l):])
						ob[4*r+l] = byte(q)
						aux |= uint32(q>>9) << (4 + 7*l)
						hi |= byte(q>>8&1) << (4 + l)
					}
					le.PutUint32(ob[64+4*r:], aux)
					ob[128+r] = hi
				}
			}
		}
	}
}

// iq2xxsCodes: the levels of iq2xxs_grid's entries (codes 0, 1, 2 for
// magnitudes 8, 25, 43), two weight positions a byte, table k = 0…3 at
// 256k indexed by the grid index, as the packed IQ2_XXS kernels build the
// index of VPERMB into iq2xxsLevels: table 0 holds position 0's code at
// bits 2…3 and position 1's at 4…5 (their signs go to bits 0, 1), table 1
// positions 2, 3 at 0…1 and 4…5 (signs 2, 3), table 2 positions 4, 5 at
// 0…1 and 2…3 (signs 4, 5), table 3 positions 6, 7 as table 0 (signs 0, 1).
// TestPackedIQ2Grids proves it against the grid. Never written.
var iq2xxsCodes = [1024]byte{
	0, 8, 20, 32, 40, 4, 16, 0, 8, 32, 40, 4, 16, 0, 32, 4,
	16, 0, 8, 40, 8, 4, 16, 0, 20, 0, 16, 32, 0, 8, 8, 8,
	4, 16, 0, 4, 16, 0, 8, 32, 0, 4, 16, 0, 16, 0, 8, 32,
	0, 24, 36, 0, 4, 36, 0, 0, 16, 16, 0, 20, 32, 16, 32, 4,
	16, 0, 8, 32, 16, 0, 8, 16, 4, 16, 0, 4, 0, 0, 16, 0,
	20, 0, 32, 0, 0, 40, 0, 16, 20, 0, 32, 0, 20, 36, 0, 32,
	8, 0, 24, 4, 16, 0, 0, 4, 0, 20, 0, 4, 0, 8, 40, 16,
	4, 0, 8, 36, 32, 0, 8, 4, 16, 0, 0, 24, 0, 4, 16, 0,
	32, 0, 16, 16, 4, 16, 0, 32, 4, 16, 0, 32, 24, 0, 4, 16,
	0, 0, 0, 4, 0, 20, 4, 0, 32, 24, 32, 0, 32, 0, 0, 36,
	8, 16, 0, 4, 16, 0, 0, 20, 0, 32, 4, 8, 20, 0, 0, 32,
	4, 36, 0, 0, 32, 16, 8, 16, 4, 0, 8, 40, 4, 16, 0, 4,
	36, 16, 0, 32, 16, 0, 0, 32, 0, 20, 32, 0, 0, 20, 0, 8,
	16, 8, 0, 8, 40, 4, 8, 16, 32, 0, 4, 4, 16, 0, 20, 0,
	0, 0, 24, 16, 36, 0, 0, 8, 16, 4, 16, 0, 16, 0, 4, 24,
	0, 20, 0, 8, 16, 4, 4, 0, 8, 0, 20, 36, 0, 32, 0, 16,
	0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 16, 16, 17, 17, 18,
	18, 32, 32, 32, 34, 0, 0, 1, 1, 16, 32, 33, 0, 0, 2, 32,
	0, 0, 1, 2, 2, 16, 16, 16, 18, 32, 32, 33, 34, 0, 0, 0,
	2, 16, 18, 32, 33, 0, 1, 16, 32, 34, 0, 0, 0, 1, 2, 16,
	16, 17, 17, 32, 0, 16, 0, 1, 0, 0, 1, 2, 16, 18, 32, 33,
	33, 0, 0, 2, 17, 17, 32, 2, 16, 0, 0, 2, 2, 16, 32, 1,
	18, 0, 1, 0, 0, 1, 16, 32, 0, 0, 34, 17, 0, 0, 0, 16,
	18, 32, 32, 2, 16, 0, 0, 0, 0, 1, 16, 17, 0, 16, 18, 33,
	0, 2, 33, 16, 0, 0, 1, 1, 2, 2, 16, 16, 17, 18, 32, 32,
	33, 0, 2, 18, 32, 32, 0, 1, 16, 17, 18, 0, 0, 2, 32, 33,
	1, 2, 0, 0, 0, 1, 16, 16, 0, 17, 18, 32, 16, 33, 0, 0,
	1, 1, 2, 32, 32, 0, 16, 34, 33, 33, 33, 0, 0, 17, 0, 1,
	1, 18, 16, 0, 0, 1, 16, 18, 0, 17, 1, 18, 0, 0, 1, 1,
	32, 16, 0, 0, 0, 16, 32, 0, 1, 16, 1, 0, 0, 1, 1, 16,
	18, 0, 16, 33, 0, 16, 18, 0, 0, 1, 0, 1, 2, 16, 34, 1,
	32, 16, 0, 2, 16, 17, 32, 2, 0, 17, 32, 0, 0, 1, 17, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5,
	5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 8, 8, 8, 8, 8, 8,
	8, 8, 8, 8, 9, 9, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 1, 2, 2, 4, 4, 4, 4, 4, 4, 5,
	5, 6, 6, 8, 8, 8, 8, 8, 9, 9, 9, 10, 0, 0, 0, 0,
	0, 0, 0, 1, 1, 2, 2, 4, 4, 4, 4, 4, 5, 5, 5, 6,
	8, 8, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4,
	5, 5, 6, 8, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 0, 0,
	0, 0, 0, 0, 0, 1, 1, 1, 2, 4, 4, 5, 6, 6, 8, 8,
	8, 8, 9, 10, 0, 0, 0, 0, 1, 1, 2, 2, 4, 4, 5, 5,
	5, 8, 0, 0, 0, 0, 0, 1, 1, 1, 2, 4, 4, 4, 4, 4,
	4, 5, 5, 5, 6, 6, 6, 8, 9, 10, 0, 0, 0, 0, 0, 1,
	1, 2, 4, 4, 4, 5, 8, 9, 0, 0, 0, 1, 2, 4, 8, 9,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8,
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
	16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
	16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 20, 20,
	20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
	20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
	24, 24, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
	32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 36, 36, 36, 36, 36, 36,
	36, 36, 36, 36, 36, 36, 36, 36, 40, 40, 40, 40, 40, 40, 40, 40,
}

// iq2xxsLevels: the unsigned weight 43 ± m of a position's code and sign
// in a 6-bit index of iq2xxsCodes's layout, 64 bytes for positions 0…5 in
// turn (6 and 7 take 0 and 1's): sign bit and code bits 0 and 2…3, 1 and
// 4…5, 2 and 0…1, 3 and 4…5, 4 and 0…1, 5 and 2…3. Never written.
var iq2xxsLevels = [384]byte{
	51, 35, 51, 35, 68, 18, 68, 18, 86, 0, 86, 0, 43, 43, 43, 43,
	51, 35, 51, 35, 68, 18, 68, 18, 86, 0, 86, 0, 43, 43, 43, 43,
	51, 35, 51, 35, 68, 18, 68, 18, 86, 0, 86, 0, 43, 43, 43, 43,
	51, 35, 51, 35, 68, 18, 68, 18, 86, 0, 86, 0, 43, 43, 43, 43,
	51, 51, 35, 35, 51, 51, 35, 35, 51, 51, 35, 35, 51, 51, 35, 35,
	68, 68, 18, 18, 68, 68, 18, 18, 68, 68, 18, 18, 68, 68, 18, 18,
	86, 86, 0, 0, 86, 86, 0, 0, 86, 86, 0, 0, 86, 86, 0, 0,
	43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43,
	51, 68, 86, 43, 35, 18, 0, 43, 51, 68, 86, 43, 35, 18, 0, 43,
	51, 68, 86, 43, 35, 18, 0, 43, 51, 68, 86, 43, 35, 18, 0, 43,
	51, 68, 86, 43, 35, 18, 0, 43, 51, 68, 86, 43, 35, 18, 0, 43,
	51, 68, 86, 43, 35, 18, 0, 43, 51, 68, 86, 43, 35, 18, 0, 43,
	51, 51, 51, 51, 51, 51, 51, 51, 35, 35, 35, 35, 35, 35, 35, 35,
	68, 68, 68, 68, 68, 68, 68, 68, 18, 18, 18, 18, 18, 18, 18, 18,
	86, 86, 86, 86, 86, 86, 86, 86, 0, 0, 0, 0, 0, 0, 0, 0,
	43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43, 43,
	51, 68, 86, 43, 51, 68, 86, 43, 51, 68, 86, 43, 51, 68, 86, 43,
	35, 18, 0, 43, 35, 18, 0, 43, 35, 18, 0, 43, 35, 18, 0, 43,
	51, 68, 86, 43, 51, 68, 86, 43, 51, 68, 86, 43, 51, 68, 86, 43,
	35, 18, 0, 43, 35, 18, 0, 43, 35, 18, 0, 43, 35, 18, 0, 43,
	51, 51, 51, 51, 68, 68, 68, 68, 86, 86, 86, 86, 43, 43, 43, 43,
	51, 51, 51, 51, 68, 68, 68, 68, 86, 86, 86, 86, 43, 43, 43, 43,
	35, 35, 35, 35, 18, 18, 18, 18, 0, 0, 0, 0, 43, 43, 43, 43,
	35, 35, 35, 35, 18, 18, 18, 18, 0, 0, 0, 0, 43, 43, 43, 43,
}

// iq2xsCodes: the levels of iq2xs_grid's entries (codes 0, 1, 2 for
// magnitudes 8, 25, 43), two weight positions of two entries a byte, as
// the packed IQ2_XS kernels look them up: table k = 0…3 (positions 2k,
// 2k+1) and h = 0, 1 (grid index bit 8) at 256k + 128h, byte b for the
// entries e = 256h + b and e + 128. Entry e's codes sit where
// iq2xxsCodes's table k has them (k = 0, 3: bits 2…3 and 4…5; k = 1: 0…1
// and 4…5; k = 2: 0…1 and 2…3), entry e + 128's in the bits left (k = 0,
// 3: 6…7 and 0…1; k = 1: 2…3 and 6…7; k = 2: 4…5 and 6…7), which the
// kernels move into the first ones (VGF2P8AFFINEQB) when the index's bit 7
// is set; the sign bits then overwrite bits 0…1, 2…3 or 4…5, and
// iq2xxsLevels reads the byte. TestPackedIQ2Grids proves it against the
// grid. Never written.
var iq2xsCodes = [1024]byte{
	0, 8, 22, 161, 40, 68, 17, 153, 102, 0, 136, 85, 34, 68, 17, 24,
	164, 65, 10, 84, 33, 4, 146, 64, 9, 20, 32, 132, 81, 38, 64, 5,
	16, 88, 37, 0, 8, 21, 161, 104, 5, 145, 0, 8, 20, 32, 132, 81,
	2, 96, 5, 16, 64, 1, 74, 20, 33, 4, 80, 1, 4, 16, 0, 21,
	66, 104, 5, 16, 152, 36, 1, 137, 20, 97, 133, 80, 66, 8, 148, 97,
	6, 146, 88, 1, 4, 80, 1, 0, 8, 20, 96, 5, 16, 0, 6, 81,
	0, 132, 0, 6, 80, 1, 24, 66, 8, 16, 64, 136, 86, 96, 170, 133,
	16, 2, 150, 4, 81, 2, 160, 2, 0, 42, 4, 144, 2, 130, 68, 37,
	24, 37, 130, 136, 20, 161, 4, 16, 65, 9, 84, 162, 105, 133, 17, 128,
	20, 132, 81, 2, 64, 9, 20, 162, 68, 17, 0, 4, 144, 2, 130, 84,
	9, 133, 16, 0, 72, 102, 0, 0, 8, 148, 32, 6, 80, 37, 0, 132,
	81, 0, 0, 82, 4, 17, 65, 18, 130, 40, 2, 105, 146, 0, 132, 18,
	129, 128, 20, 18, 137, 2, 68, 17, 0, 36, 145, 1, 8, 148, 33, 133,
	82, 0, 97, 5, 16, 2, 66, 4, 144, 64, 84, 129, 74, 65, 16, 40,
	132, 18, 130, 4, 130, 0, 68, 70, 129, 32, 128, 34, 134, 32, 4, 0,
	81, 69, 2, 166, 40, 128, 10, 20, 6, 17, 1, 129, 18, 138, 88, 166,
	0, 8, 8, 132, 136, 1, 1, 1, 1, 6, 6, 6, 6, 24, 24, 80,
	80, 81, 81, 85, 85, 90, 90, 160, 160, 164, 32, 33, 33, 33, 38, 4,
	8, 64, 64, 69, 129, 133, 133, 1, 2, 2, 20, 80, 88, 16, 17, 17,
	18, 22, 36, 40, 97, 64, 64, 68, 72, 129, 1, 2, 20, 80, 17, 21,
	96, 32, 0, 4, 4, 64, 69, 129, 1, 1, 74, 70, 152, 16, 16, 16,
	17, 17, 21, 22, 40, 96, 97, 68, 128, 136, 0, 1, 5, 66, 80, 88,
	17, 26, 160, 136, 0, 1, 6, 24, 80, 32, 64, 68, 132, 0, 4, 137,
	1, 2, 2, 24, 84, 145, 153, 104, 166, 34, 8, 128, 129, 144, 32, 32,
	0, 8, 65, 133, 1, 5, 6, 66, 80, 152, 16, 88, 24, 17, 85, 90,
	18, 32, 32, 33, 4, 4, 8, 8, 65, 65, 70, 144, 144, 153, 168, 32,
	34, 0, 4, 65, 69, 70, 16, 8, 128, 128, 136, 137, 1, 1, 6, 20,
	20, 81, 104, 161, 0, 64, 137, 6, 88, 33, 0, 8, 84, 145, 128, 136,
	1, 24, 144, 145, 150, 136, 1, 16, 21, 82, 68, 128, 0, 8, 72, 69,
	129, 2, 2, 80, 84, 85, 40, 132, 132, 65, 69, 152, 80, 4, 88, 34,
	0, 0, 1, 10, 24, 154, 100, 102, 136, 0, 32, 32, 10, 146, 170, 64,
	133, 88, 149, 33, 9, 24, 24, 168, 136, 0, 129, 144, 25, 26, 164, 170,
	160, 160, 160, 160, 160, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 17,
	17, 17, 17, 17, 17, 17, 17, 33, 33, 33, 33, 33, 33, 65, 65, 65,
	65, 65, 65, 65, 65, 66, 66, 66, 66, 66, 82, 82, 82, 82, 98, 98,
	98, 130, 132, 132, 132, 132, 132, 132, 148, 148, 148, 164, 164, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 21, 21, 21, 21, 21, 21,
	37, 37, 37, 38, 70, 70, 70, 70, 70, 86, 88, 88, 88, 104, 104, 104,
	136, 136, 136, 136, 136, 136, 136, 152, 152, 168, 169, 169, 169, 169, 9, 9,
	16, 32, 32, 32, 64, 64, 80, 80, 80, 80, 128, 128, 144, 160, 160, 160,
	0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 17,
	17, 18, 18, 18, 18, 18, 34, 36, 36, 36, 36, 36, 68, 68, 68, 68,
	68, 68, 68, 68, 85, 85, 85, 101, 101, 133, 134, 134, 134, 134, 136, 136,
	152, 168, 168, 168, 168, 169, 9, 9, 9, 9, 10, 0, 16, 16, 16, 32,
	32, 64, 64, 64, 64, 64, 80, 81, 81, 97, 129, 129, 145, 162, 162, 2,
	4, 4, 4, 4, 4, 4, 20, 20, 21, 37, 37, 37, 38, 38, 38, 72,
	72, 104, 104, 136, 137, 137, 137, 138, 128, 144, 144, 144, 160, 160, 160, 160,
	0, 0, 0, 0, 0, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
	64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 128, 128, 128,
	128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128,
	128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128,
	128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 1, 1,
	145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145,
	18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18,
	18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18,
	18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18,
	18, 18, 18, 18, 18, 18, 82, 82, 82, 82, 82, 86, 86, 86, 86, 86,
	86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 86, 150,
	150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150,
	150, 150, 150, 150, 150, 150, 150, 150, 154, 154, 154, 154, 154, 154, 154, 154,
}

// Packed IQ2_XXS for AVX2 (CPUs without the VBMI lookups above): eight rows
// to a YMM, one row per 32-bit lane. A run's eight weights are one 8-byte
// grid entry; the eight rows' entries of run l come in by index as two
// vectors of four (slots 0…3 and 4…7), and VSHUFPS takes their low and
// high dwords apart into two vectors whose lane r is row r's weights
// 0…3 and 4…7 of the run (hence the slot order below). The packer
// expands each run's seven-bit sign index into its eight sign bits
// (ksigns_iq2xs), so that in the kernel a run's eight rows' signs are one
// qword: VPSHUFB gives lane r row r's byte, VPAND/VPCMPEQB/VPOR its four
// ±1 bytes, and VPSIGNB puts them onto the broadcast activation dword,
// which VPMADDUBSW multiplies by the unsigned magnitudes.
//
// Group g (rows 16g…16g+15) is two halves of eight rows, each its own run
// of nsb blocks of packIQ2XXSA8Bytes = 592 bytes; half h's block of a
// super-block holds, for its rows r = 0…7 (rows 16g+8h+r),
//
//	[0, 16)            the f16 scales d, row r at 2r;
//	[16+64j+16l, +8)   sub-block j's run l: the grid indices, slot s
//	                   holding row packIQ2Slot[s]'s;
//	[24+64j+16l, +8)   its eight sign bytes, row r's at r (bit k set:
//	                   weight k negative);
//	[528, 592)         the sub-block scales as 2s+1, one byte each:
//	                   528+8j+r.
//
// That is 74 bytes a row and super-block against the file's 66.
//
// Arithmetic: each sub-block's exact integer Σ(±grid)·x is the sum of its
// four runs' VPMADDUBSW pair sums (two vectors a run added in int16:
// ≤ 4·43·128), VPMADDWD against words 1; then, as the GGUF-layout AVX2
// kernel (dot_iq2_amd64.s) does lane for lane, times 2s+1, converted,
// and acc_j = fma(float(p), (f32(d)·0.125)·dx, acc_j), folded as
// ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) + (acc_3 +
// acc_7)): its numbers bit for bit.
const packIQ2XXSA8Bytes = 16 + 512 + 64

// packIQ2Slot is the row whose grid index slot s of a run holds (0, 1, 4,
// 5, 2, 3, 6, 7: bits 1 and 2 swapped): VSHUFPS leaves slot s's dwords in
// lane packIQ2Slot(s), and the map is its own inverse.
func packIQ2Slot(s int) int { return s&1 | s&2<<1 | s&4>>1 }

// packIQ2XXSAVX2 packs groups g0…g1−1 of src (IQ2_XXS rows of nsb
// super-blocks) into dst, 2·nsb·packIQ2XXSA8Bytes bytes a group.
func packIQ2XXSAVX2(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq2xxsBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for h := range 2 {
			for sb := range nsb {
				o := dst[((2*g+h)*nsb+sb)*packIQ2XXSA8Bytes:][:packIQ2XXSA8Bytes]
				for s := range 8 {
					r := packIQ2Slot(s)
					blk := gs[(8*h+r)*rb+sb*iq2xxsBytes:][:iq2xxsBytes]
					o[2*r], o[2*r+1] = blk[0], blk[1]
					for j := range 8 {
						q := blk[2+8*j:][:8]
						aux := binary.LittleEndian.Uint32(q[4:])
						o[528+8*j+r] = byte(2*(aux>>28) + 1)
						for l := range 4 {
							o[16+64*j+16*l+s] = q[l]
							o[24+64*j+16*l+r] = ksigns_iq2xs[aux>>(7*l)&127]
						}
					}
				}
			}
		}
	}
}

// Packed IQ2_XS and IQ2_S for AVX2, as packed IQ2_XXS's AVX2 layout with
// their wider grid indices laid end to end, nine bits (IQ2_XS) or ten
// (IQ2_S) a row, and each run's eight sign bytes after them (IQ2_XS's
// seven-bit sign indices expanded through ksigns_iq2xs by the packer; IQ2_S
// stores its sign bytes outright). Half h of group g is its own run of nsb
// blocks of packIQ2NA8Bytes(b) bytes, rows r = 0…7 (rows 16g+8h+r), with
// run bytes n = b + 8:
//
//	[0, 16)              the f16 scales d, row r at 2r;
//	[16+4nj+nl, +b)      sub-block j's run l: slot s's index at bit b·s,
//	                     slot s holding row packIQ2Slot(s);
//	[16+4nj+nl+b, +8)    its sign bytes, row r's at r;
//	[16+32n+8j+r]        row r's scale byte of sub-block j, as in the file
//	                     (runs 0, 1 its low nibble, 2, 3 its high).
//
// That is 78 bytes a row and super-block for IQ2_XS (the file's 74) and 82
// for IQ2_S (the file's own). A sub-block's exact integer is (2s₀+1)·(runs
// 0, 1) + (2s₁+1)·(runs 2, 3), then the float work of IQ2_XXS's: the
// GGUF-layout AVX2 kernels' numbers bit for bit.
func packIQ2NA8Bytes(b int) int { return 16 + 32*(b+8) + 64 }

// packIQ2XSAVX2 packs groups g0…g1−1 of src (IQ2_XS rows of nsb
// super-blocks) into dst, 2·nsb·packIQ2NA8Bytes(9) bytes a group.
func packIQ2XSAVX2(dst, src []byte, nsb, g0, g1 int) {
	packIQ2N(dst, src, nsb, g0, g1, iq2xsBytes, 9, func(blk []byte, j, l int) (int, byte, byte) {
		q := binary.LittleEndian.Uint16(blk[2+8*j+2*l:])
		return int(q & 511), ksigns_iq2xs[q>>9], blk[66+j]
	})
}

// packIQ2SAVX2 packs groups g0…g1−1 of src (IQ2_S rows of nsb
// super-blocks) into dst, 2·nsb·packIQ2NA8Bytes(10) bytes a group.
func packIQ2SAVX2(dst, src []byte, nsb, g0, g1 int) {
	packIQ2N(dst, src, nsb, g0, g1, iq2sBytes, 10, func(blk []byte, j, l int) (int, byte, byte) {
		r := 4*j + l
		return int(blk[2+r]) | int(blk[66+j])<<(8-2*l)&0x300, blk[34+r], blk[74+j]
	})
}

// packIQ2N is packIQ2XSAVX2's and packIQ2SAVX2's loop: run(blk, j, l) gives
// a row's run l of sub-block j as its grid index, its sign byte and its
// sub-block's scale byte.
func packIQ2N(dst, src []byte, nsb, g0, g1, bytes, b int, run func(blk []byte, j, l int) (int, byte, byte)) {
	rb, n, bb := nsb*bytes, b+8, packIQ2NA8Bytes(b)
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for h := range 2 {
			for sb := range nsb {
				o := dst[((2*g+h)*nsb+sb)*bb:][:bb]
				var blks [8][]byte // by slot
				for s := range blks {
					r := packIQ2Slot(s)
					blks[s] = gs[(8*h+r)*rb+sb*bytes:][:bytes]
					o[2*r], o[2*r+1] = blks[s][0], blks[s][1]
				}
				for j := range 8 {
					for l := range 4 {
						at := 16 + 4*n*j + n*l
						var v [8]uint64
						for s, blk := range blks {
							idx, sign, sc := run(blk, j, l)
							r := packIQ2Slot(s)
							v[s] = uint64(idx)
							o[at+b+r] = sign
							o[16+32*n+8*j+r] = sc
						}
						putFields(o[at:at+b], uint(b), v[:])
					}
				}
			}
		}
	}
}
