// attention.cuh — the arithmetic of the attention kernels (attention.cu),
// written once for two compilers as quant.cuh and ops.cuh are: nvcc builds
// it into attention.cu, and the host C compiler into
// engine/backend/cuda/internal/hostq, whose tests run each kernel block by
// block and phase by phase (the code between two barriers, for every
// thread in turn) against a float64 reference. Include it after quant.cuh
// and ops.cuh (QFN, h2f, att_merge).
//
// Two kernels share the phases' shape:
//   - attn_split (decode, a few rows): the keys of one query row are dealt
//     into splits of `chunk` positions; a block serves one KV head (a group
//     of up to ATT_GMAX of its query heads) over one split, so that K and V
//     are read once per group, and writes each head's partial softmax (its
//     maximum, its sum and its unnormalised weighted values) to a scratch
//     record; attn_reduce merges the splits with att_merge, the sinks once.
//   - attn_tile (prefill): a block serves one query head over ATT_TQ rows.
// Both walk their keys in tiles staged in shared memory (keys, then values
// in the same buffer), one thread a (row or head, key) score, then one
// thread a row's online softmax over the tile, then every thread a share
// of the weighted values in registers.
//
// Caches are float32 or IEEE binary16 (engine/backend's KVF32 and KVF16):
// every function takes f16 as a flag, which the kernels' templates make a
// constant, so the loads are widened in registers and the arithmetic is
// float32 either way, as the CPU's f16 cache reads (engine/tensor's
// DotRowsF16, WeightedSumF16: the query stays float32).
#ifndef ISAGI_ATTENTION_CUH
#define ISAGI_ATTENTION_CUH

#ifndef __CUDACC__
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

// ATT_THREADS is every attention block's size.
#define ATT_THREADS 128
// ATT_HD is the widest head; ATT_LD the shared rows' stride (one float of
// padding, so that a warp reading one column of 32 rows hits 32 banks).
#define ATT_HD 256
#define ATT_LD (ATT_HD + 1)
// ATT_GMAX query heads share one split block; ATT_TKD keys a decode tile.
#define ATT_GMAX 8
#define ATT_TKD 32
// ATT_TQ query rows a prefill block; ATT_TK keys a prefill tile.
#define ATT_TQ 16
#define ATT_TK 16
// ATT_DEC_ROWS is the most rows Attend runs through the splits (decode and
// short batches); ATT_CHUNK the fewest positions a split, ATT_MAX_SPLIT
// the most splits (the reduction's shared arrays).
#define ATT_DEC_ROWS 4
#define ATT_CHUNK 128
#define ATT_MAX_SPLIT 512

// att_split_plan is a cache's split of ctx positions: *chunk positions a
// split, *nsplit splits. It depends on the capacity only, so that a decode
// step's grid is the same at every length (one CUDA graph replays it).
QFN void att_split_plan(int ctx, int *chunk, int *nsplit) {
	int c = ATT_CHUNK;
	if ((ctx + c - 1) / c > ATT_MAX_SPLIT) c = (ctx + ATT_MAX_SPLIT - 1) / ATT_MAX_SPLIT;
	*chunk = c;
	*nsplit = (ctx + c - 1) / c;
}

// att_dt is the threads that share one row's (or head's) values in the
// weighted sum: the head width rounded up to a power of two, at least 32
// and at most ATT_THREADS. ATT_THREADS/att_dt(hd) rows go at once.
QFN int att_dt(int hd) {
	int d = 32;
	while (d < hd && d < ATT_THREADS) d *= 2;
	return d;
}

// att_first is the first position a query at p sees.
QFN int att_first(int p, int window) { return window > 0 && p - window + 1 > 0 ? p - window + 1 : 0; }

// att_pos is the position a query row at p attends as in a cache of ctx
// positions: p itself, or for a position past the cache (a caller's error,
// or a bad position in device memory inside a graph) the last one, so
// that no kernel reads a key past the cache, and a row always has keys.
QFN int att_pos(int p, int ctx) { return p < ctx ? p : ctx - 1; }

// f2h rounds x to binary16, nearest even, as engine/tensor's F32ToF16
// (overflow to Inf, quiet NaNs).
QFN uint16_t f2h(float x) {
#ifdef __CUDA_ARCH__
	return __half_as_ushort(__float2half_rn(x));
#else
	uint32_t b;
	memcpy(&b, &x, 4);
	uint16_t sign = (uint16_t)((b >> 16) & 0x8000);
	int exp = (int)((b >> 23) & 0xff);
	uint32_t mant = b & 0x7fffff;
	if (exp == 0xff) return mant ? (uint16_t)(sign | 0x7e00 | (mant >> 13)) : (uint16_t)(sign | 0x7c00);
	int e = exp - 127 + 15;
	if (e >= 0x1f) return sign | 0x7c00;
	if (e <= 0) {
		if (e < -10) return sign;
		uint32_t m = mant | 0x800000, shift = (uint32_t)(14 - e), half = 1u << (shift - 1);
		uint32_t r = m >> shift, rem = m & ((1u << shift) - 1);
		if (rem > half || (rem == half && (r & 1))) r++;
		return (uint16_t)(sign | r);
	}
	uint32_t r = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
	return (uint16_t)(sign | r);
#endif
}

// kv_ld reads element i of a cache of floats or of binary16 (f16),
// widened exactly.
QFN float kv_ld(const void *c, size_t i, int f16) {
	if (!f16) return ((const float *)c)[i];
#ifdef __CUDA_ARCH__
	return __half2float(__ushort_as_half(((const uint16_t *)c)[i]));
#else
	return h2f(((const uint16_t *)c)[i]);
#endif
}

// kv_st stores x as element i of a cache of floats or of binary16.
QFN void kv_st(void *c, size_t i, float x, int f16) {
	if (f16)
		((uint16_t *)c)[i] = f2h(x);
	else
		((float *)c)[i] = x;
}

// att_score is a scaled, soft-capped score, as attend computed it: the
// dot product in float, times scale, then softcap·tanh(s/softcap).
QFN float att_score(float dot, float scale, float softcap) {
	float s = dot * scale;
	if (softcap > 0.f) s = softcap * tanhf(s / softcap);
	return s;
}

// att_online is one row's online softmax over a tile of tk scores s
// (−∞ for a masked key), in place: the running maximum *m and sum *l are
// carried over, the scores become their weights e^{s−m'}, and the factor
// that rescales the row's earlier weighted values is returned. A row that
// has seen only masked keys keeps m = −∞ and l = 0. A NaN score makes the
// maximum NaN (fmaxf would drop it): a row of NaN scores (a NaN query)
// must come out NaN, not as a row of masked keys, which with a sink would
// give zeros.
QFN float att_online(float *s, int tk, float *m, float *l) {
	float mt = *m;
	for (int j = 0; j < tk; j++) mt = s[j] > mt || s[j] != s[j] ? s[j] : mt;
	if (mt == -INFINITY) {
		for (int j = 0; j < tk; j++) s[j] = 0.f;
		return 1.f;
	}
	float a = expf(*m - mt), sum = 0.f;
	for (int j = 0; j < tk; j++) {
		float e = s[j] == -INFINITY ? 0.f : expf(s[j] - mt);
		s[j] = e;
		sum += e;
	}
	*l = *l * a + sum;
	*m = mt;
	return a;
}

// ---- split-K decode (attn_split) ----

// att_dec_sh is a split block's shared memory.
typedef struct {
	float q[ATT_GMAX][ATT_LD];
	float kv[ATT_TKD][ATT_LD]; // a tile of keys, then of values
	float s[ATT_GMAX][ATT_TKD + 1]; // padded: the softmax's threads read rows
	float m[ATT_GMAX], l[ATT_GMAX], a[ATT_GMAX];
} att_dec_sh;

// att_dec_acc is the floats a thread keeps of the weighted values: up to
// ATT_GMAX heads (every ATT_THREADS/att_dt-th one) × 2 values.
#define ATT_DEC_ACC (ATT_GMAX * 2)

// att_dec_args are a split block's arguments.
typedef struct {
	const float *q; // row 0 of this block's query row
	const void *kc, *vc; // the KV head's position 0
	int nh, hd, j0, j1; // heads; width; keys j0…j1−1 (row-masked already)
	int f16;
	float scale, softcap;
} att_dec_args;

// att_dec_init loads the block's query heads and clears the softmaxes
// (phase 0).
QFN void att_dec_init(att_dec_sh *sh, int t, const att_dec_args *a, float *acc) {
	for (int e = t; e < a->nh * a->hd; e += ATT_THREADS) sh->q[e / a->hd][e % a->hd] = a->q[e];
	if (t < ATT_GMAX) {
		sh->m[t] = -INFINITY;
		sh->l[t] = 0.f;
	}
	for (int i = 0; i < ATT_DEC_ACC; i++) acc[i] = 0.f;
}

// att_load_tile stages rows k0…k0+tk−1 of a cache head (width hd) into kv,
// zeros past n = the rows that exist.
QFN void att_load_tile(float (*kv)[ATT_LD], int t, const void *c, int k0, int tk, int n, int hd, int f16) {
	for (int e = t; e < tk * hd; e += ATT_THREADS) {
		int r = e / hd, i = e % hd;
		kv[r][i] = r < n ? kv_ld(c, (size_t)(k0 + r) * hd + i, f16) : 0.f;
	}
}

// att_dec_scores writes the tile's scores of every head (phase 2): one
// thread a (head, key) pair, −∞ past the split's keys.
QFN void att_dec_scores(att_dec_sh *sh, int t, const att_dec_args *a, int k0) {
	for (int e = t; e < ATT_GMAX * ATT_TKD; e += ATT_THREADS) {
		int h = e / ATT_TKD, j = e % ATT_TKD;
		if (h >= a->nh) continue;
		float s = -INFINITY;
		if (k0 + j < a->j1) {
			float d = 0.f;
			for (int i = 0; i < a->hd; i++) d += sh->q[h][i] * sh->kv[j][i];
			s = att_score(d, a->scale, a->softcap);
		}
		sh->s[h][j] = s;
	}
}

// att_dec_softmax is each head's online softmax over the tile (phase 3).
QFN void att_dec_softmax(att_dec_sh *sh, int t, const att_dec_args *a) {
	if (t < a->nh) sh->a[t] = att_online(sh->s[t], ATT_TKD, &sh->m[t], &sh->l[t]);
}

// att_dec_pv adds the tile's weighted values to the thread's share
// (phase 5): heads h ≡ t/dt (mod ATT_THREADS/dt), values t%dt + dt·k.
QFN void att_dec_pv(att_dec_sh *sh, int t, const att_dec_args *a, int tk, float *acc) {
	int dt = att_dt(a->hd), ng = ATT_THREADS / dt;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int i = 0; i < ATT_GMAX; i++) {
		int h = t / dt + ng * i;
		if (h >= a->nh) continue;
		float al = sh->a[h];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int k = 0; k < 2; k++) {
			int d = t % dt + dt * k;
			if (d >= a->hd) continue;
			float v = acc[2 * i + k] * al;
			for (int j = 0; j < tk; j++) v += sh->s[h][j] * sh->kv[j][d];
			acc[2 * i + k] = v;
		}
	}
}

// att_dec_rec is the floats of one (row, head, split) record: m, l, then
// the unnormalised weighted values.
QFN int att_dec_rec(int hd) { return hd + 2; }

// att_dec_store writes the thread's share of the partials (phase 6): rec
// points at head 0's record of this split, records rs floats apart per
// split, stride floats apart per head.
QFN void att_dec_store(const att_dec_sh *sh, int t, const att_dec_args *a, const float *acc, float *rec, size_t stride) {
	int dt = att_dt(a->hd), ng = ATT_THREADS / dt;
	if (t < a->nh) {
		rec[(size_t)t * stride] = sh->m[t];
		rec[(size_t)t * stride + 1] = sh->l[t];
	}
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int i = 0; i < ATT_GMAX; i++) {
		int h = t / dt + ng * i;
		if (h >= a->nh) continue;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int k = 0; k < 2; k++) {
			int d = t % dt + dt * k;
			if (d < a->hd) rec[(size_t)h * stride + 2 + d] = acc[2 * i + k];
		}
	}
}

// att_split_range is the splits s0…s1 that hold keys of a query at p
// (att_pos'), clamped to the nsplit splits there are, as a second guard:
// never more than ATT_MAX_SPLIT of them go into the reduction's shared
// arrays.
QFN void att_split_range(int p, int window, int chunk, int nsplit, int *s0, int *s1) {
	int a = att_first(p, window) / chunk, b = p / chunk;
	if (b > nsplit - 1) b = nsplit - 1;
	if (b < 0) b = 0;
	if (a > b) a = b;
	if (a < 0) a = 0;
	*s0 = a;
	*s1 = b;
}

// ---- the reduction (attn_reduce) ----

// att_red_sh is the reduction's shared memory: the splits' maxima and
// sums, then their factors e^{m_s−M}.
typedef struct {
	float wm[ATT_MAX_SPLIT], wl[ATT_MAX_SPLIT], f[ATT_MAX_SPLIT];
	float M, L;
} att_red_sh;

// att_red_load reads the ns splits' maxima and sums from the records
// (phase 0); rec points at split s0's, rs floats apart.
QFN void att_red_load(att_red_sh *sh, int t, const float *rec, int rs, int ns) {
	for (int s = t; s < ns; s += ATT_THREADS) {
		sh->wm[s] = rec[(size_t)s * rs];
		sh->wl[s] = rec[(size_t)s * rs + 1];
	}
}

// att_red_merge merges them, with the head's sink (or null) once
// (phase 1, thread 0).
QFN void att_red_merge(att_red_sh *sh, int t, int ns, const float *sink) {
	if (t == 0) att_merge(sh->wm, sh->wl, ns, sink, &sh->M, &sh->L);
}

// att_red_factors is each split's share e^{m_s−M}, 0 for one that saw no
// key (phase 2).
QFN void att_red_factors(att_red_sh *sh, int t, int ns) {
	for (int s = t; s < ns; s += ATT_THREADS) sh->f[s] = sh->wm[s] != -INFINITY ? expf(sh->wm[s] - sh->M) : 0.f;
}

// att_red_out writes the head's output (phase 3): Σ_s f_s·acc_s / L. A
// split of factor 0 adds nothing (not 0·∞ = NaN), but its value is loaded
// all the same (every record of s0…s1 is written), so that eight loads of
// the unrolled loop are in flight together (the loop is latency-bound: ns
// = 64 splits at 8K positions, 512 at 128K); behind the test, ptxas
// predicated four.
QFN void att_red_out(const att_red_sh *sh, int t, const float *rec, int rs, int ns, int hd, float *out) {
	for (int d = t; d < hd; d += ATT_THREADS) {
		float v = 0.f;
#ifdef __CUDA_ARCH__
#pragma unroll 8
#endif
		for (int s = 0; s < ns; s++) {
			float x = rec[(size_t)s * rs + 2 + d], f = sh->f[s];
			v = f != 0.f ? v + f * x : v;
		}
		out[d] = v / sh->L;
	}
}

// ---- tiled prefill (attn_tile) ----

// att_tile_sh is a prefill block's shared memory.
typedef struct {
	float q[ATT_TQ][ATT_LD];
	float kv[ATT_TK][ATT_LD]; // a tile of keys, then of values
	float s[ATT_TQ][ATT_TK + 1]; // padded: the softmax's threads read rows
	float m[ATT_TQ], l[ATT_TQ], a[ATT_TQ];
} att_tile_sh;

// ATT_TILE_ACC is the floats a thread keeps: up to ATT_TQ rows × 2 values.
#define ATT_TILE_ACC (ATT_TQ * 2)

// att_tile_args are a prefill block's arguments.
typedef struct {
	const float *q; // the head's values in the block's first row
	int ldq, nr, hd; // query stride; rows (≤ ATT_TQ); width
	int p0, window; // the first row's position; the window
	int ctx; // the cache's positions (att_pos)
	const void *kc, *vc; // the KV head's position 0
	int f16;
	float scale, softcap;
} att_tile_args;

// att_tile_keys is the key range j0…j1−1 the block's rows see, within
// the cache (att_pos).
QFN void att_tile_keys(const att_tile_args *a, int *j0, int *j1) {
	*j0 = att_first(att_pos(a->p0, a->ctx), a->window);
	*j1 = att_pos(a->p0 + a->nr - 1, a->ctx) + 1;
}

// att_tile_init loads the block's query rows and clears the softmaxes
// (phase 0).
QFN void att_tile_init(att_tile_sh *sh, int t, const att_tile_args *a, float *acc) {
	for (int e = t; e < ATT_TQ * a->hd; e += ATT_THREADS) {
		int r = e / a->hd, i = e % a->hd;
		sh->q[r][i] = r < a->nr ? a->q[(size_t)r * a->ldq + i] : 0.f;
	}
	if (t < ATT_TQ) {
		sh->m[t] = -INFINITY;
		sh->l[t] = 0.f;
	}
	for (int i = 0; i < ATT_TILE_ACC; i++) acc[i] = 0.f;
}

// att_tile_scores writes the tile's scores (phase 2): one thread a (row,
// key) pair, −∞ where the row's causal mask or window hides the key.
QFN void att_tile_scores(att_tile_sh *sh, int t, const att_tile_args *a, int k0) {
	for (int e = t; e < ATT_TQ * ATT_TK; e += ATT_THREADS) {
		int r = e / ATT_TK, j = e % ATT_TK, p = att_pos(a->p0 + r, a->ctx), key = k0 + j;
		float s = -INFINITY;
		if (r < a->nr && key <= p && key >= att_first(p, a->window)) {
			float d = 0.f;
			for (int i = 0; i < a->hd; i++) d += sh->q[r][i] * sh->kv[j][i];
			s = att_score(d, a->scale, a->softcap);
		}
		sh->s[r][j] = s;
	}
}

// att_tile_softmax is each row's online softmax over the tile (phase 3).
QFN void att_tile_softmax(att_tile_sh *sh, int t, const att_tile_args *a) {
	if (t < a->nr) sh->a[t] = att_online(sh->s[t], ATT_TK, &sh->m[t], &sh->l[t]);
}

// att_tile_pv adds the tile's weighted values to the thread's share
// (phase 5): rows r ≡ t/dt (mod ATT_THREADS/dt), values t%dt + dt·k.
QFN void att_tile_pv(att_tile_sh *sh, int t, const att_tile_args *a, int tk, float *acc) {
	int dt = att_dt(a->hd), ng = ATT_THREADS / dt;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int i = 0; i < ATT_TQ; i++) {
		int r = t / dt + ng * i;
		if (r >= a->nr) continue;
		float al = sh->a[r];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int k = 0; k < 2; k++) {
			int d = t % dt + dt * k;
			if (d >= a->hd) continue;
			float v = acc[2 * i + k] * al;
			for (int j = 0; j < tk; j++) v += sh->s[r][j] * sh->kv[j][d];
			acc[2 * i + k] = v;
		}
	}
}

// att_tile_out writes the rows' outputs (phase 6): each row's softmax
// merged with its head's sink (att_merge, one partial), acc·e^{m−M}/L.
QFN void att_tile_out(const att_tile_sh *sh, int t, const att_tile_args *a, const float *acc, const float *sink,
                      float *out, int ldo) {
	int dt = att_dt(a->hd), ng = ATT_THREADS / dt;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int i = 0; i < ATT_TQ; i++) {
		int r = t / dt + ng * i;
		if (r >= a->nr) continue;
		float M, L;
		att_merge(&sh->m[r], &sh->l[r], 1, sink, &M, &L);
		float f = sh->m[r] != -INFINITY ? expf(sh->m[r] - M) : 0.f;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int k = 0; k < 2; k++) {
			int d = t % dt + dt * k;
			if (d < a->hd) out[(size_t)r * ldo + d] = acc[2 * i + k] * f / L;
		}
	}
}

#endif
