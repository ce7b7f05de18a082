package tensor

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks Linux to back the 2 MiB-aligned interior of b, which must
// not have been written yet, with transparent huge pages (MADV_HUGEPAGE:
// under the usual THP setting "madvise" nothing else gets them). The packed
// copies' arena (hugearena.go) calls it on each chunk before any copy is
// written into it. Decoding streams those
// copies once per token, and with 4 KiB pages every 4 KiB of weights costs
// a TLB miss and a page walk, which the prefetches of ahead_amd64.h cannot
// hide. Measured on the 2-vCPU Xeon VM, 1B shape, `isagi bench -p 16 -n 48`,
// two alternated runs each: decode Q4_0 35.8–36.9 → 40.8–41.6 tok/s, Q4_K_M
// 34.4–34.7 → 37.9–38.3, Q6_K 28.2–28.7 → 29.8–30.3; streaming four 72 MiB
// packed Q4_0 matrices, 23.1 → 28.9 GB/s at two threads. Load time
// (`isagi run -n 4`, three alternated runs): Q4_0 0.43–0.53 s either way,
// Q6_K 0.78–0.81 → 0.90–1.10 s, 8B Q4_K_M 5.0–9.8 → 5.2–7.5 s. The kernel
// may compact memory to find huge pages (THP defrag "madvise"), which is
// what the Q6_K load pays for; a kernel without THP ignores the advice.
func adviseHuge(b []byte) {
	const huge = 2 << 20
	if len(b) < huge {
		return
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	lo := int((p+huge-1)&^(huge-1) - p)
	hi := int((p+uintptr(len(b)))&^(huge-1) - p)
	if hi > lo {
		// Advice only: an error (no THP in this kernel) changes nothing.
		_ = syscall.Madvise(b[lo:hi], syscall.MADV_HUGEPAGE)
	}
}

// hugePages reports that adviseHuge can give memory huge pages here, so
// that copying a mapped matrix into such memory (Kernels.Pack) can pay.
const hugePages = true
