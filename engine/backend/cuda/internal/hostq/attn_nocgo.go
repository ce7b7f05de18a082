//go:build !cgo

package hostq

// AttnTileGrid needs cgo (the kernels' own plan, built by the host C
// compiler): without it, no grid.
func AttnTileGrid(hd, heads, kvh, n int) (gx, rpb int) { return 0, 0 }
