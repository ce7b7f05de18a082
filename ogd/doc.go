// Package ogd is Safe OGD, Orthogonal Geodesic Deviation with a safety
// projector (docs/mechanisms.md §8, Paper XIII): exploration steps in a model's
// hidden space that can never carry energy into a forbidden subspace.
//
// Given an orthonormal basis Q_f of the forbidden subspace, a centre μ and
// a unit direction v̂, the step applied to a hidden state h at the
// injection layer is
//
//	h ← μ + P_safe((h − μ) + α‖h − μ‖ v̂),   P_safe = I − Q_f Q_fᵀ,
//
// so that Q_fᵀ(h − μ) = 0 right after the step, for every h, v̂ and α: the
// guarantee is algebraic (Q_fᵀ P_safe = 0), not a threshold. Later layers
// can re-create forbidden energy, which is why the product also measures
// TEH on what was generated.
//
// The package also provides the directions to explore along
// (ConceptDirection, Axis, TopEigenvector), multi-step chains with
// decreasing α (Chain), and an automated creativity score (Creativity).
// It is pure math and imports neither the engine nor any UI.
package ogd
