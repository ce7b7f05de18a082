// Package ugt builds a model's UGT profile: the basis of its centred hidden
// states, zone centroids, the optional Stiefel refinement of the basis and
// the bilateral overlap of two bases (docs/mechanisms.md §5). It is pure math over
// float64 vectors and gonum matrices and imports neither the engine nor the
// TUI; the caller collects the hidden states (one row per prompt) and hands
// them over as an N×d matrix.
//
// It also holds the small orthonormalisation helpers (OrthColumns,
// Orthonormalize) that packages teh and snipe use to build Q = orth(B[:, F]),
// so that all three agree on the same factorisation.
package ugt
