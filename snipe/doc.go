// Package snipe selects behavioural coordinates and builds the projectors
// that remove them from the residual stream (MECHANISMS.md §7). It is pure
// math over vectors and imports neither the engine nor the TUI.
//
// Nothing is implemented yet; the "Geometry I" issue builds it.
package snipe
