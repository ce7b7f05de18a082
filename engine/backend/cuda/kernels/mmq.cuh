// mmq.cuh — the arithmetic of the tile products on tensor cores (mmq.cu),
// written once for two compilers as quant.cuh is: nvcc builds it into the
// mmq_ kernels, the host C compiler into engine/backend/cuda/internal/
// hostq, whose tests run a whole block of the kernel on the host, phase by
// phase, and compare it with the decode kernels' integer sums (mvq_isum)
// and with the CPU engine's products.
//
// The integers. mvq_isum gives each piece of a row two exact integer sums
// A and B over the activations' int8 codes (quant_q8), which mvq_term
// scales. Here the weights of every block of 32 (a "chunk", the 32 codes
// of one activation block) are decoded to 32 int8 values w (mmq_chunk),
// with two integer multipliers c0, c1 for its two halves of 16 and two
// more e0, e1 (Q2_K's mins):
//
//	S_h = Σ_{l in half h} w_l·xq_l           (the tensor cores' sums)
//	A or B += c_h·S_h + e_h·Σ_{l in half h} xq_l
//
// which is mvq_isum's A and B exactly, every operation being on integers
// (the hostq tests check it type by type). Which sum a half goes to:
// Q4_K/Q5_K's pieces are two chunks, the first into A, the second into B;
// Q6_K's first half into A, its second into B; everything else into A.
// Where c0 = c1 (and e = 0) a chunk is one m16n8k32 product; where the
// halves differ (Q6_K, Q2_K, Q3_K, IQ2_XS, IQ2_S, IQ1_M: mmq_k16) each half
// is an m16n8k16 one. The weights fit int8: codes with their offsets
// (Q6_K −32…31, Q3_K −4…3, TQ −1…2), codebook magnitudes with signs, the
// IQ1 types' 8g ± 1 (the sign being the run's delta), Q2_K's 2-bit codes
// (its 4-bit scale is c, its min e).
#ifndef ISAGI_MMQ_CUH
#define ISAGI_MMQ_CUH

#ifndef ISAGI_QUANT_CUH
#include "quant.cuh"
#endif

// MMQ_UNROLL unrolls a loop of constant trip count on the device, so that
// the fragments and accumulators it indexes stay in registers (ptxas
// otherwise keeps them in local memory).
#ifdef __CUDACC__
#define MMQ_UNROLL _Pragma("unroll")
#else
#define MMQ_UNROLL
#endif

// The tile: MMQ_M weight rows × MMQ_N tokens a block, MMQ_K weights a
// step (8 chunks: one super-block of the 256-weight types, 8 blocks of
// the others), four warps of 32 rows × 32 tokens each (MMQ_MF m16
// fragments × MMQ_NF n8 fragments). MMQ_LD is a tile row's stride in
// bytes: 256 + 16, so that the fragments' loads (8 rows × 4 words) fall
// in 32 different banks.
#define MMQ_M 64
#define MMQ_N 64
#define MMQ_K 256
#define MMQ_CH 8
#define MMQ_LD 272
#define MMQ_THREADS 128
#define MMQ_MF 2
#define MMQ_NF 4

// mmq_smem is a block's shared memory: the step's weights decoded (w),
// the tokens' codes (x), per row and chunk the multipliers c0, c1, e0, e1
// as bytes (cm) and the row's side of the float terms (tf: two floats, tk:
// four small integers as bytes; mmq_chunk_terms), per token and chunk the
// activations' scale and sum (xd, xs): 17408 + 17408 + 2048 + 4096 + 2048
// + 2048 + 2048 = 47104 bytes, under the 48 KiB of static shared memory.
struct mmq_smem {
	uint32_t w[MMQ_M * MMQ_LD / 4];
	uint32_t x[MMQ_N * MMQ_LD / 4];
	uint32_t cm[MMQ_M * MMQ_CH];
	float tf[MMQ_M * MMQ_CH * 2];
	uint32_t tk[MMQ_M * MMQ_CH];
	float xd[MMQ_N * MMQ_CH], xs[MMQ_N * MMQ_CH];
};

// mmq_k16 says whether a chunk's halves are separate products (m16n8k16):
// their multipliers or their sums differ.
QFN int mmq_k16(int t) {
	return t == T_Q6_K || t == T_Q2_K || t == T_Q3_K || t == T_IQ2_XS || t == T_IQ2_S || t == T_IQ1_M;
}

// mmq_cpp is the chunks of one piece (mvq_width / 32).
QFN int mmq_cpp(int t) { return t == T_Q4_K || t == T_Q5_K ? 2 : 1; }

// mmq_target is the sum (0: A, 1: B) that half h of chunk u of a piece
// goes to.
QFN int mmq_target(int t, int u, int h) {
	if (t == T_Q4_K || t == T_Q5_K) return u;
	if (t == T_Q6_K) return h;
	return 0;
}

// mmq_step_bytes is the bytes of a row that one step covers.
QFN int mmq_step_bytes(int t) { return type_block_bytes(t) * (MMQ_K / type_block_len(t)); }

// iq1_word is four weights 8g ± 1 of an IQ1 run: g the grid entry's bytes
// (−1, 0, 1), s its delta's sign (+1 or −1).
QFN uint32_t iq1_word(uint32_t g, int s) {
	uint32_t r = 0;
	MMQ_UNROLL
	for (int k = 0; k < 4; k++) r |= (uint32_t)((8 * (int)(int8_t)(g >> (8 * k)) + s) & 0xff) << (8 * k);
	return r;
}

// mmq_chunk decodes chunk b (weights 32b…32b+31) of a row: w[i] holds
// weights 4i…4i+3 as int8 bytes, in the order of the activation codes
// they meet (mvq_isum's words), c and e the halves' multipliers.
QFN void mmq_chunk(int t, const uint8_t *row, int b, uint32_t *w, int *c, int *e) {
	c[0] = c[1] = 1, e[0] = e[1] = 0;
	switch (t) {
	case T_Q8_0: {
		const uint8_t *q = row + 34 * b + 2;
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) w[i] = ld32h(q + 4 * i);
		break;
	}
	case T_Q4_0: case T_Q5_0: case T_Q4_1: case T_Q5_1: case T_IQ4_NL: case T_IQ4_XS: {
		// Weight j is the low nibble of qs[j], j+16 its high one; Q5's
		// fifth bits are bits j of qh; the IQ4 types map them to levels.
		const uint8_t *blk, *qs;
		uint32_t qh = 0;
		if (t == T_IQ4_XS) {
			qs = row + 136 * (b >> 3) + 8 + 16 * (b & 7);
		} else {
			int bb = t == T_Q4_0 || t == T_IQ4_NL ? 18 : t == T_Q5_0 ? 22 : t == T_Q4_1 ? 20 : 24;
			int off = t == T_Q4_0 || t == T_IQ4_NL ? 2 : t == T_Q5_0 ? 6 : t == T_Q4_1 ? 4 : 8;
			blk = row + bb * b, qs = blk + off;
			if (t == T_Q5_0) qh = ld32h(blk + 2);
			if (t == T_Q5_1) qh = ld32h(blk + 4);
		}
		MMQ_UNROLL
		for (int i = 0; i < 4; i++) {
			uint32_t q = ld32h(qs + 4 * i), lo = q & 0x0f0f0f0fu, hi = (q >> 4) & 0x0f0f0f0fu;
			if (t == T_IQ4_NL || t == T_IQ4_XS) {
				w[i] = iq4nl_word(lo), w[4 + i] = iq4nl_word(hi);
			} else {
				w[i] = lo | spread4((qh >> (4 * i)) & 15);
				w[4 + i] = hi | spread4((qh >> (16 + 4 * i)) & 15);
			}
		}
		break;
	}
	case T_Q4_K: case T_Q5_K: {
		// Sub-block s = b&7 is half s&1 (low or high nibbles) of chunk
		// s>>1's 32 bytes; Q5_K's fifth bit is bit s of qh[l].
		int bb = t == T_Q4_K ? 144 : 176, s = b & 7, cc = s >> 1, h = s & 1;
		const uint8_t *sb = row + bb * (b >> 3), *q = sb + (t == T_Q4_K ? 16 : 48) + 32 * cc;
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) {
			uint32_t v = (ld32a(q + 4 * i) >> (4 * h)) & 0x0f0f0f0fu;
			if (t == T_Q5_K) v |= ((ld32a(sb + 16 + 4 * i) >> s) & 0x01010101u) << 4;
			w[i] = v;
		}
		break;
	}
	case T_Q6_K: {
		const uint8_t *sb = row + 210 * (b >> 3);
		int j = b & 7, hf = j >> 2, k = j & 3;
		const uint8_t *ql = sb + 64 * hf + 32 * (k & 1), *qh = sb + 128 + 32 * hf;
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) {
			uint32_t v = ((ld32h(ql + 4 * i) >> (4 * (k >> 1))) & 0x0f0f0f0fu) | (((ld32h(qh + 4 * i) >> (2 * k)) & 0x03030303u) << 4);
			w[i] = ((v | 0x80808080u) - 0x20202020u) ^ 0x80808080u;
		}
		break;
	}
	case T_Q2_K: {
		const uint8_t *sb = row + 84 * (b >> 3);
		int j = b & 7, sh = 2 * (j & 3);
		const uint8_t *qs = sb + 16 + 32 * (j >> 2);
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) w[i] = (ld32a(qs + 4 * i) >> sh) & 0x03030303u;
		MMQ_UNROLL
		for (int h = 0; h < 2; h++) c[h] = sb[2 * j + h] & 15, e[h] = sb[2 * j + h] >> 4;
		break;
	}
	case T_Q3_K: {
		const uint8_t *sb = row + 110 * (b >> 3);
		int j = b & 7, sh = 2 * (j & 3);
		const uint8_t *qs = sb + 32 + 32 * (j >> 2);
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) {
			uint32_t v = ((ld32h(qs + 4 * i) >> sh) & 0x03030303u) | (((ld32h(sb + 4 * i) >> j) & 0x01010101u) << 2);
			w[i] = ((v | 0x80808080u) - 0x04040404u) ^ 0x80808080u;
		}
		MMQ_UNROLL
		for (int h = 0; h < 2; h++) c[h] = q3k_scale(sb + 96, 2 * j + h);
		break;
	}
	case T_TQ2_0: {
		const uint8_t *qs = row + 66 * (b >> 3) + 32 * ((b & 7) >> 2);
		int sh = 2 * (b & 3);
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) {
			uint32_t v = (ld32h(qs + 4 * i) >> sh) & 0x03030303u;
			w[i] = ((v | 0x80808080u) - 0x01010101u) ^ 0x80808080u;
		}
		break;
	}
	case T_TQ1_0: {
		const uint8_t *sb = row + 54 * (b >> 3);
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) w[i] = tq1_word(sb, b & 7, i);
		break;
	}
	case T_IQ2_XXS: {
		const uint8_t *q = row + 66 * (b >> 3) + 2 + 8 * (b & 7);
		uint32_t aux = ld32h(q + 4);
		MMQ_UNROLL
		for (int r = 0; r < 4; r++) {
			uint64_t g = iq2xxs_grid[q[r]];
			uint32_t s = ksigns_iq2xs[(aux >> (7 * r)) & 127];
			w[2 * r] = sign4((uint32_t)g, s), w[2 * r + 1] = sign4((uint32_t)(g >> 32), s >> 4);
		}
		c[0] = c[1] = 2 * (int)(aux >> 28) + 1;
		break;
	}
	case T_IQ2_XS: case T_IQ2_S: {
		int j = b & 7;
		const uint8_t *sb = row + (t == T_IQ2_XS ? 74 : 82) * (b >> 3);
		int sc = sb[(t == T_IQ2_XS ? 66 : 74) + j];
		MMQ_UNROLL
		for (int r = 0; r < 4; r++) {
			uint64_t g;
			uint32_t s;
			if (t == T_IQ2_XS) {
				int q = ld16h(sb + 2 + 8 * j + 2 * r);
				g = iq2xs_grid[q & 511], s = ksigns_iq2xs[q >> 9];
			} else {
				g = iq2s_grid[iq2s_index(sb, j, r)], s = sb[34 + 4 * j + r];
			}
			w[2 * r] = sign4((uint32_t)g, s), w[2 * r + 1] = sign4((uint32_t)(g >> 32), s >> 4);
		}
		MMQ_UNROLL
		for (int h = 0; h < 2; h++) c[h] = 2 * ((sc >> (4 * h)) & 15) + 1;
		break;
	}
	case T_IQ3_XXS: case T_IQ3_S: {
		int j = b & 7;
		const uint8_t *sb = row + (t == T_IQ3_XXS ? 98 : 110) * (b >> 3);
		uint32_t sg, ls;
		if (t == T_IQ3_XXS) {
			uint32_t aux = ld32h(sb + 66 + 4 * j);
			sg = 0;
			MMQ_UNROLL
			for (int r = 0; r < 4; r++) sg |= (uint32_t)ksigns_iq2xs[(aux >> (7 * r)) & 127] << (8 * r);
			ls = aux >> 28;
		} else {
			sg = ld32h(sb + 74 + 4 * j);
			ls = (sb[106 + (j >> 1)] >> (4 * (j & 1))) & 15;
		}
		MMQ_UNROLL
		for (int i = 0; i < 8; i++) {
			uint32_t g = t == T_IQ3_XXS ? iq3xxs_grid[sb[2 + 8 * j + i]] : iq3s_grid[iq3s_index(sb, j, i)];
			w[i] = sign4(g, sg >> (4 * i));
		}
		c[0] = c[1] = 2 * (int)ls + 1;
		break;
	}
	case T_IQ1_S: case T_IQ1_M: {
		int j = b & 7;
		const uint8_t *sb = row + (t == T_IQ1_S ? 50 : 56) * (b >> 3);
		int qh = t == T_IQ1_S ? ld16h(sb + 34 + 2 * j) : 0;
		MMQ_UNROLL
		for (int r = 0; r < 4; r++) {
			int idx, ls, neg;
			if (t == T_IQ1_S) {
				idx = sb[2 + 4 * j + r] | (((qh >> (3 * r)) & 7) << 8), ls = 2 * ((qh >> 12) & 7) + 1, neg = qh >> 15;
			} else {
				int h = sb[32 + 2 * j + (r >> 1)] >> (4 * (r & 1));
				idx = sb[4 * j + r] | ((h & 7) << 8), neg = (h >> 3) & 1;
				ls = 2 * ((ld16h(sb + 48 + 2 * (j >> 1)) >> (6 * (j & 1) + 3 * (r >> 1))) & 7) + 1;
			}
			uint64_t g = iq1s_grid[idx];
			w[2 * r] = iq1_word((uint32_t)g, neg ? -1 : 1), w[2 * r + 1] = iq1_word((uint32_t)(g >> 32), neg ? -1 : 1);
			c[r >> 1] = ls;
		}
		break;
	}
	}
}

// mmq_chunk_terms is the row's side of chunk b's float terms, which
// mvq_term reads from the row's block each time: the values (f, k) that
// mmq_term combines with the tokens' scales in mvq_term's operations and
// order, so that a block decodes a row's scales once per step, not once
// per token. f holds scales (f16 widened, or a product of them that
// mvq_term forms from the row alone), k small integers (Q4_K/Q5_K: the
// sub-block's scale and min; Q6_K: its halves' int8 scales).
QFN void mmq_chunk_terms(int t, const uint8_t *row, int b, float *f, int *k) {
	f[0] = f[1] = 0.f, k[0] = k[1] = k[2] = k[3] = 0;
	switch (t) {
	case T_Q8_0: f[0] = h2f(ld16h(row + 34 * b)); break;
	case T_Q4_0: case T_IQ4_NL: f[0] = h2f(ld16h(row + 18 * b)); break;
	case T_Q5_0: f[0] = h2f(ld16h(row + 22 * b)); break;
	case T_Q4_1: case T_Q5_1: {
		const uint8_t *blk = row + (t == T_Q4_1 ? 20 : 24) * b;
		f[0] = h2f(ld16(blk)), f[1] = h2f(ld16(blk + 2));
		break;
	}
	case T_Q4_K: case T_Q5_K: {
		const uint8_t *sb = row + (t == T_Q4_K ? 144 : 176) * (b >> 3);
		f[0] = h2f(ld16(sb)), f[1] = h2f(ld16(sb + 2));
		k_scale_min(b & 7, sb + 4, &k[0], &k[1]);
		break;
	}
	case T_Q6_K: {
		const uint8_t *sb = row + 210 * (b >> 3);
		int j = b & 7;
		uint16_t sc = ld16h(sb + 192 + 8 * (j >> 2) + 2 * (j & 3));
		f[0] = h2f(ld16h(sb + 208)), k[0] = (int8_t)(sc & 255), k[1] = (int8_t)(sc >> 8);
		break;
	}
	case T_IQ4_XS: {
		const uint8_t *sb = row + 136 * (b >> 3);
		int j = b & 7, ls = (((sb[4 + j / 2] >> (4 * (j % 2))) & 15) | (((ld16(sb + 2) >> (2 * j)) & 3) << 4)) - 32;
		f[0] = qmul(h2f(ld16(sb)), (float)ls);
		break;
	}
	case T_Q2_K: {
		const uint8_t *sb = row + 84 * (b >> 3);
		f[0] = h2f(ld16(sb + 80)), f[1] = h2f(ld16(sb + 82));
		break;
	}
	case T_Q3_K: f[0] = h2f(ld16(row + 110 * (b >> 3) + 108)); break;
	case T_TQ2_0: f[0] = h2f(ld16(row + 66 * (b >> 3) + 64)); break;
	case T_TQ1_0: f[0] = h2f(ld16(row + 54 * (b >> 3) + 52)); break;
	case T_IQ3_S: f[0] = h2f(ld16(row + 110 * (b >> 3))); break;
	case T_IQ2_XXS: case T_IQ2_XS: case T_IQ2_S: case T_IQ3_XXS: case T_IQ1_S: case T_IQ1_M: {
		const uint8_t *sb = row + iq_bytes(t) * (b >> 3);
		float d = t == T_IQ1_M ? iq1m_d(sb) : h2f(ld16(sb));
		f[0] = qmul(d, t == T_IQ3_XXS ? 0.25f : 0.125f);
		break;
	}
	}
}

// mmq_term is mvq_term from the row's side (mmq_chunk_terms: f and k
// for the step's chunks, 2 floats and 4 bytes each) and the tokens' (xd,
// xs for the step's chunks): piece pl of the step, the same operations in
// the same order, so the same bits.
QFN void mmq_term(int t, const float *f, const uint32_t *k, const float *xd, const float *xs, int pl, int A, int B,
                  float *acc, float *accm) {
	int ch = pl * mmq_cpp(t);
	float f0 = f[2 * ch], f1 = f[2 * ch + 1];
	switch (t) {
	case T_Q4_0:
		*acc += qmul(f0, qmul(xd[ch], (float)A) - qmul(8.f, xs[ch]));
		break;
	case T_Q5_0: case T_Q4_1: case T_Q5_1:
		*acc += qmul(qmul(f0, xd[ch]), (float)A);
		*accm += qmul(t == T_Q5_0 ? f0 : f1, xs[ch]);
		break;
	case T_Q4_K: case T_Q5_K: {
		float sc0 = (float)(k[ch] & 0xff), m0 = (float)((k[ch] >> 8) & 0xff);
		float sc1 = (float)(k[ch + 1] & 0xff), m1 = (float)((k[ch + 1] >> 8) & 0xff);
		*acc += qmul(f0, qmul(qmul(sc0, xd[ch]), (float)A) + qmul(qmul(sc1, xd[ch + 1]), (float)B));
		*accm += qmul(f1, qmul(m0, xs[ch]) + qmul(m1, xs[ch + 1]));
		break;
	}
	case T_Q2_K:
		*acc += qmul(xd[ch], qmul(f0, (float)A) - qmul(f1, (float)B));
		break;
	case T_Q6_K:
		*acc += qmul(qmul(f0, xd[ch]), qmul((float)(int8_t)(k[ch] & 0xff), (float)A) + qmul((float)(int8_t)((k[ch] >> 8) & 0xff), (float)B));
		break;
	default: // (d or d·c)·xd·A: Q8_0, IQ4_NL, IQ4_XS, Q3_K, the TQ and IQ types
		*acc += qmul(qmul(f0, xd[ch]), (float)A);
		break;
	}
}

// mmq_isum is piece p's sums A and B as the tile kernel forms them from
// mmq_chunk's words (dp4a standing in for the tensor cores): mvq_isum's,
// added over the piece's lanes, exactly.
QFN void mmq_isum(int t, const uint8_t *row, const int8_t *xq, int p, int *A, int *B) {
	int s[2] = {0, 0};
	for (int u = 0; u < mmq_cpp(t); u++) {
		int b = p * mmq_cpp(t) + u, c[2], e[2];
		uint32_t w[8], x[8];
		mmq_chunk(t, row, b, w, c, e);
		for (int i = 0; i < 8; i++) x[i] = ld32((const uint8_t *)xq + 32 * b + 4 * i);
		for (int h = 0; h < 2; h++) {
			int S = 0, X = 0;
			for (int i = 4 * h; i < 4 * h + 4; i++) S = dp4a(w[i], x[i], S), X = dp4a(0x01010101u, x[i], X);
			s[mmq_target(t, u, h)] += c[h] * S;
			s[1] += e[h] * X;
		}
	}
	*A = s[0], *B = s[1];
}

// ---- the fragments of mma.sync m16n8k32 and m16n8k16 (.s8, row.col) ----
//
// PTX ISA, "Matrix Fragments for mma.m16n8k32" and "… m16n8k16" with .s8:
// with g = lane>>2 and q = lane&3, register r of A (16 rows × K, row
// major) holds the 4 bytes of row g + 8(r&1) at k = 4q + 16(r>>1) …+3
// (k32: 4 registers, k16: 2); register r of B (K × 8, column major) the 4
// bytes of column g at k = 4q + 16r …+3 (k32: 2, k16: 1); element i of C
// and D (16 × 8 int32, 4 registers) is row g + 8(i>>1), column 2q + (i&1).
QFN int mma_a_row(int lane, int r) { return (lane >> 2) + 8 * (r & 1); }
QFN int mma_a_k(int lane, int r) { return 4 * (lane & 3) + 16 * (r >> 1); }
QFN int mma_b_k(int lane, int r) { return 4 * (lane & 3) + 16 * r; }
QFN int mma_b_n(int lane) { return lane >> 2; }
QFN int mma_c_row(int lane, int i) { return (lane >> 2) + 8 * (i >> 1); }
QFN int mma_c_n(int lane, int i) { return 2 * (lane & 3) + (i & 1); }

// mma_s8_lanes is the host's mma: d[lane] += A·B over the K (32 or 16) of
// the 32 lanes' fragments a[lane], b[lane] as laid out above, exactly.
QFN void mma_s8_lanes(int K, const uint32_t (*a)[4], const uint32_t (*b)[2], int (*d)[4]) {
	int8_t A[16][32], B[32][8];
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < K / 8; r++)
			for (int j = 0; j < 4; j++) A[mma_a_row(lane, r)][mma_a_k(lane, r) + j] = (int8_t)(a[lane][r] >> (8 * j));
		for (int r = 0; r < K / 16; r++)
			for (int j = 0; j < 4; j++) B[mma_b_k(lane, r) + j][mma_b_n(lane)] = (int8_t)(b[lane][r] >> (8 * j));
	}
	for (int lane = 0; lane < 32; lane++) {
		for (int i = 0; i < 4; i++) {
			int s = 0;
			for (int k = 0; k < K; k++) s += (int)A[mma_c_row(lane, i)][k] * (int)B[k][mma_c_n(lane, i)];
			d[lane][i] += s;
		}
	}
}

// ---- a block's phases ----
//
// The kernel (mmq.cu) runs, per step k of MMQ_K weights: mmq_load_x (every
// thread: the tokens' codes and scales, asynchronously on the device),
// mmq_load_w (every thread: decode the rows' chunks into shared memory),
// a barrier, then per warp and per piece of the step mmq_frags, the mma
// and mmq_gather for each of the piece's products (mmq_subs of them), then
// mmq_terms; a barrier. After the last step, each lane writes its results
// (mmq_value). The host harness runs the same functions in the same order,
// a thread at a time between the barriers and the mma over a warp's 32
// lanes at once.

// mmq_cp16 and mmq_cp4 copy 16 and 4 bytes from global to shared memory:
// cp.async on the device (the copy overlaps mmq_load_w; mmq_wait ends
// it), a plain copy on the host.
#ifdef __CUDA_ARCH__
__device__ __forceinline__ void mmq_cp16(void *dst, const void *src) {
	unsigned s = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src));
}
__device__ __forceinline__ void mmq_cp4(void *dst, const void *src) {
	unsigned s = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(src));
}
__device__ __forceinline__ void mmq_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }
#else
QFN void mmq_cp16(void *dst, const void *src) { memcpy(dst, src, 16); }
QFN void mmq_cp4(void *dst, const void *src) { memcpy(dst, src, 4); }
QFN void mmq_wait(void) {}
#endif

// mmq_load_x is thread tid's share of step k's activations: tokens t0… of
// xq (n rows of cols codes), xd and xs (n rows of nb = cols/32); tokens
// past n and chunks past nb are zeros.
QFN void mmq_load_x(struct mmq_smem *sm, const int8_t *xq, const float *xd, const float *xs, int n, int cols, int t0,
                    int k, int tid) {
	int nb = cols >> 5;
	for (int i = tid; i < MMQ_N * 16; i += MMQ_THREADS) {
		int tl = i >> 4, s = i & 15, tok = t0 + tl, b = MMQ_CH * k + (s >> 1);
		uint32_t *dst = sm->x + (tl * MMQ_LD + 16 * s) / 4;
		if (tok < n && b < nb) {
			mmq_cp16(dst, xq + (size_t)tok * cols + MMQ_K * k + 16 * s);
		} else {
			dst[0] = dst[1] = dst[2] = dst[3] = 0;
		}
	}
	for (int i = tid; i < MMQ_N * MMQ_CH; i += MMQ_THREADS) {
		int tl = i >> 3, tok = t0 + tl, b = MMQ_CH * k + (i & 7);
		if (tok < n && b < nb) {
			mmq_cp4(sm->xd + i, xd + (size_t)tok * nb + b);
			mmq_cp4(sm->xs + i, xs + (size_t)tok * nb + b);
		} else {
			sm->xd[i] = sm->xs[i] = 0.f;
		}
	}
}

// mmq_load_w is thread tid's share of step k's weights: rows r0… of w
// (rows of rowBytes), each chunk decoded once (mmq_chunk) for all the
// tile's tokens; rows past `rows` and chunks past nb are zeros.
QFN void mmq_load_w(int t, struct mmq_smem *sm, const uint8_t *w, int rowBytes, int rows, int cols, int r0, int k,
                    int tid) {
	int nb = cols >> 5;
	// Unrolled: a thread's chunks are decoded with all their loads in
	// flight at once.
	MMQ_UNROLL
	for (int it = 0; it < MMQ_M * MMQ_CH / MMQ_THREADS; it++) {
		int i = tid + it * MMQ_THREADS, rl = i >> 3, ch = i & 7, b = MMQ_CH * k + ch, r = r0 + rl;
		uint32_t wd[8];
		int c[2] = {0, 0}, e[2] = {0, 0}, tk[4] = {0, 0, 0, 0};
		float tf[2] = {0.f, 0.f};
		if (r < rows && b < nb) {
			mmq_chunk(t, w + (size_t)r * rowBytes, b, wd, c, e);
			mmq_chunk_terms(t, w + (size_t)r * rowBytes, b, tf, tk);
		} else {
			MMQ_UNROLL
			for (int j = 0; j < 8; j++) wd[j] = 0;
		}
		sm->tf[2 * i] = tf[0], sm->tf[2 * i + 1] = tf[1];
		sm->tk[i] = (uint32_t)(tk[0] & 0xff) | (uint32_t)(tk[1] & 0xff) << 8 | (uint32_t)(tk[2] & 0xff) << 16 |
		            (uint32_t)(tk[3] & 0xff) << 24;
		uint32_t *dst = sm->w + (rl * MMQ_LD + 32 * ch) / 4;
		MMQ_UNROLL
		for (int j = 0; j < 8; j++) dst[j] = wd[j];
		sm->cm[i] = (uint32_t)(c[0] & 0xff) | (uint32_t)(c[1] & 0xff) << 8 | (uint32_t)(e[0] & 0xff) << 16 |
		            (uint32_t)(e[1] & 0xff) << 24;
	}
}

// mmq_subs is the products of one piece: its chunks (k32), or its one
// chunk's halves (k16). mmq_sub_k is product u's first weight in the step
// (of piece pl), mmq_sub_ch its chunk, mmq_sub_h its half (−1: both).
QFN int mmq_subs(int t) { return mmq_k16(t) ? 2 : mmq_cpp(t); }
QFN int mmq_sub_ch(int t, int pl, int u) { return mmq_k16(t) ? pl : pl * mmq_cpp(t) + u; }
QFN int mmq_sub_h(int t, int u) { return mmq_k16(t) ? u : -1; }
QFN int mmq_sub_k(int t, int pl, int u) { return 32 * mmq_sub_ch(t, pl, u) + (mmq_k16(t) ? 16 * u : 0); }

// mmq_frags loads lane `lane` of warp `warp`'s fragments of product u of
// piece pl: a[mf] of the warp's rows 32(warp&1) + 16mf…, b[nf] of its
// tokens 32(warp>>1) + 8nf… (registers past K's unused).
QFN void mmq_frags(int t, const struct mmq_smem *sm, int warp, int lane, int pl, int u, uint32_t (*a)[4],
                   uint32_t (*b)[2]) {
	int K = mmq_k16(t) ? 16 : 32, k0 = mmq_sub_k(t, pl, u);
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
	MMQ_UNROLL
	for (int mf = 0; mf < MMQ_MF; mf++)
		MMQ_UNROLL
		for (int r = 0; r < K / 8; r++)
			a[mf][r] = sm->w[((m0 + 16 * mf + mma_a_row(lane, r)) * MMQ_LD + k0 + mma_a_k(lane, r)) / 4];
	MMQ_UNROLL
	for (int nf = 0; nf < MMQ_NF; nf++)
		MMQ_UNROLL
		for (int r = 0; r < K / 16; r++)
			b[nf][r] = sm->x[((n0 + 8 * nf + mma_b_n(lane)) * MMQ_LD + k0 + mma_b_k(lane, r)) / 4];
}

// mmq_gather adds product u's sums S (the mma's D, per fragment) with
// their multipliers into the lane's A and B of piece pl.
QFN void mmq_gather(int t, const struct mmq_smem *sm, int warp, int lane, int pl, int u, int (*S)[MMQ_NF][4],
                    int (*A)[MMQ_NF][4], int (*B)[MMQ_NF][4]) {
	int ch = mmq_sub_ch(t, pl, u), h = mmq_sub_h(t, u), tg = mmq_target(t, u, h < 0 ? 0 : h);
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
	// Q2_K's mins meet the sums of the half's codes (B += e·Σxq).
	int X[MMQ_NF][2];
	MMQ_UNROLL
	for (int nf = 0; nf < MMQ_NF; nf++)
		MMQ_UNROLL
		for (int j = 0; j < 2; j++) {
			X[nf][j] = 0;
			if (t == T_Q2_K) {
				const uint32_t *x = sm->x + ((n0 + 8 * nf + mma_c_n(lane, j)) * MMQ_LD + 32 * ch + 16 * h) / 4;
				MMQ_UNROLL
				for (int i = 0; i < 4; i++) X[nf][j] = dp4a(0x01010101u, x[i], X[nf][j]);
			}
		}
	MMQ_UNROLL
	for (int mf = 0; mf < MMQ_MF; mf++)
		MMQ_UNROLL
		for (int i = 0; i < 4; i++) {
			uint32_t cm = sm->cm[(m0 + 16 * mf + mma_c_row(lane, i)) * MMQ_CH + ch];
			int c = (int)(int8_t)(cm >> (8 * (h < 0 ? 0 : h))), e = (int)(int8_t)(cm >> (16 + 8 * (h < 0 ? 0 : h)));
			MMQ_UNROLL
			for (int nf = 0; nf < MMQ_NF; nf++) {
				int v = c * S[mf][nf][i];
				if (tg) B[mf][nf][i] += v;
				else A[mf][nf][i] += v;
				if (t == T_Q2_K) B[mf][nf][i] += e * X[nf][i & 1];
			}
		}
}

// mmq_terms adds piece pl's float terms (mvq_term's, through mmq_term:
// the row's side and the tokens' from shared memory) to the lane's
// accumulators, for the rows and tokens inside the product.
QFN void mmq_terms(int t, const struct mmq_smem *sm, int rows, int cols, int n, int r0, int t0, int k, int warp,
                   int lane, int pl, int (*A)[MMQ_NF][4], int (*B)[MMQ_NF][4], float (*acc)[MMQ_NF][4],
                   float (*accm)[MMQ_NF][4]) {
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
	if (MMQ_CH * k + pl * mmq_cpp(t) >= (cols >> 5)) return; // past the row's end
	MMQ_UNROLL
	for (int mf = 0; mf < MMQ_MF; mf++)
		MMQ_UNROLL
		for (int i = 0; i < 4; i++) {
			int rl = m0 + 16 * mf + mma_c_row(lane, i);
			if (r0 + rl >= rows) continue;
			MMQ_UNROLL
			for (int nf = 0; nf < MMQ_NF; nf++) {
				int tl = n0 + 8 * nf + mma_c_n(lane, i);
				if (t0 + tl >= n) continue;
				mmq_term(t, sm->tf + 2 * MMQ_CH * rl, sm->tk + MMQ_CH * rl, sm->xd + MMQ_CH * tl, sm->xs + MMQ_CH * tl, pl,
				         A[mf][nf][i], B[mf][nf][i], &acc[mf][nf][i], &accm[mf][nf][i]);
			}
		}
}

// mmq_value is row r's result for one token, as mvq_rows writes it
// (beta 0 overwrites, beta 1 adds to the old value).
QFN float mmq_value(int t, float acc, float accm, float beta, float old) {
	float v = acc - qmul(mvq_minc(t), accm);
	return beta == 0.f ? v : v + beta * old;
}

#endif
