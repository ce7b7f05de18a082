// experts.cu — the mixture-of-experts feed-forward block on the device
// (engine/backend's Experts): the router's choice, the chosen experts'
// products, gpt-oss's SwiGLU and the weighted sum. The chosen experts stay
// in device memory from the route to the sum, so a layer needs no copy to
// the host.
//
// An expert stack is one allocation of E matrices of one type and shape,
// expertBytes apart. A route holds, for each of n rows, k expert ids and
// weights (pair p = row·k + slot), and for a batch (n > 1) the pairs
// grouped by expert (group_experts).
#include "quant.cuh"
#include "ops.cuh"

#define WARPS 4

// route chooses row blockIdx.x's experts from its ne router logits (row
// stride ld) into ids and w (k each, from row·k), as route_row says. The
// block stages the row in shared memory; one thread chooses, a pass over
// ne values per choice (ne ≤ ROUTE_MAX, k ≤ ne).
extern "C" __global__ void route(const float *logits, int ld, int ne, const float *mask, const float *sbias,
                                 int gating, int k, int norm, float scale, int *ids, float *w) {
	__shared__ float v[ROUTE_MAX], s[ROUTE_MAX];
	int r = blockIdx.x;
	for (int e = threadIdx.x; e < ne; e += blockDim.x) v[e] = logits[(size_t)r * ld + e];
	__syncthreads();
	if (threadIdx.x == 0) route_row(v, s, ne, mask, sbias, gating, k, norm, scale, ids + (size_t)r * k, w + (size_t)r * k);
}

// group_experts sorts a batch's np pairs by expert into order and tiles
// (group_pairs), for the batched products. One block, one thread: np is at
// most a batch's rows times k.
extern "C" __global__ void group_experts(const int *ids, int np, int ne, int *order, int *tiles) {
	__shared__ int cnt[ROUTE_MAX];
	if (threadIdx.x == 0) group_pairs(ids, np, ne, cnt, order, tiles);
}

// mv_expert: decode's expert product. Block (r, p) computes row r of pair
// p's expert against x row p/xdiv (xdiv = k for the rows' own input, 1 for
// each pair's, the down product's), the block's four warps splitting the
// row as mv_ does, and adds the expert's bias (bias null: none; bstride
// floats apart). y holds a row of `rows` outputs per pair. Grid (rows,
// pairs), block 128.
template <int T>
__device__ __forceinline__ void mv_expert(const uint8_t *__restrict__ w, int expertBytes, int rowBytes, int rows,
                                          int cols, const float *__restrict__ x, int xdiv, const int *ids,
                                          const float *bias, int bstride, float *__restrict__ y) {
	__shared__ float part[WARPS];
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int r = blockIdx.x, p = blockIdx.y;
	int e = ids[p];
	const uint8_t *row = w + (size_t)e * expertBytes + (size_t)r * rowBytes;
	const float *xr = x + (size_t)(p / xdiv) * cols;
	int vec = (cols & 3) == 0 && ((uintptr_t)xr & 15) == 0;
	float acc[1];
	mm_lane(T, 1, 4, 4, row, cols, xr, (const int *)0, 1, 0, lane, vec, warp, WARPS, acc);
	for (int o = 16; o > 0; o >>= 1) acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], o);
	if (lane == 0) part[warp] = acc[0];
	__syncthreads();
	if (threadIdx.x != 0) return;
	float s = part[0];
	for (int k = 1; k < WARPS; k++) s += part[k];
	if (bias) s += bias[(size_t)e * bstride + r];
	y[(size_t)p * rows + r] = s;
}

// mm_expert: a batch's expert product. Block (b, t) takes tile t of the
// grouped pairs (group_pairs; blocks past the tiles' count do nothing):
// its expert's rows 4b…4b+3, a warp a row, against the x rows of the
// tile's up to GROUP_TILE pairs, so each weight is decoded once per tile.
// Grid (⌈rows/4⌉, the tiles' bound), block 128.
template <int T>
__device__ __forceinline__ void mm_expert(const uint8_t *__restrict__ w, int expertBytes, int rowBytes, int rows,
                                          int cols, const float *__restrict__ x, int xdiv, const int *order,
                                          const int *tiles, const float *bias, int bstride, float *__restrict__ y) {
	int t = blockIdx.y;
	if (t >= tiles[0]) return;
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int r = blockIdx.x * WARPS + warp;
	if (r >= rows) return; // no barrier below: a warp may leave alone
	int e = tiles[1 + 3 * t], first = tiles[2 + 3 * t], cnt = tiles[3 + 3 * t];
	int pp[GROUP_TILE], xi[GROUP_TILE];
#pragma unroll
	for (int q = 0; q < GROUP_TILE; q++) {
		pp[q] = q < cnt ? order[first + q] : 0;
		xi[q] = pp[q] / xdiv;
	}
	const uint8_t *row = w + (size_t)e * expertBytes + (size_t)r * rowBytes;
	int vec = (cols & 3) == 0 && ((uintptr_t)x & 15) == 0;
	float acc[GROUP_TILE];
	mm_lane(T, GROUP_TILE, 4, 1, row, cols, x, xi, cnt, 0, lane, vec, 0, 1, acc);
#pragma unroll
	for (int q = 0; q < GROUP_TILE; q++) {
#pragma unroll
		for (int o = 16; o > 0; o >>= 1) acc[q] += __shfl_xor_sync(0xffffffffu, acc[q], o);
	}
	if (lane != 0) return;
	float b = bias ? bias[(size_t)e * bstride + r] : 0.f;
#pragma unroll
	for (int q = 0; q < GROUP_TILE; q++)
		if (q < cnt) y[(size_t)pp[q] * rows + r] = bias ? acc[q] + b : acc[q];
}

// Kernels per type: mvid_<type> (decode) and mmid_<type> (a batch).
#define EXPERT_PRODUCTS(name, T)                                                                                  \
	extern "C" __global__ void __launch_bounds__(128)                                                            \
	    mvid_##name(const uint8_t *w, int expertBytes, int rowBytes, int rows, int cols, const float *x, int xdiv, \
	                const int *ids, const float *bias, int bstride, float *y) {                                  \
		mv_expert<T>(w, expertBytes, rowBytes, rows, cols, x, xdiv, ids, bias, bstride, y);                      \
	}                                                                                                            \
	extern "C" __global__ void __launch_bounds__(128)                                                            \
	    mmid_##name(const uint8_t *w, int expertBytes, int rowBytes, int rows, int cols, const float *x, int xdiv, \
	                const int *order, const int *tiles, const float *bias, int bstride, float *y) {              \
		mm_expert<T>(w, expertBytes, rowBytes, rows, cols, x, xdiv, order, tiles, bias, bstride, y);             \
	}

EXPERT_PRODUCTS(f32, T_F32)
EXPERT_PRODUCTS(f16, T_F16)
EXPERT_PRODUCTS(bf16, T_BF16)
EXPERT_PRODUCTS(q4_0, T_Q4_0)
EXPERT_PRODUCTS(q4_1, T_Q4_1)
EXPERT_PRODUCTS(q5_0, T_Q5_0)
EXPERT_PRODUCTS(q5_1, T_Q5_1)
EXPERT_PRODUCTS(q8_0, T_Q8_0)
EXPERT_PRODUCTS(iq4_nl, T_IQ4_NL)
EXPERT_PRODUCTS(q2_k, T_Q2_K)
EXPERT_PRODUCTS(q3_k, T_Q3_K)
EXPERT_PRODUCTS(q4_k, T_Q4_K)
EXPERT_PRODUCTS(q5_k, T_Q5_K)
EXPERT_PRODUCTS(q6_k, T_Q6_K)
EXPERT_PRODUCTS(iq4_xs, T_IQ4_XS)
EXPERT_PRODUCTS(mxfp4, T_MXFP4)
EXPERT_PRODUCTS(iq1_s, T_IQ1_S)
EXPERT_PRODUCTS(iq1_m, T_IQ1_M)
EXPERT_PRODUCTS(iq2_xxs, T_IQ2_XXS)
EXPERT_PRODUCTS(iq2_xs, T_IQ2_XS)
EXPERT_PRODUCTS(iq2_s, T_IQ2_S)
EXPERT_PRODUCTS(iq3_xxs, T_IQ3_XXS)
EXPERT_PRODUCTS(iq3_s, T_IQ3_S)
EXPERT_PRODUCTS(tq1_0, T_TQ1_0)
EXPERT_PRODUCTS(tq2_0, T_TQ2_0)

// combine writes dst row r = Σ_j w_rj · y row r·k+j for n rows of wd
// values (combine_at). One thread a value.
extern "C" __global__ void combine(float *dst, int ldd, const float *y, int ldy, const float *w, int k, int wd, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * wd) return;
	int r = i / wd, c = i % wd;
	dst[(size_t)r * ldd + c] = combine_at(y, ldy, w, k, r, c);
}

// swiglu_oai writes gpt-oss's clamped SwiGLU into g for n rows of wd
// values (ops.cuh's swiglu_oai).
extern "C" __global__ void swiglu_oai_rows(float *g, int ldg, const float *u, int ldu, int wd, int n, float alpha,
                                           float limit) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * wd) return;
	int r = i / wd, c = i % wd;
	g[(size_t)r * ldg + c] = swiglu_oai(g[(size_t)r * ldg + c], u[(size_t)r * ldu + c], alpha, limit);
}
