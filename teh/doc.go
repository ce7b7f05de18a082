// Package teh computes TEH harm gauges from the forbidden subspace of a
// model's residual stream (MECHANISMS.md §6). It is pure math over vectors and
// imports neither the engine nor the TUI.
//
// Nothing is implemented yet; the "Geometry I" issue builds it.
package teh
