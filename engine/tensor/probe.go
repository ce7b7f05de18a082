package tensor

import (
	"fmt"
	"time"
	"unsafe"
)

func triadGo(a, b, c []float32, s float32) {
	b, c = b[:len(a)], c[:len(a)]
	for i := range a {
		a[i] = b[i] + s*c[i]
	}
}

func sumGo(a []float32) float32 {
	var s0, s1, s2, s3 float32
	for i := 0; i+4 <= len(a); i += 4 {
		s0 += a[i]
		s1 += a[i+1]
		s2 += a[i+2]
		s3 += a[i+3]
	}
	return (s0 + s1) + (s2 + s3)
}

// Bandwidth is what a memory-bandwidth probe measured, in bytes per second.
type Bandwidth struct {
	// Triad is STREAM's triad a = b + s·c over three arrays, 12 bytes counted
	// per element (write-allocate traffic is not counted; the stores are
	// non-temporal where the CPU allows).
	Triad float64
	// Read is a read-only sum over one array: the access pattern of a
	// matrix×vector product streaming its weights.
	Read float64
}

// probeChunk is the number of floats a probe task handles per index: 64 KiB.
const probeChunk = 16384

// ProbeBandwidth measures memory bandwidth on all of pool's threads (even
// while the pool runs its steps solo) with arrays of size bytes each (use
// several times the last-level cache), repeating each kernel for at least
// d and keeping the best pass, as STREAM reports.
func ProbeBandwidth(pool *Pool, size int, d time.Duration) (Bandwidth, error) {
	n := size / 4 / probeChunk * probeChunk
	if n == 0 {
		return Bandwidth{}, fmt.Errorf("tensor: bandwidth probe size %d is below %d bytes", size, 4*probeChunk)
	}
	a, b, c := alignedF32(n), alignedF32(n), alignedF32(n)
	for i := range b {
		b[i], c[i] = 1, 2
	}
	tt := &triadTask{a: a, b: b, c: c, s: 0.5}
	st := &sumTask{a: b, sums: make([]float32, n/probeChunk)}
	// Fresh memory streams slowly for its first passes in a VM (the host
	// maps it lazily), so warm up before timing.
	for range 3 {
		pool.runParallel(n/probeChunk, tt)
		pool.runParallel(n/probeChunk, st)
	}
	return Bandwidth{
		Triad: best(func() { pool.runParallel(n/probeChunk, tt) }, float64(12*n), d),
		Read:  best(func() { pool.runParallel(n/probeChunk, st) }, float64(4*n), d),
	}, nil
}

// best runs f until d has passed (at least 3 times) and returns the highest
// bytes/second of any single run.
func best(f func(), bytes float64, d time.Duration) float64 {
	var top float64
	start := time.Now()
	for i := 0; i < 3 || time.Since(start) < d; i++ {
		t0 := time.Now()
		f()
		if bw := bytes / time.Since(t0).Seconds(); bw > top {
			top = bw
		}
	}
	return top
}

// alignedF32 returns n float32s starting on a 64-byte boundary, as the
// non-temporal stores of the triad require 32.
func alignedF32(n int) []float32 {
	buf := make([]float32, n+16)
	off := int(uintptr(unsafe.Pointer(&buf[0]))%64) / 4
	if off != 0 {
		off = 16 - off
	}
	return buf[off : off+n]
}

type triadTask struct {
	a, b, c []float32
	s       float32
}

func (t *triadTask) Run(lo, hi int) {
	lo, hi = lo*probeChunk, hi*probeChunk
	triad(t.a[lo:hi], t.b[lo:hi], t.c[lo:hi], t.s)
}

type sumTask struct {
	a    []float32
	sums []float32
}

func (t *sumTask) Run(lo, hi int) {
	for j := lo; j < hi; j++ {
		t.sums[j] = sum(t.a[j*probeChunk : (j+1)*probeChunk])
	}
}
