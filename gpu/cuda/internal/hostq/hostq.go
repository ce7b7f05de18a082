//go:build cgo

// Package hostq builds the CUDA kernels' weight decoders (gpu/cuda/kernels/
// quant.cuh) with the host C compiler, so that tests compare them with the
// CPU engine's decoders without a GPU. It exists for tests only: nothing in
// the product imports it, and without cgo it is empty (the tests skip).
package hostq

/*
#cgo CFLAGS: -O1
#include "quant.h" // a link to gpu/cuda/kernels/quant.cuh, here so that the build cache sees its changes

static int unit(int t, const uint8_t *row, int u, float *y) { return dq_unit(t, row, u, y); }
static int block_bytes(int t) { return type_block_bytes(t); }
static int block_len(int t) { return type_block_len(t); }
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Available says whether the decoders were built (cgo is on).
const Available = true

// DecodeRow decodes a row of cols weights of type t (cols a multiple of 32)
// the way the device kernels do, unit by unit.
func DecodeRow(t tensor.Type, row []byte, cols int) ([]float32, error) {
	if cols%32 != 0 || cols <= 0 {
		return nil, fmt.Errorf("hostq: %d columns are not whole units of 32", cols)
	}
	bl, bb := int(C.block_len(C.int(t))), int(C.block_bytes(C.int(t)))
	if bb == 0 {
		return nil, fmt.Errorf("hostq: the kernels do not decode %v", t)
	}
	if cols%bl != 0 || len(row) < cols/bl*bb {
		return nil, fmt.Errorf("hostq: a row of %d %v weights needs %d bytes, got %d", cols, t, cols/bl*bb, len(row))
	}
	out := make([]float32, cols)
	for u := range cols / 32 {
		if C.unit(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(u), (*C.float)(unsafe.Pointer(&out[32*u]))) == 0 {
			return nil, fmt.Errorf("hostq: the kernels do not decode %v", t)
		}
	}
	return out, nil
}

// BlockBytes and BlockLen are the kernels' idea of t's block, which must be
// the engine's.
func BlockBytes(t tensor.Type) int { return int(C.block_bytes(C.int(t))) }

// BlockLen is the number of weights of one block of t in the kernels.
func BlockLen(t tensor.Type) int { return int(C.block_len(C.int(t))) }
