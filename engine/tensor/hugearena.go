package tensor

import (
	"sync"
	"unsafe"
	"weak"
)

// hugeArena places the packed copies of one Kernels' matrices (and its
// F16/BF16 copies, copyHuge) one after another in large chunks aligned to 2 MiB and advised into huge pages
// (adviseHuge), so that every packed byte can be in a huge page. A copy of
// its own gets huge pages only for its 2 MiB-aligned interior: its first
// and last partial 2 MiB stay in 4 KiB pages, and a matrix under 4 MiB
// may get none at all. On a 3B model that left 43 % of the packed bytes of
// a TQ2_0 file in 4 KiB pages (AnonHugePages 464 of 828 MB), whose TLB
// misses the decode kernels' prefetches cannot hide; measured on the
// 2-vCPU Xeon VM, `isagi bench -p 16 -n 128`, 3B TQ2_0, three alternated
// runs: decode 23.4–24.3 tok/s with copies of their own, 25.4–26.3 with
// every copy in huge pages; 1B Q4_K_M 1.18, 1.10, 1.06 and 1B F16 1.11,
// 1.05, 1.08 (`-n 64`, the same binary before and after, alternated).
//
// What it costs: a chunk lives while any matrix in it does, so the copies
// of a model packed after another on the same Kernels may keep up to one
// chunk of the first one's memory after it is closed; and the unused end
// of a chunk that a copy did not fit is left, at most 2 MiB of it resident
// (the huge page the last copy ended in). The arena itself holds its chunk
// weakly: a Kernels that outlives its model keeps none of the model's
// memory.
type hugeArena struct {
	mu sync.Mutex
	// The unused end of the newest chunk, bytes [off, size) of the chunk
	// at base, which the arena does not keep alive: the copies in it do.
	base      weak.Pointer[byte]
	off, size int
}

const (
	hugePageBytes  = 2 << 20
	hugeArenaChunk = 128 << 20
	hugeArenaAlign = 64 // each copy starts on a cache line
)

// alloc returns n zeroed bytes that no one else uses, in huge-page memory
// where the platform has it (a plain allocation elsewhere).
func (a *hugeArena) alloc(n int) []byte {
	if !hugePages || n <= 0 {
		return make([]byte, n)
	}
	need := (n + hugeArenaAlign - 1) &^ (hugeArenaAlign - 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if need <= a.size-a.off {
		if p := a.base.Value(); p != nil {
			b := unsafe.Slice(p, a.size)[a.off : a.off+n : a.off+n]
			a.off += need
			return b
		}
	}
	size := (max(need, hugeArenaChunk) + hugePageBytes - 1) &^ (hugePageBytes - 1)
	raw := make([]byte, size+hugePageBytes)
	off := (hugePageBytes - int(uintptr(unsafe.Pointer(&raw[0]))%hugePageBytes)) % hugePageBytes
	chunk := raw[off : off+size : off+size]
	adviseHuge(chunk) // before anything writes it
	// Whichever end has more room takes the next copies (a matrix larger
	// than a chunk does not strand the chunk before it), unless the old
	// chunk is gone.
	if size-need > a.size-a.off || a.base.Value() == nil {
		a.base, a.off, a.size = weak.Make(&chunk[0]), need, size
	}
	return chunk[:n:n]
}
