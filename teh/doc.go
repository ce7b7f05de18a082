// Package teh computes the TEH harm gauge (docs/mechanisms.md §6): the share of
// a hidden state's deviation from the mean that lies in a forbidden
// subspace, in percent, and the per-model ROC calibration of its threshold.
// It is pure math over vectors and imports neither the engine nor the TUI;
// the caller turns the forbidden coordinates found by package snipe into a
// Subspace and scores hidden states (per token, or per prompt for
// calibration) with it.
package teh
