package ugt

import "gonum.org/v1/gonum/blas/blas64"

// AccumCentred adds Qᵀ(h − μ) to y and returns ‖h − μ‖², in one pass over
// h and the rows of Q. It is the per-token kernel shared by Basis.Coords,
// the TEH gauge and the Snipe projector, exported so that those packages
// use one tuned loop; it does no validation. q is a row-major len(h)×len(y)
// matrix (a *mat.Dense's RawMatrix) and mu has len(h) entries; the caller
// guarantees the shapes.
//
// Q is read row by row because a gonum Dense is row-major: each h_i − μ_i
// is computed once and Q streams through the cache in order. Four rows are
// folded into each update of y, which cuts the loads and stores of y by
// four and measured about 1.7× faster than one row at a time at d = 576,
// m = 20.
func AccumCentred[T float32 | float64](q blas64.General, h []T, mu, y []float64) float64 {
	var rr float64
	n, st := len(y), q.Stride
	data := q.Data
	i := 0
	for ; i+4 <= len(h); i += 4 {
		r0 := float64(h[i]) - mu[i]
		r1 := float64(h[i+1]) - mu[i+1]
		r2 := float64(h[i+2]) - mu[i+2]
		r3 := float64(h[i+3]) - mu[i+3]
		rr += r0*r0 + r1*r1 + r2*r2 + r3*r3
		q0 := data[i*st : i*st+n]
		q1 := data[(i+1)*st : (i+1)*st+n]
		q2 := data[(i+2)*st : (i+2)*st+n]
		q3 := data[(i+3)*st : (i+3)*st+n]
		for j := range y {
			y[j] += q0[j]*r0 + q1[j]*r1 + q2[j]*r2 + q3[j]*r3
		}
	}
	for ; i < len(h); i++ {
		r := float64(h[i]) - mu[i]
		rr += r * r
		row := data[i*st : i*st+n]
		for j, v := range row {
			y[j] += v * r
		}
	}
	return rr
}
