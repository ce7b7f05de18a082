// Package snipe finds the behavioural coordinates of a harm category in the
// UGT basis and removes them from the residual stream (docs/mechanisms.md §7):
// it scores each coordinate on harm-eliciting versus matched benign
// prompts, builds the projector h ← h − Q Qᵀ(h − μ), and runs the greedy
// selection that trades measured harm reduction against benign collateral.
// It is pure math over vectors and imports neither the engine nor the TUI;
// the caller runs the model, supplies hidden states, and measures collateral
// (next-token cross-entropy) through the eval callback of Select.
package snipe
