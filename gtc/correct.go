package gtc

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Options shape the fit of the correction.
type Options struct {
	// Rank is how many principal directions of the stored states a state
	// difference is projected on before J maps it (0: 16, and never more
	// than the records or the state allow). A low rank keeps J small
	// (Rank × TrajDim) and fittable from a few pairs per direction.
	Rank int
	// Neighbours is how many nearest other records each record is paired
	// with to fit J (0: 8).
	Neighbours int
	// Ridge is the ridge penalty relative to the mean eigenvalue of the
	// pairs' Gram matrix: λ = Ridge · tr(XᵀX)/Rank. 0 is plain least
	// squares (with a floor of 1e-12 of the trace against a singular fit).
	Ridge float64
	// Clusters fits one J per cluster of records (centres chosen by
	// farthest-point sampling, each record in its nearest centre's
	// cluster) instead of one for the whole store; 0 or 1 is one J. A
	// cluster with fewer pairs than Rank uses the global J.
	Clusters int
}

// Corrector answers a query from a store: the nearest record's trajectory
// as it was (Plain) and corrected to first order in the state difference.
// It reads the store it was fitted on; adding records afterwards is not
// seen by the fit.
type Corrector struct {
	s      *Store
	n      int        // records when fitted
	k      int        // rank
	basis  *mat.Dense // k × StateDim, orthonormal rows
	assign []int      // cluster of each record
	maps   []*mat.Dense
	pairs  int
}

// Fit fits the correction on s's records: every record is paired with its
// o.Neighbours nearest other records, each pair gives x = P(sᵢ − sⱼ) and
// y = τᵢ − τⱼ, and J minimises Σ‖y − Jx‖² + λ‖J‖². It needs two records
// or more.
func Fit(s *Store, o Options) (*Corrector, error) {
	if s == nil || s.Len() < 2 {
		return nil, fmt.Errorf("gtc: fitting a correction needs 2 records or more")
	}
	if o.Rank < 0 || o.Neighbours < 0 || o.Clusters < 0 || !(o.Ridge >= 0) || math.IsInf(o.Ridge, 0) {
		return nil, fmt.Errorf("gtc: options %+v: want ranks, counts and a ridge of 0 or more", o)
	}
	if o.Rank == 0 {
		o.Rank = 16
	}
	if o.Neighbours == 0 {
		o.Neighbours = 8
	}
	n := s.Len()
	basis, err := principal(s, min(o.Rank, n-1, s.stateDim))
	if err != nil {
		return nil, err
	}
	k, _ := basis.Dims()
	c := &Corrector{s: s, n: n, k: k, basis: basis, assign: make([]int, n)}
	nc := max(o.Clusters, 1)
	centres := s.FarthestPoints(nc)
	if len(centres) > 1 {
		for i := range n {
			best, bd := 0, math.Inf(1)
			for ci, j := range centres {
				if d := sqDist(s.State(i), s.State(j)); d < bd {
					best, bd = ci, d
				}
			}
			c.assign[i] = best
		}
	}
	// Pairs, the project state differences X and the trajectory
	// differences Y, grouped by the first record's cluster.
	type pair struct{ i, j int }
	byCluster := make([][]pair, len(centres))
	var all []pair
	for i := range n {
		for _, j := range s.kNearest(i, o.Neighbours) {
			p := pair{i, j}
			all = append(all, p)
			byCluster[c.assign[i]] = append(byCluster[c.assign[i]], p)
		}
	}
	c.pairs = len(all)
	fit := func(ps []pair) (*mat.Dense, error) {
		X := mat.NewDense(len(ps), k, nil)
		Y := mat.NewDense(len(ps), s.trajDim, nil)
		diff := make([]float64, s.stateDim)
		z := make([]float64, k)
		for r, p := range ps {
			si, sj := s.State(p.i), s.State(p.j)
			for a := range diff {
				diff[a] = si[a] - sj[a]
			}
			c.project(diff, z)
			X.SetRow(r, z)
			ti, tj, row := s.Traj(p.i), s.Traj(p.j), Y.RawRowView(r)
			for a := range row {
				row[a] = ti[a] - tj[a]
			}
		}
		return ridge(X, Y, o.Ridge)
	}
	global, err := fit(all)
	if err != nil {
		return nil, err
	}
	c.maps = make([]*mat.Dense, len(centres))
	for ci, ps := range byCluster {
		c.maps[ci] = global
		if len(centres) > 1 && len(ps) >= k {
			if c.maps[ci], err = fit(ps); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Rank is the number of principal directions the correction reads.
func (c *Corrector) Rank() int { return c.k }

// Pairs is the number of record pairs the fit used.
func (c *Corrector) Pairs() int { return c.pairs }

// Prediction is a query's answer from the store.
type Prediction struct {
	Record int     // the nearest record
	Dist   float64 // its L2 distance from the query
	// Plain is the nearest record's trajectory as stored; Corrected is it
	// plus J·P(q − r).
	Plain, Corrected []float64
}

// Predict answers q from the store: the nearest record among those the
// correction was fitted on, its trajectory, and that trajectory corrected.
func (c *Corrector) Predict(q []float64) (Prediction, error) {
	if len(q) != c.s.stateDim {
		return Prediction{}, fmt.Errorf("gtc: query of %d numbers, states have %d", len(q), c.s.stateDim)
	}
	if !finite(q) {
		return Prediction{}, fmt.Errorf("gtc: the query holds a NaN or an infinity")
	}
	best, bd := -1, math.Inf(1)
	for i := range c.n {
		if d := sqDist(q, c.s.State(i)); d < bd {
			best, bd = i, d
		}
	}
	p := Prediction{Record: best, Dist: math.Sqrt(bd), Plain: append([]float64(nil), c.s.Traj(best)...)}
	p.Corrected = make([]float64, c.s.trajDim)
	c.correct(best, q, p.Corrected)
	return p, nil
}

// correct writes τ(r) + J·P(q − s(r)) to dst.
func (c *Corrector) correct(r int, q, dst []float64) {
	diff := make([]float64, c.s.stateDim)
	sr := c.s.State(r)
	for a := range diff {
		diff[a] = q[a] - sr[a]
	}
	z := make([]float64, c.k)
	c.project(diff, z)
	copy(dst, c.s.Traj(r))
	J := c.maps[c.assign[r]]
	for a, za := range z {
		if za == 0 {
			continue
		}
		row := J.RawRowView(a)
		for t := range dst {
			dst[t] += za * row[t]
		}
	}
}

// project writes the basis coordinates of the difference d to z.
func (c *Corrector) project(d, z []float64) {
	for a := range z {
		row := c.basis.RawRowView(a)
		var v float64
		for i, x := range d {
			v += row[i] * x
		}
		z[a] = v
	}
}

// principal is the top k principal directions of s's states, as the
// orthonormal rows of a k × StateDim matrix (fewer when the states span
// fewer directions).
func principal(s *Store, k int) (*mat.Dense, error) {
	n, d := s.Len(), s.stateDim
	if k < 1 {
		return nil, fmt.Errorf("gtc: rank %d: want 1 or more", k)
	}
	mean := make([]float64, d)
	for i := range n {
		for a, v := range s.State(i) {
			mean[a] += v / float64(n)
		}
	}
	C := mat.NewDense(n, d, nil)
	for i := range n {
		row := C.RawRowView(i)
		for a, v := range s.State(i) {
			row[a] = v - mean[a]
		}
	}
	var svd mat.SVD
	if !svd.Factorize(C, mat.SVDThinV) {
		return nil, fmt.Errorf("gtc: the states' SVD did not converge")
	}
	vals := svd.Values(nil)
	var V mat.Dense
	svd.VTo(&V)
	// Directions with no spread carry no state difference: drop them, so
	// that a cloud in a subspace gets a basis of that subspace.
	keep := 0
	for keep < min(k, len(vals)) && vals[keep] > 1e-10*vals[0] {
		keep++
	}
	if keep == 0 {
		return nil, fmt.Errorf("gtc: the stored states are all the same point")
	}
	B := mat.NewDense(keep, d, nil)
	for a := range keep {
		for i := range d {
			B.Set(a, i, V.At(i, a))
		}
	}
	return B, nil
}

// ridge solves min ‖Y − XJ‖² + λ‖J‖² for J (k × columns of Y), λ relative
// to the mean eigenvalue of XᵀX.
func ridge(X, Y *mat.Dense, rel float64) (*mat.Dense, error) {
	_, k := X.Dims()
	_, t := Y.Dims()
	var G mat.SymDense
	G.SymOuterK(1, X.T())
	tr := 0.0
	for a := range k {
		tr += G.At(a, a)
	}
	if !(tr > 0) {
		// No pair differs in the projected state: nothing to fit, and the
		// correction is zero.
		return mat.NewDense(k, t, nil), nil
	}
	lambda := max(rel, 1e-12) * tr / float64(k)
	for a := range k {
		G.SetSym(a, a, G.At(a, a)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&G) {
		return nil, fmt.Errorf("gtc: the pairs' Gram matrix is not positive definite")
	}
	var XtY, J mat.Dense
	XtY.Mul(X.T(), Y)
	if err := ch.SolveTo(&J, &XtY); err != nil {
		return nil, fmt.Errorf("gtc: solving for J: %w", err)
	}
	return &J, nil
}
