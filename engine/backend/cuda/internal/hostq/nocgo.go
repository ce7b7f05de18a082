//go:build !cgo

package hostq

import (
	"errors"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Available says whether the decoders were built: not without cgo.
const Available = false

// DecodeRow needs cgo.
func DecodeRow(t tensor.Type, row []byte, cols int) ([]float32, error) {
	return nil, errors.New("hostq: built without cgo")
}

// BlockBytes needs cgo.
func BlockBytes(t tensor.Type) int { return 0 }

// BlockLen needs cgo.
func BlockLen(t tensor.Type) int { return 0 }

// DecodeElems needs cgo.
func DecodeElems(t tensor.Type, row []byte, cols int) []float32 { return nil }

// RowProduct needs cgo.
func RowProduct(t tensor.Type, row []byte, cols int, x []float32, n, nt, e, u int) []float32 {
	return nil
}
