// Package ugt builds a model's UGT profile: the basis of its centred hidden
// states, zone centroids and bilateral overlap (MECHANISMS.md §5). It is pure
// math over vectors and imports neither the engine nor the TUI.
//
// Nothing is implemented yet; the "Geometry I" issue builds it.
package ugt
