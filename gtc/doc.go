// Package gtc is Geodesic Trajectory Caching (the seeds' Paper 4 §2 and
// Paper 5) reduced to what it computes, so that it can be measured: a
// store of (state, trajectory) records, exact nearest-record lookup, and a
// first-order ("Jacobi") correction of the nearest record's trajectory,
//
//	traj(q) ≈ traj(r) + J · P(q − r),
//
// where r is the stored state nearest the query q, P projects a state
// difference on the top principal directions of the stored states, and J
// is fitted by ridge least squares on pairs of neighbouring records
// (Δstate → Δtrajectory), once for the whole store or once per cluster.
//
// The seeds' J(λ) is the propagator of the Jacobi equation on a fitted
// Riemannian manifold; here J is the empirical Jacobian of the map
// state ↦ trajectory, estimated from the records themselves. The two agree
// where the map is smooth, and only the second can be had from a running
// model without fitting a metric and its Christoffel symbols first.
//
// It is pure math over float64 vectors (gonum for the factorisations) and
// imports neither the engine nor any UI: what a state and a trajectory are
// is the caller's choice (docs/gtc.md gives the one `isagi eval gtc`
// measures).
package gtc
