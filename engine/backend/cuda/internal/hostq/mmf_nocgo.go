//go:build !cgo

package hostq

import (
	"errors"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// MMFTile is the mmf_ kernels' tile: weight rows and tokens a block.
const MMFTile = 64

// MMFCover needs cgo.
func MMFCover() bool { return false }

// MMFMMA needs cgo.
func MMFMMA(a, b, d []float32) []float32 { return nil }

// MMFSplit needs cgo.
func MMFSplit(x float32) (hi, lo float32) { return 0, 0 }

// MMFProduct needs cgo.
func MMFProduct(t tensor.Type, w []byte, rowBytes, rows, cols int, x, y []float32, n int, beta float32, aligned, vec, truncate bool) error {
	return errors.New("hostq: built without cgo")
}
