package tensor

// Portable dot products for IQ2_XXS, IQ2_XS and IQ2_S (layouts in
// quant_iq2.go), the reference for dot_iq2_amd64.s. As for the K-quants
// (dot_k23.go), each activation block of 32 gets an exact int32 sum and then
// one float multiply by d·dx (llama.cpp's ggml_vec_dot_iq2_*_q8_K take one
// activation scale per 256; act keeps its per-32 grid).
//
// A weight is d/8·(2·ls + 1)·grid·sign, so the block's integer sum is
// Σ (2·ls + 1)·Σ grid·sign·xq over its one (IQ2_XXS) or two (IQ2_XS,
// IQ2_S) scale groups: at most 2·16·31·43·127 < 2²⁴ in magnitude, so its
// conversion to float32 is exact. The 1/8 goes into d (exact: d is a
// float16 widened to float32).

// iq2Dot8 is Σ grid·sign·xq over one run of eight weights.
func iq2Dot8(grid uint64, signs byte, x []int8) int32 {
	var s int32
	for j := range 8 {
		v := int32(byte(grid>>(8*j))) * int32(x[j])
		if signs>>j&1 != 0 {
			v = -v
		}
		s += v
	}
	return s
}

// dotIQ2XXSGo: activation block b is group g = b%8 of super-block b/8.
func dotIQ2XXSGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq2xxsBytes]byte)(w[sb*iq2xxsBytes:])
		d := f16At(blk[:], 0) * 0.125
		for g := range 8 {
			b := sb*8 + g
			x := a.qs[b*QK : b*QK+QK]
			q := blk[2+8*g : 10+8*g]
			aux := uint32(q[4]) | uint32(q[5])<<8 | uint32(q[6])<<16 | uint32(q[7])<<24
			var s int32
			for l := range 4 {
				s += iq2Dot8(iq2xxs_grid[q[l]], ksigns_iq2xs[aux>>(7*l)&127], x[8*l:])
			}
			p := (2*int32(aux>>28) + 1) * s
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}

// dotIQ2XSGo: runs 4g, 4g+1 take scales[g]'s low nibble, 4g+2, 4g+3 its
// high one.
func dotIQ2XSGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq2xsBytes]byte)(w[sb*iq2xsBytes:])
		d := f16At(blk[:], 0) * 0.125
		for g := range 8 {
			b := sb*8 + g
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for h := range 2 {
				var s int32
				for l := 2 * h; l < 2*h+2; l++ {
					q := quantLoad16(blk[2+8*g+2*l:])
					s += iq2Dot8(iq2xs_grid[q&511], ksigns_iq2xs[q>>9], x[8*l:])
				}
				p += (2*int32(blk[66+g]>>(4*h)&0xF) + 1) * s
			}
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}

// dotIQ2SGo: as dotIQ2XSGo, the grid index taking two bits of qh[g] and the
// signs read outright.
func dotIQ2SGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq2sBytes]byte)(w[sb*iq2sBytes:])
		d := f16At(blk[:], 0) * 0.125
		for g := range 8 {
			b := sb*8 + g
			x := a.qs[b*QK : b*QK+QK]
			var p int32
			for h := range 2 {
				var s int32
				for l := 2 * h; l < 2*h+2; l++ {
					r := 4*g + l
					idx := int(blk[2+r]) | int(blk[66+g])<<(8-2*l)&0x300
					s += iq2Dot8(iq2s_grid[idx], blk[34+r], x[8*l:])
				}
				p += (2*int32(blk[74+g]>>(4*h)&0xF) + 1) * s
			}
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}
