package cpu

import (
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Affine implements backend.Affiner. With alpha = 0 it is the host Snipe
// projector's arithmetic exactly (float32 w = x − μ, c = B·w by
// tensor.DotRows, x −= Σ c_j b_j by tensor.Axpy), so a hook moved onto the
// backend gives the same bits. With alpha ≠ 0 it is the Safe OGD step's
// (engine-independent ogd.Projector.Apply): float32 parameters, float64
// accumulation, x ← μ + w − Bᵀ(B·w). Nothing is allocated once the scratch
// has grown to the basis.
func (b *Backend) Affine(x backend.Buffer, row0, n int, basis backend.Matrix, mu, dir backend.Vector, alpha float32) {
	s := hb(x)
	d := s.width
	m := mu.(*vec).v[:d]
	var q []float32
	k := 0
	if basis != nil {
		B := hm(basis).m
		if B.Type != tensor.F32 || B.Cols != d {
			return // the model binds F32 maps of the stream's width
		}
		k = B.Rows
		q = asF32(B.Data)[:k*d]
	}
	if alpha == 0 {
		if k == 0 {
			return
		}
		if cap(b.coef) < k {
			b.coef = make([]float32, k)
		}
		if cap(b.row) < d {
			b.row = make([]float32, d)
		}
		c, w := b.coef[:k], b.row[:d]
		for i := row0; i < row0+n; i++ {
			xr := s.data[i*d : (i+1)*d]
			for j, v := range xr {
				w[j] = v - m[j]
			}
			tensor.DotRows(q, w, c)
			for j, cj := range c {
				tensor.Axpy(-cj, q[j*d:(j+1)*d], xr)
			}
		}
		return
	}
	v := dir.(*vec).v[:d]
	if cap(b.aw) < d {
		b.aw = make([]float64, d)
	}
	if cap(b.ac) < k {
		b.ac = make([]float64, k)
	}
	w, c := b.aw[:d], b.ac[:k]
	for i := row0; i < row0+n; i++ {
		xr := s.data[i*d : (i+1)*d]
		var r2 float64
		for j, x := range xr {
			t := float64(x) - float64(m[j])
			r2 += t * t
		}
		st := float64(alpha) * math.Sqrt(r2)
		for j, x := range xr {
			w[j] = float64(x) - float64(m[j]) + st*float64(v[j])
		}
		for j := range c {
			var a float64
			for l, qv := range q[j*d : (j+1)*d] {
				a += float64(qv) * w[l]
			}
			c[j] = a
		}
		for j, cj := range c {
			for l, qv := range q[j*d : (j+1)*d] {
				w[l] -= cj * float64(qv)
			}
		}
		for j := range xr {
			xr[j] = float32(float64(m[j]) + w[j])
		}
	}
}
