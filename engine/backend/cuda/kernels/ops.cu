// ops.cu — the forward pass's operations other than the products, each the
// device form of the CPU backend's (engine/backend/cpu) with the same
// arithmetic where it matters for agreement: RMSNorm sums squares in double,
// RoPE's angles are taken in double, GELU rounds through f16 as ggml's CPU
// table does.
#include <cuda_fp16.h>
#include <stdint.h>

#include "quant.cuh"
#include "ops.cuh"

__device__ __forceinline__ double block_sum_d(double v, double *sh) {
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
	for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0) sh[warp] = v;
	__syncthreads();
	double s = 0;
	for (int i = 0; i < nw; i++) s += sh[i];
	__syncthreads();
	return s;
}

// rmsnorm: out = x/√(mean(x²)+eps)·w for one row per block (out may be x).
// x and out have widths ldx and ldo; the norm is over the first n values.
extern "C" __global__ void rmsnorm(float *out, int ldo, const float *x, int ldx, const float *w, int n, float eps) {
	__shared__ double sh[32];
	const float *xr = x + (size_t)blockIdx.x * ldx;
	float *orow = out + (size_t)blockIdx.x * ldo;
	double ss = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) ss += (double)xr[i] * (double)xr[i];
	ss = block_sum_d(ss, sh);
	float scale = (float)(1.0 / sqrt(ss / n + (double)eps));
	for (int i = threadIdx.x; i < n; i += blockDim.x) orow[i] = xr[i] * scale * w[i];
}

// rmsnorm_q8 is rmsnorm of one row (decode) fused with quant_q8 of its
// output: each value is rounded to float as rmsnorm writes it, stored, and
// quantised from that float by the warp (qa_warp), so the codes, scales
// and sums are quant_q8's of rmsnorm's output bit for bit, one launch
// instead of two. n is a multiple of 32 and blockDim.x of 32, so a warp's
// values in a step are one whole block of 32.
extern "C" __global__ void rmsnorm_q8(float *out, const float *x, const float *w, int n, float eps, int8_t *xq,
                                      float *xd, float *xs) {
	__shared__ double sh[32];
	double ss = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) ss += (double)x[i] * (double)x[i];
	ss = block_sum_d(ss, sh);
	float scale = (float)(1.0 / sqrt(ss / n + (double)eps));
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		float v = x[i] * scale * w[i];
		out[i] = v;
		qa_warp(v, i, xq, xd, xs);
	}
}

// head_rmsnorm normalises each head of width hd in place: grid (rows,
// heads), one warp per head.
extern "C" __global__ void head_rmsnorm(float *x, int ldx, const float *w, int hd, float eps) {
	float *xr = x + (size_t)blockIdx.x * ldx + (size_t)blockIdx.y * hd;
	double ss = 0;
	for (int i = threadIdx.x; i < hd; i += 32) ss += (double)xr[i] * (double)xr[i];
	for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
	float scale = (float)(1.0 / sqrt(ss / hd + (double)eps));
	for (int i = threadIdx.x; i < hd; i += 32) xr[i] = xr[i] * scale * w[i];
}

// The element-wise operations index a flat range of n·width values.

extern "C" __global__ void add_bias(float *x, int ldx, const float *b, int nb, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * nb) return;
	x[(size_t)(i / nb) * ldx + i % nb] += b[i % nb];
}

// swiglu: g ← silu(g)·u over n rows of width wd (g and u with their own
// leading dimensions).
extern "C" __global__ void swiglu(float *g, int ldg, const float *u, int ldu, int wd, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * wd) return;
	int r = i / wd, c = i % wd;
	g[(size_t)r * ldg + c] = silu_mul(g[(size_t)r * ldg + c], u[(size_t)r * ldu + c]);
}

extern "C" __global__ void geglu(float *g, int ldg, const float *u, int ldu, int wd, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * wd) return;
	int r = i / wd, c = i % wd;
	g[(size_t)r * ldg + c] = gelu_mul(g[(size_t)r * ldg + c], u[(size_t)r * ldu + c]);
}

extern "C" __global__ void scale(float *x, int count, float c) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count) x[i] *= c;
}

extern "C" __global__ void add(float *dst, const float *src, int count) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count) dst[i] += src[i];
}

// rope_turn turns pair (a, b) of one head by the angle whose cosine and
// sine are c and s: one function for rope and rope_store_kv, so that nvcc
// contracts the two the same way.
__device__ __forceinline__ void rope_turn(float *hx, int a, int b, float c, float s) {
	float x0 = hx[a], x1 = hx[b];
	hx[a] = x0 * c - x1 * s;
	hx[b] = x0 * s + x1 * c;
}

// rope rotates the first `heads` heads of n rows: grid (n), one thread per
// rotated pair i < dim/2, which takes its angle once (rope_cs, in double as
// the CPU's tables) and turns that pair in every head. freqs (optional) are
// per-pair divisors; neox pairs x[i] with x[i+dim/2], else x[2i], x[2i+1].
// yarn switches to YaRN's angles (ext, attn and the correction dimensions
// corr0, corr1; engine/backend's YaRN). posp (optional, as in store_kv and
// the attention) replaces pos0 with the value in device memory: a decode step's
// position, written once a step, so that one CUDA graph replays every step.
extern "C" __global__ void rope(float *x, int ldx, int heads, int hd, int pos0, float base, int dim,
                                const float *freqs, int neox, float mscale, float posScale, int yarn, float ext,
                                float attn, float corr0, float corr1, const int *posp) {
	int i = threadIdx.x, r = blockIdx.x, half = dim / 2;
	if (i >= half) return;
	if (posp) pos0 = *posp;
	float c, s;
	rope_cs(i, pos0 + r, base, dim, freqs ? freqs[i] : 1.f, mscale, posScale, yarn, ext, attn, corr0, corr1, &c, &s);
	int a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
	float *row = x + (size_t)r * ldx;
	for (int h = 0; h < heads; h++) rope_turn(row + h * hd, a, b, c, s);
}

// kv_put stores one cached value: a float, or binary16 rounded to nearest
// even (engine/tensor's F32ToF16, the CPU's f16 cache).
__device__ __forceinline__ void kv_put(float *c, size_t i, float x) { c[i] = x; }
__device__ __forceinline__ void kv_put(__half *c, size_t i, float x) { c[i] = __float2half_rn(x); }

// store_kv copies n rows of keys and values (width kvh·hd) into layer's
// cache, laid out [layer][kvHead][ctx][hd] like the CPU's, as floats
// (store_kv) or binary16 (store_kv_f16). Grid (n), block over the row.
template <typename T>
__device__ __forceinline__ void store_kv_t(T *kc, T *vc, const float *k, int ldk, const float *v, int ldv, int layer,
                                           int kvh, int ctx, int hd, int pos0, const int *posp) {
	int r = blockIdx.x;
	if (posp) pos0 = *posp;
	for (int e = threadIdx.x; e < kvh * hd; e += blockDim.x) {
		int g = e / hd, d = e % hd;
		size_t off = ((size_t)(layer * kvh + g) * ctx + pos0 + r) * hd + d;
		kv_put(kc, off, k[(size_t)r * ldk + e]);
		kv_put(vc, off, v[(size_t)r * ldv + e]);
	}
}

extern "C" __global__ void store_kv(float *kc, float *vc, const float *k, int ldk, const float *v, int ldv, int layer,
                                    int kvh, int ctx, int hd, int pos0, const int *posp) {
	store_kv_t(kc, vc, k, ldk, v, ldv, layer, kvh, ctx, hd, pos0, posp);
}

extern "C" __global__ void store_kv_f16(__half *kc, __half *vc, const float *k, int ldk, const float *v, int ldv,
                                        int layer, int kvh, int ctx, int hd, int pos0, const int *posp) {
	store_kv_t(kc, vc, k, ldk, v, ldv, layer, kvh, ctx, hd, pos0, posp);
}

// rope_store_kv is rope of n rows of queries (heads heads) and keys (kvh
// heads), then store_kv of the turned keys and the values, in one launch:
// grid (n), one thread a pair as rope's (rope_cs, rope_turn), then, after
// the block's barrier, which makes its turned keys visible to all its
// threads, the copy into the cache at slot0 + r as store_kv's. q and k are
// left turned, as rope leaves them. posp and slotp (optional) replace pos0
// and slot0 with the values in device memory, as in rope and store_kv. The
// cache is floats (rope_store_kv) or binary16 (rope_store_kv_f16), as
// store_kv's.
template <typename T>
__device__ __forceinline__ void rope_store_kv_t(float *q, int ldq, int heads, float *k, int ldk, const float *v,
                                                int ldv, T *kc, T *vc, int layer, int kvh, int ctx, int hd, int pos0,
                                                int slot0, float base, int dim, const float *freqs, int neox,
                                                float mscale, float posScale, int yarn, float ext, float attn,
                                                float corr0, float corr1, const int *posp, const int *slotp) {
	int i = threadIdx.x, r = blockIdx.x, half = dim / 2;
	if (posp) pos0 = *posp;
	if (slotp) slot0 = *slotp;
	if (i < half) {
		float c, s;
		rope_cs(i, pos0 + r, base, dim, freqs ? freqs[i] : 1.f, mscale, posScale, yarn, ext, attn, corr0, corr1, &c, &s);
		int a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
		float *qr = q + (size_t)r * ldq, *kr = k + (size_t)r * ldk;
		for (int h = 0; h < heads; h++) rope_turn(qr + h * hd, a, b, c, s);
		for (int h = 0; h < kvh; h++) rope_turn(kr + h * hd, a, b, c, s);
	}
	__syncthreads();
	for (int e = threadIdx.x; e < kvh * hd; e += blockDim.x) {
		int g = e / hd, d = e % hd;
		size_t off = ((size_t)(layer * kvh + g) * ctx + slot0 + r) * hd + d;
		kv_put(kc, off, k[(size_t)r * ldk + e]);
		kv_put(vc, off, v[(size_t)r * ldv + e]);
	}
}

extern "C" __global__ void rope_store_kv(float *q, int ldq, int heads, float *k, int ldk, const float *v, int ldv,
                                         float *kc, float *vc, int layer, int kvh, int ctx, int hd, int pos0, int slot0, float base, int dim, const float *freqs, int neox, float mscale,
                   float posScale, int yarn, float ext, float attn, float corr0, float corr1, const int *posp,
                   const int *slotp) {
	rope_store_kv_t(q, ldq, heads, k, ldk, v, ldv, kc, vc, layer, kvh, ctx, hd, pos0, slot0, base, dim, freqs, neox, mscale,
	                posScale, yarn, ext, attn, corr0, corr1, posp, slotp);
}

extern "C" __global__ void rope_store_kv_f16(float *q, int ldq, int heads, float *k, int ldk, const float *v, int ldv,
                                             __half *kc, __half *vc, int layer, int kvh, int ctx, int hd, int pos0, int slot0, float base, int dim, const float *freqs, int neox, float mscale,
                   float posScale, int yarn, float ext, float attn, float corr0, float corr1, const int *posp,
                   const int *slotp) {
	rope_store_kv_t(q, ldq, heads, k, ldk, v, ldv, kc, vc, layer, kvh, ctx, hd, pos0, slot0, base, dim, freqs, neox, mscale,
	                posScale, yarn, ext, attn, corr0, corr1, posp, slotp);
}

// affine_rows applies backend.Affiner's map to one row per block (grid n,
// 256 threads): w = (x − μ) + s·v with s = alpha·‖x − μ‖ (the norm summed
// in double, as rmsnorm's), then x ← μ + w − Bᵀ(B·w) for the k × d F32
// basis B (k may be 0, B and dir then unread when unused). w is kept in
// the row itself; the coefficients go AFF_CK at a time, a warp per basis
// row (coalesced reads of B), and the rows of one chunk are removed before
// the next chunk's coefficients are taken: B's rows are orthonormal, so
// that is the same projection (modified Gram–Schmidt order, as ogd's
// blocks). The Snipe projector is alpha = 0, a Safe OGD step alpha > 0.
#define AFF_CK 256
extern "C" __global__ void affine_rows(float *x, int ldx, const float *B, int k, int d, const float *mu, const float *dir, float alpha) {
	__shared__ double sh[32];
	__shared__ float c[AFF_CK];
	float *xr = x + (size_t)blockIdx.x * ldx;
	float s = 0.f;
	if (alpha != 0.f) {
		double r2 = 0;
		for (int i = threadIdx.x; i < d; i += blockDim.x) {
			double t = (double)xr[i] - (double)mu[i];
			r2 += t * t;
		}
		r2 = block_sum_d(r2, sh);
		s = (float)((double)alpha * sqrt(r2));
	}
	for (int i = threadIdx.x; i < d; i += blockDim.x) {
		float w = xr[i] - mu[i];
		if (alpha != 0.f) w += s * dir[i];
		xr[i] = w;
	}
	__syncthreads();
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
	for (int j0 = 0; j0 < k; j0 += AFF_CK) {
		int m = min(AFF_CK, k - j0);
		for (int j = warp; j < m; j += nw) {
			const float *b = B + (size_t)(j0 + j) * d;
			float a = 0.f;
			for (int i = lane; i < d; i += 32) a += b[i] * xr[i];
			for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
			if (lane == 0) c[j] = a;
		}
		__syncthreads();
		for (int i = threadIdx.x; i < d; i += blockDim.x) {
			float w = xr[i];
			const float *b = B + (size_t)j0 * d + i;
			for (int j = 0; j < m; j++) w -= c[j] * b[(size_t)j * d];
			xr[i] = w;
		}
		__syncthreads();
	}
	for (int i = threadIdx.x; i < d; i += blockDim.x) xr[i] += mu[i];
}
