//go:build !cgo

package hostq

import (
	"errors"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// MMQTile is the mmq_ kernels' tile: weight rows and tokens a block.
const MMQTile = 64

// MMQPieceSums needs cgo.
func MMQPieceSums(t tensor.Type, row []byte, xq []int8, p int) (int32, int32) { return 0, 0 }

// MMQPieceTerm needs cgo.
func MMQPieceTerm(t tensor.Type, row []byte, xd, xs []float32, p int, a, b int32) (float32, float32) {
	return 0, 0
}

// MMACover needs cgo.
func MMACover(k int) bool { return false }

// MMA needs cgo.
func MMA(k int, a []int8, b []int8) []int32 { return nil }

// MMQProduct needs cgo.
func MMQProduct(t tensor.Type, w []byte, rowBytes, rows, cols int, xq []int8, xd, xs, y []float32, n int, beta float32, sums bool) ([]int32, error) {
	return nil, errors.New("hostq: built without cgo")
}
