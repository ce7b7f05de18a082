//go:build cgo

// Package hostq builds the CUDA kernels' weight decoders (engine/backend/cuda/kernels/
// quant.cuh) with the host C compiler, so that tests compare them with the
// CPU engine's decoders without a GPU. It exists for tests only: nothing in
// the product imports it, and without cgo it is empty (the tests skip).
package hostq

/*
#cgo CFLAGS: -O1
#include "quant.h" // a link to engine/backend/cuda/kernels/quant.cuh, here so that the build cache sees its changes

static int unit(int t, const uint8_t *row, int u, float *y) { return dq_unit(t, row, u, y); }
static float elem(int t, const uint8_t *row, int u, int l) { return de_elem(t, row, u, l); }

// product runs a warp's row product lane by lane, for rows of x from t0
// (NT of them), and adds up the lanes as the warp's shuffles do.
static void product(int t, int nt, int e, int u, int nk, const uint8_t *row, int cols, const float *x, int n, int t0, float *out) {
	float sum[MM_MAXNT] = {0};
	for (int wk = 0; wk < nk; wk++) {
		for (int lane = 0; lane < 32; lane++) {
			float acc[MM_MAXNT];
			mm_lane(t, nt, e, u, row, cols, x, n, t0, lane, 0, wk, nk, acc);
			for (int k = 0; k < nt; k++) sum[k] += acc[k];
		}
	}
	for (int k = 0; k < nt; k++) out[k] = sum[k];
}
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

// DecodeElems decodes the same row one weight at a time, as the product
// kernels do (de_elem).
func DecodeElems(t tensor.Type, row []byte, cols int) []float32 {
	out := make([]float32, cols)
	for i := range out {
		out[i] = float32(C.elem(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(i/32), C.int(i%32)))
	}
	return out
}

// RowProduct is what the product kernels compute for one weight row
// against n rows of x (cols each), the warps emulated lane by lane with the
// kernels' own lane function (mm_lane): nt rows of x per warp, e weights a
// lane, u steps in flight, nk warps sharing the row.
func RowProduct(t tensor.Type, row []byte, cols int, x []float32, n, nt, e, u, nk int) []float32 {
	out := make([]float32, n+nt)
	for t0 := 0; t0 < n; t0 += nt {
		C.product(C.int(t), C.int(nt), C.int(e), C.int(u), C.int(nk), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(cols),
			(*C.float)(unsafe.Pointer(&x[0])), C.int(n), C.int(t0), (*C.float)(unsafe.Pointer(&out[t0])))
	}
	return out[:n]
}

// BlockBytes and BlockLen are the kernels' idea of t's block, which must be
// the engine's.
func BlockBytes(t tensor.Type) int { return int(C.block_bytes(C.int(t))) }

// BlockLen is the number of weights of one block of t in the kernels.
func BlockLen(t tensor.Type) int { return int(C.block_len(C.int(t))) }
