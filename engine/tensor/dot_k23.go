package tensor

// Portable dot products for Q2_K, Q3_K and IQ4_XS (layouts in quant_k23.go
// and quant_iq4xs.go), the reference for dot_k23_amd64.s. As in dot_go.go,
// each activation block of 32 gets exact int32 sums and then one float
// multiply by its scale dx, in the order the assembly uses.
//
// Q2_K and Q3_K have a scale per 16 weights while act has one per 32: an
// activation block holds two sub-blocks, and since the sub-block scales are
// integers the block's sum stays an integer: Σ_k sc_k·Σ_{e∈k} q_e·xq_e over
// its two halves. Q2_K's mins need Σxq over each half; act.s holds only the
// block's whole sum, so the kernels add the halves up themselves (the
// assembly folds them out of VPMADDUBSW pair sums of xq, the same way it
// folds the codes' products), which keeps the min term an exact integer
// too: Σ_k m_k·Σ_{e∈k} xq_e.

// dotQ2KGo: w = d·sc_k·q − dmin·m_k, so per activation block b the dot is
// dx_b·(d·P_b − dmin·M_b) with P_b = Σ_k sc_k·Σ q·xq and M_b = Σ_k m_k·Σ xq.
func dotQ2KGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*q2KBytes : (sb+1)*q2KBytes]
		d, dmin := f16At(blk, 80), f16At(blk, 82)
		for j := range 8 {
			qs := blk[16+32*(j/4) : 48+32*(j/4)]
			shift := 2 * uint(j%4)
			b := sb*8 + j
			x := a.qs[b*QK : b*QK+QK]
			var p, m int32
			for h := range 2 {
				sc := blk[2*j+h]
				var sq, sx int32
				for l := 16 * h; l < 16*h+16; l++ {
					sq += int32(qs[l]>>shift&3) * int32(x[l])
					sx += int32(x[l])
				}
				p += int32(sc&0xF) * sq
				m += int32(sc>>4) * sx
			}
			acc += a.d[b] * (d*float32(p) - dmin*float32(m))
		}
	}
	return acc
}

// dotQ3KGo: w = d·s_k·q with q = low2 + 4·hbit − 4, so per activation block
// b the dot is d·dx_b·Σ_k s_k·Σ q·xq.
func dotQ3KGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := w[sb*q3KBytes : (sb+1)*q3KBytes]
		d := f16At(blk, 108)
		s := q3KScales((*[12]byte)(blk[96:108]))
		hm := blk[0:32]
		for j := range 8 {
			qs := blk[32+32*(j/4) : 64+32*(j/4)]
			shift := 2 * uint(j%4)
			b := sb*8 + j
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for h := range 2 {
				var sq int32
				for l := 16 * h; l < 16*h+16; l++ {
					q := int32(qs[l]>>shift&3) + 4*int32(hm[l]>>j&1) - 4
					sq += q * int32(x[l])
				}
				p += int32(s[2*j+h]) * sq
			}
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}

// dotIQ4XSGo: w = d·(ls_j − 32)·level[q]; sub-block j is activation block
// sb·8 + j, so its dot is d·(ls_j − 32)·dx·Σ level·xq.
func dotIQ4XSGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq4xsBytes]byte)(w[sb*iq4xsBytes:])
		d := f16At(blk[:], 0)
		for j := range 8 {
			b := sb*8 + j
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for l, q := range blk[8+16*j : 8+16*j+16] {
				p += int32(iq4nlValue(q))*int32(x[l]) + int32(iq4nlValue(q>>4))*int32(x[l+16])
			}
			acc += d * float32(iq4xsScale(blk, j)) * a.d[b] * float32(p)
		}
	}
	return acc
}
