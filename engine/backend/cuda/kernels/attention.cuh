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
//   - attn_tile (prefill): a block serves one KV head's group of query
//     heads over a run of rows (its slots, see the section), so that K and
//     V are read once per group there too.
// Both walk their keys in tiles staged in shared memory (keys, then values
// in the same buffer): the scores, then each row's (or head's) online
// softmax over the tile, then every thread a share of the weighted values
// in registers.
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
//
// A block serves one KV head's group of query heads (or a sub-group of
// them, hb heads, when the group is wider than a block) over up to R query
// rows: its slots are the (row, head) pairs, row-major, up to ATT_TS of
// them, so that each tile of keys and of values is read from the cache and
// staged once for all the heads that share it (a GQA group of 4–8 heads
// read it 4–8 times when a block served one query head). The shape is set
// by the head width through lnd = log2 ND, ND the values a lane keeps of a
// slot (att_tile_lnd): ND = 2, 4, 8 for widths up to 64, 128, 256; then
//   S  = ATT_THREADS >> lnd slots (64, 32, 16),
//   TK = 32 keys a tile (16 for widths over 128),
// so that S·ND = 128 and a thread keeps ATT_TACC = 32 weighted values, and
// the query and KV tiles fit the shared regions below. The phases:
//   scores  — a thread a micro-tile of up to 4 slots × 4 keys, the dot
//             products over the width four values at a time, so that each
//             value read from shared memory serves four products;
//   softmax — a warp a slot: lane j has key j, the maximum and the sum by
//             butterfly shuffles (att_tile_softmax; the host build runs
//             the same butterflies over an array of the 32 lanes);
//   values  — a warp's lanes the width (value lane + 32c, c < ND), a warp
//             the slots w, w+4, …: per four keys, four rows of values and
//             one float4 of weights a slot, ND·4 products each.
// No division is left in a loop: the mappings are shifts and masks of lnd.

// ATT_TS is the most slots a prefill block; ATT_TKM the most keys a tile;
// ATT_SLD the score rows' stride (a multiple of 4: float4 reads).
#define ATT_TS 64
#define ATT_TKM 32
#define ATT_SLD (ATT_TKM + 4)
// ATT_TQF and ATT_TKF are the floats of the query and KV regions: the
// widest of S·ld and TK·ld over the widths (ld = the width rounded up to
// 4, plus 4): 64·68 at width 64, 32·132 at 128 (16·260 at 256 fits both).
#define ATT_TQF 4352
#define ATT_TKF 4224
// ATT_TACC is the weighted values a thread keeps (S·ND/32 per lane).
#define ATT_TACC 32
// ATT_MIN_BLOCKS is the grid below which att_tile_rows gives a block fewer
// rows (two blocks an SM of an H100's 132, roughly): a step of 256 rows of
// a model with 8 KV heads would otherwise run on 128 blocks.
#define ATT_MIN_BLOCKS 256

// att_tile_sh is a prefill block's shared memory.
typedef struct {
	float q[ATT_TQF]; // the slots' queries, ld apart
	float kv[ATT_TKF]; // a tile of keys, then of values, ld apart
	float s[ATT_TS * ATT_SLD]; // the slots' scores, then weights
	float m[ATT_TS], l[ATT_TS], a[ATT_TS]; // the slots' softmaxes
	int row[ATT_TS], head[ATT_TS], pos[ATT_TS]; // a slot's row, head (in the block) and position
} att_tile_sh;

// att_tile_lnd is log2 of the values a lane keeps of a slot: the width
// over 32, rounded up to a power of two, at least 2 (so at most ATT_TS
// slots).
QFN int att_tile_lnd(int hd) {
	int l = 1;
	while ((32 << l) < hd) l++;
	return l;
}

// att_tile_tk is the keys of a tile.
QFN int att_tile_tk(int lnd) { return lnd <= 2 ? ATT_TKM : ATT_TKM / 2; }

// att_tile_plan is the blocks of a KV head (*ngrp, its group of G query
// heads split into that many sub-groups of *hb heads, the last perhaps
// fewer) and the most rows a block takes (*rmax) at width hd.
QFN void att_tile_plan(int hd, int G, int *ngrp, int *hb, int *rmax) {
	int S = ATT_THREADS >> att_tile_lnd(hd);
	int ng = (G + S - 1) / S, h = (G + ng - 1) / ng;
	*ngrp = ng;
	*hb = h;
	*rmax = S / h;
}

// att_tile_rows is the rows a block takes of n: rmax, halved while the
// grid (kvh·ngrp·⌈n/R⌉ blocks) is under ATT_MIN_BLOCKS and the halved
// block keeps 16 slots. The grid is then (kvh·ngrp, ⌈n/R⌉).
QFN int att_tile_rows(int n, int kvh, int ngrp, int hb, int rmax) {
	int R = rmax;
	while (R > 1 && (R / 2) * hb >= 16 && kvh * ngrp * ((n + R - 1) / R) < ATT_MIN_BLOCKS) R /= 2;
	return R;
}

// att_tile_args are a prefill block's arguments.
typedef struct {
	const float *q; // the first row's first head of the block
	float *out; // the same of the output
	int ldq, ldo; // their strides
	int nr, nh, ns; // rows, heads, slots nr·nh
	int hd, ld, lnd, vec; // width; shared stride; att_tile_lnd; float4 loads
	int p0, window, ctx; // the first row's position; the window; the cache's positions (att_pos)
	const void *kc, *vc; // the KV head's position 0
	int f16;
	float scale, softcap;
	const float *sinks; // the first head's sink, or null
} att_tile_args;

// att_tile_setup fills a for block (bx, by) of the grid of att_tile_rows'
// rpb rows a block, the cache's layer `layer` (elements of es bytes), and
// says whether the block has work: a sub-group past the group, or rows
// past n, has none (the whole block returns, before any barrier).
QFN int att_tile_setup(att_tile_args *a, int bx, int by, float *out, int ldo, const float *q, int ldq, const void *kc,
                       const void *vc, int layer, int heads, int kvh, int ctx, int hd, int pos0, float scale,
                       float softcap, int window, const float *sinks, int n, int rpb, int f16) {
	int G = heads / kvh, ngrp, hb, rmax;
	att_tile_plan(hd, G, &ngrp, &hb, &rmax);
	if (rpb < 1 || rpb > rmax) rpb = rmax; // a guard: the host passes att_tile_rows'
	int g = bx / ngrp, sub = bx - g * ngrp, h0 = g * G + sub * hb, r0 = by * rpb;
	a->nh = G - sub * hb < hb ? G - sub * hb : hb;
	a->nr = n - r0 < rpb ? n - r0 : rpb;
	if (a->nh <= 0 || a->nr <= 0 || g >= kvh) return 0;
	a->ns = a->nr * a->nh;
	a->q = q + (size_t)r0 * ldq + (size_t)h0 * hd;
	a->out = out + (size_t)r0 * ldo + (size_t)h0 * hd;
	a->ldq = ldq;
	a->ldo = ldo;
	a->hd = hd;
	a->ld = ((hd + 3) & ~3) + 4;
	a->lnd = att_tile_lnd(hd);
	a->vec = (hd & 3) == 0;
	a->p0 = pos0 + r0;
	a->window = window;
	a->ctx = ctx;
	size_t head = (size_t)(layer * kvh + g) * ctx * hd * (f16 ? 2 : 4);
	a->kc = (const char *)kc + head;
	a->vc = (const char *)vc + head;
	a->f16 = f16;
	a->scale = scale;
	a->softcap = softcap;
	a->sinks = sinks ? sinks + h0 : sinks;
	return 1;
}

// att_tile_keys is the key range j0…j1−1 the block's rows see, within
// the cache (att_pos).
QFN void att_tile_keys(const att_tile_args *a, int *j0, int *j1) {
	*j0 = att_first(att_pos(a->p0, a->ctx), a->window);
	*j1 = att_pos(a->p0 + a->nr - 1, a->ctx) + 1;
}

// att_ld4 reads four floats of shared memory at p (16-byte aligned on the
// device: rows ld apart, ld a multiple of 4, the arrays' offsets too).
QFN void att_ld4(const float *p, float *x) {
#ifdef __CUDA_ARCH__
	float4 v = *(const float4 *)p;
	x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
#else
	for (int k = 0; k < 4; k++) x[k] = p[k];
#endif
}

// att_st4 writes four floats to shared memory at p (aligned as att_ld4).
QFN void att_st4(float *p, const float *x) {
#ifdef __CUDA_ARCH__
	*(float4 *)p = make_float4(x[0], x[1], x[2], x[3]);
#else
	for (int k = 0; k < 4; k++) p[k] = x[k];
#endif
}

// att_kv4 reads elements i…i+3 of a cache (rem of them exist; 0 past them)
// widened to floats: with vec (the width a multiple of 4, so i is, and the
// cache's head offsets are: 16 bytes of floats, 8 of halves, aligned as
// the allocation is) in one load.
QFN void att_kv4(const void *c, size_t i, int rem, int f16, int vec, float *x) {
#ifdef __CUDA_ARCH__
	if (vec) {
		if (f16) {
			uint2 u = *(const uint2 *)((const uint16_t *)c + i);
			float2 lo = __half22float2(*(const __half2 *)&u.x), hi = __half22float2(*(const __half2 *)&u.y);
			x[0] = lo.x, x[1] = lo.y, x[2] = hi.x, x[3] = hi.y;
		} else {
			float4 v = *(const float4 *)((const float *)c + i);
			x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
		}
		return;
	}
#endif
	(void)vec;
	for (int k = 0; k < 4; k++) x[k] = k < rem ? kv_ld(c, i + k, f16) : 0.f;
}

// att_tile_init loads the block's queries (every slot of S, zeros past
// the ns there are and past the width, so that the scores' micro-tiles
// read numbers), the slots' rows, heads and positions, and clears the
// softmaxes and the thread's weighted values (phase 0). Once a block: the
// divisions here are not in a loop of the tiles.
QFN void att_tile_init(att_tile_sh *sh, int t, const att_tile_args *a, float *acc) {
	int S = ATT_THREADS >> a->lnd, nq = a->ld >> 2;
	for (int e = t; e < S * nq; e += ATT_THREADS) {
		int s = e / nq, i = 4 * (e - s * nq);
		float x[4] = {0.f, 0.f, 0.f, 0.f};
		if (s < a->ns) {
			int r = s / a->nh, h = s - r * a->nh;
			const float *src = a->q + (size_t)r * a->ldq + (size_t)h * a->hd;
			for (int k = 0; k < 4; k++)
				if (i + k < a->hd) x[k] = src[i + k];
		}
		att_st4(sh->q + s * a->ld + i, x);
	}
	for (int s = t; s < ATT_TS; s += ATT_THREADS) {
		int r = s / a->nh;
		sh->row[s] = r;
		sh->head[s] = s - r * a->nh;
		sh->pos[s] = att_pos(a->p0 + r, a->ctx);
		sh->m[s] = -INFINITY;
		sh->l[s] = 0.f;
	}
	for (int i = 0; i < ATT_TACC; i++) acc[i] = 0.f;
}

// att_tile_load stages rows k0…k0+TK−1 of a cache head into kv, zeros
// past tk = the rows that exist and past the width (phases 1 and 4): a
// row's quads to 8·ND threads (so one pass covers the widest width of the
// shape), 16/ND rows a pass.
QFN void att_tile_load(float *kv, int t, const att_tile_args *a, const void *c, int k0, int tk, int lnd) {
	int qg = 8 << lnd, i = 4 * (t & (qg - 1)), TK = att_tile_tk(lnd);
	if (i >= a->hd) return;
	for (int r = t >> (lnd + 3); r < TK; r += 16 >> lnd) {
		float x[4] = {0.f, 0.f, 0.f, 0.f};
		if (r < tk) att_kv4(c, (size_t)(k0 + r) * a->hd + i, a->hd - i, a->f16, a->vec, x);
		att_st4(kv + r * a->ld + i, x);
	}
}

// att_tile_scores writes the tile's scores (phase 2): thread t the slots
// t>>lk + (128>>lk)·α (α < 4, those that exist) against the keys
// t&(KG−1) + KG·β (β < 4), KG = TK/4 = 1<<lk; −∞ where the slot's row's
// causal mask or window hides the key.
QFN void att_tile_scores(att_tile_sh *sh, int t, const att_tile_args *a, int k0, int lnd) {
	int lk = lnd <= 2 ? 3 : 2, kg = 1 << lk, kq = t & (kg - 1), sq = t >> lk, sg = ATT_THREADS >> lk;
	int S = ATT_THREADS >> lnd, ld = a->ld;
	float d[4][4];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int al = 0; al < 4; al++)
		for (int b = 0; b < 4; b++) d[al][b] = 0.f;
	for (int i = 0; i < a->hd; i += 4) {
		float k[4][4];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int b = 0; b < 4; b++) att_ld4(sh->kv + (kq + kg * b) * ld + i, k[b]);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int al = 0; al < 4; al++) {
			int s = sq + sg * al;
			if (sg * al >= S || s >= a->ns) continue;
			float x[4];
			att_ld4(sh->q + s * ld + i, x);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
			for (int b = 0; b < 4; b++) {
				float v = d[al][b];
				v += x[0] * k[b][0];
				v += x[1] * k[b][1];
				v += x[2] * k[b][2];
				v += x[3] * k[b][3];
				d[al][b] = v;
			}
		}
	}
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int al = 0; al < 4; al++) {
		int s = sq + sg * al;
		if (sg * al >= S || s >= a->ns) continue;
		int p = sh->pos[s], first = att_first(p, a->window);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int b = 0; b < 4; b++) {
			int j = kq + kg * b, key = k0 + j;
			sh->s[s * ATT_SLD + j] = key <= p && key >= first ? att_score(d[al][b], a->scale, a->softcap) : -INFINITY;
		}
	}
}

// att_nmax is the larger of a and b, NaN if either is (as att_online's
// maximum: a row of NaN scores is not a row of masked keys).
QFN float att_nmax(float a, float b) { return b > a || b != b ? b : a; }

// att_sm_x is lane's score of slot s (−∞ past the tile's TK keys).
QFN float att_sm_x(const att_tile_sh *sh, int s, int lane, int TK) {
	return lane < TK ? sh->s[s * ATT_SLD + lane] : -INFINITY;
}

// att_sm_e turns lane's score x of slot s into its weight e^{x−mt} (0
// for a masked key, and every weight 0 while the slot has seen only
// masked keys, mt = −∞), stores it and returns it.
QFN float att_sm_e(att_tile_sh *sh, int s, int lane, int TK, float x, float mt) {
	float e = mt == -INFINITY || x == -INFINITY ? 0.f : expf(x - mt);
	if (lane < TK) sh->s[s * ATT_SLD + lane] = e;
	return e;
}

// att_sm_fin carries slot s's softmax over the tile of maximum mt (the
// old maximum folded in) and weights summing to sum: the factor that
// rescales its earlier weighted values, as att_online.
QFN void att_sm_fin(att_tile_sh *sh, int s, float mt, float sum) {
	if (mt == -INFINITY) {
		sh->a[s] = 1.f;
		return;
	}
	float al = expf(sh->m[s] - mt);
	sh->l[s] = sh->l[s] * al + sum;
	sh->m[s] = mt;
	sh->a[s] = al;
}

#ifdef __CUDA_ARCH__
// att_tile_softmax is each slot's online softmax over the tile (phase
// 3): warp w the slots w, w+4, …, lane j key j, the maximum and the sum by
// butterflies (every lane ends with the same value: att_nmax and + are
// commutative). Lane 0 writes the slot's softmax after the sum's shuffles,
// which every lane reaches after reading the old maximum.
QFN void att_tile_softmax(att_tile_sh *sh, int t, const att_tile_args *a, int lnd) {
	int lane = t & 31, TK = att_tile_tk(lnd);
	for (int s = t >> 5; s < a->ns; s += ATT_THREADS / 32) {
		float x = att_sm_x(sh, s, lane, TK), v = x;
#pragma unroll
		for (int o = 16; o > 0; o >>= 1) v = att_nmax(v, __shfl_xor_sync(0xffffffffu, v, o));
		float mt = att_nmax(sh->m[s], v);
		float e = att_sm_e(sh, s, lane, TK, x, mt), sum = e;
#pragma unroll
		for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
		if (lane == 0) att_sm_fin(sh, s, mt, sum);
	}
}
#else
// att_tile_softmax_warp is att_tile_softmax of warp w for the host build:
// its 32 lanes in lock step, the shuffles' butterflies over an array.
QFN void att_tile_softmax_warp(att_tile_sh *sh, int w, const att_tile_args *a, int lnd) {
	int TK = att_tile_tk(lnd);
	for (int s = w; s < a->ns; s += ATT_THREADS / 32) {
		float x[32], v[32], e[32], u[32], mt[32];
		for (int lane = 0; lane < 32; lane++) v[lane] = x[lane] = att_sm_x(sh, s, lane, TK);
		for (int o = 16; o > 0; o >>= 1) {
			for (int lane = 0; lane < 32; lane++) u[lane] = att_nmax(v[lane], v[lane ^ o]);
			memcpy(v, u, sizeof v);
		}
		for (int lane = 0; lane < 32; lane++) mt[lane] = att_nmax(sh->m[s], v[lane]);
		for (int lane = 0; lane < 32; lane++) e[lane] = att_sm_e(sh, s, lane, TK, x[lane], mt[lane]);
		for (int o = 16; o > 0; o >>= 1) {
			for (int lane = 0; lane < 32; lane++) u[lane] = e[lane] + e[lane ^ o];
			memcpy(e, u, sizeof e);
		}
		att_sm_fin(sh, s, mt[0], e[0]);
	}
}
#endif

// att_tile_pv adds the tile's weighted values to the thread's share
// (phase 5): warp w the slots w + 4σ (σ < 32/ND, those that exist), lane
// the values lane + 32c (c < ND, those within the width), acc[σ·ND + c];
// each earlier share rescaled by the slot's factor first. Every key of the
// tile is walked (weights past tk are 0, values zeros), four at a time.
QFN void att_tile_pv(const att_tile_sh *sh, int t, const att_tile_args *a, float *acc, int lnd) {
	int nd = 1 << lnd, sw = 32 >> lnd, w = t >> 5, lane = t & 31, TK = att_tile_tk(lnd), ld = a->ld;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int sl = 0; sl < sw; sl++) {
		int s = w + 4 * sl;
		if (s >= a->ns) continue;
		float al = sh->a[s];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int c = 0; c < nd; c++) acc[(sl << lnd) + c] *= al;
	}
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int j = 0; j < TK; j += 4) {
		float v[4][8];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int u = 0; u < 4; u++)
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
			for (int c = 0; c < nd; c++) {
				int d = lane + 32 * c;
				v[u][c] = d < a->hd ? sh->kv[(j + u) * ld + d] : 0.f;
			}
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int sl = 0; sl < sw; sl++) {
			int s = w + 4 * sl;
			if (s >= a->ns) continue;
			float p[4];
			att_ld4(sh->s + s * ATT_SLD + j, p);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
			for (int c = 0; c < nd; c++) {
				float x = acc[(sl << lnd) + c];
				x += p[0] * v[0][c];
				x += p[1] * v[1][c];
				x += p[2] * v[2][c];
				x += p[3] * v[3][c];
				acc[(sl << lnd) + c] = x;
			}
		}
	}
}

// att_tile_out writes the thread's slots' outputs (phase 6): each slot's
// softmax merged with its head's sink (att_merge, one partial),
// acc·(e^{m−M}/L): one division a slot.
QFN void att_tile_out(const att_tile_sh *sh, int t, const att_tile_args *a, const float *acc, int lnd) {
	int nd = 1 << lnd, sw = 32 >> lnd, w = t >> 5, lane = t & 31;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
	for (int sl = 0; sl < sw; sl++) {
		int s = w + 4 * sl;
		if (s >= a->ns) continue;
		int h = sh->head[s];
		float M, L;
		att_merge(&sh->m[s], &sh->l[s], 1, a->sinks ? a->sinks + h : a->sinks, &M, &L);
		float f = (sh->m[s] != -INFINITY ? expf(sh->m[s] - M) : 0.f) / L;
		float *o = a->out + (size_t)sh->row[s] * a->ldo + (size_t)h * a->hd;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int c = 0; c < nd; c++) {
			int d = lane + 32 * c;
			if (d < a->hd) o[d] = acc[(sl << lnd) + c] * f;
		}
	}
}

#endif
