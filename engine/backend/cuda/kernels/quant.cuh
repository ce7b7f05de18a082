// quant.cuh — the GGUF weight decoders of the CUDA kernels, written once for
// two compilers. nvcc builds them into the kernels (matmul.cu); the host C
// compiler builds the same source, with QFN defined as plain `static inline`,
// into a test-only harness (engine/backend/cuda/internal/hostq) that Go tests compare
// block by block with the CPU engine's decoders (engine/tensor). Most bugs of
// a GGUF engine on a new device are in these layouts, and this way they are
// found without a GPU.
//
// The unit of decoding is 32 consecutive weights of a row: a whole block of
// the 32-weight types (Q4_0 … IQ4_NL, MXFP4), one sub-block of the 256-weight
// super-blocks (the K-quants, IQ4_XS), or 32 plain floats. Every type GGUF
// models use in practice reduces to this unit, so one product kernel,
// templated on the decoder, serves them all.
//
// Products are rounded to float before a subtraction or an addition
// (qmul) so that no compiler fuses them into an FMA: the decoded values are
// then bit for bit those of engine/tensor's decoders (which do the same for
// the same reason) and of ggml's scalar reference.
#ifndef ISAGI_QUANT_CUH
#define ISAGI_QUANT_CUH

#include <stdint.h>
#ifdef __CUDACC__
#define QFN __host__ __device__ __forceinline__
#else
#include <math.h>
#include <string.h>
#define QFN static inline
#endif
// The IQ types' codebooks and sign tables (generated; see the file). hostq
// includes them first through its own link, which defines the guard.
#ifndef ISAGI_IQTABLES_CUH
#include "iqtables.cuh"
#endif

// Type codes are ggml's (engine/tensor.Type).
enum {
	T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7,
	T_Q8_0 = 8, T_Q2_K = 10, T_Q3_K = 11, T_Q4_K = 12, T_Q5_K = 13,
	T_Q6_K = 14, T_IQ2_XXS = 16, T_IQ2_XS = 17, T_IQ3_XXS = 18, T_IQ1_S = 19, T_IQ4_NL = 20,
	T_IQ3_S = 21, T_IQ2_S = 22, T_IQ4_XS = 23, T_IQ1_M = 29, T_BF16 = 30, T_TQ1_0 = 34, T_TQ2_0 = 35,
	T_MXFP4 = 39
};

QFN float qmul(float a, float b) {
#ifdef __CUDA_ARCH__
	return __fmul_rn(a, b); // never contracted into an FMA
#else
	volatile float r = a * b; // volatile: the host compiler may not fuse it either
	return r;
#endif
}

QFN float f32_bits(uint32_t u) {
#ifdef __CUDA_ARCH__
	return __uint_as_float(u);
#else
	float f;
	memcpy(&f, &u, 4);
	return f;
#endif
}

// h2f widens an IEEE binary16 exactly (subnormals, Inf and NaN included).
QFN float h2f(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f) return f32_bits(sign | 0x7f800000u | (m << 13));
	if (e != 0) return f32_bits(sign | ((e + 112) << 23) | (m << 13));
	if (m == 0) return f32_bits(sign);
	// Subnormal: m·2⁻²⁴, exact in float.
	float v = (float)m * 5.9604644775390625e-08f;
	return sign ? -v : v;
}

QFN uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
QFN uint32_t ld32(const uint8_t *p) {
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

// iq4nl_value is kvalues_iq4nl[q] = {−127, −104, −83, −65, −49, −35, −22,
// −10, 1, 13, 25, 38, 53, 69, 89, 113}[q]: more levels near zero, where most
// weights are. The table is packed into two 64-bit constants (bytes, low
// first) so that the device reads it from registers, not from a stack copy.
QFN int8_t iq4nl_value(int q) {
	const uint64_t lo = 0xf6eaddcfbfad9881ull, hi = 0x7159453526190d01ull;
	q &= 15;
	return (int8_t)(((q < 8 ? lo : hi) >> (8 * (q & 7))) & 0xff);
}

// mxfp4_value is ggml's kvalues_mxfp4[q]: the E2M1 values {0, 0.5, 1, 1.5,
// 2, 3, 4, 6} and their negatives, doubled so that they are integers (the
// scale is halved instead, e8m0_half), packed as iq4nl_value's table is.
QFN int8_t mxfp4_value(int q) {
	const uint64_t lo = 0x0c08060403020100ull, hi = 0xf4f8fafcfdfeff00ull;
	q &= 15;
	return (int8_t)(((q < 8 ? lo : hi) >> (8 * (q & 7))) & 0xff);
}

// e8m0_half is half the scale an E8M0 exponent e stands for, 2^(e−128),
// exactly (ggml's GGML_E8M0_TO_FP32_HALF; e < 2 gives the subnormals).
QFN float e8m0_half(int e) {
	return e < 2 ? f32_bits(0x00200000u << e) : f32_bits((uint32_t)(e - 1) << 23);
}

// Bytes of one block (or super-block) and weights per block, per type.
QFN int type_block_bytes(int t) {
	switch (t) {
	case T_F32: return 4;
	case T_F16: case T_BF16: return 2;
	case T_Q4_0: case T_IQ4_NL: return 18;
	case T_Q4_1: return 20;
	case T_Q5_0: return 22;
	case T_Q5_1: return 24;
	case T_Q8_0: return 34;
	case T_Q2_K: return 84;
	case T_Q3_K: return 110;
	case T_Q4_K: return 144;
	case T_Q5_K: return 176;
	case T_Q6_K: return 210;
	case T_IQ4_XS: return 136;
	case T_MXFP4: return 17;
	case T_TQ2_0: case T_IQ2_XXS: return 66;
	case T_TQ1_0: return 54;
	case T_IQ2_XS: return 74;
	case T_IQ2_S: return 82;
	case T_IQ3_XXS: return 98;
	case T_IQ3_S: return 110;
	case T_IQ1_S: return 50;
	case T_IQ1_M: return 56;
	}
	return 0;
}

QFN int type_block_len(int t) {
	switch (t) {
	case T_F32: case T_F16: case T_BF16: return 1;
	case T_Q2_K: case T_Q3_K: case T_Q4_K: case T_Q5_K: case T_Q6_K: case T_IQ4_XS: return 256;
	case T_IQ1_S: case T_IQ1_M: case T_IQ2_XXS: case T_IQ2_XS: case T_IQ2_S: case T_IQ3_XXS: case T_IQ3_S:
	case T_TQ1_0: case T_TQ2_0: return 256;
	}
	return 32;
}

// ---- the 32-weight decoders: unit u of a row, into y[0..31] ----

QFN void dq_f32(const uint8_t *row, int u, float *y) {
	const uint8_t *p = row + 128 * u;
	for (int i = 0; i < 32; i++) y[i] = f32_bits(ld32(p + 4 * i));
}

QFN void dq_f16(const uint8_t *row, int u, float *y) {
	const uint8_t *p = row + 64 * u;
	for (int i = 0; i < 32; i++) y[i] = h2f(ld16(p + 2 * i));
}

QFN void dq_bf16(const uint8_t *row, int u, float *y) {
	const uint8_t *p = row + 64 * u;
	for (int i = 0; i < 32; i++) y[i] = f32_bits((uint32_t)ld16(p + 2 * i) << 16);
}

QFN void dq_q4_0(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 18 * u;
	float d = h2f(ld16(b));
	for (int j = 0; j < 16; j++) {
		int q = b[2 + j];
		y[j] = qmul(d, (float)((q & 15) - 8));
		y[j + 16] = qmul(d, (float)((q >> 4) - 8));
	}
}

QFN void dq_q4_1(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 20 * u;
	float d = h2f(ld16(b)), m = h2f(ld16(b + 2));
	for (int j = 0; j < 16; j++) {
		int q = b[4 + j];
		y[j] = qmul(d, (float)(q & 15)) + m;
		y[j + 16] = qmul(d, (float)(q >> 4)) + m;
	}
}

QFN void dq_q5_0(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 22 * u;
	float d = h2f(ld16(b));
	uint32_t qh = ld32(b + 2);
	for (int j = 0; j < 16; j++) {
		int q = b[6 + j];
		int lo = (q & 15) | (int)((qh >> j) & 1) << 4;
		int hi = (q >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
		y[j] = qmul(d, (float)(lo - 16));
		y[j + 16] = qmul(d, (float)(hi - 16));
	}
}

QFN void dq_q5_1(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 24 * u;
	float d = h2f(ld16(b)), m = h2f(ld16(b + 2));
	uint32_t qh = ld32(b + 4);
	for (int j = 0; j < 16; j++) {
		int q = b[8 + j];
		int lo = (q & 15) | (int)((qh >> j) & 1) << 4;
		int hi = (q >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
		y[j] = qmul(d, (float)lo) + m;
		y[j + 16] = qmul(d, (float)hi) + m;
	}
}

QFN void dq_q8_0(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 34 * u;
	float d = h2f(ld16(b));
	for (int j = 0; j < 32; j++) y[j] = qmul(d, (float)(int8_t)b[2 + j]);
}

QFN void dq_iq4_nl(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 18 * u;
	float d = h2f(ld16(b));
	for (int j = 0; j < 16; j++) {
		int q = b[2 + j];
		y[j] = qmul(d, (float)iq4nl_value(q));
		y[j + 16] = qmul(d, (float)iq4nl_value(q >> 4));
	}
}

// MXFP4: one E8M0 exponent byte, then 16 bytes of 4-bit codes interleaved
// as Q4_0's (weight j low nibble of qs[j], weight j+16 the high one).
QFN void dq_mxfp4(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 17 * u;
	float d = e8m0_half(b[0]);
	for (int j = 0; j < 16; j++) {
		int q = b[1 + j];
		y[j] = qmul((float)mxfp4_value(q), d);
		y[j + 16] = qmul((float)mxfp4_value(q >> 4), d);
	}
}

// k_scale_min unpacks the 6-bit scale and min of sub-block j of Q4_K/Q5_K.
QFN void k_scale_min(int j, const uint8_t *s, int *sc, int *m) {
	if (j < 4) {
		*sc = s[j] & 63;
		*m = s[j + 4] & 63;
	} else {
		*sc = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4);
		*m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
	}
}

QFN void dq_q4_k(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 144 * (u >> 3);
	int j = u & 7, c = j >> 1, sh = 4 * (j & 1);
	float d = h2f(ld16(b)), dmin = h2f(ld16(b + 2));
	int sc, m;
	k_scale_min(j, b + 4, &sc, &m);
	float dl = qmul(d, (float)sc), ml = qmul(dmin, (float)m);
	const uint8_t *q = b + 16 + 32 * c;
	for (int l = 0; l < 32; l++) y[l] = qmul(dl, (float)((q[l] >> sh) & 15)) - ml;
}

QFN void dq_q5_k(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 176 * (u >> 3);
	int j = u & 7, c = j >> 1, sh = 4 * (j & 1);
	float d = h2f(ld16(b)), dmin = h2f(ld16(b + 2));
	int sc, m;
	k_scale_min(j, b + 4, &sc, &m);
	float dl = qmul(d, (float)sc), ml = qmul(dmin, (float)m);
	const uint8_t *qh = b + 16, *q = b + 48 + 32 * c;
	for (int l = 0; l < 32; l++) {
		int v = ((q[l] >> sh) & 15) | (((qh[l] >> j) & 1) << 4);
		y[l] = qmul(dl, (float)v) - ml;
	}
}

// Q6_K: unit j is quarter j&3 of half j>>2; quarter k of a half takes its
// low nibbles from ql[l + 32·(k&1)] (low nibble for k < 2, high for k ≥ 2)
// and its top two bits from bits 2k..2k+1 of qh[l].
QFN void dq_q6_k(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 210 * (u >> 3);
	int j = u & 7, h = j >> 2, k = j & 3;
	float d = h2f(ld16(b + 208));
	const uint8_t *ql = b + 64 * h + 32 * (k & 1), *qh = b + 128 + 32 * h;
	const int8_t *sc = (const int8_t *)(b + 192 + 8 * h);
	int shl = 4 * (k >> 1), shh = 2 * k;
	float s0 = qmul(d, (float)sc[2 * k]), s1 = qmul(d, (float)sc[2 * k + 1]);
	for (int l = 0; l < 32; l++) {
		int v = (((ql[l] >> shl) & 15) | (((qh[l] >> shh) & 3) << 4)) - 32;
		y[l] = qmul(l < 16 ? s0 : s1, (float)v);
	}
}

QFN void dq_q2_k(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 84 * (u >> 3);
	int j = u & 7;
	float d = h2f(ld16(b + 80)), dmin = h2f(ld16(b + 82));
	const uint8_t *q = b + 16 + 32 * (j >> 2);
	int sh = 2 * (j & 3);
	for (int half = 0; half < 2; half++) {
		int sc = b[2 * j + half];
		float dl = qmul(d, (float)(sc & 15)), ml = qmul(dmin, (float)(sc >> 4));
		for (int l = 16 * half; l < 16 * half + 16; l++) y[l] = qmul(dl, (float)((q[l] >> sh) & 3)) - ml;
	}
}

QFN int q3k_scale(const uint8_t *p, int k) {
	int lo = (p[k % 8] >> (4 * (k / 8))) & 15;
	int hi = (p[8 + k % 4] >> (2 * (k / 4))) & 3;
	return (lo | (hi << 4)) - 32;
}

QFN void dq_q3_k(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 110 * (u >> 3);
	int j = u & 7;
	float d = h2f(ld16(b + 108));
	const uint8_t *q = b + 32 + 32 * (j >> 2);
	int sh = 2 * (j & 3);
	for (int half = 0; half < 2; half++) {
		float dl = qmul(d, (float)q3k_scale(b + 96, 2 * j + half));
		for (int l = 16 * half; l < 16 * half + 16; l++) {
			int v = ((q[l] >> sh) & 3) + 4 * ((b[l] >> j) & 1) - 4;
			y[l] = qmul(dl, (float)v);
		}
	}
}

QFN void dq_iq4_xs(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 136 * (u >> 3);
	int j = u & 7;
	float d = h2f(ld16(b));
	int lo = (b[4 + j / 2] >> (4 * (j % 2))) & 15;
	int hi = (ld16(b + 2) >> (2 * j)) & 3;
	float dl = qmul(d, (float)((lo | (hi << 4)) - 32));
	const uint8_t *q = b + 8 + 16 * j;
	for (int l = 0; l < 16; l++) {
		y[l] = qmul(dl, (float)iq4nl_value(q[l]));
		y[l + 16] = qmul(dl, (float)iq4nl_value(q[l] >> 4));
	}
}

// ---- the ternary and importance-matrix (IQ) types ----
//
// Super-blocks of 256 weights (ggml-common.h's block_tq1_0 … block_iq1_m;
// engine/tensor's quant_iq1.go, quant_iq2.go and quant_iq3.go describe the
// layouts in full); unit u is sub-block u&7 of super-block u>>3. The IQ
// types take their weights' magnitudes from the codebooks of
// iqtables.cuh, a run of 8 (IQ1, IQ2) or 4 (IQ3) weights per entry.

// TQ2_0 (66 bytes: qs[64], f16 d) is Q2_K's 2-bit layout without scales:
// weight l of unit j is bits 2(j&3)… of qs[32(j>>2) + l], w = (q − 1)·d.
QFN void dq_tq2_0(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 66 * (u >> 3);
	int j = u & 7, sh = 2 * (j & 3);
	float d = h2f(ld16(b + 64));
	const uint8_t *q = b + 32 * (j >> 2);
	for (int l = 0; l < 32; l++) y[l] = qmul((float)(((q[l] >> sh) & 3) - 1), d);
}

// tq1_trit is trit n (0..4) of a TQ1_0 byte q, minus one: a byte holds its
// trits as a base-3 fraction, trit n being the integer part of three times
// (q·3ⁿ mod 256)/256. The powers 1, 3, 9, 27, 81 are packed in a constant.
QFN int tq1_trit(int q, int n) {
	int p3 = (int)((0x511b090301ull >> (8 * n)) & 255);
	return ((((q * p3) & 255) * 3) >> 8) - 1;
}

// tq1_at finds weight e (0..255) of a TQ1_0 block (54 bytes: qs[48],
// qh[4], f16 d): trit n of qs[m] is weight 32n+m for m < 32 (weights
// 0..159), of qs[32+m] weight 160+16n+m (160..239), of qh[m] 240+4n+m.
QFN int tq1_weight(const uint8_t *b, int e) {
	if (e < 160) return tq1_trit(b[e & 31], e >> 5);
	if (e < 240) return tq1_trit(b[32 + ((e - 160) & 15)], (e - 160) >> 4);
	return tq1_trit(b[48 + ((e - 240) & 3)], (e - 240) >> 2);
}

QFN void dq_tq1_0(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 54 * (u >> 3);
	float d = h2f(ld16(b + 52));
	for (int l = 0; l < 32; l++) y[l] = qmul((float)tq1_weight(b, 32 * (u & 7) + l), d);
}

// iq_signed is dl times a magnitude, negated when neg.
QFN float iq_signed(float dl, int mag, int neg) {
	float v = qmul(dl, (float)mag);
	return neg ? -v : v;
}

// iq2_scale is an IQ2 scale ls's multiplier, d·(0.5 + ls)·0.25, rounded
// in ggml's order.
QFN float iq2_scale(float d, int ls) { return qmul(qmul(d, 0.5f + (float)ls), 0.25f); }

// iq2_run writes a run of 8 weights: dl times the grid entry's bytes,
// negated where signs has the weight's bit.
QFN void iq2_run(float *y, float dl, uint64_t grid, int signs) {
	for (int k = 0; k < 8; k++) y[k] = iq_signed(dl, (int)((grid >> (8 * k)) & 255), (signs >> k) & 1);
}

// IQ2_XXS (66 bytes: f16 d, then 8 bytes a unit): four iq2xxs_grid
// indices, then a u32 whose bits 7r… index ksigns_iq2xs for run r and
// whose top nibble is the unit's scale.
QFN void dq_iq2_xxs(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 66 * (u >> 3), *q = b + 2 + 8 * (u & 7);
	uint32_t aux = ld32(q + 4);
	float dl = iq2_scale(h2f(ld16(b)), (int)(aux >> 28));
	for (int r = 0; r < 4; r++) iq2_run(y + 8 * r, dl, iq2xxs_grid[q[r]], ksigns_iq2xs[(aux >> (7 * r)) & 127]);
}

// IQ2_XS (74 bytes: f16 d, u16 qs[32], scales[8]): qs[r] is run r's
// iq2xs_grid index (low 9 bits) and ksigns_iq2xs index (top 7); each 16
// weights have a scale, unit j's nibbles of scales[j].
QFN void dq_iq2_xs(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 74 * (u >> 3);
	int j = u & 7;
	float d = h2f(ld16(b));
	for (int r = 0; r < 4; r++) {
		int q = ld16(b + 2 + 8 * j + 2 * r);
		iq2_run(y + 8 * r, iq2_scale(d, (b[66 + j] >> (4 * (r >> 1))) & 15), iq2xs_grid[q & 511], ksigns_iq2xs[q >> 9]);
	}
}

// IQ2_S (82 bytes: f16 d, qs[32], signs[32], qh[8], scales[8]): run r's
// 10-bit iq2s_grid index is qs[r] and bits 2(r%4)… of qh[r/4]; signs[r]
// holds its 8 signs outright; scales as IQ2_XS's.
QFN int iq2s_index(const uint8_t *b, int j, int r) { return b[2 + 4 * j + r] | (((b[66 + j] >> (2 * r)) & 3) << 8); }

QFN void dq_iq2_s(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 82 * (u >> 3);
	int j = u & 7;
	float d = h2f(ld16(b));
	for (int r = 0; r < 4; r++)
		iq2_run(y + 8 * r, iq2_scale(d, (b[74 + j] >> (4 * (r >> 1))) & 15), iq2s_grid[iq2s_index(b, j, r)], b[34 + 4 * j + r]);
}

// IQ3_XXS (98 bytes: f16 d, qs[64], u32 aux[8]): unit j's groups of four
// weights are iq3xxs_grid[qs[8j + m]]; aux[j] holds ksigns_iq2xs indices
// for its runs of 8 (bits 7r…) and its scale s (top nibble), the weights'
// multiplier d·(0.5 + s)·0.5.
QFN float iq3xxs_scale(float d, uint32_t aux) { return qmul(qmul(d, 0.5f + (float)(aux >> 28)), 0.5f); }

QFN void dq_iq3_xxs(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 98 * (u >> 3);
	int j = u & 7;
	uint32_t aux = ld32(b + 66 + 4 * j);
	float dl = iq3xxs_scale(h2f(ld16(b)), aux);
	for (int l = 0; l < 32; l++) {
		uint32_t g = iq3xxs_grid[b[2 + 8 * j + (l >> 2)]];
		int signs = ksigns_iq2xs[(aux >> (7 * (l >> 3))) & 127];
		y[l] = iq_signed(dl, (int)((g >> (8 * (l & 3))) & 255), (signs >> (l & 7)) & 1);
	}
}

// IQ3_S (110 bytes: f16 d, qs[64], qh[8], signs[32], scales[4]): group
// m of unit j is iq3s_grid[qs[8j + m] | bit m of qh[j] << 8], bit l of
// the u32 at signs[4j] weight l's sign, nibble j%2 of scales[j/2] the
// scale s: w = d·(1 + 2s)·(±grid).
QFN float iq3s_scale(const uint8_t *b, int j) { return qmul(h2f(ld16(b)), (float)(1 + 2 * ((b[106 + (j >> 1)] >> (4 * (j & 1))) & 15))); }
QFN int iq3s_index(const uint8_t *b, int j, int m) { return b[2 + 8 * j + m] | (((b[66 + j] >> m) & 1) << 8); }

QFN void dq_iq3_s(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 110 * (u >> 3);
	int j = u & 7;
	float dl = iq3s_scale(b, j);
	uint32_t signs = ld32(b + 74 + 4 * j);
	for (int l = 0; l < 32; l++)
		y[l] = iq_signed(dl, (int)((iq3s_grid[iq3s_index(b, j, l >> 2)] >> (8 * (l & 3))) & 255), (signs >> l) & 1);
}

// iq1_weight is dl·(g + δ) for the grid byte k of an iq1s_grid entry, g a
// signed byte −1, 0 or +1 and δ = ±1/8 (ggml's IQ1S_DELTA).
QFN float iq1_weight(float dl, uint64_t grid, float delta, int k) {
	int g = (int)(((grid >> (8 * k)) & 255) ^ 128) - 128;
	return qmul(dl, (float)g + delta);
}

// IQ1_S (50 bytes: f16 d, qs[32], u16 qh[8]): unit j's run r is entry
// qs[4j + r] | bits 3r… of qh[j] << 8; qh[j]'s bits 12..14 are the scale
// s (dl = d·(2s+1)) and bit 15 the sign of δ (set: −1/8).
QFN void dq_iq1_s(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 50 * (u >> 3);
	int j = u & 7, qh = ld16(b + 34 + 2 * j);
	float dl = qmul(h2f(ld16(b)), (float)(2 * ((qh >> 12) & 7) + 1)), delta = qh & 0x8000 ? -0.125f : 0.125f;
	for (int l = 0; l < 32; l++)
		y[l] = iq1_weight(dl, iq1s_grid[b[2 + 4 * j + (l >> 3)] | (((qh >> (3 * (l >> 3))) & 7) << 8)], delta, l & 7);
}

// IQ1_M (56 bytes: qs[32], qh[16], u16 scales[4]): the f16 d is the four
// scale words' top nibbles (word k's bits 4k…). Unit j's run r is entry
// qs[4j + r] | bits 0..2 of nibble r%2 of qh[2j + r/2] << 8, the nibble's
// bit 3 the sign of δ; each 16 weights have a 3-bit scale s, at bits
// 6(j%2) + 3(r/2)… of scale word j/2.
QFN float iq1m_d(const uint8_t *b) {
	int h = 0;
	for (int k = 0; k < 4; k++) h |= (ld16(b + 48 + 2 * k) >> 12) << (4 * k);
	return h2f((uint16_t)h);
}

QFN float iq1m_run(const uint8_t *b, float d, int j, int r, uint64_t *grid, float *delta) {
	int h = b[32 + 2 * j + (r >> 1)] >> (4 * (r & 1));
	*grid = iq1s_grid[b[4 * j + r] | ((h & 7) << 8)];
	*delta = h & 8 ? -0.125f : 0.125f;
	int s = (ld16(b + 48 + 2 * (j >> 1)) >> (6 * (j & 1) + 3 * (r >> 1))) & 7;
	return qmul(d, (float)(2 * s + 1));
}

QFN void dq_iq1_m(const uint8_t *row, int u, float *y) {
	const uint8_t *b = row + 56 * (u >> 3);
	float d = iq1m_d(b);
	for (int r = 0; r < 4; r++) {
		uint64_t grid;
		float delta, dl = iq1m_run(b, d, u & 7, r, &grid, &delta);
		for (int k = 0; k < 8; k++) y[8 * r + k] = iq1_weight(dl, grid, delta, k);
	}
}

// dq_unit decodes unit u of a row of type t; it returns 0 for a type it
// does not know (the host never uploads one: see engine/backend/cuda's supported set).
QFN int dq_unit(int t, const uint8_t *row, int u, float *y) {
	switch (t) {
	case T_F32: dq_f32(row, u, y); return 1;
	case T_F16: dq_f16(row, u, y); return 1;
	case T_BF16: dq_bf16(row, u, y); return 1;
	case T_Q4_0: dq_q4_0(row, u, y); return 1;
	case T_Q4_1: dq_q4_1(row, u, y); return 1;
	case T_Q5_0: dq_q5_0(row, u, y); return 1;
	case T_Q5_1: dq_q5_1(row, u, y); return 1;
	case T_Q8_0: dq_q8_0(row, u, y); return 1;
	case T_IQ4_NL: dq_iq4_nl(row, u, y); return 1;
	case T_Q2_K: dq_q2_k(row, u, y); return 1;
	case T_Q3_K: dq_q3_k(row, u, y); return 1;
	case T_Q4_K: dq_q4_k(row, u, y); return 1;
	case T_Q5_K: dq_q5_k(row, u, y); return 1;
	case T_Q6_K: dq_q6_k(row, u, y); return 1;
	case T_IQ4_XS: dq_iq4_xs(row, u, y); return 1;
	case T_MXFP4: dq_mxfp4(row, u, y); return 1;
	case T_TQ1_0: dq_tq1_0(row, u, y); return 1;
	case T_TQ2_0: dq_tq2_0(row, u, y); return 1;
	case T_IQ2_XXS: dq_iq2_xxs(row, u, y); return 1;
	case T_IQ2_XS: dq_iq2_xs(row, u, y); return 1;
	case T_IQ2_S: dq_iq2_s(row, u, y); return 1;
	case T_IQ3_XXS: dq_iq3_xxs(row, u, y); return 1;
	case T_IQ3_S: dq_iq3_s(row, u, y); return 1;
	case T_IQ1_S: dq_iq1_s(row, u, y); return 1;
	case T_IQ1_M: dq_iq1_m(row, u, y); return 1;
	}
	return 0;
}

// ---- one weight: element l (0..31) of unit u, for the products ----
//
// The product kernels give each lane of a warp one weight of a unit, so the
// 32 lanes read a unit's quants as consecutive bytes (one memory
// transaction) and the activations as 32 consecutive floats. These decode
// exactly what dq_unit decodes (the host harness checks every element).

QFN float de_f32(const uint8_t *row, int u, int l) { return f32_bits(ld32(row + 128 * u + 4 * l)); }
QFN float de_f16(const uint8_t *row, int u, int l) { return h2f(ld16(row + 64 * u + 2 * l)); }
QFN float de_bf16(const uint8_t *row, int u, int l) { return f32_bits((uint32_t)ld16(row + 64 * u + 2 * l) << 16); }

QFN float de_q4_0(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 18 * u;
	return qmul(h2f(ld16(b)), (float)(((b[2 + (l & 15)] >> (4 * (l >> 4))) & 15) - 8));
}

QFN float de_q4_1(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 20 * u;
	return qmul(h2f(ld16(b)), (float)((b[4 + (l & 15)] >> (4 * (l >> 4))) & 15)) + h2f(ld16(b + 2));
}

QFN float de_q5_0(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 22 * u;
	int q = ((b[6 + (l & 15)] >> (4 * (l >> 4))) & 15) | (int)((ld32(b + 2) >> l) & 1) << 4;
	return qmul(h2f(ld16(b)), (float)(q - 16));
}

QFN float de_q5_1(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 24 * u;
	int q = ((b[8 + (l & 15)] >> (4 * (l >> 4))) & 15) | (int)((ld32(b + 4) >> l) & 1) << 4;
	return qmul(h2f(ld16(b)), (float)q) + h2f(ld16(b + 2));
}

QFN float de_q8_0(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 34 * u;
	return qmul(h2f(ld16(b)), (float)(int8_t)b[2 + l]);
}

QFN float de_iq4_nl(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 18 * u;
	return qmul(h2f(ld16(b)), (float)iq4nl_value(b[2 + (l & 15)] >> (4 * (l >> 4))));
}

QFN float de_mxfp4(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 17 * u;
	return qmul((float)mxfp4_value(b[1 + (l & 15)] >> (4 * (l >> 4))), e8m0_half(b[0]));
}

QFN float de_q4_k(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 144 * (u >> 3);
	int j = u & 7, sc, m;
	k_scale_min(j, b + 4, &sc, &m);
	float dl = qmul(h2f(ld16(b)), (float)sc), ml = qmul(h2f(ld16(b + 2)), (float)m);
	return qmul(dl, (float)((b[16 + 32 * (j >> 1) + l] >> (4 * (j & 1))) & 15)) - ml;
}

QFN float de_q5_k(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 176 * (u >> 3);
	int j = u & 7, sc, m;
	k_scale_min(j, b + 4, &sc, &m);
	float dl = qmul(h2f(ld16(b)), (float)sc), ml = qmul(h2f(ld16(b + 2)), (float)m);
	int v = ((b[48 + 32 * (j >> 1) + l] >> (4 * (j & 1))) & 15) | (((b[16 + l] >> j) & 1) << 4);
	return qmul(dl, (float)v) - ml;
}

QFN float de_q6_k(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 210 * (u >> 3);
	int j = u & 7, h = j >> 2, k = j & 3;
	int v = (((b[64 * h + 32 * (k & 1) + l] >> (4 * (k >> 1))) & 15) | (((b[128 + 32 * h + l] >> (2 * k)) & 3) << 4)) - 32;
	float s = qmul(h2f(ld16(b + 208)), (float)(int8_t)b[192 + 8 * h + 2 * k + (l >> 4)]);
	return qmul(s, (float)v);
}

QFN float de_q2_k(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 84 * (u >> 3);
	int j = u & 7, sc = b[2 * j + (l >> 4)];
	float dl = qmul(h2f(ld16(b + 80)), (float)(sc & 15)), ml = qmul(h2f(ld16(b + 82)), (float)(sc >> 4));
	return qmul(dl, (float)((b[16 + 32 * (j >> 2) + l] >> (2 * (j & 3))) & 3)) - ml;
}

QFN float de_q3_k(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 110 * (u >> 3);
	int j = u & 7;
	float dl = qmul(h2f(ld16(b + 108)), (float)q3k_scale(b + 96, 2 * j + (l >> 4)));
	int v = ((b[32 + 32 * (j >> 2) + l] >> (2 * (j & 3))) & 3) + 4 * ((b[l] >> j) & 1) - 4;
	return qmul(dl, (float)v);
}

QFN float de_iq4_xs(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 136 * (u >> 3);
	int j = u & 7;
	int lo = (b[4 + j / 2] >> (4 * (j % 2))) & 15;
	int hi = (ld16(b + 2) >> (2 * j)) & 3;
	float dl = qmul(h2f(ld16(b)), (float)((lo | (hi << 4)) - 32));
	return qmul(dl, (float)iq4nl_value(b[8 + 16 * j + (l & 15)] >> (4 * (l >> 4))));
}

QFN float de_tq2_0(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 66 * (u >> 3);
	int j = u & 7;
	return qmul((float)(((b[32 * (j >> 2) + l] >> (2 * (j & 3))) & 3) - 1), h2f(ld16(b + 64)));
}

QFN float de_tq1_0(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 54 * (u >> 3);
	return qmul((float)tq1_weight(b, 32 * (u & 7) + l), h2f(ld16(b + 52)));
}

QFN float de_iq2_xxs(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 66 * (u >> 3), *q = b + 2 + 8 * (u & 7);
	uint32_t aux = ld32(q + 4);
	int r = l >> 3, signs = ksigns_iq2xs[(aux >> (7 * r)) & 127];
	return iq_signed(iq2_scale(h2f(ld16(b)), (int)(aux >> 28)), (int)((iq2xxs_grid[q[r]] >> (8 * (l & 7))) & 255),
	                 (signs >> (l & 7)) & 1);
}

QFN float de_iq2_xs(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 74 * (u >> 3);
	int j = u & 7, q = ld16(b + 2 + 8 * j + 2 * (l >> 3));
	float dl = iq2_scale(h2f(ld16(b)), (b[66 + j] >> (4 * (l >> 4))) & 15);
	return iq_signed(dl, (int)((iq2xs_grid[q & 511] >> (8 * (l & 7))) & 255), (ksigns_iq2xs[q >> 9] >> (l & 7)) & 1);
}

QFN float de_iq2_s(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 82 * (u >> 3);
	int j = u & 7, r = l >> 3;
	float dl = iq2_scale(h2f(ld16(b)), (b[74 + j] >> (4 * (l >> 4))) & 15);
	return iq_signed(dl, (int)((iq2s_grid[iq2s_index(b, j, r)] >> (8 * (l & 7))) & 255), (b[34 + 4 * j + r] >> (l & 7)) & 1);
}

QFN float de_iq3_xxs(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 98 * (u >> 3);
	int j = u & 7;
	uint32_t aux = ld32(b + 66 + 4 * j);
	int signs = ksigns_iq2xs[(aux >> (7 * (l >> 3))) & 127];
	return iq_signed(iq3xxs_scale(h2f(ld16(b)), aux), (int)((iq3xxs_grid[b[2 + 8 * j + (l >> 2)]] >> (8 * (l & 3))) & 255),
	                 (signs >> (l & 7)) & 1);
}

QFN float de_iq3_s(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 110 * (u >> 3);
	int j = u & 7;
	return iq_signed(iq3s_scale(b, j), (int)((iq3s_grid[iq3s_index(b, j, l >> 2)] >> (8 * (l & 3))) & 255),
	                 (int)((ld32(b + 74 + 4 * j) >> l) & 1));
}

QFN float de_iq1_s(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 50 * (u >> 3);
	int j = u & 7, r = l >> 3, qh = ld16(b + 34 + 2 * j);
	float dl = qmul(h2f(ld16(b)), (float)(2 * ((qh >> 12) & 7) + 1));
	return iq1_weight(dl, iq1s_grid[b[2 + 4 * j + r] | (((qh >> (3 * r)) & 7) << 8)], qh & 0x8000 ? -0.125f : 0.125f, l & 7);
}

QFN float de_iq1_m(const uint8_t *row, int u, int l) {
	const uint8_t *b = row + 56 * (u >> 3);
	uint64_t grid;
	float delta, dl = iq1m_run(b, iq1m_d(b), u & 7, l >> 3, &grid, &delta);
	return iq1_weight(dl, grid, delta, l & 7);
}

// de_elem decodes element l of unit u of a row of type t (NaN for a type
// it does not know, which the host never uploads).
QFN float de_elem(int t, const uint8_t *row, int u, int l) {
	switch (t) {
	case T_F32: return de_f32(row, u, l);
	case T_F16: return de_f16(row, u, l);
	case T_BF16: return de_bf16(row, u, l);
	case T_Q4_0: return de_q4_0(row, u, l);
	case T_Q4_1: return de_q4_1(row, u, l);
	case T_Q5_0: return de_q5_0(row, u, l);
	case T_Q5_1: return de_q5_1(row, u, l);
	case T_Q8_0: return de_q8_0(row, u, l);
	case T_IQ4_NL: return de_iq4_nl(row, u, l);
	case T_Q2_K: return de_q2_k(row, u, l);
	case T_Q3_K: return de_q3_k(row, u, l);
	case T_Q4_K: return de_q4_k(row, u, l);
	case T_Q5_K: return de_q5_k(row, u, l);
	case T_Q6_K: return de_q6_k(row, u, l);
	case T_IQ4_XS: return de_iq4_xs(row, u, l);
	case T_MXFP4: return de_mxfp4(row, u, l);
	case T_TQ1_0: return de_tq1_0(row, u, l);
	case T_TQ2_0: return de_tq2_0(row, u, l);
	case T_IQ2_XXS: return de_iq2_xxs(row, u, l);
	case T_IQ2_XS: return de_iq2_xs(row, u, l);
	case T_IQ2_S: return de_iq2_s(row, u, l);
	case T_IQ3_XXS: return de_iq3_xxs(row, u, l);
	case T_IQ3_S: return de_iq3_s(row, u, l);
	case T_IQ1_S: return de_iq1_s(row, u, l);
	case T_IQ1_M: return de_iq1_m(row, u, l);
	}
	return f32_bits(0x7fc00000u);
}

// ---- one lane's share of a product row ----
//
// mm_lane is what lane `lane` of warp wk of the nk warps that compute one
// output row of W·x adds up, for up to NT rows of x from t0 (acc[t], before
// the warps' sum); the warps take the row's steps in turn (split-K), so a
// short matrix still has a warp per 8 units in flight. Each step takes E units of the row: 32/E lanes per unit, each lane
// E consecutive weights of it, so the warp reads the units' quants as
// consecutive bytes and the activations as one contiguous run of 32·E
// floats (float4 loads when vec). U steps are decoded before the
// multiply-adds, so a lane has U·E loads in flight. NT, E and U are
// constants at every call in the kernels, so the arrays are registers; the
// host harness runs the same function lane by lane and checks that the
// 32 lanes' sums are the row's products (engine/backend/cuda/internal/hostq).
// x's rows are t0… in order, or, when xi is not null, rows xi[t0]…: the
// expert products gather the rows of the (token, expert) pairs that chose
// one expert (experts.cu). Every call passes xi as a constant or a
// register array, so the dense products compile as before.
#define MM_MAXNT 8
#define MM_MAXE 4
#define MM_MAXU 4

QFN void mm_lane(int T, int NT, int E, int U, const uint8_t *row, int cols, const float *x, const int *xi, int n,
                 int t0, int lane, int vec, int wk, int nk, float *acc) {
	for (int t = 0; t < NT; t++) acc[t] = 0.f;
	int units = cols >> 5;
	// Plain float rows may end in a partial unit (a tiny model's width);
	// quantised rows never do (their blocks are 32 or 256 wide).
	if ((T == T_F32 || T == T_F16 || T == T_BF16) && wk == 0) {
		int c = 32 * units + lane;
		if (c < cols) {
			float wc = T == T_F32 ? f32_bits(ld32(row + 4 * c))
			                      : (T == T_F16 ? h2f(ld16(row + 2 * c)) : f32_bits((uint32_t)ld16(row + 2 * c) << 16));
			for (int t = 0; t < NT; t++)
				if (t0 + t < n) acc[t] += wc * x[(size_t)(xi ? xi[t0 + t] : t0 + t) * cols + c];
		}
	}
	int lpu = 32 / E; // lanes per unit
	int du = lane / lpu, e0 = E * (lane % lpu);
	for (int u0 = wk * E * U; u0 < units; u0 += E * U * nk) {
		float wv[MM_MAXU][MM_MAXE];
		int ok[MM_MAXU];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int s = 0; s < U; s++) {
			int u = u0 + s * E + du;
			ok[s] = u < units;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
			for (int e = 0; e < E; e++) wv[s][e] = ok[s] ? de_elem(T, row, u, e0 + e) : 0.f;
		}
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
		for (int t = 0; t < NT; t++) {
			if (t0 + t < n) {
				const float *xr = x + (size_t)(xi ? xi[t0 + t] : t0 + t) * cols + e0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
				for (int s = 0; s < U; s++) {
					if (ok[s]) {
						const float *xs = xr + 32 * (u0 + s * E + du);
#ifdef __CUDA_ARCH__
						if (E == 4 && vec) {
							float4 v = *reinterpret_cast<const float4 *>(xs);
							acc[t] += wv[s][0] * v.x + wv[s][1] * v.y + wv[s][2] * v.z + wv[s][3] * v.w;
							continue;
						}
#pragma unroll
#endif
						for (int e = 0; e < E; e++) acc[t] += wv[s][e] * xs[e];
					}
				}
			}
		}
	}
}


// ---- decode products on 8-bit integer dot products (dp4a) ----
//
// Decode (one row of x) reads every weight once, so it is bound by memory,
// and the float path above spends its issue slots decoding one weight a
// lane. These products take the CPU engine's own route instead
// (engine/tensor's act and dot*Go): the input is quantised once per step to
// int8 codes in blocks of 32 with a float scale d and sum s = d·Σq
// (qa_* below, quant_q8 in matmul.cu), each lane loads 32-bit words of
// weight codes, meets them with words of activation codes in dp4a (four
// int8 products and a sum in one instruction) and forms each block's
// integer sum exactly as the CPU does; one lane per block then applies the
// float scales in the CPU's order. Integer sums do not depend on their
// order, so they equal the CPU's bit for bit; each block's float term
// equals its Go reference's (dot*Go) bit for bit; only the order in which
// the blocks' terms are added differs (the host harness checks all three).
//
// A "piece" is what one float term covers: a block of 32 for Q8_0, Q4_0,
// Q5_0 and Q6_K, a pair of sub-blocks (64 weights, one scale byte each and
// a shared d) for Q4_K and Q5_K, as dotQ4KGo adds them. mvq_lanes lanes
// share a piece, each taking 32 of its weights (Q6_K: 16), and add their
// integer sums with shuffles before the piece's first lane scales them.

// dp4a is four int8 products of a and b added to c.
QFN int dp4a(uint32_t a, uint32_t b, int c) {
#ifdef __CUDA_ARCH__
	return __dp4a((int)a, (int)b, c);
#else
	for (int k = 0; k < 4; k++) c += (int)(int8_t)(a >> (8 * k)) * (int)(int8_t)(b >> (8 * k));
	return c;
#endif
}

// ld32h is a 32-bit word from a 2-byte-aligned address (the 34-, 18-, 22-
// and 210-byte blocks are no better aligned): two 16-bit loads.
QFN uint32_t ld32h(const uint8_t *p) {
#ifdef __CUDA_ARCH__
	const uint16_t *h = (const uint16_t *)p;
	return (uint32_t)h[0] | ((uint32_t)h[1] << 16);
#else
	return ld32(p);
#endif
}

// ld16h and ld32a are a 16-bit value from a 2-byte-aligned address and a
// word from a 4-byte-aligned one, one load each on the device (ld16 and
// ld32 read bytes, for the decoders' unaligned fields).
QFN uint16_t ld16h(const uint8_t *p) {
#ifdef __CUDA_ARCH__
	return *(const uint16_t *)p;
#else
	return ld16(p);
#endif
}
QFN uint32_t ld32a(const uint8_t *p) {
#ifdef __CUDA_ARCH__
	return *(const uint32_t *)p;
#else
	return ld32(p);
#endif
}

// ld128 is four words from a 16-byte-aligned address, one load on the
// device.
QFN void ld128(const void *p, uint32_t *v) {
#ifdef __CUDA_ARCH__
	uint4 u = *(const uint4 *)p;
	v[0] = u.x, v[1] = u.y, v[2] = u.z, v[3] = u.w;
#else
	for (int k = 0; k < 4; k++) v[k] = ld32((const uint8_t *)p + 4 * k);
#endif
}

// spread4 moves bits 0..3 of n to bit 4 of bytes 0..3: Q5_0's fifth bits.
QFN uint32_t spread4(uint32_t n) {
	return ((n & 1) << 4) | ((n & 2) << 11) | ((n & 4) << 18) | ((n & 8) << 25);
}

// The quantiser's steps (engine/tensor's quantizeActGo, per block of 32):
// amax is the largest |x| (NaN wins, as Go's max); a block whose amax is
// under 2⁻¹²⁰ is zeros (d = s = 0), one holding NaN or ±Inf has codes 0
// and d = s = NaN; otherwise d = amax/127, q = round-half-even(x·(127/
// amax)) and s = d·Σq, every operation rounded on its own.
QFN float qa_max(float a, float b) { return (b > a || b != b) ? b : a; }
QFN int qa_class(float amax) { return amax >= 0x1p-120f && amax <= 3.4028234663852886e38f ? 1 : (amax < 0x1p-120f ? 0 : -1); }
QFN float qa_div(float a, float b) {
#ifdef __CUDA_ARCH__
	return __fdiv_rn(a, b);
#else
	volatile float r = a / b;
	return r;
#endif
}
QFN int qa_code(float v, float id) { return (int)rintf(qmul(v, id)); }
// qa_lane is the code of one value v of a block whose maximum is amax.
QFN int qa_lane(float v, float amax) { return qa_class(amax) > 0 ? qa_code(v, qa_div(127.f, amax)) : 0; }
// qa_scales writes the block's scale and sum from its maximum and the sum
// of its codes.
QFN void qa_scales(float amax, int sum, float *d, float *s) {
	int cls = qa_class(amax);
	float dd = cls > 0 ? qa_div(amax, 127.f) : (cls == 0 ? 0.f : f32_bits(0x7fc00000u));
	*d = dd;
	*s = cls > 0 ? qmul(dd, (float)sum) : dd;
}

#ifdef __CUDACC__
#include <cuda_fp16.h>

// qa_warp quantises the 32 values of a warp, lane l holding value i of
// block i/32 (i ≡ l mod 32), as quant_q8 does: the block's maximum and its
// code sum are butterflies (the sum is an integer, so its order does not
// matter; the maximum is exact in any order), lane 0 writes the scales.
// Every lane of the warp must call it.
__device__ __forceinline__ void qa_warp(float v, int i, int8_t *xq, float *xd, float *xs) {
	float a = fabsf(v);
	for (int o = 16; o > 0; o >>= 1) a = qa_max(a, __shfl_xor_sync(0xffffffffu, a, o));
	int q = qa_lane(v, a), sum = q;
	xq[i] = (int8_t)q;
	for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0) qa_scales(a, sum, xd + (i >> 5), xs + (i >> 5));
}

// gelu_f16 is GELU's tanh form as ggml's CPU backend evaluates it: input
// and result rounded to f16, 0 below −10 and x above 10.
__device__ __forceinline__ float gelu_f16(float x) {
	if (x <= -10.f) return 0.f;
	if (x >= 10.f) return x;
	// Each step rounded as the CPU's Go does (no fused multiply-adds): a
	// fused one can move the f16 result by one step.
	const float c = 0.7978845608028654f;
	float v = __half2float(__float2half_rn(x));
	float inner = __fadd_rn(1.f, __fmul_rn(__fmul_rn(0.044715f, v), v));
	float t = (float)tanh((double)__fmul_rn(__fmul_rn(c, v), inner));
	float g = __fmul_rn(__fmul_rn(0.5f, v), __fadd_rn(1.f, t));
	return __half2float(__float2half_rn(g));
}

// silu_mul and gelu_mul are the gated units' g ← act(g)·u, one function
// for ops.cu's swiglu and geglu and for the up product that applies them
// (mvq_rows's epilogue), so that nvcc contracts them the same way in both
// (1 + e^−g is a fused multiply-add inside expf's sequence).
__device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.f + expf(-g)) * u; }
__device__ __forceinline__ float gelu_mul(float g, float u) { return gelu_f16(g) * u; }
#endif

// mvq_lanes is the lanes that share a piece, mvq_width its weights.
QFN int mvq_lanes(int t) { return t == T_Q4_K || t == T_Q5_K || t == T_Q6_K ? 2 : 1; }
QFN int mvq_width(int t) { return t == T_Q4_K || t == T_Q5_K ? 64 : 32; }
// mvq_minc is the factor of the pieces' second sum (the offsets' terms)
// in the row's result acc − c·accm: dotQ5_0Go's 16, the K-quants' mins' 1.
// Q4_1 and Q5_1 add their offsets' terms (acc + accm, as dotQ4_1Go): −1,
// since acc − (−1·accm) is acc + accm exactly.
QFN float mvq_minc(int t) {
	return t == T_Q5_0 ? 16.f : (t == T_Q4_K || t == T_Q5_K ? 1.f : (t == T_Q4_1 || t == T_Q5_1 ? -1.f : 0.f));
}

// prmt is four bytes picked from the eight of a (bytes 0..3) and b (4..7),
// byte k of the result by bits 4k..4k+2 of s (bit 4k+3 clear): PTX's prmt
// in its default mode, which the host emulates.
QFN uint32_t prmt(uint32_t a, uint32_t b, uint32_t s) {
#ifdef __CUDA_ARCH__
	return __byte_perm(a, b, s);
#else
	uint64_t v = ((uint64_t)b << 32) | a;
	uint32_t r = 0;
	for (int k = 0; k < 4; k++) r |= (uint32_t)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
	return r;
#endif
}

// iq4nl_word is the levels (iq4nl_value) of the four nibbles in the low
// halves of n's bytes (n & 0x0f0f0f0f), as int8 bytes: two byte permutes
// over the table's halves by the low three bits, then bit 3 chooses.
QFN uint32_t iq4nl_word(uint32_t n) {
	uint32_t t = (n & 0x07070707u) | ((n & 0x07070707u) >> 4);
	uint32_t sel = (t & 0xffu) | ((t >> 8) & 0xff00u);
	uint32_t lo = prmt(0xbfad9881u, 0xf6eaddcfu, sel), hi = prmt(0x26190d01u, 0x71594535u, sel);
	uint32_t m = ((n >> 3) & 0x01010101u) * 0xffu;
	return (lo & ~m) | (hi & m);
}

// vsub4 is a − b byte by byte, no borrow crossing bytes.
QFN uint32_t vsub4(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
	return __vsub4(a, b);
#else
	uint32_t r = 0;
	for (int k = 0; k < 4; k++) r |= ((((a >> (8 * k)) & 0xff) - ((b >> (8 * k)) & 0xff)) & 0xff) << (8 * k);
	return r;
#endif
}

// sign4 is the magnitudes g (four bytes) with byte k negated where bit k of
// s is set: the bits spread to bytes of 0xff (s·0x204081 moves bit k to bit
// 8k, no two copies overlapping), then (g ^ m) − m byte by byte.
QFN uint32_t sign4(uint32_t g, uint32_t s) {
	uint32_t m = (((s & 15) * 0x00204081u) & 0x01010101u) * 0xffu;
	return vsub4(g ^ m, m);
}

// iq_run8 is Σ grid·sign·xq over a run of 8 weights (x: two words of
// codes): the grid entry's eight magnitudes, the signs' eight bits.
QFN int iq_run8(uint64_t g, uint32_t signs, const uint32_t *x, int a) {
	a = dp4a(sign4((uint32_t)g, signs), x[0], a);
	return dp4a(sign4((uint32_t)(g >> 32), signs >> 4), x[1], a);
}

// tq1_word is the trits minus one of weights 4i…4i+3 of TQ1_0 unit j (b
// the block) as four int8 bytes: the four share a source run and a trit
// (tq1_weight's layout, whose regions are multiples of 4 weights).
QFN uint32_t tq1_word(const uint8_t *b, int j, int i) {
	int e = 32 * j + 4 * i, n;
	const uint8_t *q;
	if (e < 160) q = b + (e & 31), n = e >> 5;
	else if (e < 240) q = b + 32 + ((e - 160) & 15), n = (e - 160) >> 4;
	else q = b + 48, n = (e - 240) >> 2;
	uint32_t w = 0;
	for (int k = 0; k < 4; k++) w |= (uint32_t)(tq1_trit(q[k], n) & 0xff) << (8 * k);
	return w;
}


// mvq_isum is lane pl's integer sums over its share of piece p (xq the
// row's activation codes): *A and *B are the sums the piece's first lane
// scales (Q4_K/Q5_K: the low and high sub-block; Q6_K: the first and
// second 16 weights; the others: the block, B = 0).
// iq_bytes is the super-block bytes of the IQ types whose terms scale by
// d/8 or d/4.
QFN int iq_bytes(int t) {
	return t == T_IQ2_XXS ? 66 : t == T_IQ2_XS ? 74 : t == T_IQ2_S ? 82 : t == T_IQ3_XXS ? 98 : t == T_IQ1_S ? 50 : 56;
}

QFN void mvq_isum(int t, const uint8_t *row, const int8_t *xq, int p, int pl, int *A, int *B) {
	uint32_t x[8], w[4];
	int a = 0, b2 = 0;
	switch (t) {
	case T_Q8_0: {
		const uint8_t *b = row + 34 * p + 2;
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 8; i++) a = dp4a(ld32h(b + 4 * i), x[i], a);
		break;
	}
	case T_Q4_0: {
		// Weight j is the low nibble of qs[j], j+16 the high one.
		const uint8_t *b = row + 18 * p + 2;
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 4; i++) {
			uint32_t q = ld32h(b + 4 * i);
			a = dp4a(q & 0x0f0f0f0fu, x[i], a);
			a = dp4a((q >> 4) & 0x0f0f0f0fu, x[4 + i], a);
		}
		break;
	}
	case T_Q5_0: {
		// As Q4_0, the fifth bit of weight j being bit j of qh; the codes
		// stay unsigned (0..31), the −16 is dotQ5_0Go's term on s.
		const uint8_t *b = row + 22 * p;
		uint32_t qh = ld32h(b + 2);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 4; i++) {
			uint32_t q = ld32h(b + 6 + 4 * i);
			a = dp4a((q & 0x0f0f0f0fu) | spread4((qh >> (4 * i)) & 15), x[i], a);
			a = dp4a(((q >> 4) & 0x0f0f0f0fu) | spread4((qh >> (16 + 4 * i)) & 15), x[4 + i], a);
		}
		break;
	}
	case T_Q4_K: case T_Q5_K: {
		// Piece p is chunk c = p&3 of super-block p>>2: 32 bytes whose low
		// nibbles are sub-block 2c and high nibbles 2c+1; lane pl takes
		// bytes 16pl… (16-byte aligned: the blocks are 144 and 176 bytes).
		int bb = t == T_Q4_K ? 144 : 176, c = p & 3;
		const uint8_t *b = row + bb * (p >> 2);
		ld128(b + (t == T_Q4_K ? 16 : 48) + 32 * c + 16 * pl, w);
		ld128(xq + 64 * p + 16 * pl, x), ld128(xq + 64 * p + 32 + 16 * pl, x + 4);
		uint32_t h[4] = {0, 0, 0, 0};
		if (t == T_Q5_K) ld128(b + 16 + 16 * pl, h); // bit j of qh[l]: sub-block j's fifth bit
		for (int i = 0; i < 4; i++) {
			a = dp4a((w[i] & 0x0f0f0f0fu) | (((h[i] >> (2 * c)) & 0x01010101u) << 4), x[i], a);
			b2 = dp4a(((w[i] >> 4) & 0x0f0f0f0fu) | (((h[i] >> (2 * c + 1)) & 0x01010101u) << 4), x[4 + i], b2);
		}
		break;
	}
	case T_Q6_K: {
		// Piece p is block j = p&7 (quarter k of half hf) of super-block
		// p>>3; lane pl takes its weights 16pl…16pl+15, whose scale is
		// scales[8hf + 2k + pl]. Codes are 6-bit minus 32: the bytes are
		// offset by 128 so that the subtraction borrows from no neighbour.
		const uint8_t *b = row + 210 * (p >> 3);
		int j = p & 7, hf = j >> 2, k = j & 3;
		const uint8_t *ql = b + 64 * hf + 32 * (k & 1) + 16 * pl, *qh = b + 128 + 32 * hf + 16 * pl;
		ld128(xq + 32 * p + 16 * pl, x);
		for (int i = 0; i < 4; i++) {
			uint32_t v = ((ld32h(ql + 4 * i) >> (4 * (k >> 1))) & 0x0f0f0f0fu) | (((ld32h(qh + 4 * i) >> (2 * k)) & 0x03030303u) << 4);
			a = dp4a(((v | 0x80808080u) - 0x20202020u) ^ 0x80808080u, x[i], a);
		}
		if (pl) b2 = a, a = 0;
		break;
	}
	case T_Q4_1: case T_Q5_1: {
		// As Q4_0 and Q5_0 (unsigned codes); m·s is the offsets' term.
		int bb = t == T_Q4_1 ? 20 : 24;
		const uint8_t *b = row + bb * p;
		uint32_t qh = t == T_Q5_1 ? ld32h(b + 4) : 0;
		const uint8_t *qs = b + (t == T_Q4_1 ? 4 : 8);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 4; i++) {
			uint32_t q = ld32h(qs + 4 * i);
			a = dp4a((q & 0x0f0f0f0fu) | spread4((qh >> (4 * i)) & 15), x[i], a);
			a = dp4a(((q >> 4) & 0x0f0f0f0fu) | spread4((qh >> (16 + 4 * i)) & 15), x[4 + i], a);
		}
		break;
	}
	case T_IQ4_NL: case T_IQ4_XS: {
		// Weight j is the level of qs[j]'s low nibble, j+16 of its high
		// one; IQ4_XS's piece p is sub-block p&7 of super-block p>>3.
		const uint8_t *qs = t == T_IQ4_NL ? row + 18 * p + 2 : row + 136 * (p >> 3) + 8 + 16 * (p & 7);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 4; i++) {
			uint32_t q = ld32h(qs + 4 * i);
			a = dp4a(iq4nl_word(q & 0x0f0f0f0fu), x[i], a);
			a = dp4a(iq4nl_word((q >> 4) & 0x0f0f0f0fu), x[4 + i], a);
		}
		break;
	}
	case T_Q2_K: {
		// Piece p is activation block j = p&7 of super-block p>>3: weight l
		// is bits 2(j&3)… of qs[32(j>>2) + l], its halves of 16 scaled by
		// scales[2j] and [2j+1] (low nibble: scale, high: min). A is
		// Σ_h sc_h·Σ q·xq, B is Σ_h m_h·Σ xq, both exact integers.
		const uint8_t *b = row + 84 * (p >> 3);
		int j = p & 7, sh = 2 * (j & 3);
		uint32_t sc = ld16h(b + 2 * j);
		const uint8_t *qs = b + 16 + 32 * (j >> 2);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int h = 0; h < 2; h++) {
			int sq = 0, sx = 0, s8 = (int)(sc >> (8 * h)) & 0xff;
			for (int i = 4 * h; i < 4 * h + 4; i++) {
				sq = dp4a((ld32a(qs + 4 * i) >> sh) & 0x03030303u, x[i], sq);
				sx = dp4a(0x01010101u, x[i], sx);
			}
			a += (s8 & 15) * sq;
			b2 += (s8 >> 4) * sx;
		}
		break;
	}
	case T_Q3_K: {
		// Piece p is activation block j = p&7 of super-block p>>3: weight
		// l is bits 2(j&3)… of qs[32(j>>2) + l] plus 4·(bit j of hmask[l])
		// minus 4 (offset by 128 per byte, as Q6_K's), its halves of 16
		// scaled by the 6-bit scales 2j and 2j+1.
		const uint8_t *b = row + 110 * (p >> 3);
		int j = p & 7, sh = 2 * (j & 3);
		const uint8_t *qs = b + 32 + 32 * (j >> 2);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int h = 0; h < 2; h++) {
			int sq = 0;
			for (int i = 4 * h; i < 4 * h + 4; i++) {
				uint32_t v = ((ld32h(qs + 4 * i) >> sh) & 0x03030303u) | (((ld32h(b + 4 * i) >> j) & 0x01010101u) << 2);
				sq = dp4a(((v | 0x80808080u) - 0x04040404u) ^ 0x80808080u, x[i], sq);
			}
			a += q3k_scale(b + 96, 2 * j + h) * sq;
		}
		break;
	}
	case T_TQ2_0: {
		// As Q2_K's codes, minus one (offset by 128 per byte).
		const uint8_t *qs = row + 66 * (p >> 3) + 32 * ((p & 7) >> 2);
		int sh = 2 * (p & 3);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 8; i++) {
			uint32_t v = (ld32h(qs + 4 * i) >> sh) & 0x03030303u;
			a = dp4a(((v | 0x80808080u) - 0x01010101u) ^ 0x80808080u, x[i], a);
		}
		break;
	}
	case T_TQ1_0: {
		const uint8_t *b = row + 54 * (p >> 3);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 8; i++) a = dp4a(tq1_word(b, p & 7, i), x[i], a);
		break;
	}
	case T_IQ2_XXS: {
		// Runs r: iq2xxs_grid[q[r]], signs ksigns_iq2xs[bits 7r… of aux];
		// A = (2s+1)·Σ, s aux's top nibble.
		const uint8_t *q = row + 66 * (p >> 3) + 2 + 8 * (p & 7);
		uint32_t aux = ld32h(q + 4);
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int r = 0; r < 4; r++) a = iq_run8(iq2xxs_grid[q[r]], ksigns_iq2xs[(aux >> (7 * r)) & 127], x + 2 * r, a);
		a *= 2 * (int)(aux >> 28) + 1;
		break;
	}
	case T_IQ2_XS: case T_IQ2_S: {
		// Runs 0, 1 take the low nibble of the unit's scale byte, 2, 3 the
		// high one: A = Σ_h (2ls_h+1)·Σ over their runs.
		int j = p & 7;
		const uint8_t *b = row + (t == T_IQ2_XS ? 74 : 82) * (p >> 3);
		int sc = b[(t == T_IQ2_XS ? 66 : 74) + j];
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int h = 0; h < 2; h++) {
			int sm = 0;
			for (int r = 2 * h; r < 2 * h + 2; r++) {
				if (t == T_IQ2_XS) {
					int q = ld16h(b + 2 + 8 * j + 2 * r);
					sm = iq_run8(iq2xs_grid[q & 511], ksigns_iq2xs[q >> 9], x + 2 * r, sm);
				} else {
					sm = iq_run8(iq2s_grid[iq2s_index(b, j, r)], b[34 + 4 * j + r], x + 2 * r, sm);
				}
			}
			a += (2 * ((sc >> (4 * h)) & 15) + 1) * sm;
		}
		break;
	}
	case T_IQ3_XXS: case T_IQ3_S: {
		// Word i is grid entry i's four magnitudes, signed by bits 4i… of
		// the unit's 32 sign bits; A = (2s+1)·Σ.
		int j = p & 7;
		const uint8_t *b = row + (t == T_IQ3_XXS ? 98 : 110) * (p >> 3);
		uint32_t sg, ls;
		if (t == T_IQ3_XXS) {
			uint32_t aux = ld32h(b + 66 + 4 * j);
			sg = 0;
			for (int r = 0; r < 4; r++) sg |= (uint32_t)ksigns_iq2xs[(aux >> (7 * r)) & 127] << (8 * r);
			ls = aux >> 28;
		} else {
			sg = ld32h(b + 74 + 4 * j);
			ls = (b[106 + (j >> 1)] >> (4 * (j & 1))) & 15;
		}
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int i = 0; i < 8; i++) {
			uint32_t g = t == T_IQ3_XXS ? iq3xxs_grid[b[2 + 8 * j + i]] : iq3s_grid[iq3s_index(b, j, i)];
			a = dp4a(sign4(g, sg >> (4 * i)), x[i], a);
		}
		a *= 2 * (int)ls + 1;
		break;
	}
	case T_IQ1_S: case T_IQ1_M: {
		// In eighths (dotIQ1SGo): a run's weights are 8g ± 1, so its sum is
		// 8·Σg·xq ± Σxq, times its scale 2s+1.
		int j = p & 7;
		const uint8_t *b = row + (t == T_IQ1_S ? 50 : 56) * (p >> 3);
		int qh = t == T_IQ1_S ? ld16h(b + 34 + 2 * j) : 0;
		ld128(xq + 32 * p, x), ld128(xq + 32 * p + 16, x + 4);
		for (int r = 0; r < 4; r++) {
			int idx, ls, neg;
			if (t == T_IQ1_S) {
				idx = b[2 + 4 * j + r] | (((qh >> (3 * r)) & 7) << 8), ls = 2 * ((qh >> 12) & 7) + 1, neg = qh >> 15;
			} else {
				int h = b[32 + 2 * j + (r >> 1)] >> (4 * (r & 1));
				idx = b[4 * j + r] | ((h & 7) << 8), neg = (h >> 3) & 1;
				ls = 2 * ((ld16h(b + 48 + 2 * (j >> 1)) >> (6 * (j & 1) + 3 * (r >> 1))) & 7) + 1;
			}
			uint64_t g = iq1s_grid[idx];
			int sg = dp4a((uint32_t)(g >> 32), x[2 * r + 1], dp4a((uint32_t)g, x[2 * r], 0));
			int sx = dp4a(0x01010101u, x[2 * r + 1], dp4a(0x01010101u, x[2 * r], 0));
			a += ls * (8 * sg + (neg ? -sx : sx));
		}
		break;
	}
	}
	*A = a, *B = b2;
}

// mvq_term adds piece p's float terms to *acc and *accm from its integer
// sums A and B (the lanes' added up) and the activations' scales xd and
// sums xs, in the order of engine/tensor's dot*Go.
QFN void mvq_term(int t, const uint8_t *row, const float *xd, const float *xs, int p, int A, int B, float *acc,
                  float *accm) {
	switch (t) {
	case T_Q8_0:
		*acc += qmul(qmul(h2f(ld16h(row + 34 * p)), xd[p]), (float)A);
		break;
	case T_Q4_0:
		*acc += qmul(h2f(ld16h(row + 18 * p)), qmul(xd[p], (float)A) - qmul(8.f, xs[p]));
		break;
	case T_Q5_0: {
		float d = h2f(ld16h(row + 22 * p));
		*acc += qmul(qmul(d, xd[p]), (float)A);
		*accm += qmul(d, xs[p]);
		break;
	}
	case T_Q4_K: case T_Q5_K: {
		// The super-block is 16-byte aligned: d and dmin are one word,
		// the 12 bytes of scales three (k_scale_min's layout, sub-blocks
		// 2c and 2c+1 are bytes c' = 2c&3 and c'+1 of each word).
		const uint8_t *b = row + (t == T_Q4_K ? 144 : 176) * (p >> 2);
		int c = p & 3, sh = 8 * (2 * c & 3);
		uint32_t dm = ld32a(b), s0 = ld32a(b + 4) >> sh, s1 = ld32a(b + 8) >> sh, s2 = ld32a(b + 12) >> sh;
		float sc0, m0, sc1, m1;
		if (c < 2) {
			sc0 = (float)(s0 & 63), sc1 = (float)((s0 >> 8) & 63);
			m0 = (float)(s1 & 63), m1 = (float)((s1 >> 8) & 63);
		} else {
			sc0 = (float)((s2 & 15) | ((s0 >> 2) & 48)), sc1 = (float)(((s2 >> 8) & 15) | ((s0 >> 10) & 48));
			m0 = (float)(((s2 >> 4) & 15) | ((s1 >> 2) & 48)), m1 = (float)(((s2 >> 12) & 15) | ((s1 >> 10) & 48));
		}
		*acc += qmul(h2f((uint16_t)dm), qmul(qmul(sc0, xd[2 * p]), (float)A) + qmul(qmul(sc1, xd[2 * p + 1]), (float)B));
		*accm += qmul(h2f((uint16_t)(dm >> 16)), qmul(m0, xs[2 * p]) + qmul(m1, xs[2 * p + 1]));
		break;
	}
	case T_Q4_1: case T_Q5_1: {
		const uint8_t *b = row + (t == T_Q4_1 ? 20 : 24) * p;
		*acc += qmul(qmul(h2f(ld16(b)), xd[p]), (float)A);
		*accm += qmul(h2f(ld16(b + 2)), xs[p]);
		break;
	}
	case T_IQ4_NL:
		*acc += qmul(qmul(h2f(ld16(row + 18 * p)), xd[p]), (float)A);
		break;
	case T_IQ4_XS: {
		const uint8_t *b = row + 136 * (p >> 3);
		int j = p & 7, ls = (((b[4 + j / 2] >> (4 * (j % 2))) & 15) | (((ld16(b + 2) >> (2 * j)) & 3) << 4)) - 32;
		*acc += qmul(qmul(qmul(h2f(ld16(b)), (float)ls), xd[p]), (float)A);
		break;
	}
	case T_Q2_K: {
		const uint8_t *b = row + 84 * (p >> 3);
		*acc += qmul(xd[p], qmul(h2f(ld16(b + 80)), (float)A) - qmul(h2f(ld16(b + 82)), (float)B));
		break;
	}
	case T_Q3_K:
		*acc += qmul(qmul(h2f(ld16(row + 110 * (p >> 3) + 108)), xd[p]), (float)A);
		break;
	case T_TQ2_0:
		*acc += qmul(qmul(h2f(ld16(row + 66 * (p >> 3) + 64)), xd[p]), (float)A);
		break;
	case T_TQ1_0:
		*acc += qmul(qmul(h2f(ld16(row + 54 * (p >> 3) + 52)), xd[p]), (float)A);
		break;
	case T_IQ3_S:
		*acc += qmul(qmul(h2f(ld16(row + 110 * (p >> 3))), xd[p]), (float)A);
		break;
	case T_IQ2_XXS: case T_IQ2_XS: case T_IQ2_S: case T_IQ3_XXS: case T_IQ1_S: case T_IQ1_M: {
		// d/8 (IQ2, IQ1: the eighths) or d/4 (IQ3_XXS), exact.
		const uint8_t *b = row + iq_bytes(t) * (p >> 3);
		float d = t == T_IQ1_M ? iq1m_d(b) : h2f(ld16(b));
		*acc += qmul(qmul(qmul(d, t == T_IQ3_XXS ? 0.25f : 0.125f), xd[p]), (float)A);
		break;
	}
	case T_Q6_K: {
		const uint8_t *b = row + 210 * (p >> 3);
		int j = p & 7;
		uint16_t sc = ld16h(b + 192 + 8 * (j >> 2) + 2 * (j & 3));
		*acc += qmul(qmul(h2f(ld16h(b + 208)), xd[p]), qmul((float)(int8_t)(sc & 255), (float)A) + qmul((float)(int8_t)(sc >> 8), (float)B));
		break;
	}
	}
}

// mvq_piece is the piece lane `lane` of warp wk (of S sharing a row)
// takes at step `it`, slot s of U: the S warps' runs of 32/P pieces follow
// one another, so a warp step reads contiguous bytes and the row's pieces
// are spread over the warps evenly. mvq_iters is the steps a row takes.
QFN int mvq_piece(int P, int S, int U, int wk, int lane, int it, int s) { return ((it * U + s) * S + wk) * (32 / P) + lane / P; }
QFN int mvq_iters(int pieces, int P, int S, int U) {
	int per = U * S * (32 / P);
	return (pieces + per - 1) / per;
}

#endif
