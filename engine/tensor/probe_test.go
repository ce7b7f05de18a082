package tensor

import (
	"testing"
	"time"
)

func TestProbeKernels(t *testing.T) {
	n := 4 * probeChunk
	a, b, c := alignedF32(n), alignedF32(n), alignedF32(n)
	for i := range b {
		b[i], c[i] = float32(i%7), float32(i%5)
	}
	triad(a, b, c, 0.5)
	for i := range a {
		if want := b[i] + 0.5*c[i]; a[i] != want {
			t.Fatalf("triad[%d] = %g, want %g", i, a[i], want)
		}
	}
	// Small integers sum exactly in float32 at this size.
	var want float32
	for _, v := range b[:probeChunk] {
		want += v
	}
	if got := sum(b[:probeChunk]); got != want {
		t.Fatalf("sum = %g, want %g", got, want)
	}
}

func TestProbeBandwidth(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	bw, err := ProbeBandwidth(p, 1<<20, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if bw.Triad <= 0 || bw.Read <= 0 {
		t.Fatalf("probe gave %+v", bw)
	}
	if _, err := ProbeBandwidth(p, 100, time.Millisecond); err == nil {
		t.Fatal("a probe smaller than one chunk must fail")
	}
}
