// Package cog is the COG living manifold: the metric M, the trajectory store
// and the RETRIEVE/AUGMENT/EXPAND/EXPLORE tiers (MECHANISMS.md §9). It is pure
// math over vectors and imports neither the engine nor the TUI.
//
// Nothing is implemented yet; the "Geometry II" issue builds it.
package cog
