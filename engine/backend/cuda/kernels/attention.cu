// attention.cu — causal attention over the KV cache (Backend.Attend): split-K
// decode with its reduction for a few query rows, tiled attention for
// prefill, each for float32 and binary16 caches (the template's element
// type). The arithmetic is attention.cuh's; a kernel here is its phases
// between barriers. Options: causal mask, sliding window, soft-cap, sinks
// (one logit per query head, att_merge), grouped-query heads (query head h
// reads KV head h/(heads/kvh); both kernels serve a KV head's query heads
// together, so that its keys and values are read once for them), scale,
// heads up to ATT_HD values, and the position from device memory (posp)
// inside a decode step's CUDA graph.
#include <cuda_fp16.h>
#include <stdint.h>

#include "quant.cuh"
#include "ops.cuh"
#include "attention.cuh"

// f16_of says whether the cache element type is binary16.
template <typename T> struct f16_of { enum { v = 0 }; };
template <> struct f16_of<__half> { enum { v = 1 }; };

// attn_split: one block per (KV head × group of up to ATT_GMAX of its query
// heads, split, row). Grid (kvh·⌈G/ATT_GMAX⌉, nsplit, n) with nsplit from
// the cache's capacity (att_split_plan), whatever the length: a split past
// the row's keys (or before its window) exits at once and attn_reduce
// skips it. part holds a record of att_dec_rec(hd) floats per (row, query
// head, split).
template <typename T>
__device__ __forceinline__ void attn_split_t(float *part, const float *q, int ldq, const void *kc, const void *vc,
                                             int layer, int heads, int kvh, int ctx, int hd, int pos0, float scale,
                                             float softcap, int window, int chunk, int nsplit, const int *posp) {
	__shared__ att_dec_sh sh;
	int G = heads / kvh, ngrp = (G + ATT_GMAX - 1) / ATT_GMAX;
	int g = blockIdx.x / ngrp, sub = blockIdx.x % ngrp, s = blockIdx.y, r = blockIdx.z, t = threadIdx.x;
	if (posp) pos0 = *posp;
	int p = att_pos(pos0 + r, ctx);
	int j0 = max(s * chunk, att_first(p, window)), j1 = min((s + 1) * chunk, p + 1);
	if (j0 >= j1) return; // the whole block: no barrier is left waiting
	int h0 = g * G + sub * ATT_GMAX;
	att_dec_args a;
	a.q = q + (size_t)r * ldq + (size_t)h0 * hd;
	size_t head = (size_t)(layer * kvh + g) * ctx * hd;
	a.kc = (const T *)kc + head;
	a.vc = (const T *)vc + head;
	a.nh = min(ATT_GMAX, G - sub * ATT_GMAX);
	a.hd = hd;
	a.j0 = j0;
	a.j1 = j1;
	a.f16 = f16_of<T>::v;
	a.scale = scale;
	a.softcap = softcap;
	float acc[ATT_DEC_ACC];
	att_dec_init(&sh, t, &a, acc);
	for (int k0 = j0; k0 < j1; k0 += ATT_TKD) {
		int tk = min(ATT_TKD, j1 - k0);
		att_load_tile(sh.kv, t, a.kc, k0, ATT_TKD, tk, hd, a.f16);
		__syncthreads();
		att_dec_scores(&sh, t, &a, k0);
		__syncthreads();
		att_dec_softmax(&sh, t, &a);
		att_load_tile(sh.kv, t, a.vc, k0, ATT_TKD, tk, hd, a.f16);
		__syncthreads();
		att_dec_pv(&sh, t, &a, tk, acc);
		__syncthreads();
	}
	int rs = att_dec_rec(hd);
	float *rec = part + ((size_t)(r * heads + h0) * nsplit + s) * rs;
	att_dec_store(&sh, t, &a, acc, rec, (size_t)nsplit * rs);
}

extern "C" __global__ void __launch_bounds__(ATT_THREADS)
    attn_split_f32(float *part, const float *q, int ldq, const float *kc, const float *vc, int layer, int heads,
                   int kvh, int ctx, int hd, int pos0, float scale, float softcap, int window, int chunk, int nsplit,
                   const int *posp) {
	attn_split_t<float>(part, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, chunk, nsplit,
	                    posp);
}

extern "C" __global__ void __launch_bounds__(ATT_THREADS)
    attn_split_f16(float *part, const float *q, int ldq, const __half *kc, const __half *vc, int layer, int heads,
                   int kvh, int ctx, int hd, int pos0, float scale, float softcap, int window, int chunk, int nsplit,
                   const int *posp) {
	attn_split_t<__half>(part, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, chunk,
	                     nsplit, posp);
}

// attn_reduce merges the splits of one (query head, row): grid (heads, n).
// The splits that hold the row's keys are found from its position as
// attn_split found them (att_pos of the cache's ctx positions); the sink
// (optional) joins the merge once.
extern "C" __global__ void __launch_bounds__(ATT_THREADS)
    attn_reduce(float *out, int ldo, const float *part, int heads, int hd, int nsplit, int chunk, int pos0,
                int window, const float *sinks, const int *posp, int ctx) {
	__shared__ att_red_sh sh;
	int h = blockIdx.x, r = blockIdx.y, t = threadIdx.x;
	if (posp) pos0 = *posp;
	int s0, s1;
	att_split_range(att_pos(pos0 + r, ctx), window, chunk, nsplit, &s0, &s1);
	int ns = s1 - s0 + 1, rs = att_dec_rec(hd);
	const float *rec = part + ((size_t)(r * heads + h) * nsplit + s0) * rs;
	att_red_load(&sh, t, rec, rs, ns);
	__syncthreads();
	att_red_merge(&sh, t, ns, sinks ? sinks + h : (const float *)0);
	__syncthreads();
	att_red_factors(&sh, t, ns);
	__syncthreads();
	att_red_out(&sh, t, rec, rs, ns, hd, out + (size_t)r * ldo + (size_t)h * hd);
}

// attn_tile: one block per (KV head × sub-group of hb of its query heads,
// rpb query rows), grid (kvh·ngrp, ⌈n/rpb⌉) from att_tile_plan and
// att_tile_rows: tiles of keys and then their values staged in shared
// memory once for the block's (row, head) slots, the scores in micro-tiles,
// each slot's online softmax by a warp, the weighted values in registers.
// The shape is a template of the width's class (lnd: widths up to 64, 128,
// 256), chosen once a block, so that every loop bound and register index
// is a constant.
template <typename T, int LND>
__device__ __forceinline__ void attn_tile_b(att_tile_sh &sh, const att_tile_args &a, int t) {
	float acc[ATT_TACC];
	att_tile_init(&sh, t, &a, acc);
	int j0, j1;
	att_tile_keys(&a, &j0, &j1);
	const int TK = att_tile_tk(LND);
	for (int k0 = j0; k0 < j1; k0 += TK) {
		int tk = min(TK, j1 - k0);
		att_tile_load(sh.kv, t, &a, a.kc, k0, tk, LND);
		__syncthreads();
		att_tile_scores(&sh, t, &a, k0, LND);
		__syncthreads();
		att_tile_softmax(&sh, t, &a, LND);
		att_tile_load(sh.kv, t, &a, a.vc, k0, tk, LND);
		__syncthreads();
		att_tile_pv(&sh, t, &a, acc, LND);
		__syncthreads();
	}
	if (j0 >= j1) __syncthreads(); // no tile (a position before 0): init's writes, before out reads them
	att_tile_out(&sh, t, &a, acc, LND);
}

template <typename T>
__device__ __forceinline__ void attn_tile_t(float *out, int ldo, const float *q, int ldq, const void *kc,
                                            const void *vc, int layer, int heads, int kvh, int ctx, int hd, int pos0,
                                            float scale, float softcap, int window, const float *sinks,
                                            const int *posp, int n, int rpb) {
	__shared__ __align__(16) att_tile_sh sh;
	if (posp) pos0 = *posp;
	att_tile_args a;
	if (!att_tile_setup(&a, blockIdx.x, blockIdx.y, out, ldo, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale,
	                    softcap, window, sinks, n, rpb, f16_of<T>::v))
		return; // the whole block: no barrier is left waiting
	switch (a.lnd) {
	case 1:
		attn_tile_b<T, 1>(sh, a, threadIdx.x);
		break;
	case 2:
		attn_tile_b<T, 2>(sh, a, threadIdx.x);
		break;
	default:
		attn_tile_b<T, 3>(sh, a, threadIdx.x);
		break;
	}
}

extern "C" __global__ void __launch_bounds__(ATT_THREADS)
    attn_tile_f32(float *out, int ldo, const float *q, int ldq, const float *kc, const float *vc, int layer, int heads,
                  int kvh, int ctx, int hd, int pos0, float scale, float softcap, int window, const float *sinks,
                  const int *posp, int n, int rpb) {
	attn_tile_t<float>(out, ldo, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, sinks,
	                   posp, n, rpb);
}

extern "C" __global__ void __launch_bounds__(ATT_THREADS)
    attn_tile_f16(float *out, int ldo, const float *q, int ldq, const __half *kc, const __half *vc, int layer,
                  int heads, int kvh, int ctx, int hd, int pos0, float scale, float softcap, int window,
                  const float *sinks, const int *posp, int n, int rpb) {
	attn_tile_t<__half>(out, ldo, q, ldq, kc, vc, layer, heads, kvh, ctx, hd, pos0, scale, softcap, window, sinks,
	                    posp, n, rpb);
}
