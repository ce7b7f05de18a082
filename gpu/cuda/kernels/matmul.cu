// matmul.cu — the products of the forward pass on the device, with the
// weights kept in their GGUF type and decoded inside the product.
//
// Layout: W is rows × cols, each row `rowBytes` long (cols/blockLen blocks of
// its type). x holds n rows of cols floats, y receives n rows of `rows`
// floats (both packed at the product's widths, as engine/backend says).
//
// One warp computes one output row: lane l decodes the 32-weight units
// l, l+32, … of the row (quant.cuh), so the 32 lanes read consecutive blocks
// and the row streams through once, and dots each unit with up to NT rows
// of x. Four warps make a block. NT = 1 is decode's GEMV; NT = 8 is
// prefill's tiled product, which decodes every weight once per 8 tokens.
#include "quant.cuh"

#define WARPS 4

template <int T, int NT>
__device__ __forceinline__ void mm_rows(const uint8_t *__restrict__ w, int rowBytes, int rows, int cols,
                                        const float *__restrict__ x, float *__restrict__ y, int n, float beta) {
	int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	int r = blockIdx.x * WARPS + warp;
	int t0 = blockIdx.y * NT;
	if (r >= rows) return;
	const uint8_t *row = w + (size_t)r * rowBytes;
	float acc[NT];
#pragma unroll
	for (int t = 0; t < NT; t++) acc[t] = 0.f;
	int units = cols >> 5;
	float v[32];
	// Plain float rows may end in a partial unit (a tiny model's width);
	// quantised rows never do (their blocks are 32 or 256 wide).
	if (T == T_F32 || T == T_F16 || T == T_BF16) {
		int c = 32 * units + lane;
		if (c < cols) {
			float wc = T == T_F32 ? f32_bits(ld32(row + 4 * c))
			                      : (T == T_F16 ? h2f(ld16(row + 2 * c)) : f32_bits((uint32_t)ld16(row + 2 * c) << 16));
#pragma unroll
			for (int t = 0; t < NT; t++)
				if (t0 + t < n) acc[t] += wc * x[(size_t)(t0 + t) * cols + c];
		}
	}
	for (int u = lane; u < units; u += 32) {
		dq_unit(T, row, u, v);
#pragma unroll
		for (int t = 0; t < NT; t++) {
			if (t0 + t < n) {
				const float *xs = x + (size_t)(t0 + t) * cols + 32 * u;
				float s = 0.f;
#pragma unroll
				for (int i = 0; i < 32; i++) s += v[i] * xs[i];
				acc[t] += s;
			}
		}
	}
#pragma unroll
	for (int t = 0; t < NT; t++) {
		float s = acc[t];
#pragma unroll
		for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
		if (lane == 0 && t0 + t < n) {
			float *dst = y + (size_t)(t0 + t) * rows + r;
			*dst = beta == 0.f ? s : s + beta * *dst;
		}
	}
}

// Kernels per type: mv_<type> (NT = 1) and mm_<type> (NT = 8). Grid:
// (ceil(rows/4), ceil(n/NT)); block: 128 threads. beta = 0 overwrites y,
// beta = 1 accumulates into it (a residual add fused into the product).
#define PRODUCTS(name, T)                                                                                           \
	extern "C" __global__ void __launch_bounds__(128) mv_##name(const uint8_t *w, int rowBytes, int rows, int cols, \
	                                                              const float *x, float *y, int n, float beta) {    \
		mm_rows<T, 1>(w, rowBytes, rows, cols, x, y, n, beta);                                                    \
	}                                                                                                             \
	extern "C" __global__ void __launch_bounds__(128) mm_##name(const uint8_t *w, int rowBytes, int rows, int cols, \
	                                                              const float *x, float *y, int n, float beta) {    \
		mm_rows<T, 8>(w, rowBytes, rows, cols, x, y, n, beta);                                                    \
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
