package tensor

import "encoding/binary"

// Packed IQ1_S and IQ1_M: sixteen rows interleaved as for TQ2_0
// (packtq.go), one row per 32-bit lane of a ZMM, so that a block's float
// work is one instruction for sixteen rows. The grid entries (8 weights of
// −1, 0, +1 each) come in by VPGATHERDQ, eight rows' runs of 8 weights a
// gather, from a derived table of 4096 entries (packiq1_amd64.s, iq1pTab):
// entry s·2048 + i holds, byte for byte, 8g + σ + 9 for the weights g of
// iq1s_grid[i] and σ = +1 (s = 0) or −1 (s = 1), that is 8g + 10 or
// 8g + 8, never negative, as VPDPBUSD's unsigned operand wants.
//
// Group g (rows 16g…16g+15) of IQ1_S holds, for each 256-weight
// super-block column in turn, packIQ1SBlockBytes = 800 bytes:
//
//	[0, 32)        the sixteen rows' f16 scales d, row r at 2r;
//	[32+96j, +96)  block j = 0…7: bytes 16l+r (l = 0…3) row r's grid index
//	               byte qs[4j+l] of run l, then at 64+2r its qh word j
//	               (the run's three high index bits, the scale s and the
//	               sign of δ), as in the file.
//
// IQ1_M's group super-block is packIQ1MBlockBytes = 896 bytes:
//
//	[0, 32)         the sixteen rows' f16 scales d, put together from the
//	                top nibbles of the four scale words;
//	[32, 80)        at 32+3r row r's scales of blocks 0…3 as 24 bits, the
//	                3-bit scale of block j's half h at bit 6j+3h (the low
//	                twelve bits of scale words 0 and 1);
//	[80, 128)       the same of blocks 4…7 (scale words 2 and 3);
//	[128+96j, +96)  block j: bytes 16l+r row r's qs[4j+l], then at 64+2r its
//	                qh bytes 2j, 2j+1 as a word: nibble l the three high
//	                index bits of run l and the sign of its δ.
//
// That is 50 and 56 bytes a row and super-block, the file's own sizes.
//
// Arithmetic. The GGUF-layout AVX2 kernels (dot_iq1_amd64.s) work in
// eighths: per 32-weight activation block the exact integer
// Σ = Σ_runs ls·Σ(8g + σ)·x (ls = 2s+1, per block for IQ1_S and per half
// for IQ1_M), then acc_j = fma(float(Σ), (f32(d)·0.125)·dx, acc_j) with
// one accumulator per block position j = 0…7, and at the end
// ((acc_0 + acc_4) + (acc_1 + acc_5)) + ((acc_2 + acc_6) + (acc_3 + acc_7)).
// The packed kernels compute every Σ exactly too, and then those very
// float operations, lane for lane:
//
//   - IQ1_S's sign is one per block, so its runs index the table's σ = −1
//     half (8g + 8): P = Σ(8g + 8)·x + (8 − σ)·n with n = −Σx = m8/8, the
//     start 7n or 9n picked per row by the sign; Σ = ls·P, taken as
//     float(P)·float(ls), exact (|ls·P| ≤ 15·32·9·127 < 2²⁴).
//   - IQ1_M's signs are per run and its scales per half, so its runs index
//     the table with their sign as the index's bit 11 (the qh nibble, as
//     it stands), and each half h gets P_h = Σ_h(8g + σ + 9)·x + 9·n_h with
//     n_h = −Σ_h x, which the kernels take from the activations per
//     super-block (VPSADBW); Σ = fma(float(ls_a), float(P_a),
//     float(ls_b)·float(P_b)), exact for the same reason.
//
// So a packed matrix gives the very numbers of an unpacked one, and the
// packed decode and prefill kernels agree bit for bit.

// packIQ1SBlockBytes and packIQ1MBlockBytes are one 256-column super-block
// of a group of sixteen IQ1_S and IQ1_M rows in the packed layout.
const (
	packIQ1SBlockBytes = packRows * iq1sBytes
	packIQ1MBlockBytes = packRows * iq1mBytes
)

// packIQ1S interleaves groups g0…g1−1 of src (IQ1_S rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ1S(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq1sBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ1SBlockBytes:][:packIQ1SBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq1sBytes:][:iq1sBytes]
				o[2*r], o[2*r+1] = blk[0], blk[1]
				for j := range 8 {
					b := o[32+96*j:][:96]
					for l := range 4 {
						b[16*l+r] = blk[2+4*j+l]
					}
					b[64+2*r], b[65+2*r] = blk[34+2*j], blk[35+2*j]
				}
			}
		}
	}
}

// packIQ1M interleaves groups g0…g1−1 of src (IQ1_M rows of nsb
// super-blocks) into dst, which holds the whole packed matrix.
func packIQ1M(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq1mBytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for sb := range nsb {
			o := dst[(g*nsb+sb)*packIQ1MBlockBytes:][:packIQ1MBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+sb*iq1mBytes:][:iq1mBytes]
				var sc [4]uint32
				var d uint16
				for k := range sc {
					w := le.Uint16(blk[48+2*k:])
					sc[k] = uint32(w & 0xfff)
					d |= w >> 12 << (4 * k)
				}
				le.PutUint16(o[2*r:], d)
				for h := range 2 {
					u := sc[2*h] | sc[2*h+1]<<12
					o[32+48*h+3*r], o[33+48*h+3*r], o[34+48*h+3*r] = byte(u), byte(u>>8), byte(u>>16)
				}
				for j := range 8 {
					b := o[128+96*j:][:96]
					for l := range 4 {
						b[16*l+r] = blk[4*j+l]
					}
					b[64+2*r], b[65+2*r] = blk[32+2*j], blk[33+2*j]
				}
			}
		}
	}
}

// Packed IQ1_S for AVX2 (CPUs without the VNNI kernels above), in the
// eight-rows-to-a-YMM scheme of packed IQ2_XXS's AVX2 layout (packiq2.go):
// a run's eight rows' grid entries (8 weights of −1, 0, +1) come in by
// index into two vectors of four and VSHUFPS takes them apart into weights
// 0…3 and 4…7 of each row; VPSIGNB puts them onto the broadcast activation
// dwords and VPMADDUBSW against bytes 1 sums them. The packer forms each
// run's eleven-bit grid index (the qs byte | three bits of the qh word) and
// lays eight rows' indices end to end, so that the kernel takes an index
// with three general-register operations and no qh word at all.
//
// Half h of group g (rows 16g+8h+r, r = 0…7) is its own run of nsb blocks
// of packIQ1SA8Bytes = 432 bytes:
//
//	[0, 16)            the f16 scales d, row r at 2r;
//	[16+44j+11l, +11)  sub-block j's run l: slot s's index at bit 11s
//	                   (little-endian), slot s holding row packIQ2Slot(s);
//	[368, 432)         each sub-block's δ·(2s+1) as a signed byte (δ = −1
//	                   where the qh word's bit 15 is set): 368+8j+r.
//
// That is 54 bytes a row and super-block against the file's 50.
//
// Arithmetic: each sub-block's exact integer (2s+1)·Σ(8g + δ)·x =
// 8·(2s+1)·Σg·x + δ(2s+1)·Σx (Σx = −m8/8), then, as the GGUF-layout AVX2
// kernel (dot_iq1_amd64.s) does lane for lane, converted and acc_j =
// fma(float(p), dx·(f32(d)·0.125), acc_j), folded as ((acc_0 + acc_4) +
// (acc_1 + acc_5)) + ((acc_2 + acc_6) + (acc_3 + acc_7)): its numbers bit
// for bit.
const packIQ1SA8Bytes = 16 + 352 + 64

// packIQ1SAVX2 packs groups g0…g1−1 of src (IQ1_S rows of nsb
// super-blocks) into dst, 2·nsb·packIQ1SA8Bytes bytes a group.
func packIQ1SAVX2(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq1sBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for h := range 2 {
			for sb := range nsb {
				o := dst[((2*g+h)*nsb+sb)*packIQ1SA8Bytes:][:packIQ1SA8Bytes]
				var blks [8]*[iq1sBytes]byte // by slot
				for s := range blks {
					r := packIQ2Slot(s)
					blks[s] = (*[iq1sBytes]byte)(gs[(8*h+r)*rb+sb*iq1sBytes:])
					o[2*r], o[2*r+1] = blks[s][0], blks[s][1]
				}
				for j := range 8 {
					for l := range 4 {
						var v [8]uint64
						for s, blk := range blks {
							idx, ls, sgn := iq1SRun(blk, j, l)
							v[s] = uint64(idx)
							o[368+8*j+packIQ2Slot(s)] = byte(int8(sgn * ls))
						}
						putFields(o[16+44*j+11*l:][:11], 11, v[:])
					}
				}
			}
		}
	}
}

// Packed IQ1_M for AVX2, as packed IQ1_S's AVX2 layout with IQ1_M's runs:
// a run's index is twelve bits, its eleven grid bits | its δ sign bit
// << 11, into iq1mWRuns (the runs W = 8g + δ, as the GGUF-layout AVX2
// kernel reads them), and a sub-block has a scale per half. Half h of
// group g is its own run of nsb blocks of packIQ1MA8Bytes = 528 bytes,
// rows r = 0…7 (rows 16g+8h+r):
//
//	[0, 16)            the f16 scales d, row r at 2r (put together from
//	                   the top nibbles of the file's scale words);
//	[16+48j+12l, +12)  sub-block j's run l: slot s's index at bit 12s,
//	                   slot s holding row packIQ2Slot(s);
//	[400+16j, +16)     its halves' scales as 2s+1: row r's first half's
//	                   at 400+16j+r, its second's at 408+16j+r.
//
// That is 66 bytes a row and super-block against the file's 56. The
// exact integer (2s₀+1)·Σ₀W·x + (2s₁+1)·Σ₁W·x and the float work are the
// GGUF-layout kernel's: its numbers bit for bit.
const packIQ1MA8Bytes = 16 + 384 + 128

// packIQ1MAVX2 packs groups g0…g1−1 of src (IQ1_M rows of nsb
// super-blocks) into dst, 2·nsb·packIQ1MA8Bytes bytes a group.
func packIQ1MAVX2(dst, src []byte, nsb, g0, g1 int) {
	rb := nsb * iq1mBytes
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for h := range 2 {
			for sb := range nsb {
				o := dst[((2*g+h)*nsb+sb)*packIQ1MA8Bytes:][:packIQ1MA8Bytes]
				var blks [8]*[iq1mBytes]byte // by slot
				for s := range blks {
					r := packIQ2Slot(s)
					blks[s] = (*[iq1mBytes]byte)(gs[(8*h+r)*rb+sb*iq1mBytes:])
					binary.LittleEndian.PutUint16(o[2*r:], F32ToF16(iq1MD(blks[s])))
				}
				for j := range 8 {
					for l := range 4 {
						var v [8]uint64
						for s, blk := range blks {
							idx, ls, sgn := iq1MRun(blk, j, l)
							if sgn < 0 {
								idx |= 2048
							}
							v[s] = uint64(idx)
							o[400+16*j+8*(l/2)+packIQ2Slot(s)] = byte(ls)
						}
						putFields(o[16+48*j+12*l:][:12], 12, v[:])
					}
				}
			}
		}
	}
}
