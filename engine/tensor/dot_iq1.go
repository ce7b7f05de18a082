package tensor

// Portable dot products for IQ1_S, IQ1_M, TQ1_0 and TQ2_0 (layouts in
// quant_iq1.go), the reference for dot_iq1_amd64.s. As in dot_k23.go, each
// activation block of 32 gets an exact int32 sum and then one float
// multiply by d·dx_b, in the order the assembly uses.
//
// A sub-block of IQ1_S is 32 weights, one activation block, but IQ1_M
// scales every 16 weights and flips the sign of δ every 8, where act keeps
// only a sum per 32 (its s, which an IQ1_S kernel could use). So both work
// in eighths: 8·(g + δ) = 8·g ± 1 is an integer in −9..9, the block's sum
// Σ_k ls_k·Σ_{e∈k} (8g ± 1)·xq over its 16-weight halves stays an exact
// integer (|·| ≤ 15·32·9·127 < 2²⁰), and the float tail scales by d/8, an
// exact power-of-two step. One code path then covers both types, and the
// assembly folds the δ into the weights it feeds VPMADDUBSW instead of
// needing per-8 activation sums.

// iq1RunDot returns Σ(8g + sgn)·xq over one run of 8 weights (grid
// entry idx) and its 8 activation codes: 8·Σg·xq + sgn·Σxq, the same
// integer.
func iq1RunDot(idx uint16, sgn int32, xs []int8) int32 {
	u := iq1s_grid[idx&2047]
	var s, sx int32
	for j, x := range xs[:8] {
		s += int32(int8(u>>(8*j))) * int32(x)
		sx += int32(x)
	}
	return 8*s + sgn*sx
}

// dotIQ1SGo: w = d·ls·(g ± 1/8), so per activation block b the dot is
// (d/8)·dx_b·ls·Σ(8g ± 1)·xq.
func dotIQ1SGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq1sBytes]byte)(w[sb*iq1sBytes:])
		d8 := f16At(blk[:], 0) * iq1Delta
		for ib := range 8 {
			b := sb*8 + ib
			x := a.qs[b*QK : b*QK+QK]
			var p, ls int32
			for l := range 4 {
				idx, lsl, sgn := iq1SRun(blk, ib, l)
				p += iq1RunDot(idx, sgn, x[8*l:])
				ls = lsl // one scale per sub-block
			}
			acc += d8 * a.d[b] * float32(ls*p)
		}
	}
	return acc
}

// dotIQ1MGo: as dotIQ1SGo with a scale per 16 weights and a δ sign per 8.
func dotIQ1MGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq1mBytes]byte)(w[sb*iq1mBytes:])
		d8 := iq1MD(blk) * iq1Delta
		for ib := range 8 {
			b := sb*8 + ib
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for l := range 4 {
				idx, ls, sgn := iq1MRun(blk, ib, l)
				p += ls * iq1RunDot(idx, sgn, x[8*l:])
			}
			acc += d8 * a.d[b] * float32(p)
		}
	}
	return acc
}

// dotTQ1Go: w = d·(t − 1), so per activation block b the dot is
// d·dx_b·Σ(t − 1)·xq. Blocks 0..4 are trit j of qs[0:32]; blocks 5 and 6
// trits 0, 1 and 2, 3 of qs[32:48]; block 7 trit 4 of qs[32:48], then the
// four trits of qh.
func dotTQ1Go(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[tq1Bytes]byte)(w[sb*tq1Bytes:])
		d := f16At(blk[:], 52)
		for j := range 8 {
			b := sb*8 + j
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			switch {
			case j < 5:
				p = tq1RunDot(blk[0:32], j, x)
			case j < 7:
				p = tq1RunDot(blk[32:48], 2*(j-5), x[:16]) + tq1RunDot(blk[32:48], 2*(j-5)+1, x[16:])
			default:
				p = tq1RunDot(blk[32:48], 4, x[:16])
				for n := range 4 {
					p += tq1RunDot(blk[48:52], n, x[16+4*n:])
				}
			}
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}

// tq1RunDot returns Σ(t − 1)·xq over trit n of the bytes q and the first
// len(q) codes of x.
func tq1RunDot(q []byte, n int, x []int8) int32 {
	m := byte(1)
	for range n {
		m *= 3
	}
	var p int32
	for l, v := range q {
		p += (int32(uint16(v*m)*3>>8) - 1) * int32(x[l])
	}
	return p
}

// dotTQ2Go: w = d·(q − 1); activation block j of a super-block is bit pair
// j%4 of the 32 bytes qs[32(j/4):], as in Q2_K.
func dotTQ2Go(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*tq2Bytes : (sb+1)*tq2Bytes]
		d := f16At(blk, 64)
		for j := range 8 {
			qs := blk[32*(j/4) : 32*(j/4)+32]
			shift := 2 * uint(j%4)
			b := sb*8 + j
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for l := range QK {
				p += (int32(qs[l]>>shift&3) - 1) * int32(x[l])
			}
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}
