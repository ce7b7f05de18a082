// Package ogd is Safe OGD: exploration steps projected away from the
// forbidden subspace (MECHANISMS.md §8). It is pure math over vectors and
// imports neither the engine nor the TUI.
//
// Nothing is implemented yet; the "Geometry II" issue builds it.
package ogd
