package tensor

import (
	"encoding/binary"
	"sync/atomic"
)

// Packed Q4_0 and Q8_0: the rows of a matrix interleaved sixteen at a
// time, so that one vector lane holds one row and one block's float work
// (the f16 scale's conversion, the int→float conversion, the scaling and
// the FMA) is a single vector instruction for sixteen rows, where the GGUF
// layout needs it once per row. llama.cpp repacks Q4_0 at load likewise,
// eight rows at a time (block_q4_0x8); the layouts and the kernels here are
// this package's own. Packed Q4_1 and Q4_K, whose offsets and mins add a
// second FMA, are in packk.go, packed Q5_K, Q4_K's with a fifth bit, in
// packk5.go, packed Q6_K in packk6.go and packed IQ4_XS, whose levels are
// looked up from packed Q4_0's nibbles, in packiq4xs.go, and packed
// IQ4_NL, Q5_0 and Q5_1 in packlegacy.go, packed MXFP4 (packed IQ4_NL's
// layout and kernels) in packmxfp4.go and packed Q2_K and Q3_K in
// packk23.go.
//
// Q4_0: group g (rows 16g…16g+15) holds, for each block column b in turn,
// 16·18 = 288 bytes:
//
//	[0, 32)    the sixteen rows' f16 scales, row r at 2r;
//	[32, 288)  four vectors V0…V3 of 64 bytes: dword r of Vv is row r's
//	           code bytes 4v…4v+3.
//
// Byte j of a Q4_0 block holds weight j in its low nibble and weight j+16
// in its high one, so Vv's low nibbles are weights 4v…4v+3 of every row
// (to meet activation codes 4v…4v+3, one dword broadcast to all lanes) and
// its high nibbles weights 16+4v…16+4v+3. A 512-bit register takes a vector
// whole; a 256-bit one takes rows 0–7 (the low half of each vector and the
// first 16 scale bytes) or rows 8–15 (the high halves).
//
// Q8_0: likewise, 16·34 = 544 bytes a block column: the sixteen scales,
// then eight vectors V0…V7 whose dword r is row r's code bytes 4v…4v+3,
// each XORed with 0x80 — the code plus 128, unsigned — because VPDPBUSD
// multiplies unsigned bytes (the weights, one row per lane) by signed ones
// (an activation dword broadcast to every lane). Σ(q+128)·x = Σq·x +
// 128·Σx, so the sum starts from −128·Σx = 16·m8 instead of m8. Only the
// AVX-512 VNNI kernels read it: without them a Q8_0 matrix is not packed.
//
// Arithmetic (every packed kernel, decode and prefill, each lane alike):
// for row r and token t, block b contributes the exact integer
// i_b = Σ_j q_j·x_j (Q4_0's q_j being its nibble less 8), started from
// the activations' m8 = −8·Σx (Q4_0) or 16·m8 (Q8_0) and completed by the
// unsigned codes times the signed activations, then
// acc = fma(f32(d_b)·dx_b, float(i_b), acc) with even blocks on one
// accumulator and odd blocks on another, and the result is even + odd.
// Integer sums are exact in any order, so the kernels may split them as
// they like; the float operations are fixed, which is what makes a token's
// prefill output bit for bit its decode output.
//
// What packing Q8_0 costs and buys, at the Llama-1B shape (113 matrices,
// 1104 MB, the tied output matrix included) on the 2-vCPU Intel VM, file
// in the page cache, two threads: Pack over all of them took 0.40–0.49 s,
// and `isagi bench -p 1 -n 1` ran 0.4 s longer (2.65–2.74 → 3.07–3.17 s;
// the unpacked run faults the mapped pages in later, in its first tokens);
// the copy raised bench's maximum RSS from 1.92 to 3.00 GB, before the
// replaced pages were let go (SetEvict; `isagi run`'s maximum RSS is now
// 1,133 MB against 1,111 unpacked). For that,
// 128-token prefill ran 3× faster (85–93 → 253–279 tok/s) and decode
// ~1.1× (17.2–18.1 → 18.4–20.4 tok/s).

const (
	packRows       = 16                   // rows per interleaved group
	packBlockBytes = packRows * q4_0Bytes // one block column of a group
)

// packQ4_0 interleaves groups g0…g1−1 of src (Q4_0 rows of nb blocks) into
// dst, which holds the whole packed matrix. It writes dst in order, reading
// sixteen rows side by side, and moves four code bytes at once: ~1.9 GB/s
// a thread on memory already faulted in. From a freshly mapped file the
// page faults (source and copy) dominate: a Llama-1B-shaped file's 547 MB
// of Q4_0 took 1.4 s on the 2-vCPU VM.
func packQ4_0(dst, src []byte, nb, g0, g1 int) {
	rb := nb * q4_0Bytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for b := range nb {
			o := dst[(g*nb+b)*packBlockBytes:][:packBlockBytes]
			for r := range packRows {
				blk := gs[r*rb+b*q4_0Bytes:][:q4_0Bytes]
				le.PutUint16(o[2*r:], le.Uint16(blk))
				le.PutUint32(o[32+4*r:], le.Uint32(blk[2:]))
				le.PutUint32(o[96+4*r:], le.Uint32(blk[6:]))
				le.PutUint32(o[160+4*r:], le.Uint32(blk[10:]))
				le.PutUint32(o[224+4*r:], le.Uint32(blk[14:]))
			}
		}
	}
}

// packQ8_0 is packQ4_0 for Q8_0: the same walk, eight code dwords a row
// and block, each flipped to unsigned (XOR 0x80 per byte); ~2.2 GB/s a
// thread on memory already faulted in.
func packQ8_0(dst, src []byte, nb, g0, g1 int) {
	rb := nb * q8_0Bytes
	le := binary.LittleEndian
	for g := g0; g < g1; g++ {
		gs := src[g*packRows*rb:][:packRows*rb]
		for b := range nb {
			o := dst[(g*nb+b)*packRows*q8_0Bytes:][:packRows*q8_0Bytes]
			for r := range packRows {
				blk := gs[r*rb+b*q8_0Bytes:][:q8_0Bytes]
				le.PutUint16(o[2*r:], le.Uint16(blk))
				for v := range 8 {
					le.PutUint32(o[32+64*v+4*r:], le.Uint32(blk[2+4*v:])^0x80808080)
				}
			}
		}
	}
}

// packTask packs a range of groups on the pool with a type's packer
// (packQ4_0, packQ8_0, packQ4_1, packQ4K, packQ5K, packQ6K, packIQ4XS,
// packQ5_0, packQ5_1, packQ2K, packQ3K, packMXFP4, packTQ2, packTQ1), n
// being its blocks or super-blocks per row.
type packTask struct {
	dst, src []byte
	n        int
	pack     func(dst, src []byte, n, g0, g1 int)
	// packOK, when set instead of pack, is a packer that can find a
	// block the layout cannot hold (packMXFP4); failed records that one
	// did.
	packOK func(dst, src []byte, n, g0, g1 int) bool
	failed atomic.Bool
}

func (p *packTask) Run(lo, hi int) {
	if p.packOK == nil {
		p.pack(p.dst, p.src, p.n, lo, hi)
	} else if !p.packOK(p.dst, p.src, p.n, lo, hi) {
		p.failed.Store(true)
	}
}

// packedRowsFn is a packed decode kernel: out[r] = (row r)·a for the
// len(out) rows (a whole number of groups) whose packed blocks p holds.
type packedRowsFn func(p []byte, a act, out []float32)

// packedGemm4Fn is a packed prefill kernel: for the groups of rows p
// holds and four tokens' activations a (each token's laid end to end), it
// sets out[t·ostride+r] = (row r)·(token t), bit for bit what the
// packedRowsFn gives each token alone.
type packedGemm4Fn func(p []byte, a act, groups int, out []float32, ostride int)

// Pack returns m ready for these kernels' fastest products. A matrix of at
// least 16 rows of a type these kernels have packed kernels for (Q4_0,
// TQ2_0 and TQ1_0 on x86-64 with AVX2; every other quantised type with
// AVX-512 VNNI) comes
// back as a new Matrix with the same Data, which other readers of the GGUF
// bytes (embedding lookups, GRC, device uploads) still read, and besides
// it a copy of its first Rows&^15 rows in the type's packed layout
// (packQ4_0, packQ8_0, packQ4_1, packQ5_0, packQ5_1, packQ2K, packQ3K,
// packQ4K, packQ5K, packQ6K, packIQ4XS, packTQ2, packTQ1, packIQ2XXS,
// packIQ2XS, packIQ3XXS, packIQ3S, packIQ2S, packIQ1S, packIQ1M; IQ4_NL's
// is packQ4_0's; packMXFP4 writes packed IQ4_NL's), which MatVec
// and MatMul then read instead; the remaining rows still run from Data. Any other matrix comes back as it
// is, and so does an MXFP4 matrix with a block scale that packed IQ4_NL's
// f16 scales cannot hold (see packmxfp4.go).
//
// The copy costs as much memory as the rows it holds (Q3_K's 1.05 times,
// Q2_K's, TQ2_0's, TQ1_0's and every IQ1/IQ2/IQ3 type's 1.00, Q4_K's 1.06, Q5_K's 1.05, Q6_K's
// 1.01, IQ4_XS's 1.03, MXFP4's 1.06) and
// is made once, across the pool; the CPU backend packs each weight when a
// model is bound to it, and the mapped pages it replaces are let go (see
// SetEvict). Every Kernels
// that has a type's packed kernels computes the same results from a packed
// matrix (for Q6_K the very numbers of its GGUF-layout kernels); kernels
// that have none read Data.
//
// An F16 or BF16 matrix read from a mapped file (SetEvict) comes back with
// Data copied, as it is, into memory advised into huge pages (see
// adviseHuge), where the system has them: its decode reads Data directly,
// and the file's 4 KiB pages cost it a TLB miss every 2,048 weights.
func (k *Kernels) Pack(m *Matrix) *Matrix {
	if (m.Type == F16 || m.Type == BF16) && m.evict != nil && hugePages && len(m.Data) >= 2<<20 {
		return k.copyHuge(m)
	}
	if m.Type >= typeSlots || k.prows[m.Type] == nil || m.Rows < packRows || m.packed != nil {
		return m
	}
	groups := m.Rows / packRows
	p := *m
	t := &packTask{src: m.Data}
	if l := k.playout[m.Type]; l.pack != nil {
		t.n, t.pack, p.packedGroup = m.Cols/QKK, l.pack, m.Cols/QKK*l.sbBytes
	} else if !packDefault(m, t, &p) {
		return m
	}
	p.packed = k.arena.alloc(groups * p.packedGroup) // decode reads it in huge pages (hugearena.go)
	p.packedRows = groups * packRows
	t.dst = p.packed
	k.pool.Run(groups, t)
	if t.failed.Load() {
		return m // a block the packed layout cannot hold: m keeps its GGUF-layout kernels
	}
	if m.evict != nil {
		m.evict(m.Data[:p.packedRows*m.rowBytes])
	}
	return &p
}

// packDefault sets t's packer and p's group size for m's type in its
// default packed layout (the one its VNNI kernels read, and the AVX2 ones
// where the two share it), and reports whether the type has one.
func packDefault(m *Matrix, t *packTask, p *Matrix) bool {
	switch m.Type {
	case Q4_0:
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ4_0, m.Cols/QK*packBlockBytes
	case Q8_0:
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ8_0, m.Cols/QK*packRows*q8_0Bytes
	case Q4_1:
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ4_1, m.Cols/QK*packRows*q4_1Bytes
	case Q4_K:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packQ4K, m.Cols/QKK*packKBlockBytes
	case Q2_K:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packQ2K, m.Cols/QKK*packK2BlockBytes
	case Q3_K:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packQ3K, m.Cols/QKK*packK3BlockBytes
	case Q5_K:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packQ5K, m.Cols/QKK*packK5BlockBytes
	case Q6_K:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packQ6K, m.Cols/QKK*packK6BlockBytes
	case IQ4_XS:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ4XS, m.Cols/QKK*packXSBlockBytes
	case IQ4_NL:
		// Packed Q4_0's layout: the blocks are laid out alike.
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ4_0, m.Cols/QK*packBlockBytes
	case Q5_0:
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ5_0, m.Cols/QK*packRows*q5_0Bytes
	case Q5_1:
		t.n, t.pack, p.packedGroup = m.Cols/QK, packQ5_1, m.Cols/QK*packRows*q5_1Bytes
	case TQ2_0:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packTQ2, m.Cols/QKK*packTQ2BlockBytes
	case TQ1_0:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packTQ1, m.Cols/QKK*packTQ1BlockBytes
	case IQ2_XXS:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ2XXS, m.Cols/QKK*packIQ2XXSBlockBytes
	case IQ2_XS:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ2XS, m.Cols/QKK*packIQ2XSBlockBytes
	case IQ3_XXS:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ3XXS, m.Cols/QKK*packIQ3XXSBlockBytes
	case IQ3_S:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ3S, m.Cols/QKK*packIQ3SBlockBytes
	case IQ2_S:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ2S, m.Cols/QKK*packIQ2SBlockBytes
	case IQ1_S:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ1S, m.Cols/QKK*packIQ1SBlockBytes
	case IQ1_M:
		t.n, t.pack, p.packedGroup = m.Cols/QKK, packIQ1M, m.Cols/QKK*packIQ1MBlockBytes
	case MXFP4:
		// Packed IQ4_NL's layout, scales as f16 (packmxfp4.go).
		t.n, t.packOK, p.packedGroup = m.Cols/QK, packMXFP4, m.Cols/QK*packBlockBytes
	default:
		return false
	}
	return true
}

// packLayout is a packed layout other than a type's default, installed
// with the kernels that read it (Kernels.playout): its packer and a
// group's bytes per 256-column super-block.
type packLayout struct {
	pack    func(dst, src []byte, nsb, g0, g1 int)
	sbBytes int
}

// copyHuge returns m with Data copied across the pool into memory advised
// into huge pages, and lets the mapped pages go.
func (k *Kernels) copyHuge(m *Matrix) *Matrix {
	p := *m
	p.Data = k.arena.alloc(len(m.Data))
	k.pool.Run(m.Rows, &copyTask{dst: p.Data, src: m.Data, rb: m.rowBytes})
	p.evict = nil // Data is the copy now, nothing of it to let go
	m.evict(m.Data)
	return &p
}

// copyTask copies rows [lo, hi) of rb bytes each.
type copyTask struct {
	dst, src []byte
	rb       int
}

func (c *copyTask) Run(lo, hi int) { copy(c.dst[lo*c.rb:hi*c.rb], c.src[lo*c.rb:hi*c.rb]) }

// Packed reports how many leading rows of m the packed kernels read from
// its packed copy (0 when m has none; see Kernels.Pack).
func (m *Matrix) Packed() int { return m.packedRows }

// runTile hands the packed kernels whole groups only while a tile is a
// whole number of them: this fails to compile otherwise.
var _ = [1]struct{}{}[mmTile%packRows]
