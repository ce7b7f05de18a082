package tensor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Matrices for the bandwidth benchmarks are ~128 MiB, four times this
// machine class's 32 MiB L3, so every call streams its weights from DRAM.
const benchBytes = 128 << 20

// BenchmarkBandwidth is the memory-bandwidth probe the matvec figures are
// compared against, run on the same worker pool and counted as STREAM does
// (see Bandwidth): triad is the reference; read is the read-only stream.
func BenchmarkBandwidth(b *testing.B) {
	n := benchBytes / 4 / probeChunk * probeChunk
	a, x, y := alignedF32(n), alignedF32(n), alignedF32(n)
	for i := range x {
		a[i], x[i], y[i] = 0, 1, 2 // touch every page before timing
	}
	p := NewPool(0)
	defer p.Close()
	b.Run("triad", func(b *testing.B) {
		t := &triadTask{a: a, b: x, c: y, s: 0.5}
		b.SetBytes(int64(12 * n))
		for b.Loop() {
			p.Run(n/probeChunk, t)
		}
	})
	b.Run("read", func(b *testing.B) {
		t := &sumTask{a: x, sums: make([]float32, n/probeChunk)}
		b.SetBytes(int64(4 * n))
		for b.Loop() {
			p.Run(n/probeChunk, t)
		}
	})
}

// BenchmarkMatVec streams a weight matrix of each type through MatVec and
// reports GB/s of weight bytes read (b.SetBytes), the figure the bandwidth
// probe is measured against.
func BenchmarkMatVec(b *testing.B) {
	const cols = 4096
	for _, typ := range kernelTypes {
		rb, _ := typ.RowBytes(cols)
		rows := benchBytes / int(rb)
		rng := rand.New(rand.NewPCG(2, uint64(typ)))
		w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
		if err != nil {
			b.Fatal(err)
		}
		x := randomVec(rng, cols)
		y := make([]float32, rows)
		for _, path := range []bool{true, false} {
			k := newKernels(nil, path)
			b.Run(fmt.Sprintf("%s/%s", typ, k.Path()), func(b *testing.B) {
				b.SetBytes(int64(len(w.Data)))
				for b.Loop() {
					k.MatVec(y, w, x)
				}
			})
			k.Close()
			if k.Path() == "go" {
				break
			}
		}
	}
}

// BenchmarkMatMul is prefill: 64 tokens through a 4096×4096 matrix. It
// reports weight bytes per second too, so the gain over 64 MatVecs shows as a
// figure above the bandwidth probe.
func BenchmarkMatMul(b *testing.B) {
	const rows, cols, n = 4096, 4096, 64
	k := NewKernels(nil)
	defer k.Close()
	for _, typ := range kernelTypes {
		rng := rand.New(rand.NewPCG(3, uint64(typ)))
		w, _ := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
		x := randomVec(rng, n*cols)
		y := make([]float32, n*rows)
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(n * len(w.Data)))
			for b.Loop() {
				k.MatMul(y, w, x, n)
			}
		})
	}
}

// BenchmarkMatVecVsTriad is the figure the kernels are judged by: each
// iteration times one triad pass and one matvec pass back to back, and the
// benchmark reports the median of their bandwidth ratios. Pairing matters on
// shared machines, where bandwidth drifts by 1.5× between consecutive
// benchmarks but rarely within a few milliseconds. Every buffer gets warm-up
// passes first, because first passes over fresh memory run slow in a VM.
// Run with -benchtime=Nx (N pairs).
func BenchmarkMatVecVsTriad(b *testing.B) {
	const cols = 4096
	n := benchBytes / 4 / probeChunk * probeChunk
	pa, pb, pc := alignedF32(n), alignedF32(n), alignedF32(n)
	for i := range pa {
		pa[i], pb[i], pc[i] = 0, 1, 2
	}
	k := NewKernels(nil)
	defer k.Close()
	probe := &triadTask{a: pa, b: pb, c: pc, s: 0.5}
	for _, typ := range kernelTypes {
		rb, _ := typ.RowBytes(cols)
		rows := benchBytes / int(rb)
		rng := rand.New(rand.NewPCG(4, uint64(typ)))
		w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
		if err != nil {
			b.Fatal(err)
		}
		x := randomVec(rng, cols)
		y := make([]float32, rows)
		b.Run(typ.String(), func(b *testing.B) {
			for range 5 {
				k.MatVec(y, w, x)
				k.pool.Run(n/probeChunk, probe)
			}
			var ratios, gbs, tri []float64
			for b.Loop() {
				t0 := time.Now()
				k.pool.Run(n/probeChunk, probe)
				t1 := time.Now()
				k.MatVec(y, w, x)
				t2 := time.Now()
				pbw := float64(12*n) / t1.Sub(t0).Seconds()
				mbw := float64(len(w.Data)) / t2.Sub(t1).Seconds()
				ratios = append(ratios, mbw/pbw)
				gbs = append(gbs, mbw/1e9)
				tri = append(tri, pbw/1e9)
			}
			b.ReportMetric(median(ratios), "ratio")
			b.ReportMetric(median(gbs), "GB/s")
			b.ReportMetric(median(tri), "triad-GB/s")
		})
	}
}

// BenchmarkMatVecPacked is decode as the CPU backend runs it: four
// Llama-1B-wide matrices of 128 MiB (2048 columns), packed where the type
// has packed kernels and advised into huge pages as the backend's are
// (Kernels.Pack), each streamed once per iteration through MatVec on every
// thread. "MB/s" counts the bytes the kernels read; the bandwidth probe
// (BenchmarkBandwidth) is what to hold it against. 512 MiB in all, so that
// a pass is not served from a large last-level cache (the Xeon VM reports
// 480 MiB).
func BenchmarkMatVecPacked(b *testing.B) {
	const cols, mats = 2048, 4
	k := NewKernels(nil)
	defer k.Close()
	for _, typ := range []Type{Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS, IQ2_XXS, IQ2_XS, IQ2_S, F16, BF16, IQ3_XXS, IQ3_S} {
		// The matrices are made inside the sub-benchmark, so that a -bench
		// filter naming one type builds that type's 512 MiB only.
		b.Run(fmt.Sprintf("%s/packed=%v", typ, k.prows[typ] != nil), func(b *testing.B) {
			rb, _ := typ.RowBytes(cols)
			rows := benchBytes / int(rb) / packRows * packRows
			ms := make([]*Matrix, mats)
			bytes := 0
			for i := range ms {
				rng := rand.New(rand.NewPCG(uint64(i), uint64(typ)))
				w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
				if err != nil {
					b.Fatal(err)
				}
				w.SetEvict(func([]byte) {}) // as for a mapped file: F16 and BF16 are copied too
				ms[i] = k.Pack(w)
				bytes += max(len(ms[i].packed), len(ms[i].Data))
			}
			x := randomVec(rand.New(rand.NewPCG(5, 6)), cols)
			y := make([]float32, rows)
			b.SetBytes(int64(bytes))
			for b.Loop() {
				for _, m := range ms {
					k.MatVec(y, m, x)
				}
			}
		})
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
