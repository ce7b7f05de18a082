// Package orth draws random orthonormal bases for the engine's tests
// (projections made by chance, to compare against bases the weights give).
package orth

import (
	"math"
	"math/rand/v2"
)

// Rows returns r orthonormal rows of d values, row-major: Gram–Schmidt
// over Gaussian rows from rng, in float64, applied twice so the rows are
// orthogonal to rounding. At r = d they form a rotation. It needs r ≤ d.
func Rows(rng *rand.Rand, r, d int) []float32 {
	rows := make([][]float64, 0, r)
	for len(rows) < r {
		v := make([]float64, d)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		for range 2 {
			for _, u := range rows {
				var dot float64
				for i := range v {
					dot += v[i] * u[i]
				}
				for i := range v {
					v[i] -= dot * u[i]
				}
			}
		}
		var n float64
		for _, x := range v {
			n += x * x
		}
		if n = math.Sqrt(n); n < 1e-6 {
			continue // a draw inside the span so far: draw again
		}
		for i := range v {
			v[i] /= n
		}
		rows = append(rows, v)
	}
	out := make([]float32, 0, r*d)
	for _, v := range rows {
		for _, x := range v {
			out = append(out, float32(x))
		}
	}
	return out
}
