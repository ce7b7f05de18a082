//go:build cgo

package hostq

/*
#cgo CFLAGS: -O1
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include "iqtables.h" // as hostq.go: the codebooks first, so that quant.h's include of them is skipped
#include "quant.h"
#include "mmq.h" // a link to kernels/mmq.cuh (the tile products' arithmetic)

static void mmq_piece_sums(int t, const uint8_t *row, const int8_t *xq, int p, int *A, int *B) { mmq_isum(t, row, xq, p, A, B); }

// mmq_piece_term is piece p's float terms through mmq_term: the row's side
// of the chunks of p's step (mmq_chunk_terms, packed as mmq_load_w packs
// them), the tokens' side of the same chunks, the accumulators starting
// as the harness's piece does (−0, so that a term's sign shows).
static void mmq_piece_term(int t, const uint8_t *row, const float *xd, const float *xs, int p, int A, int B, float *acc,
                           float *accm) {
	int cpp = mmq_cpp(t), b0 = (p * cpp) & ~(MMQ_CH - 1), pl = (p * cpp - b0) / cpp;
	float f[2 * MMQ_CH] = {0};
	uint32_t k[MMQ_CH] = {0};
	for (int ch = pl * cpp; ch < pl * cpp + cpp; ch++) {
		int kk[4];
		mmq_chunk_terms(t, row, b0 + ch, f + 2 * ch, kk);
		k[ch] = (uint32_t)(kk[0] & 0xff) | (uint32_t)(kk[1] & 0xff) << 8 | (uint32_t)(kk[2] & 0xff) << 16 | (uint32_t)(kk[3] & 0xff) << 24;
	}
	*acc = -0.f, *accm = mvq_minc(t) != 0.f ? -0.f : 0.f;
	mmq_term(t, f, k, xd + b0, xs + b0, pl, A, B, acc, accm);
}

// mma_cover says whether the fragment layouts of an m16n8kK product give
// every element of A and B to exactly one (lane, register, byte) and
// every element of C to exactly one (lane, i).
static int mma_cover(int K) {
	int a[16][32] = {{0}}, b[32][8] = {{0}}, c[16][8] = {{0}};
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < K / 8; r++)
			for (int j = 0; j < 4; j++) a[mma_a_row(lane, r)][mma_a_k(lane, r) + j]++;
		for (int r = 0; r < K / 16; r++)
			for (int j = 0; j < 4; j++) b[mma_b_k(lane, r) + j][mma_b_n(lane)]++;
		for (int i = 0; i < 4; i++) c[mma_c_row(lane, i)][mma_c_n(lane, i)]++;
	}
	for (int i = 0; i < 16; i++)
		for (int k = 0; k < 32; k++)
			if (a[i][k] != (k < K)) return 0;
	for (int k = 0; k < 32; k++)
		for (int n = 0; n < 8; n++)
			if (b[k][n] != (k < K)) return 0;
	for (int i = 0; i < 16; i++)
		for (int n = 0; n < 8; n++)
			if (c[i][n] != 1) return 0;
	return 1;
}

// mma_lanes_test packs A (16 × K) and B (K × 8, given as B[k*8+n]) into
// the lanes' fragments and runs the host's mma into d (16 × 8).
static void mma_lanes_test(int K, const int8_t *A, const int8_t *B, int *d) {
	uint32_t a[32][4] = {{0}}, b[32][2] = {{0}};
	int dl[32][4] = {{0}};
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < K / 8; r++)
			for (int j = 0; j < 4; j++) a[lane][r] |= (uint32_t)(uint8_t)A[mma_a_row(lane, r) * 32 + mma_a_k(lane, r) + j] << (8 * j);
		for (int r = 0; r < K / 16; r++)
			for (int j = 0; j < 4; j++) b[lane][r] |= (uint32_t)(uint8_t)B[(mma_b_k(lane, r) + j) * 8 + mma_b_n(lane)] << (8 * j);
	}
	mma_s8_lanes(K, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, dl);
	for (int lane = 0; lane < 32; lane++)
		for (int i = 0; i < 4; i++) d[mma_c_row(lane, i) * 8 + mma_c_n(lane, i)] = dl[lane][i];
}

// mmq_lanes is the state of a block's 128 threads that lives across its
// phases: the lanes' accumulators, and a piece's integer sums.
struct mmq_lanes {
	float acc[4][32][MMQ_MF][MMQ_NF][4], accm[4][32][MMQ_MF][MMQ_NF][4];
	int A[32][MMQ_MF][MMQ_NF][4], B[32][MMQ_MF][MMQ_NF][4], S[32][MMQ_MF][MMQ_NF][4];
	uint32_t a[MMQ_MF][32][4], b[MMQ_NF][32][2];
};

// mmq_block runs block (bx, by) of mmq_<t> on the host: between two
// barriers every thread's code in turn, each warp's mma over its 32
// lanes' fragments at once (mma_s8_lanes), in the kernel's order. Shared
// memory starts as garbage. isums, when not null, receives every (row,
// token, piece)'s integer sums A, B at [(row·n + token)·pieces + piece].
// It returns 0, or −1 when out of memory.
static int mmq_block(int t, const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,
                     const float *xs, float *y, int n, float beta, int bx, int by, int *isums) {
	struct mmq_smem *sm = malloc(sizeof *sm);
	struct mmq_lanes *L = calloc(1, sizeof *L);
	if (!sm || !L) {
		free(sm), free(L);
		return -1;
	}
	memset(sm, 0xa5, sizeof *sm);
	int t0 = bx * MMQ_N, r0 = by * MMQ_M, steps = (cols + MMQ_K - 1) / MMQ_K;
	int K = mmq_k16(t) ? 16 : 32, pieces = MMQ_CH / mmq_cpp(t), np = cols / mvq_width(t);
	for (int k = 0; k < steps; k++) {
		for (int tid = 0; tid < MMQ_THREADS; tid++) mmq_load_x(sm, xq, xd, xs, n, cols, t0, k, tid);
		for (int tid = 0; tid < MMQ_THREADS; tid++) mmq_load_w(t, sm, w, rowBytes, rows, cols, r0, k, tid);
		mmq_wait();
		// __syncthreads()
		for (int warp = 0; warp < 4; warp++) {
			for (int pl = 0; pl < pieces; pl++) {
				memset(L->A, 0, sizeof L->A), memset(L->B, 0, sizeof L->B);
				for (int u = 0; u < mmq_subs(t); u++) {
					for (int lane = 0; lane < 32; lane++) {
						uint32_t a[MMQ_MF][4] = {{0}}, b[MMQ_NF][2] = {{0}};
						mmq_frags(t, sm, warp, lane, pl, u, a, b);
						for (int mf = 0; mf < MMQ_MF; mf++) memcpy(L->a[mf][lane], a[mf], sizeof a[mf]);
						for (int nf = 0; nf < MMQ_NF; nf++) memcpy(L->b[nf][lane], b[nf], sizeof b[nf]);
					}
					for (int mf = 0; mf < MMQ_MF; mf++)
						for (int nf = 0; nf < MMQ_NF; nf++) {
							int d[32][4] = {{0}};
							mma_s8_lanes(K, (const uint32_t(*)[4])L->a[mf], (const uint32_t(*)[2])L->b[nf], d);
							for (int lane = 0; lane < 32; lane++) memcpy(L->S[lane][mf][nf], d[lane], sizeof d[lane]);
						}
					for (int lane = 0; lane < 32; lane++) mmq_gather(t, sm, warp, lane, pl, u, L->S[lane], L->A[lane], L->B[lane]);
				}
				for (int lane = 0; lane < 32; lane++) {
					mmq_terms(t, sm, rows, cols, n, r0, t0, k, warp, lane, pl, L->A[lane], L->B[lane], L->acc[warp][lane],
					          L->accm[warp][lane]);
					int p = k * pieces + pl;
					if (!isums || p >= np) continue;
					for (int mf = 0; mf < MMQ_MF; mf++)
						for (int nf = 0; nf < MMQ_NF; nf++)
							for (int i = 0; i < 4; i++) {
								int r = r0 + 32 * (warp & 1) + 16 * mf + mma_c_row(lane, i);
								int tok = t0 + 32 * (warp >> 1) + 8 * nf + mma_c_n(lane, i);
								if (r >= rows || tok >= n) continue;
								int *s = isums + 2 * (((size_t)r * n + tok) * np + p);
								s[0] = L->A[lane][mf][nf][i], s[1] = L->B[lane][mf][nf][i];
							}
				}
			}
		}
		// __syncthreads()
	}
	for (int warp = 0; warp < 4; warp++)
		for (int lane = 0; lane < 32; lane++)
			for (int mf = 0; mf < MMQ_MF; mf++)
				for (int i = 0; i < 4; i++) {
					int r = r0 + 32 * (warp & 1) + 16 * mf + mma_c_row(lane, i);
					if (r >= rows) continue;
					for (int nf = 0; nf < MMQ_NF; nf++) {
						int tok = t0 + 32 * (warp >> 1) + 8 * nf + mma_c_n(lane, i);
						if (tok >= n) continue;
						size_t at = (size_t)tok * rows + r;
						y[at] = mmq_value(t, L->acc[warp][lane][mf][nf][i], L->accm[warp][lane][mf][nf][i], beta,
						                  beta == 0.f ? 0.f : y[at]);
					}
				}
	free(sm), free(L);
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

// MMQTile is the mmq_ kernels' tile: weight rows and tokens a block.
const MMQTile = 64

// MMQPieceSums is piece p's integer sums as the mmq_ kernels form them from
// their decoded words (mmq_isum): mvq_isum's, added over its lanes, or
// the tile products are wrong.
func MMQPieceSums(t tensor.Type, row []byte, xq []int8, p int) (int32, int32) {
	var a, b C.int
	C.mmq_piece_sums(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), (*C.int8_t)(unsafe.Pointer(&xq[0])), C.int(p), &a, &b)
	return int32(a), int32(b)
}

// MMQPieceTerm is piece p's float terms as the mmq_ kernels add them
// (mmq_term, from the row's side decoded once a step) from its sums A and
// B: mvq_term's, bit for bit, or the tile products differ from decode's.
func MMQPieceTerm(t tensor.Type, row []byte, xd, xs []float32, p int, a, b int32) (float32, float32) {
	var acc, accm C.float
	C.mmq_piece_term(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), (*C.float)(unsafe.Pointer(&xd[0])), (*C.float)(unsafe.Pointer(&xs[0])),
		C.int(p), C.int(a), C.int(b), &acc, &accm)
	return float32(acc), float32(accm)
}

// MMACover says whether the mma fragment layouts (mmq.cuh's mma_*) of
// m16n8kK give every element of A, B and C to exactly one lane's register.
func MMACover(k int) bool { return C.mma_cover(C.int(k)) == 1 }

// MMA is the host's m16n8kK product (mma_s8_lanes) of a (16 × k, row
// major, 32 a row) and b (k × 8, row major) through the lanes' fragments.
func MMA(k int, a []int8, b []int8) []int32 {
	d := make([]int32, 16*8)
	C.mma_lanes_test(C.int(k), (*C.int8_t)(unsafe.Pointer(&a[0])), (*C.int8_t)(unsafe.Pointer(&b[0])), (*C.int)(unsafe.Pointer(&d[0])))
	return d
}

// MMQProduct runs every block of an mmq_ launch on the host (mmq_block):
// y (n rows of `rows`) = W·x for W of type t (rows of rowBytes) and the n
// rows of x quantised by QuantAct8 (xq n rows of cols codes, xd and xs n
// rows of cols/32), beta as the kernels'. With sums it also returns every
// (row, token, piece)'s integer sums A, B at [2((row·n + token)·pieces +
// piece)].
func MMQProduct(t tensor.Type, w []byte, rowBytes, rows, cols int, xq []int8, xd, xs, y []float32, n int, beta float32, sums bool) ([]int32, error) {
	if rows <= 0 || n <= 0 || cols%32 != 0 || len(w) < rows*rowBytes || len(xq) < n*cols || len(xd) < n*cols/32 || len(xs) < n*cols/32 || len(y) < n*rows {
		return nil, fmt.Errorf("hostq: an mmq product of %d × %d over %d rows with buffers too short", rows, cols, n)
	}
	var is []int32
	var isp *C.int
	if sums {
		is = make([]int32, 2*rows*n*(cols/MVQWidth(t)))
		isp = (*C.int)(unsafe.Pointer(&is[0]))
	}
	for by := 0; by*MMQTile < rows; by++ {
		for bx := 0; bx*MMQTile < n; bx++ {
			if C.mmq_block(C.int(t), (*C.uint8_t)(unsafe.Pointer(&w[0])), C.int(rowBytes), C.int(rows), C.int(cols),
				(*C.int8_t)(unsafe.Pointer(&xq[0])), (*C.float)(unsafe.Pointer(&xd[0])), (*C.float)(unsafe.Pointer(&xs[0])),
				(*C.float)(unsafe.Pointer(&y[0])), C.int(n), C.float(beta), C.int(bx), C.int(by), isp) != 0 {
				return nil, errors.New("hostq: out of memory for an mmq block")
			}
		}
	}
	return is, nil
}
