// Package cog is the COG living manifold (docs/mechanisms.md §9, Paper XV §1):
// a Riemannian metric M over the k-dimensional query space, a bounded store
// of answered trajectories, and the four recognition tiers (RETRIEVE,
// AUGMENT, EXPAND, EXPLORE) that decide whether a query is served from the
// store, generated with context, or generated fresh and learned from.
//
// It is pure math over float64 vectors (gonum for the factorisations) and
// imports neither the engine nor any UI: the caller turns a hidden state h
// into the query embedding q = Bᵀ(h − μ), asks Query for the nearest stored
// trajectory and its tier, and after answering calls Record (or Touch, when
// a RETRIEVE served a stored answer).
//
// Distances are angular in the metric: d(a, b) = 1 − aᵀMb/(‖a‖_M ‖b‖_M).
// Novel queries (EXPAND, EXPLORE) stretch M along themselves with the
// rank-one update M ← M + η q qᵀ/‖q‖², so the manifold "grows" where the
// user goes; Growth reports ‖M − I‖_F.
package cog
