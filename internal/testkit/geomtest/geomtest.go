// Package geomtest holds the synthetic data the geometry packages' tests
// share: random orthonormal bases and Gaussian vectors from a seeded
// generator.
package geomtest

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/ugt"
)

// RandomBasis is a d×k matrix with orthonormal columns, drawn from rng.
func RandomBasis(tb testing.TB, rng *rand.Rand, d, k int) *mat.Dense {
	tb.Helper()
	a := mat.NewDense(d, k, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q, err := ugt.Orthonormalize(a)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

// RandomVec is a d-vector of normal values with standard deviation scale.
func RandomVec(rng *rand.Rand, d int, scale float64) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}
