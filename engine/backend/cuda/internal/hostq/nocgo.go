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
func RowProduct(t tensor.Type, row []byte, cols int, x []float32, n, nt, e, u, nk int) []float32 {
	return nil
}

// RowProductGather needs cgo.
func RowProductGather(t tensor.Type, row []byte, cols int, x []float32, xi []int32, nt, e, u, nk int) []float32 {
	return nil
}

// RouteMax needs cgo.
func RouteMax() int { return 0 }

// GroupTile needs cgo.
func GroupTile() int { return 0 }

// RouteRow needs cgo.
func RouteRow(logits, mask, sbias []float32, gating, k int, norm bool, scale float32) ([]int32, []float32) {
	return nil, nil
}

// GroupPairs needs cgo.
func GroupPairs(ids []int32, ne int) ([]int32, [][3]int32) { return nil, nil }

// SwiGLUOAI needs cgo.
func SwiGLUOAI(g, u, alpha, limit float32) float32 { return 0 }

// Combine needs cgo.
func Combine(y []float32, ldy int, w []float32, k, r, c int) float32 { return 0 }

// RopeYaRN are the rope kernel's YaRN arguments.
type RopeYaRN struct {
	On                      bool
	Ext, Attn, Corr0, Corr1 float32
}

// RopeCS needs cgo.
func RopeCS(i, pos int, base float32, dim int, fdiv, mscale, posScale float32, y RopeYaRN) (float32, float32) {
	return 0, 0
}

// AttMerge needs cgo.
func AttMerge(wm, wl []float32, sink *float32) (float32, float32) { return 0, 0 }

// QuantAct8 needs cgo.
func QuantAct8(x []float32) ([]int8, []float32, []float32) { return nil, nil, nil }

// MVQLanes needs cgo.
func MVQLanes(t tensor.Type) int { return 0 }

// MVQWidth needs cgo.
func MVQWidth(t tensor.Type) int { return 0 }

// Piece is one piece of an mvq_ product.
type Piece struct {
	A, B      int32
	Acc, AccM float32
}

// Pieces needs cgo.
func Pieces(t tensor.Type, row []byte, cols int, xq []int8, xd, xs []float32) []Piece { return nil }

// RowProductQ8 needs cgo.
func RowProductQ8(t tensor.Type, row []byte, cols int, xq []int8, xd, xs []float32, s, u int) (float32, []int32) {
	return 0, nil
}
