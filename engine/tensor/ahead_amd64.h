// Prefetching for the packed one-token (decode) kernels: pack_amd64.s,
// packk_amd64.s, packk5_amd64.s, packk6_amd64.s, packiq4xs_amd64.s,
// packlegacy_amd64.s, packk23_amd64.s.
//
// Decoding streams every weight once per token, and each thread reads a
// run of packed groups: one sequential stream, or two in the kernels that
// walk two groups at once. On the 2-vCPU Xeon VM (Sapphire Rapids class)
// the hardware prefetchers alone kept too few of those misses in flight: streaming four 72 MiB packed Q4_0 matrices through
// MatVec at two threads, ten alternated rounds, ran 22.8–23.2 GB/s
// without software prefetch, 26.4 with PREFETCHT0 and 26.9–27.7 with
// PREFETCHT1 2 KiB ahead (27.6–29.2 at 4 KiB, less at 1 KiB); one thread
// 11.9–12.1 against 14.2–14.4. In the model 4 KiB was no better: 3B Q4_K_M
// decode 10.8–11.8 tok/s against 11.6–12.0 at 2 KiB, 1B Q4_0 38.3–40.7
// against 36.5–38.3 (three alternated runs). PREFETCHT1 fills L2 only, so the
// prefetches do not take the L1 fill buffers the kernel's own loads need.
// One prefetch per 64-byte line the loop consumes. On the 2-vCPU EPYC
// VM of the earlier sessions PREFETCHT0 had measured no gain for the packed
// Q4_0 kernel (pack_amd64.s); Zen 5 is to re-measure with this.
//
// AHEAD is the distance, PFL one line of it from the weights at SI, PFL2,
// PFL4 and PFL8 that many lines from off on. PFLB… are the same for the
// second group's weights at R11, where a decode kernel walks two groups
// at once.
#define AHEAD 2048
#define PFL(off) PREFETCHT1 AHEAD+off(SI)
#define PFL2(off) PFL(off); PFL(off+64)
#define PFL4(off) PFL2(off); PFL2(off+128)
#define PFL8(off) PFL4(off); PFL4(off+256)
#define PFLB(off) PREFETCHT1 AHEAD+off(R11)
#define PFLB2(off) PFLB(off); PFLB(off+64)
#define PFLB4(off) PFLB2(off); PFLB2(off+128)
#define PFLB8(off) PFLB4(off); PFLB4(off+256)

// PFD… are PFL… at DX bytes ahead instead of AHEAD, for the AVX2 packed
// kernels that read a group in two passes of eight rows (pack_amd64.s,
// packtq_avx2_amd64.s): from memory in the first, from cache in the
// second. PFDPASS sets DX for the pass: AHEAD in the first (half zero),
// the group's bytes (gbytes, a register) in the second, whose prefetches
// so fetch the next group while it computes. With AHEAD in both, the
// memory idled through every second pass (docs/performance.md).
#define PFD(off) PREFETCHT1 off(SI)(DX*1)
#define PFD2(off) PFD(off); PFD(off+64)
#define PFD4(off) PFD2(off); PFD2(off+128)
#define PFD8(off) PFD4(off); PFD4(off+256)
#define PFDPASS(half, gbytes) \
	MOVQ    $AHEAD, DX; \
	TESTQ   half, half; \
	CMOVQNE gbytes, DX
