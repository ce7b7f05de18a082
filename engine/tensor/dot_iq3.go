package tensor

// Portable dot products for IQ3_XXS and IQ3_S (layouts in quant_iq3.go),
// the reference for dot_iq3_amd64.s. As in dot_k23.go, each activation
// block of 32, here one sub-block, gets an exact int32 sum and then one
// float multiply by d·dx (IQ3_XXS: d/4·dx), in the order the assembly
// uses: its odd scale 2s+1 multiplies the integer sum, not the float.

// iq3Sum returns Σ(±grid)·xq over one sub-block of 32 weights.
func iq3Sum(g *[8]uint32, s uint32, x []int8) int32 {
	var p int32
	for i, xq := range x[:QK] {
		v := int32(g[i/4]>>(8*(i%4))&0xFF) * int32(xq)
		if s>>i&1 != 0 {
			v = -v
		}
		p += v
	}
	return p
}

// dotIQ3XXSGo: sub-block j is activation block b = 8sb + j, and its dot is
// (d/4)·dx_b·(2s+1)·Σ(±grid)·xq, an exact integer times one float product.
func dotIQ3XXSGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq3xxsBytes]byte)(w[sb*iq3xxsBytes:])
		dq := f16At(blk[:], 0) * 0.25
		for j := range 8 {
			b := sb*8 + j
			aux := iq3xxsAux(blk, j)
			var g [8]uint32
			for m := range g {
				g[m] = iq3xxs_grid[blk[2+8*j+m]]
			}
			p := int32(2*(aux>>28)+1) * iq3Sum(&g, iq3xxsSigns(aux), a.qs[b*QK:])
			acc += dq * a.d[b] * float32(p)
		}
	}
	return acc
}

// dotIQ3SGo: sub-block j's dot is d·dx_b·(2s+1)·Σ(±grid)·xq.
func dotIQ3SGo(w []byte, _ []float32, a act) float32 {
	var acc float32
	for sb := range len(a.d) / 8 {
		blk := (*[iq3sBytes]byte)(w[sb*iq3sBytes:])
		d := f16At(blk[:], 0)
		for j := range 8 {
			b := sb*8 + j
			var g [8]uint32
			for m := range g {
				g[m] = iq3s_grid[iq3sIndex(blk, j, m)]
			}
			p := int32(2*iq3sScale(blk, j)+1) * iq3Sum(&g, iq3sSigns(blk, j), a.qs[b*QK:])
			acc += d * a.d[b] * float32(p)
		}
	}
	return acc
}
