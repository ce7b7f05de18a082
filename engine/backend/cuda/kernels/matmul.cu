// matmul.cu — the products of the forward pass on the device, with the
// weights kept in their GGUF type and decoded inside the product.
//
// Layout: W is rows × cols, each row `rowBytes` long (cols/blockLen blocks of
// its type). x holds n rows of cols floats, y receives n rows of `rows`
// floats (both packed at the product's widths, as engine/backend says).
//
// One warp computes one output row. Each step it takes E units of the
// row: 32/E lanes per unit, each lane E consecutive weights of it
// (de_elem), so the warp reads the units' quants as consecutive bytes and
// the activations as one contiguous run of 32·E floats (float4 loads).
// U steps are decoded before the multiply-adds, so a lane has U·E loads in
// flight. Each decoded weight meets up to NT rows of x: NT = 1 is decode's
// GEMV, NT = 8 prefill's product, which decodes every weight once per 8
// tokens. Four warps make a block.
#include "quant.cuh"

#define WARPS 4

template <int T, int NT, int E, int U, int S>
__device__ __forceinline__ void mm_rows(const uint8_t *__restrict__ w, int rowBytes, int rows, int cols,
                                        const float *__restrict__ x, float *__restrict__ y, int n, float beta) {
	__shared__ float part[WARPS][NT];
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int r = blockIdx.x * (WARPS / S) + warp / S, wk = warp % S;
	int t0 = blockIdx.y * NT;
	bool live = r < rows; // no early return: the block meets at a barrier
	float acc[NT];
	// float4 loads need 16-byte alignment: every row of x starts on it
	// when x does and cols is a multiple of 4 (always, but for a tiny
	// float model's odd width).
	int vec = E == 4 && (cols & 3) == 0 && ((uintptr_t)x & 15) == 0;
	if (live) {
		mm_lane(T, NT, E, U, w + (size_t)r * rowBytes, cols, x, (const int *)0, n, t0, lane, vec, wk, S, acc);
	} else {
#pragma unroll
		for (int t = 0; t < NT; t++) acc[t] = 0.f;
	}
#pragma unroll
	for (int t = 0; t < NT; t++) {
#pragma unroll
		for (int o = 16; o > 0; o >>= 1) acc[t] += __shfl_xor_sync(0xffffffffu, acc[t], o);
	}
	if (S > 1) {
		if (lane == 0) {
#pragma unroll
			for (int t = 0; t < NT; t++) part[warp][t] = acc[t];
		}
		__syncthreads();
		if (wk != 0) return;
#pragma unroll
		for (int t = 0; t < NT; t++) {
			acc[t] = part[warp][t];
			for (int k = 1; k < S; k++) acc[t] += part[warp + k][t];
		}
	}
	if (!live || lane != 0) return;
#pragma unroll
	for (int t = 0; t < NT; t++) {
		if (t0 + t < n) {
			float *dst = y + (size_t)(t0 + t) * rows + r;
			*dst = beta == 0.f ? acc[t] : acc[t] + beta * *dst;
		}
	}
}

// Kernels per type: mv_<type> (decode: NT = 1, the 4 warps of a block
// share one row, split-K) and mm_<type> (prefill: NT = 8, a warp a row).
// Grid: (rows, 1) for mv_, (ceil(rows/4), ceil(n/8)) for mm_; block: 128
// threads. beta = 0 overwrites y, beta = 1 accumulates into it (a residual
// add fused into the product). mv_ asks for 8 blocks an SM (at most 64
// registers a thread): without it ptxas spilled mv_f16's accumulator to
// the stack, and decode wants the occupancy anyway.
#define PRODUCTS(name, T)                                                                                           \
	extern "C" __global__ void __launch_bounds__(128, 8) mv_##name(const uint8_t *w, int rowBytes, int rows, int cols, \
	                                                              const float *x, float *y, int n, float beta) {    \
		mm_rows<T, 1, 4, 4, 4>(w, rowBytes, rows, cols, x, y, n, beta);                                                    \
	}                                                                                                             \
	extern "C" __global__ void __launch_bounds__(128) mm_##name(const uint8_t *w, int rowBytes, int rows, int cols, \
	                                                              const float *x, float *y, int n, float beta) {    \
		mm_rows<T, 8, 4, 1, 1>(w, rowBytes, rows, cols, x, y, n, beta);                                                    \
	}

PRODUCTS(f32, T_F32)
PRODUCTS(f16, T_F16)
PRODUCTS(bf16, T_BF16)
PRODUCTS(q4_0, T_Q4_0)
PRODUCTS(q4_1, T_Q4_1)
PRODUCTS(q5_0, T_Q5_0)
PRODUCTS(q5_1, T_Q5_1)
PRODUCTS(q8_0, T_Q8_0)
PRODUCTS(iq4_nl, T_IQ4_NL)
PRODUCTS(q2_k, T_Q2_K)
PRODUCTS(q3_k, T_Q3_K)
PRODUCTS(q4_k, T_Q4_K)
PRODUCTS(q5_k, T_Q5_K)
PRODUCTS(q6_k, T_Q6_K)
PRODUCTS(iq4_xs, T_IQ4_XS)
PRODUCTS(mxfp4, T_MXFP4)
PRODUCTS(iq1_s, T_IQ1_S)
PRODUCTS(iq1_m, T_IQ1_M)
PRODUCTS(iq2_xxs, T_IQ2_XXS)
PRODUCTS(iq2_xs, T_IQ2_XS)
PRODUCTS(iq2_s, T_IQ2_S)
PRODUCTS(iq3_xxs, T_IQ3_XXS)
PRODUCTS(iq3_s, T_IQ3_S)
PRODUCTS(tq1_0, T_TQ1_0)
PRODUCTS(tq2_0, T_TQ2_0)

// get_rows decodes the rows of `table` named by the token ids into out (n
// rows of cols floats): the embedding lookup. One block per token; ids may
// be null when n = 1, the token then coming as tok0 (decode needs no copy).
template <int T>
__device__ __forceinline__ void get_rows(const uint8_t *table, int rowBytes, int cols, const int *ids, int tok0,
                                         float *out) {
	int i = blockIdx.x;
	int tok = ids ? ids[i] : tok0;
	const uint8_t *row = table + (size_t)tok * rowBytes;
	float v[32];
	if (T == T_F32 || T == T_F16 || T == T_BF16) {
		int c = 32 * (cols >> 5) + threadIdx.x;
		if (c < cols)
			out[(size_t)i * cols + c] = T == T_F32 ? f32_bits(ld32(row + 4 * c))
			                                       : (T == T_F16 ? h2f(ld16(row + 2 * c)) : f32_bits((uint32_t)ld16(row + 2 * c) << 16));
	}
	for (int u = threadIdx.x; u < (cols >> 5); u += blockDim.x) {
		dq_unit(T, row, u, v);
		float *o = out + (size_t)i * cols + 32 * u;
#pragma unroll
		for (int k = 0; k < 32; k++) o[k] = v[k];
	}
}

#define GETROWS(name, T)                                                                                    \
	extern "C" __global__ void rows_##name(const uint8_t *table, int rowBytes, int cols, const int *ids, int tok0, \
	                                       float *out) {                                                      \
		get_rows<T>(table, rowBytes, cols, ids, tok0, out);                                               \
	}

GETROWS(f32, T_F32)
GETROWS(f16, T_F16)
GETROWS(bf16, T_BF16)
GETROWS(q4_0, T_Q4_0)
GETROWS(q4_1, T_Q4_1)
GETROWS(q5_0, T_Q5_0)
GETROWS(q5_1, T_Q5_1)
GETROWS(q8_0, T_Q8_0)
GETROWS(iq4_nl, T_IQ4_NL)
GETROWS(q2_k, T_Q2_K)
GETROWS(q3_k, T_Q3_K)
GETROWS(q4_k, T_Q4_K)
GETROWS(q5_k, T_Q5_K)
GETROWS(q6_k, T_Q6_K)
GETROWS(iq4_xs, T_IQ4_XS)
GETROWS(mxfp4, T_MXFP4)
GETROWS(iq1_s, T_IQ1_S)
GETROWS(iq1_m, T_IQ1_M)
GETROWS(iq2_xxs, T_IQ2_XXS)
GETROWS(iq2_xs, T_IQ2_XS)
GETROWS(iq2_s, T_IQ2_S)
GETROWS(iq3_xxs, T_IQ3_XXS)
GETROWS(iq3_s, T_IQ3_S)
GETROWS(tq1_0, T_TQ1_0)
GETROWS(tq2_0, T_TQ2_0)

// proj_add adds alpha·Bᵀ·c to n rows of x (width cols): the second half of
// a rank-k projection x ← x + alpha·Bᵀ(B·x), whose first half c = B·x is
// an F32 product (mv_f32). B is k × cols F32. Grid: (ceil(cols/256), n).
extern "C" __global__ void proj_add(float *x, int ldx, const float *B, int k, int cols, const float *c, float alpha) {
	int col = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
	if (col >= cols) return;
	const float *ci = c + (size_t)i * k;
	float s = 0.f;
	for (int j = 0; j < k; j++) s += ci[j] * B[(size_t)j * cols + col];
	x[(size_t)i * ldx + col] += alpha * s;
}

// quant_act rounds activations to the grid the CPU engine's quantised
// products use (engine/tensor's act): per block of 32, d = amax/127 and
// q = round-half-even(x·127/amax), and writes x̂ = d·q. The products of
// quantised weights then read x̂, so that the GPU sees the activations the
// CPU sees, which keeps greedy decoding in step with it (plain float
// activations differ from the CPU's by up to d/2 per value, enough to move
// logits by 0.1 and part the two at step 10 on the fixtures). A block whose
// maximum is below 2⁻¹²⁰ is zeros; one holding NaN or ±Inf is NaN. With
// half_scale, d is rounded to float16 after the codes are taken, as the
// CPU reads the activations of MXFP4's products (ggml's Q8_0 blocks store
// d so). One thread per value, count a multiple of 32.
__device__ __forceinline__ float round_f16(float d) {
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(d));
	return h2f(h);
}

extern "C" __global__ void quant_act(float *xq, const float *x, int count, int half_scale) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count) return;
	float v = x[i], a = fabsf(v);
	for (int o = 16; o > 0; o >>= 1) {
		float b = __shfl_xor_sync(0xffffffffu, a, o);
		a = (b > a || isnan(b)) ? b : a; // NaN wins, as Go's max
	}
	float q;
	if (!(a >= 0x1p-120f && a <= 3.4028234663852886e38f)) {
		q = a < 0x1p-120f ? 0.f : __int_as_float(0x7fc00000);
		xq[i] = q;
		return;
	}
	float d = a / 127.f, id = 127.f / a;
	q = rintf(__fmul_rn(v, id));
	if (half_scale) d = round_f16(d);
	xq[i] = __fmul_rn(d, q);
}

// ---- decode on 8-bit integer dot products (quant.cuh's mvq_*) ----

// quant_q8 quantises count activations (a multiple of 32) as the CPU
// engine does for its quantised products (engine/tensor's quantizeActGo):
// per block of 32, int8 codes into xq, the scale d into xd and the sum
// s = d·Σq into xs. One warp a block, one lane a value; the warp's maximum
// and code sum are shuffles (the sum is an integer, so its order does not
// matter; the maximum is exact in any order). The mvq_ products read it.
extern "C" __global__ void quant_q8(int8_t *xq, float *xd, float *xs, const float *x, int count) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count) return; // whole warps: count is a multiple of 32
	qa_warp(x[i], i, xq, xd, xs);
}

// mvq_rows computes y = W·x for n ≤ NC rows of x quantised by quant_q8
// (quantQ8Rows's layout: n rows of codes, then n rows of scales, then n
// rows of sums): S warps share a weight row (split-K), WARPS/S weight rows
// a block, and each lane takes U pieces a step (mvq_piece), so that it has
// U·16 bytes of weights in flight. The lanes of a piece add their integer
// sums with shuffles; the first scales them (mvq_term); the warps' float
// sums meet in shared memory as mm_rows's do.
//
// Every activation row c gets the operations of a one-row product of its
// own, in the same order (its pieces, the same lanes, the same shuffles),
// so each of a few decoding sequences batched into one product gets the
// bits it gets alone: the weights are read from DRAM once for all n (the
// rows after the first find them in L1), and only the integer work grows
// with n. NC is 1 for decode (mvq_, mvqk_) and MVQN for a few rows
// (mvqn_, mvqnk_).
template <int T, int S, int U, int NC>
__device__ __forceinline__ void mvq_rows(const uint8_t *__restrict__ w, int rowBytes, int rows, int cols,
                                         const int8_t *__restrict__ xq, const float *__restrict__ xd,
                                         const float *__restrict__ xs, float *__restrict__ y, int n, float beta,
                                         float *__restrict__ z, int epi) {
	__shared__ float part[WARPS][2 * NC];
	const int P = mvq_lanes(T), nb = cols >> 5;
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int r = blockIdx.x * (WARPS / S) + warp / S, wk = warp % S;
	float acc[NC], accm[NC];
#pragma unroll
	for (int c = 0; c < NC; c++) acc[c] = accm[c] = 0.f;
	if (r < rows) { // the same for the whole warp, so its shuffles stay whole
		const uint8_t *row = w + (size_t)r * rowBytes;
		int np = cols / mvq_width(T), iters = mvq_iters(np, P, S, U);
		for (int it = 0; it < iters; it++) {
			int p[U];
#pragma unroll
			for (int s = 0; s < U; s++) p[s] = mvq_piece(P, S, U, wk, lane, it, s);
			// Not unrolled: each of the NC rows would carry a copy of the
			// type's decoding (the module grew from 3.5 to 12.4 MB of
			// PTX); the accumulators of the rows live in local memory
			// then, two accesses a term.
#pragma unroll 1
			for (int c = 0; c < NC; c++) {
				if (c >= n) break; // n is the block's: its shuffles stay whole
				const int8_t *xqc = xq + (size_t)c * cols;
				const float *xdc = xd + (size_t)c * nb, *xsc = xs + (size_t)c * nb;
				int A[U], B[U];
#pragma unroll
				for (int s = 0; s < U; s++) {
					A[s] = B[s] = 0;
					if (p[s] < np) mvq_isum(T, row, xqc, p[s], lane % P, &A[s], &B[s]);
				}
#pragma unroll
				for (int s = 0; s < U; s++) {
#pragma unroll
					for (int o = 1; o < P; o <<= 1) {
						A[s] += __shfl_xor_sync(0xffffffffu, A[s], o);
						B[s] += __shfl_xor_sync(0xffffffffu, B[s], o);
					}
					if (p[s] < np && lane % P == 0) mvq_term(T, row, xdc, xsc, p[s], A[s], B[s], &acc[c], &accm[c]);
				}
			}
		}
	}
	// Rolled loops over the rows below too: unrolled, each of the NC
	// rows' epilogues carries a copy of GELU's double-precision tanh.
#pragma unroll 1
	for (int c = 0; c < NC; c++) {
		for (int o = 16; o > 0; o >>= 1) {
			acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o);
			accm[c] += __shfl_xor_sync(0xffffffffu, accm[c], o);
		}
	}
	if (S > 1) {
		if (lane == 0) {
#pragma unroll 1
			for (int c = 0; c < NC; c++) part[warp][2 * c] = acc[c], part[warp][2 * c + 1] = accm[c];
		}
		__syncthreads();
		if (wk != 0) return;
#pragma unroll 1
		for (int c = 0; c < NC; c++) {
			acc[c] = part[warp][2 * c], accm[c] = part[warp][2 * c + 1];
			for (int k = 1; k < S; k++) acc[c] += part[warp + k][2 * c], accm[c] += part[warp + k][2 * c + 1];
		}
	}
	if (r >= rows || lane != 0) return;
#pragma unroll 1
	for (int c = 0; c < NC; c++) {
		if (c >= n) break;
		size_t at = (size_t)c * rows + r;
		float v = acc[c] - __fmul_rn(mvq_minc(T), accm[c]);
		y[at] = beta == 0.f ? v : v + beta * y[at];
		// The epilogue: for a gated unit's up product z holds the gate's
		// row, which becomes act(gate)·up as swiglu (epi 1) and geglu
		// (epi 2) make it; for a product into the residual stream (epi 3)
		// z is the stream, to which the row is added as add does.
		if (epi == 1) z[at] = silu_mul(z[at], v);
		if (epi == 2) z[at] = gelu_mul(z[at], v);
		if (epi == 3) z[at] = z[at] + v;
	}
}

// MVQN is the most activation rows the few-row integer products take
// (mvqn_, mvqnk_): a batch of up to MVQN decoding sequences; more go to
// the tensor cores (mmq_). Backend's mvqnMax is the same number.
#define MVQN 8

// Kernels per type: mvq_<type> (4 warps a block, one row each, two pieces
// a lane a step: for matrices of many rows) and mvqk_<type> (the 4 warps
// share one row, split-K: for fewer rows, so that every SM still has
// blocks), for decode; mvqn_<type> and mvqnk_<type>, the same for 2…MVQN
// activation rows (n after y), so that a row of a batch gets the bits the
// decode kernel of the same weights gives it. Grid: (ceil(rows/4), 1) and
// (rows, 1); block: 128 threads. beta as the mv_ kernels'; epi as
// mvq_rows's (0: none). At least 8 blocks an SM for decode's (64
// registers a thread at most): without it ptxas 11.8 gives mvq_q5_k 40
// registers on sm_80 and spills; 4 for the few-row ones, whose 2·MVQN
// accumulators take more.
#define DP4A(name, T)                                                                                              \
	extern "C" __global__ void __launch_bounds__(128, 8)                                                         \
	    mvq_##name(const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,          \
	               const float *xs, float *y, float beta, float *z, int epi) {                                     \
		mvq_rows<T, 1, 2, 1>(w, rowBytes, rows, cols, xq, xd, xs, y, 1, beta, z, epi);                             \
	}                                                                                                            \
	extern "C" __global__ void __launch_bounds__(128, 8)                                                         \
	    mvqk_##name(const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,         \
	                const float *xs, float *y, float beta, float *z, int epi) {                                    \
		mvq_rows<T, 4, 1, 1>(w, rowBytes, rows, cols, xq, xd, xs, y, 1, beta, z, epi);                             \
	}                                                                                                            \
	extern "C" __global__ void __launch_bounds__(128, 4)                                                         \
	    mvqn_##name(const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,         \
	                const float *xs, float *y, int n, float beta, float *z, int epi) {                             \
		mvq_rows<T, 1, 2, MVQN>(w, rowBytes, rows, cols, xq, xd, xs, y, n, beta, z, epi);                          \
	}                                                                                                            \
	extern "C" __global__ void __launch_bounds__(128, 4)                                                         \
	    mvqnk_##name(const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,        \
	                 const float *xs, float *y, int n, float beta, float *z, int epi) {                            \
		mvq_rows<T, 4, 1, MVQN>(w, rowBytes, rows, cols, xq, xd, xs, y, n, beta, z, epi);                          \
	}

DP4A(q8_0, T_Q8_0)
DP4A(q4_0, T_Q4_0)
DP4A(q5_0, T_Q5_0)
DP4A(q4_k, T_Q4_K)
DP4A(q5_k, T_Q5_K)
DP4A(q6_k, T_Q6_K)
DP4A(q4_1, T_Q4_1)
DP4A(q5_1, T_Q5_1)
DP4A(iq4_nl, T_IQ4_NL)
DP4A(iq4_xs, T_IQ4_XS)
DP4A(q2_k, T_Q2_K)
DP4A(q3_k, T_Q3_K)
DP4A(tq1_0, T_TQ1_0)
DP4A(tq2_0, T_TQ2_0)
DP4A(iq2_xxs, T_IQ2_XXS)
DP4A(iq2_xs, T_IQ2_XS)
DP4A(iq2_s, T_IQ2_S)
DP4A(iq3_xxs, T_IQ3_XXS)
DP4A(iq3_s, T_IQ3_S)
DP4A(iq1_s, T_IQ1_S)
DP4A(iq1_m, T_IQ1_M)
