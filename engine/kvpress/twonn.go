package kvpress

import (
	"math"
	"slices"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Dimension is the Two-NN estimate of the intrinsic dimension of a cloud
// of points (Facco, d'Errico, Rodriguez and Laio 2017): with r₁ and r₂ a
// point's distances to its two nearest neighbours, μ = r₂/r₁ follows a
// Pareto law of exponent d whatever the density, so d is read off the μ.
type Dimension struct {
	// Fit is the paper's estimate: the line through the origin of
	// −log(1 − F(μ)) against log μ, F the empirical distribution, with the
	// largest 10 % of the μ discarded (their tail is noise).
	Fit float64 `json:"fit"`
	// MLE is the maximum-likelihood estimate N / Σ log μ, on every μ.
	MLE float64 `json:"mle"`
	// N is the points that had two neighbours at a distance above zero.
	N int `json:"n"`
}

// TwoNN estimates the intrinsic dimension of n points of dim values each,
// x row-major, by brute-force nearest neighbours (n² dot products).
// Points with a duplicate (r₁ = 0) are left out, as the paper does.
func TwoNN(x []float32, n, dim int) Dimension {
	if n < 3 || !rowsFit(x, n, dim) {
		return Dimension{}
	}
	norms := make([]float32, n)
	for i := range n {
		r := x[i*dim : (i+1)*dim]
		norms[i] = float32(dot(r, r))
	}
	dots := make([]float32, n)
	var mus []float64
	const cand = 4 // nearest by the fast formula, measured again exactly
	var best [cand]int
	for i := range n {
		xi := x[i*dim : (i+1)*dim]
		tensor.DotRows(x[:n*dim], xi, dots)
		k := 0
		for j := range n {
			if j == i {
				continue
			}
			d := norms[i] + norms[j] - 2*dots[j]
			dots[j] = d
			if k < cand {
				best[k] = j
				k++
			} else if d < dots[best[cand-1]] {
				best[cand-1] = j
			} else {
				continue
			}
			for a := k - 1; a > 0 && dots[best[a]] < dots[best[a-1]]; a-- {
				best[a], best[a-1] = best[a-1], best[a]
			}
		}
		var r [cand]float64
		for a := range k {
			r[a] = dist64(xi, x[best[a]*dim:(best[a]+1)*dim])
		}
		rs := r[:k]
		slices.Sort(rs)
		if k < 2 || !(rs[0] > 0) {
			continue
		}
		mus = append(mus, rs[1]/rs[0])
	}
	N := len(mus)
	if N < 2 {
		return Dimension{N: N}
	}
	var sl float64
	for _, mu := range mus {
		sl += math.Log(mu)
	}
	out := Dimension{N: N}
	if sl > 0 {
		out.MLE = float64(N) / sl
	}
	slices.Sort(mus)
	var sxy, sxx float64
	for i, mu := range mus[:int(0.9*float64(N))] {
		x, y := math.Log(mu), -math.Log(1-float64(i+1)/float64(N))
		sxy += x * y
		sxx += x * x
	}
	if sxx > 0 {
		out.Fit = sxy / sxx
	}
	return out
}

func dist64(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}
