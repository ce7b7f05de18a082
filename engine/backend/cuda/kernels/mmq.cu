// mmq.cu — the products of many activation rows (a prefill step, a batch
// of decoding sequences) on the tensor cores' 8-bit integer products: W
// (rows × cols, a GGUF type of dp4aType's) times n rows of activations
// quantised by quant_q8 (int8 codes per 32, float scale and sum), with the
// decode kernels' exact integer sums and float terms (quant.cuh's mvq_*;
// mmq.cuh says how the sums are formed and checked on the host).
//
// Tiles. A block of 128 threads (4 warps) computes 64 weight rows × 64
// tokens, stepping along the row 256 weights at a time (8 chunks of 32:
// one super-block of the K-quants and IQ types, 8 blocks of the others,
// so that every type's step is whole blocks, scales included). Each
// step, the block
//   1. starts an asynchronous copy (cp.async, sm_80) of the 64 tokens'
//      256 codes and their 8 scales and sums into shared memory;
//   2. meanwhile decodes the 64 rows' 8 chunks into int8 weights in shared
//      memory, once for all 64 tokens (the float kernel, mm_, decodes
//      every weight once per 8 tokens, a float at a time), with each
//      chunk's integer multipliers and the row's side of its float terms
//      (mmq_chunk_terms: its scales, widened once);
//   3. waits for the copy, meets at a barrier, and each warp (32 rows × 32
//      tokens: 2 × 4 fragments) runs per piece of the step its mma.sync
//      products (m16n8k32, or m16n8k16 per half of 16 where the halves
//      have their own scales), adds their integer sums with the halves'
//      multipliers into the piece's A and B, and the piece's float terms
//      (mmq_term: mvq_term's operations on the staged scales) into its
//      accumulators;
//   4. meets at a barrier before the next step overwrites the tiles.
// After the last step each lane writes its 32 results (acc − c·accm,
// beta and the epilogue as mvq_rows's).
//
// Why these sizes: 64 tokens is the most whose codes fit beside the
// weights; the decode of a weight, the costly part of the float kernel, is
// spread over 64 tokens; 64 rows make the tile's weights (17 KiB decoded)
// and tokens (17 KiB) square, so that a block's 512 mma products a step
// read 34 KiB of shared memory. Shared memory, static: weights 64 × 272
// bytes (256 + 16 so that a fragment's 8 rows × 4 words fall in 32 banks),
// codes 64 × 272, the rows' multipliers 2 KiB and term values 6 KiB, the
// tokens' scales and sums 4 KiB: 46 KiB a block (47104 bytes), under the
// 48 KiB that needs no opt-in; four blocks an SM on an H100 (228 KiB) by
// shared memory, three or four by registers (ptxas 11.8, sm_90: 116–128
// registers, 165 for Q6_K, 168 for Q4_K/Q5_K under their launch bounds,
// no spills; see MMQ).
//
// Untuned without a GPU: the tile shape (64 × 64; 128 × 64 or 256 threads
// may do better on an H100), the missing double buffer (a second code tile
// would take the block to 63 KiB and an opt-in; here only the codes' copy
// overlaps the weights' decode, and other blocks on the SM hide the rest),
// how many chunks a thread decodes with its loads in flight (its four at
// once now), ldmatrix instead of 32-bit fragment loads, the float
// epilogue's cost per (row, token, piece) against the mma's, and the
// grid's order (x: token tiles, y: row tiles, so that the blocks of one
// row tile run together and read its weights from DRAM once).
#include "quant.cuh"
#include "mmq.cuh"

// mmq_step is one warp's work of step k once the tiles are in shared
// memory: every piece's products, their sums and their float terms.
template <int T>
__device__ __forceinline__ void mmq_step(const struct mmq_smem *sm, int rows, int cols, int n, int r0, int t0, int k,
                                         int warp, int lane,
                                         float (*acc)[MMQ_NF][4], float (*accm)[MMQ_NF][4]) {
	const int pieces = MMQ_CH / mmq_cpp(T), K = mmq_k16(T) ? 16 : 32;
#pragma unroll 1
	for (int pl = 0; pl < pieces; pl++) {
		int A[MMQ_MF][MMQ_NF][4], B[MMQ_MF][MMQ_NF][4];
#pragma unroll
		for (int mf = 0; mf < MMQ_MF; mf++)
#pragma unroll
			for (int nf = 0; nf < MMQ_NF; nf++)
#pragma unroll
				for (int i = 0; i < 4; i++) A[mf][nf][i] = B[mf][nf][i] = 0;
		// Not unrolled: the two products' fragments live one after the
		// other (unrolled, ptxas spilled mmq_q4_k and mmq_q5_k at 168
		// registers on sm_90).
#pragma unroll 1
		for (int u = 0; u < mmq_subs(T); u++) {
			uint32_t a[MMQ_MF][4], b[MMQ_NF][2];
			int S[MMQ_MF][MMQ_NF][4];
			mmq_frags(T, sm, warp, lane, pl, u, a, b);
#pragma unroll
			for (int mf = 0; mf < MMQ_MF; mf++)
#pragma unroll
				for (int nf = 0; nf < MMQ_NF; nf++) {
					int *d = S[mf][nf];
					d[0] = d[1] = d[2] = d[3] = 0;
					if (K == 32) {
						asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
						             "{%0,%1,%2,%3};"
						             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
						             : "r"(a[mf][0]), "r"(a[mf][1]), "r"(a[mf][2]), "r"(a[mf][3]), "r"(b[nf][0]), "r"(b[nf][1]));
					} else {
						asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
						             "{%0,%1,%2,%3};"
						             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
						             : "r"(a[mf][0]), "r"(a[mf][1]), "r"(b[nf][0]));
					}
				}
			mmq_gather(T, sm, warp, lane, pl, u, S, A, B);
		}
		mmq_terms(T, sm, rows, cols, n, r0, t0, k, warp, lane, pl, A, B, acc, accm);
	}
}

// mmq_epi is mvq_rows's epilogue for one value v of the product at z[at]:
// a call, not inlined, so that the 32 values a lane writes do not each
// carry a copy of GELU's double-precision tanh (the module grew by 7 MB).
__device__ __noinline__ void mmq_epi(float *z, size_t at, float v, int epi) {
	if (epi == 1) z[at] = silu_mul(z[at], v);
	if (epi == 2) z[at] = gelu_mul(z[at], v);
	if (epi == 3) z[at] = z[at] + v;
}

// mmq_rows is the block's product: grid (ceil(n/64), ceil(rows/64)),
// 128 threads. y holds n rows of `rows` floats; beta and epi (with z, n
// rows of `rows` floats) as mvq_rows's.
template <int T>
__device__ __forceinline__ void mmq_rows(const uint8_t *__restrict__ w, int rowBytes, int rows, int cols,
                                         const int8_t *__restrict__ xq, const float *__restrict__ xd,
                                         const float *__restrict__ xs, float *__restrict__ y, int n, float beta,
                                         float *__restrict__ z, int epi) {
	__shared__ __align__(16) struct mmq_smem sm;
	int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
	int t0 = blockIdx.x * MMQ_N, r0 = blockIdx.y * MMQ_M;
	float acc[MMQ_MF][MMQ_NF][4], accm[MMQ_MF][MMQ_NF][4];
#pragma unroll
	for (int mf = 0; mf < MMQ_MF; mf++)
#pragma unroll
		for (int nf = 0; nf < MMQ_NF; nf++)
#pragma unroll
			for (int i = 0; i < 4; i++) acc[mf][nf][i] = accm[mf][nf][i] = 0.f;
	int steps = (cols + MMQ_K - 1) / MMQ_K;
	for (int k = 0; k < steps; k++) {
		mmq_load_x(&sm, xq, xd, xs, n, cols, t0, k, tid);
		asm volatile("cp.async.commit_group;" ::: "memory");
		mmq_load_w(T, &sm, w, rowBytes, rows, cols, r0, k, tid);
		mmq_wait();
		__syncthreads();
		mmq_step<T>(&sm, rows, cols, n, r0, t0, k, warp, lane, acc, accm);
		__syncthreads();
	}
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
#pragma unroll
	for (int mf = 0; mf < MMQ_MF; mf++)
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int r = r0 + m0 + 16 * mf + mma_c_row(lane, i);
			if (r >= rows) continue;
#pragma unroll
			for (int nf = 0; nf < MMQ_NF; nf++) {
				int tok = t0 + n0 + 8 * nf + mma_c_n(lane, i);
				if (tok >= n) continue;
				size_t at = (size_t)tok * rows + r;
				float v = mmq_value(T, acc[mf][nf][i], accm[mf][nf][i], beta, beta == 0.f ? 0.f : y[at]);
				y[at] = v;
				if (epi != 0) mmq_epi(z, at, v, epi);
			}
		}
}

// Kernels per type: mmq_<type>, grid (ceil(n/64), ceil(rows/64)), block
// 128 threads; the arguments are mvq_'s with n after y. MB is the blocks
// an SM should hold (__launch_bounds__'s minimum, a register cap of
// 65536 / (128·MB)): a block takes 47 KiB of shared memory, so an H100 or
// H200 (228 KiB) holds 4 if registers allow, which they do at ≤ 128 a
// thread (MB 4: Q4_1, Q5_0, Q5_1, Q2_K and IQ1_S were 129–157, 3 blocks),
// 3 at ≤ 168 (MB 3: Q4_K and Q5_K were 195, 2 blocks, 8 warps an SM to hide
// the weights' loads). ptxas 11.8 spills none at these caps, for sm_80 or
// sm_90; Q6_K (165) and the types under 128 keep their count (MB 1: no
// cap, as before). Untimed on a GPU.
#define MMQ_LB1 __launch_bounds__(MMQ_THREADS)
#define MMQ_LB3 __launch_bounds__(MMQ_THREADS, 3)
#define MMQ_LB4 __launch_bounds__(MMQ_THREADS, 4)
#define MMQ(name, T, MB)                                                                                          \
	extern "C" __global__ void MMQ_LB##MB                                                                        \
	    mmq_##name(const uint8_t *w, int rowBytes, int rows, int cols, const int8_t *xq, const float *xd,        \
	               const float *xs, float *y, int n, float beta, float *z, int epi) {                            \
		mmq_rows<T>(w, rowBytes, rows, cols, xq, xd, xs, y, n, beta, z, epi);                                    \
	}

MMQ(q8_0, T_Q8_0, 1)
MMQ(q4_0, T_Q4_0, 1)
MMQ(q5_0, T_Q5_0, 4)
MMQ(q4_k, T_Q4_K, 3)
MMQ(q5_k, T_Q5_K, 3)
MMQ(q6_k, T_Q6_K, 1)
MMQ(q4_1, T_Q4_1, 4)
MMQ(q5_1, T_Q5_1, 4)
MMQ(iq4_nl, T_IQ4_NL, 1)
MMQ(iq4_xs, T_IQ4_XS, 1)
MMQ(q2_k, T_Q2_K, 4)
MMQ(q3_k, T_Q3_K, 1)
MMQ(tq1_0, T_TQ1_0, 1)
MMQ(tq2_0, T_TQ2_0, 1)
MMQ(iq2_xxs, T_IQ2_XXS, 1)
MMQ(iq2_xs, T_IQ2_XS, 1)
MMQ(iq2_s, T_IQ2_S, 1)
MMQ(iq3_xxs, T_IQ3_XXS, 1)
MMQ(iq3_s, T_IQ3_S, 1)
MMQ(iq1_s, T_IQ1_S, 4)
MMQ(iq1_m, T_IQ1_M, 1)
