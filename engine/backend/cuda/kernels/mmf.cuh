// mmf.cuh — the arithmetic of the F16 and BF16 tile products on tensor
// cores (mmf.cu), written once for two compilers as mmq.cuh is: nvcc
// builds it into the mmf_ kernels, the host C compiler into engine/
// backend/cuda/internal/hostq, whose tests run whole launches block by
// block on the host against a float64 reference and the CPU engine.
//
// What the CPU computes. engine/tensor's F16 and BF16 products (dotF16Go,
// dotBF16Go and their AVX2/AVX-512 kernels) widen each weight exactly to
// float32 and multiply it by the float32 activation as it is: the
// activations are not rounded to float16 or bfloat16 (as ggml's F16
// products round them), nor to the 8-bit grid of the quantised products
// (the backend's productKernels.act is false for them, so quant_act never
// runs). Activations rounded to f16 (bf16) would put every term up to
// 2⁻¹¹ (2⁻⁸) of itself off the CPU's, where the float kernel's terms are
// the CPU's exactly and only their sums' order differs (the GPU
// conformance test measures 5e-5 of the largest logit between the two,
// against a tolerance of 1e-3 for float weights); f16 activations also
// overflow above 65504.
//
// So the activations are split, not rounded: x = hi + lo + ε with hi the
// TF32 value nearest x (11 significant bits, float32's exponent range)
// and lo the TF32 value nearest x − hi (computed exactly), so |ε| ≤
// 2⁻²²·|x|, at most twice float32's own rounding of x. The weights widen
// to TF32 exactly (f16's 11 significant bits and subnormals, bf16's 8, all
// inside TF32's range), and every product w·hi and w·lo is exact in
// float32 (at most 22 significant bits), so that the two mma.sync
// m16n8k8 TF32 products with float32 accumulation compute the CPU's sum up
// to its order (and the tensor cores' own rounding of the sum). TF32
// rather than f16 or bf16 operands: an f16 split overflows above 65504 and
// loses lo's bits to subnormals below 2⁻¹⁴ (a scale per token would be
// needed), a bf16 split keeps 16 bits of x, not 22.
#ifndef ISAGI_MMF_CUH
#define ISAGI_MMF_CUH

#ifndef ISAGI_QUANT_CUH
#include "quant.cuh"
#endif

#ifdef __CUDACC__
#define MMF_UNROLL _Pragma("unroll")
#else
#define MMF_UNROLL
#endif

// The tile: MMF_M weight rows × MMF_N tokens a block, MMF_K weights a
// step, four warps of 32 rows × 32 tokens (MMF_MF m16 fragments × MMF_NF
// n8 fragments). MMF_LDW is a weight row's stride in shared memory in
// halves (64 + 8: a fragment's 8 rows × 4 halves fall in 16 different
// banks, and a row stays 16-byte aligned for cp.async), MMF_LDX a token
// row's in floats (64 + 4: 8 tokens × 4 floats in 32 banks).
#define MMF_M 64
#define MMF_N 64
#define MMF_K 64
#define MMF_LDW 72
#define MMF_LDX 68
#define MMF_THREADS 128
#define MMF_MF 2
#define MMF_NF 4

// mmf_smem is a block's shared memory: the step's weights as stored (f16
// or bf16 bits) and the tokens' activations split into hi and lo: 9216 +
// 17408 + 17408 = 44032 bytes, under the 48 KiB of static shared memory.
struct mmf_smem {
	uint16_t w[MMF_M * MMF_LDW];
	float xh[MMF_N * MMF_LDX];
	float xl[MMF_N * MMF_LDX];
};

QFN uint32_t mmf_bits(float f) {
#ifdef __CUDA_ARCH__
	return __float_as_uint(f);
#else
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
#endif
}

// mmf_tf32 is the TF32 value nearest x (ties away from zero, as
// cvt.rna.tf32.f32), as a float whose low 13 bits are zero; a value that
// would round past the largest float is truncated instead, and NaN and
// ±Inf stay what they are. Integer operations, so that the host and the
// device split x bit for bit alike.
QFN float mmf_tf32(float x) {
	uint32_t u = mmf_bits(x);
	if ((u & 0x7f800000u) == 0x7f800000u) return x;
	uint32_t r = (u + 0x1000u) & 0xffffe000u;
	if ((r & 0x7f800000u) == 0x7f800000u) r = u & 0xffffe000u;
	return f32_bits(r);
}

// mmf_split writes x's hi and lo (lo is 0 where x is NaN or ±Inf, so
// that an infinite activation meets the weights as the CPU's does).
QFN void mmf_split(float x, float *hi, float *lo) {
	float h = mmf_tf32(x);
	*hi = h;
	*lo = (mmf_bits(x) & 0x7f800000u) == 0x7f800000u ? 0.f : mmf_tf32(x - h); // x − h is exact
}

// mmf_widen is a stored weight (f16 or bf16 bits) as float32, exactly.
QFN float mmf_widen(int t, uint16_t h) {
	if (t == T_BF16) return f32_bits((uint32_t)h << 16);
#ifdef __CUDA_ARCH__
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
#else
	return h2f(h);
#endif
}

// ---- the fragments of mma.sync m16n8k8 (.tf32, row.col, f32 C and D) ----
//
// PTX ISA, "Matrix Fragments for mma.m16n8k8" with .tf32: with g =
// lane>>2 and q = lane&3, register r of A (16 × 8, row major) holds
// element (g + 8(r&1), q + 4(r>>1)); register r of B (8 × 8, column
// major) element (k = q + 4r, n = g); element i of C and D (16 × 8
// floats) is (g + 8(i>>1), 2q + (i&1)).
QFN int mmf_a_row(int lane, int r) { return (lane >> 2) + 8 * (r & 1); }
QFN int mmf_a_k(int lane, int r) { return (lane & 3) + 4 * (r >> 1); }
QFN int mmf_b_k(int lane, int r) { return (lane & 3) + 4 * r; }
QFN int mmf_b_n(int lane) { return lane >> 2; }
QFN int mmf_c_row(int lane, int i) { return (lane >> 2) + 8 * (i >> 1); }
QFN int mmf_c_n(int lane, int i) { return 2 * (lane & 3) + (i & 1); }

// mmf_mma_lanes is the host's mma: d[lane] += A·B over the 32 lanes'
// fragments a[lane], b[lane] as laid out above, every product exact (the
// operands' significands are 11 bits at most), added in k's order in
// float32, rounded to nearest, or with rz toward zero (a model of the
// tensor cores' truncating sums, for the tests' error bounds); the tensor
// cores add them in an order (and with a rounding) of their own.
QFN void mmf_mma_lanes(const float (*a)[4], const float (*b)[2], float (*d)[4], int rz) {
	float A[16][8], B[8][8];
	for (int lane = 0; lane < 32; lane++) {
		for (int r = 0; r < 4; r++) A[mmf_a_row(lane, r)][mmf_a_k(lane, r)] = a[lane][r];
		for (int r = 0; r < 2; r++) B[mmf_b_k(lane, r)][mmf_b_n(lane)] = b[lane][r];
	}
	for (int lane = 0; lane < 32; lane++)
		for (int i = 0; i < 4; i++) {
			float s = d[lane][i];
			for (int k = 0; k < 8; k++) {
				float p = qmul(A[mmf_c_row(lane, i)][k], B[k][mmf_c_n(lane, i)]);
				if (!rz) {
					s += p;
					continue;
				}
				double e = (double)s + (double)p; // exact: both are floats of 24 bits
				float f = (float)e;
				if (fabs((double)f) > fabs(e)) f = nextafterf(f, 0.f);
				s = f;
			}
			d[lane][i] = s;
		}
}

// ---- a block's phases ----
//
// The kernel (mmf.cu) runs, per step k0 of MMF_K weights: mmf_load_w
// (every thread: the rows' weights, asynchronously on the device where
// aligned), mmf_load_x (every thread: the tokens' activations, split),
// a barrier, per warp and per 8 weights of the step mmf_frags and the
// mma of every fragment pair with hi, then with lo, into the step's
// partial sums (from zeros), which mmf_flush adds to the accumulators; a
// barrier. After the
// last step, the results (mmf_c_row, mmf_c_n). The host harness runs the
// same functions in the same order.

#ifdef __CUDA_ARCH__
__device__ __forceinline__ void mmf_cp16(void *dst, const void *src) {
	unsigned s = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src));
}
__device__ __forceinline__ void mmf_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void mmf_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ __forceinline__ void mmf_ld4(const float *p, float *v) {
	float4 f = *(const float4 *)p;
	v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
}
__device__ __forceinline__ void mmf_st4(float *p, const float *v) { *(float4 *)p = make_float4(v[0], v[1], v[2], v[3]); }
#else
QFN void mmf_cp16(void *dst, const void *src) { memcpy(dst, src, 16); }
QFN void mmf_commit(void) {}
QFN void mmf_wait(void) {}
QFN void mmf_ld4(const float *p, float *v) { memcpy(v, p, 16); }
QFN void mmf_st4(float *p, const float *v) { memcpy(p, v, 16); }
#endif

// mmf_load_w is thread tid's share of the step at k0: rows r0… of w (rows
// of rowBytes, cols weights), 8 weights (16 bytes) at a time, copied with
// cp.async where the row is 16-byte aligned (aligned) and the 8 lie inside
// it; rows past `rows` and weights past cols are zeros.
QFN void mmf_load_w(struct mmf_smem *sm, const uint8_t *w, int rowBytes, int rows, int cols, int r0, int k0, int tid,
                    int aligned) {
	MMF_UNROLL
	for (int it = 0; it < MMF_M * MMF_K / 8 / MMF_THREADS; it++) {
		int i = tid + it * MMF_THREADS, rl = i >> 3, c = 8 * (i & 7), r = r0 + rl, col = k0 + c;
		uint16_t *dst = sm->w + rl * MMF_LDW + c;
		const uint8_t *src = w + (size_t)r * rowBytes + 2 * (size_t)col;
		if (aligned && r < rows && col + 8 <= cols) {
			mmf_cp16(dst, src);
		} else {
			MMF_UNROLL
			for (int j = 0; j < 8; j++) dst[j] = r < rows && col + j < cols ? ld16(src + 2 * j) : 0;
		}
	}
}

// mmf_load_x is thread tid's share of the step's activations: tokens t0…
// of x (n rows of cols floats), split into hi and lo; four at a time with
// 16-byte loads where x and its rows are aligned (vec); tokens past n and
// columns past cols are zeros.
QFN void mmf_load_x(struct mmf_smem *sm, const float *x, int n, int cols, int t0, int k0, int tid, int vec) {
	MMF_UNROLL
	for (int it = 0; it < MMF_N * MMF_K / 4 / MMF_THREADS; it++) {
		int i = tid + it * MMF_THREADS, tl = i >> 4, c = 4 * (i & 15), tok = t0 + tl, col = k0 + c;
		const float *src = x + (size_t)tok * cols + col;
		float v[4] = {0.f, 0.f, 0.f, 0.f};
		if (tok < n) {
			if (vec && col + 4 <= cols) {
				mmf_ld4(src, v);
			} else {
				MMF_UNROLL
				for (int j = 0; j < 4; j++) v[j] = col + j < cols ? src[j] : 0.f;
			}
		}
		float h[4], l[4];
		MMF_UNROLL
		for (int j = 0; j < 4; j++) mmf_split(v[j], &h[j], &l[j]);
		// 16-byte stores: a token row's stride (68 floats) keeps them aligned.
		mmf_st4(sm->xh + tl * MMF_LDX + c, h);
		mmf_st4(sm->xl + tl * MMF_LDX + c, l);
	}
}

// mmf_frags loads lane `lane` of warp `warp`'s fragments of the 8 weights
// at kk of the step: a[mf] of the warp's rows 32(warp&1) + 16mf… widened,
// bh[nf] and bl[nf] of its tokens 32(warp>>1) + 8nf…, hi and lo.
QFN void mmf_frags(int t, const struct mmf_smem *sm, int warp, int lane, int kk, float (*a)[4], float (*bh)[2],
                   float (*bl)[2]) {
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
	MMF_UNROLL
	for (int mf = 0; mf < MMF_MF; mf++)
		MMF_UNROLL
		for (int r = 0; r < 4; r++)
			a[mf][r] = mmf_widen(t, sm->w[(m0 + 16 * mf + mmf_a_row(lane, r)) * MMF_LDW + kk + mmf_a_k(lane, r)]);
	MMF_UNROLL
	for (int nf = 0; nf < MMF_NF; nf++)
		MMF_UNROLL
		for (int r = 0; r < 2; r++) {
			int at = (n0 + 8 * nf + mmf_b_n(lane)) * MMF_LDX + kk + mmf_b_k(lane, r);
			bh[nf][r] = sm->xh[at], bl[nf][r] = sm->xl[at];
		}
}

// mmf_flush adds a step's partial sums (the tensor cores') to a lane's
// accumulators, in float32 with rounding to nearest. The tensor cores add
// the products of an mma and its C with an alignment and rounding of
// their own (truncating, on the parts measured so far): summed into one
// accumulator over a whole row (1024 mmas for 4096 columns) that error
// could grow with the accumulator, biased toward zero; a step's 16 mmas
// start from zeros instead, and only 64-weight partial sums meet the
// running total, as the float kernel's lanes' do.
QFN void mmf_flush(float (*acc)[MMF_NF][4], float (*part)[MMF_NF][4]) {
	MMF_UNROLL
	for (int mf = 0; mf < MMF_MF; mf++)
		MMF_UNROLL
		for (int nf = 0; nf < MMF_NF; nf++)
			MMF_UNROLL
			for (int i = 0; i < 4; i++) acc[mf][nf][i] += part[mf][nf][i];
}

// mmf_value is a result as mm_rows writes it (beta 0 overwrites, beta 1
// adds to the old value).
QFN float mmf_value(float acc, float beta, float old) { return beta == 0.f ? acc : acc + beta * old; }

#endif
