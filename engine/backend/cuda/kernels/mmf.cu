// mmf.cu — the products of many activation rows (a prefill step, a batch
// of decoding sequences) with F16 and BF16 weights on the tensor cores:
// W (rows × cols halves) times n rows of float32 activations, each split
// into two TF32 parts (mmf.cuh says why: the CPU multiplies the weights by
// the activations as they are, unrounded), two mma.sync m16n8k8 TF32
// products per fragment pair with float32 accumulation.
//
// Tiles. A block of 128 threads (4 warps) computes 64 weight rows × 64
// tokens, stepping along the row 64 weights at a time. Each step the
// block
//   1. starts an asynchronous copy (cp.async, sm_80) of the 64 rows' 64
//      weights into shared memory, where the rows are 16-byte aligned
//      (every matrix of an even width of 8), plain loads elsewhere;
//   2. meanwhile loads the 64 tokens' 64 activations (16-byte loads) and
//      splits each into hi and lo in shared memory, once for both warps
//      that read them;
//   3. waits for the copy, meets at a barrier, and each warp (32 rows × 32
//      tokens: 2 × 4 fragments) runs per 8 weights its 16 mma products,
//      each weight fragment widened once and met by 8 token fragments,
//      into the step's partial sums, which it then adds to its float
//      accumulators (mmf_flush);
//   4. meets at a barrier before the next step overwrites the tiles.
// After the last step each lane writes its 32 results (beta as mm_rows's).
//
// Why these sizes: the weights (9 KiB a step, each read from DRAM once per
// 64 tokens where mm_ reads them once per 8) and the split activations (34
// KiB) fit the 48 KiB of static shared memory (44032 bytes), so that four
// blocks share an H100 SM's 228 KiB, as they do its registers (ptxas
// 11.8: 120 registers on sm_90, 122 on sm_80, no spills). Untuned without a GPU: the tile
// shape, the missing double buffer, ldmatrix, splitting the activations in
// registers instead (half the shared memory, twice the splits), and the
// grid's order (x: token tiles, y: row tiles, as mmq_'s).
#include "quant.cuh"
#include "mmf.cuh"

// mmf_step is one warp's products of the step in shared memory, summed by
// the tensor cores into part (zeros at the start of the step).
template <int T>
__device__ __forceinline__ void mmf_step(const struct mmf_smem *sm, int warp, int lane, float (*part)[MMF_NF][4]) {
#pragma unroll 2
	for (int kk = 0; kk < MMF_K; kk += 8) {
		float a[MMF_MF][4], bh[MMF_NF][2], bl[MMF_NF][2];
		mmf_frags(T, sm, warp, lane, kk, a, bh, bl);
#pragma unroll
		for (int mf = 0; mf < MMF_MF; mf++)
#pragma unroll
			for (int nf = 0; nf < MMF_NF; nf++) {
				float *d = part[mf][nf];
				const uint32_t *A = (const uint32_t *)a[mf];
#pragma unroll
				for (int p = 0; p < 2; p++) {
					const uint32_t *B = (const uint32_t *)(p == 0 ? bh[nf] : bl[nf]);
					asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
					    "{%0,%1,%2,%3};"
					    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
					    : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
				}
			}
	}
}

// mmf_rows is the block's product: grid (ceil(n/64), ceil(rows/64)), 128
// threads; the arguments are mm_rows's.
template <int T>
__device__ __forceinline__ void mmf_rows(const uint8_t *__restrict__ w, int rowBytes, int rows, int cols,
                                         const float *__restrict__ x, float *__restrict__ y, int n, float beta) {
	__shared__ __align__(16) struct mmf_smem sm;
	int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
	int t0 = blockIdx.x * MMF_N, r0 = blockIdx.y * MMF_M;
	int aligned = ((uintptr_t)w & 15) == 0 && (rowBytes & 15) == 0;
	int vec = ((uintptr_t)x & 15) == 0 && (cols & 3) == 0;
	float acc[MMF_MF][MMF_NF][4];
#pragma unroll
	for (int mf = 0; mf < MMF_MF; mf++)
#pragma unroll
		for (int nf = 0; nf < MMF_NF; nf++)
#pragma unroll
			for (int i = 0; i < 4; i++) acc[mf][nf][i] = 0.f;
	for (int k0 = 0; k0 < cols; k0 += MMF_K) {
		mmf_load_w(&sm, w, rowBytes, rows, cols, r0, k0, tid, aligned);
		mmf_commit();
		mmf_load_x(&sm, x, n, cols, t0, k0, tid, vec);
		mmf_wait();
		__syncthreads();
		float part[MMF_MF][MMF_NF][4];
#pragma unroll
		for (int mf = 0; mf < MMF_MF; mf++)
#pragma unroll
			for (int nf = 0; nf < MMF_NF; nf++)
#pragma unroll
				for (int i = 0; i < 4; i++) part[mf][nf][i] = 0.f;
		mmf_step<T>(&sm, warp, lane, part);
		mmf_flush(acc, part);
		__syncthreads();
	}
	int m0 = 32 * (warp & 1), n0 = 32 * (warp >> 1);
#pragma unroll
	for (int mf = 0; mf < MMF_MF; mf++)
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int r = r0 + m0 + 16 * mf + mmf_c_row(lane, i);
			if (r >= rows) continue;
#pragma unroll
			for (int nf = 0; nf < MMF_NF; nf++) {
				int tok = t0 + n0 + 8 * nf + mmf_c_n(lane, i);
				if (tok >= n) continue;
				size_t at = (size_t)tok * rows + r;
				y[at] = mmf_value(acc[mf][nf][i], beta, beta == 0.f ? 0.f : y[at]);
			}
		}
}

// Kernels per type: mmf_<type>, grid (ceil(n/64), ceil(rows/64)), block
// 128 threads; the arguments are mm_<type>'s.
#define MMF(name, T)                                                                                               \
	extern "C" __global__ void __launch_bounds__(MMF_THREADS)                                                     \
	    mmf_##name(const uint8_t *w, int rowBytes, int rows, int cols, const float *x, float *y, int n, float beta) { \
		mmf_rows<T>(w, rowBytes, rows, cols, x, y, n, beta);                                                      \
	}

MMF(f16, T_F16)
MMF(bf16, T_BF16)
