//go:build cgo

package hostq

/*
#cgo CFLAGS: -O1
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include "iqtables.h" // as hostq.go: the codebooks first, so that quant.h's include of them is skipped
#include "quant.h"
#include "mmf.h" // a link to kernels/mmf.cuh (the F16/BF16 tile products' arithmetic)

// mmf_cover says whether the m16n8k8 TF32 fragment layouts give every
// element of A (16 × 8) and B (8 × 8) to exactly one (lane, register),
// and every element of C to exactly one (lane, i).
static int mmf_cover(void) {
	int a[16][8] = {{0}}, b[8][8] = {{0}}, c[16][8] = {{0}};
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < 4; r++) a[mmf_a_row(lane, r)][mmf_a_k(lane, r)]++;
		for (int r = 0; r < 2; r++) b[mmf_b_k(lane, r)][mmf_b_n(lane)]++;
		for (int i = 0; i < 4; i++) c[mmf_c_row(lane, i)][mmf_c_n(lane, i)]++;
	}
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 8; k++)
			if (a[i][k] != 1 || c[i][k] != 1) return 0;
	for (int k = 0; k < 8; k++)
		for (int n = 0; n < 8; n++)
			if (b[k][n] != 1) return 0;
	return 1;
}

// mmf_mma_test packs A (16 × 8) and B (8 × 8, B[k*8+n]) into the lanes'
// fragments and runs the host's mma into d (16 × 8, starting as given).
static void mmf_mma_test(const float *A, const float *B, float *d) {
	float a[32][4], b[32][2], dl[32][4];
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < 4; r++) a[lane][r] = A[mmf_a_row(lane, r) * 8 + mmf_a_k(lane, r)];
		for (int r = 0; r < 2; r++) b[lane][r] = B[mmf_b_k(lane, r) * 8 + mmf_b_n(lane)];
		for (int i = 0; i < 4; i++) dl[lane][i] = d[mmf_c_row(lane, i) * 8 + mmf_c_n(lane, i)];
	}
	mmf_mma_lanes((const float(*)[4])a, (const float(*)[2])b, dl, 0);
	for (int lane = 0; lane < 32; lane++)
		for (int i = 0; i < 4; i++) d[mmf_c_row(lane, i) * 8 + mmf_c_n(lane, i)] = dl[lane][i];
}

static void mmf_split_test(float x, float *hi, float *lo) { mmf_split(x, hi, lo); }

// mmf_block runs block (bx, by) of mmf_<t> on the host: between two
// barriers every thread's code in turn, each warp's mma over its 32
// lanes' fragments at once (mmf_mma_lanes), in the kernel's order: per 8
// weights, per fragment pair, hi then lo, into the step's partial sums,
// added to the accumulators at the step's end (mmf_flush). Shared memory
// starts as garbage. rz sums each mma toward zero (mmf_mma_lanes). It
// returns 0, or −1 when out of memory.
static int mmf_block(int t, const uint8_t *w, int rowBytes, int rows, int cols, const float *x, float *y, int n,
                     float beta, int bx, int by, int aligned, int vec, int rz) {
	struct mmf_smem *sm = malloc(sizeof *sm);
	float (*acc)[32][MMF_MF][MMF_NF][4] = calloc(4, sizeof *acc);
	float (*part)[32][MMF_MF][MMF_NF][4] = calloc(4, sizeof *part);
	if (!sm || !acc || !part) {
		free(sm), free(acc), free(part);
		return -1;
	}
	memset(sm, 0xa5, sizeof *sm);
	int t0 = bx * MMF_N, r0 = by * MMF_M;
	for (int k0 = 0; k0 < cols; k0 += MMF_K) {
		for (int tid = 0; tid < MMF_THREADS; tid++) mmf_load_w(sm, w, rowBytes, rows, cols, r0, k0, tid, aligned);
		mmf_commit();
		for (int tid = 0; tid < MMF_THREADS; tid++) mmf_load_x(sm, x, n, cols, t0, k0, tid, vec);
		mmf_wait();
		// __syncthreads()
		memset(part, 0, 4 * sizeof *part);
		for (int warp = 0; warp < 4; warp++)
			for (int kk = 0; kk < MMF_K; kk += 8) {
				float a[MMF_MF][32][4], bh[MMF_NF][32][2], bl[MMF_NF][32][2];
				for (int lane = 0; lane < 32; lane++) {
					float la[MMF_MF][4], lh[MMF_NF][2], ll[MMF_NF][2];
					mmf_frags(t, sm, warp, lane, kk, la, lh, ll);
					for (int mf = 0; mf < MMF_MF; mf++) memcpy(a[mf][lane], la[mf], sizeof la[mf]);
					for (int nf = 0; nf < MMF_NF; nf++) memcpy(bh[nf][lane], lh[nf], sizeof lh[nf]), memcpy(bl[nf][lane], ll[nf], sizeof ll[nf]);
				}
				for (int mf = 0; mf < MMF_MF; mf++)
					for (int nf = 0; nf < MMF_NF; nf++) {
						float d[32][4];
						for (int lane = 0; lane < 32; lane++) memcpy(d[lane], part[warp][lane][mf][nf], sizeof d[lane]);
						mmf_mma_lanes((const float(*)[4])a[mf], (const float(*)[2])bh[nf], d, rz);
						mmf_mma_lanes((const float(*)[4])a[mf], (const float(*)[2])bl[nf], d, rz);
						for (int lane = 0; lane < 32; lane++) memcpy(part[warp][lane][mf][nf], d[lane], sizeof d[lane]);
					}
			}
		for (int warp = 0; warp < 4; warp++)
			for (int lane = 0; lane < 32; lane++) mmf_flush(acc[warp][lane], part[warp][lane]);
		// __syncthreads()
	}
	for (int warp = 0; warp < 4; warp++)
		for (int lane = 0; lane < 32; lane++)
			for (int mf = 0; mf < MMF_MF; mf++)
				for (int i = 0; i < 4; i++) {
					int r = r0 + 32 * (warp & 1) + 16 * mf + mmf_c_row(lane, i);
					if (r >= rows) continue;
					for (int nf = 0; nf < MMF_NF; nf++) {
						int tok = t0 + 32 * (warp >> 1) + 8 * nf + mmf_c_n(lane, i);
						if (tok >= n) continue;
						size_t at = (size_t)tok * rows + r;
						y[at] = mmf_value(acc[warp][lane][mf][nf][i], beta, beta == 0.f ? 0.f : y[at]);
					}
				}
	free(sm), free(acc), free(part);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// MMFTile is the mmf_ kernels' tile: weight rows and tokens a block.
const MMFTile = 64

// MMFCover says whether the m16n8k8 TF32 fragment layouts (mmf.cuh's
// mmf_a_*, mmf_b_*, mmf_c_*) give every element of A, B and C to exactly
// one lane's register.
func MMFCover() bool { return C.mmf_cover() == 1 }

// MMFMMA is the host's m16n8k8 product (mmf_mma_lanes) d + a·b of a (16 ×
// 8, row major), b (8 × 8, row major) and d (16 × 8) through the lanes'
// fragments.
func MMFMMA(a, b, d []float32) []float32 {
	out := append([]float32(nil), d[:16*8]...)
	C.mmf_mma_test((*C.float)(unsafe.Pointer(&a[0])), (*C.float)(unsafe.Pointer(&b[0])), (*C.float)(unsafe.Pointer(&out[0])))
	return out
}

// MMFSplit is x's two TF32 parts as the mmf_ kernels split it (mmf_split).
func MMFSplit(x float32) (hi, lo float32) {
	var h, l C.float
	C.mmf_split_test(C.float(x), &h, &l)
	return float32(h), float32(l)
}

// MMFProduct runs every block of an mmf_ launch on the host (mmf_block):
// y (n rows of `rows`) = W·x for W of type t (F16 or BF16, rows of
// rowBytes) and x (n rows of cols floats), beta as the kernels'. aligned
// and vec choose the kernel's paths for 16-byte aligned weight rows
// (cp.async) and activations (16-byte loads), as the device chooses them
// from the pointers. truncate sums each mma toward zero, a model of the
// tensor cores' own rounding.
func MMFProduct(t tensor.Type, w []byte, rowBytes, rows, cols int, x, y []float32, n int, beta float32, aligned, vec, truncate bool) error {
	if t != tensor.F16 && t != tensor.BF16 {
		return fmt.Errorf("hostq: no mmf product for %v", t)
	}
	if rows <= 0 || n <= 0 || cols <= 0 || rowBytes < 2*cols || len(w) < (rows-1)*rowBytes+2*cols || len(x) < n*cols || len(y) < n*rows {
		return fmt.Errorf("hostq: an mmf product of %d × %d over %d rows with buffers too short", rows, cols, n)
	}
	al, vc, rz := C.int(0), C.int(0), C.int(0)
	if aligned {
		al = 1
	}
	if vec {
		vc = 1
	}
	if truncate {
		rz = 1
	}
	for by := 0; by*MMFTile < rows; by++ {
		for bx := 0; bx*MMFTile < n; bx++ {
			if C.mmf_block(C.int(t), (*C.uint8_t)(unsafe.Pointer(&w[0])), C.int(rowBytes), C.int(rows), C.int(cols),
				(*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&y[0])), C.int(n), C.float(beta),
				C.int(bx), C.int(by), al, vc, rz) != 0 {
				return errors.New("hostq: out of memory for an mmf block")
			}
		}
	}
	return nil
}
