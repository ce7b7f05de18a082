package model

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// writeSynth writes a SmolLM2-135M-shaped model of matrix type typ to dir.
func writeSynth(tb testing.TB, dir string, typ tensor.Type) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("synth-%s.gguf", typ))
	if err := synth.Write(path, synth.SmolLM2(), typ); err != nil {
		tb.Fatal(err)
	}
	return path
}

// benchState opens the model at path and a state of up to 1024 positions
// on k; the model is closed when the benchmark ends.
func benchState(b *testing.B, path string, k *tensor.Kernels) (*Model, *State) {
	b.Helper()
	m, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	s, err := m.NewStateOn(min(m.CtxLen, 1024), cpu.New(k))
	if err != nil {
		b.Fatal(err)
	}
	return m, s
}

// BenchmarkDecode measures decode speed (one token per iteration, after a
// 16-token prefill) and reports tok/s, the weight bandwidth it implies and
// its ratio to a STREAM triad measured in the same run.
func BenchmarkDecode(b *testing.B) {
	dir := b.TempDir()
	cases := []struct {
		name string
		path func() string
	}{
		{"kjv-f32", func() string { return fixture(b, "kjv/kjv-f32.gguf") }},
		{"kjv-q8_0", func() string { return fixture(b, "kjv/kjv-q8_0.gguf") }},
		{"kjv-q4_k_m", func() string { return fixture(b, "kjv/kjv-q4_k_m.gguf") }},
		{"smollm2-135m-shape-Q8_0", func() string { return writeSynth(b, dir, tensor.Q8_0) }},
		{"smollm2-135m-shape-F16", func() string { return writeSynth(b, dir, tensor.F16) }},
	}
	if f := os.Getenv("ISAGI_BENCH_MODEL"); f != "" {
		cases = append(cases, struct {
			name string
			path func() string
		}{"file", func() string { return f }})
	}
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m, s := benchState(b, c.path(), k)
			logits := make([]float32, m.Vocab)
			prompt := make([]int32, 16)
			for i := range prompt {
				prompt[i] = int32(i + 3)
			}
			tok := []int32{5}
			restart := func() {
				s.Reset()
				if err := s.Forward(prompt, logits); err != nil {
					b.Fatal(err)
				}
			}
			// Warm up for a few seconds: the first passes over freshly mapped
			// weights run at a fraction of the steady speed on a VM.
			for t0 := time.Now(); time.Since(t0) < 3*time.Second; {
				restart()
				for range 32 {
					if err := s.Forward(tok, logits); err != nil {
						b.Fatal(err)
					}
				}
			}
			bw, err := tensor.ProbeBandwidth(pool, 256<<20, 500*time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			restart()
			b.ResetTimer()
			for b.Loop() {
				if s.Pos() == s.Cap() {
					b.StopTimer()
					restart()
					b.StartTimer()
				}
				if err := s.Forward(tok, logits); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			gbs := float64(m.WeightBytes()) / sec / 1e9
			b.ReportMetric(1/sec, "tok/s")
			b.ReportMetric(gbs, "weight-GB/s")
			b.ReportMetric(gbs/(bw.Triad/1e9), "ratio")
		})
	}
}

// BenchmarkPrefill measures prompt processing: 128 tokens per iteration
// from an empty cache, reported as tok/s.
func BenchmarkPrefill(b *testing.B) {
	dir := b.TempDir()
	cases := []struct {
		name string
		path func() string
	}{
		{"kjv-q8_0", func() string { return fixture(b, "kjv/kjv-q8_0.gguf") }},
		{"smollm2-135m-shape-Q8_0", func() string { return writeSynth(b, dir, tensor.Q8_0) }},
	}
	if f := os.Getenv("ISAGI_BENCH_MODEL"); f != "" {
		// Any GGUF, for profiling one file: go test -bench Prefill/file -cpuprofile …
		cases = append(cases, struct {
			name string
			path func() string
		}{"file", func() string { return f }})
	}
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m, s := benchState(b, c.path(), k)
			logits := make([]float32, m.Vocab)
			prompt := make([]int32, 128)
			for i := range prompt {
				prompt[i] = int32(i%200 + 3)
			}
			run := func() {
				s.Reset()
				if err := s.Forward(prompt, logits); err != nil {
					b.Fatal(err)
				}
			}
			for t0 := time.Now(); time.Since(t0) < 3*time.Second; { // warm the mapped weights
				run()
			}
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(len(prompt))*float64(b.N)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkDecodeKVProjection measures decode with the KV cache projected
// to r = HeadDim/2 against the dense cache on kjv-q8_0, in the same run
// and alternating (dense, projected, dense, …, 64 tokens from an empty
// cache each), so that the four per-head products the projection adds
// (q, k, v in, the attention's output out) are seen against the same
// machine state. "ratio" is projected tok/s over dense tok/s, the median
// of the rounds; "ratio-min" and "ratio-max" their spread; "kv-ratio" the
// cache's bytes over the dense cache's. ISAGI_BENCH_MODEL names another
// GGUF file (a synthetic shape: engine/internal/synth), and
// ISAGI_BENCH_DEPTH a context to decode after (prefilled once; each round
// rewinds to it), for the cost of attending over a longer cache.
func BenchmarkDecodeKVProjection(b *testing.B) {
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	path := os.Getenv("ISAGI_BENCH_MODEL")
	if path == "" {
		path = fixture(b, "kjv/kjv-q8_0.gguf")
	}
	depth, _ := strconv.Atoi(os.Getenv("ISAGI_BENCH_DEPTH"))
	m, dense := benchState(b, path, k)
	if depth < 0 || depth+64 > dense.Cap() {
		b.Fatalf("ISAGI_BENCH_DEPTH %d: the cache holds %d positions", depth, dense.Cap())
	}
	proj, err := m.NewStateOn(dense.Cap(), cpu.New(k))
	if err != nil {
		b.Fatal(err)
	}
	if err := proj.SetKVProjection(handKV(b, &m.Config, m.HeadDim/2, 1)); err != nil {
		b.Fatal(err)
	}
	logits := make([]float32, m.Vocab)
	tok := []int32{5}
	prompt := make([]int32, depth)
	for i := range prompt {
		prompt[i] = int32(3 + i*7%(m.Vocab-3))
	}
	for _, s := range []*State{dense, proj} {
		if err := s.Forward(prompt, nil); err != nil {
			b.Fatal(err)
		}
	}
	decode := func(s *State) float64 {
		s.Truncate(depth)
		t0 := time.Now()
		for range 64 {
			if err := s.Forward(tok, logits); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0).Seconds() / 64
	}
	for t0 := time.Now(); time.Since(t0) < 2*time.Second; { // warm the mapped weights
		decode(dense)
		decode(proj)
	}
	var ratios []float64
	var tD, tP float64
	b.ResetTimer()
	for b.Loop() {
		for range 10 {
			d, p := decode(dense), decode(proj)
			tD, tP = tD+d, tP+p
			ratios = append(ratios, d/p)
		}
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(len(ratios))/tD, "dense-tok/s")
	b.ReportMetric(float64(len(ratios))/tP, "proj-tok/s")
	b.ReportMetric(ratios[len(ratios)/2], "ratio")
	b.ReportMetric(ratios[0], "ratio-min")
	b.ReportMetric(ratios[len(ratios)-1], "ratio-max")
	b.ReportMetric(float64(proj.KVBytes())/float64(dense.KVBytes()), "kv-ratio")
}

// BenchmarkDecodeKVType measures decode speed with each KV cache type
// (f32, f16, q8_0) on one model, at a depth: ISAGI_BENCH_MODEL names the
// GGUF file (default kjv-q8_0), ISAGI_BENCH_DEPTH the context decoded
// after (default 1024, prefilled once per type; each round rewinds to
// it). Rounds alternate the types, 32 tokens each, so that the machine's
// drift falls on all of them alike; it reports each type's tok/s and the
// median, least and most of its per-round ratio to f32.
func BenchmarkDecodeKVType(b *testing.B) {
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	path := os.Getenv("ISAGI_BENCH_MODEL")
	if path == "" {
		path = fixture(b, "kjv/kjv-q8_0.gguf")
	}
	depth := 1024
	if v := os.Getenv("ISAGI_BENCH_DEPTH"); v != "" {
		depth, _ = strconv.Atoi(v)
	}
	m, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := depth + 64
	if depth < 0 || ctx > m.CtxLen {
		b.Fatalf("ISAGI_BENCH_DEPTH %d: the model's context is %d positions", depth, m.CtxLen)
	}
	types := []backend.KVType{backend.KVF32, backend.KVF16, backend.KVQ8_0}
	states := make([]*State, len(types))
	prompt := make([]int32, depth)
	for i := range prompt {
		prompt[i] = int32(3 + i*7%(m.Vocab-3))
	}
	for i, typ := range types {
		if states[i], err = m.NewStateWith(ctx, cpu.New(k), StateOptions{KV: typ}); err != nil {
			b.Fatal(err)
		}
		if err := states[i].Forward(prompt, nil); err != nil {
			b.Fatal(err)
		}
	}
	logits := make([]float32, m.Vocab)
	tok := []int32{5}
	const steps = 32
	decode := func(s *State) float64 {
		s.Truncate(depth)
		t0 := time.Now()
		for range steps {
			if err := s.Forward(tok, logits); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0).Seconds() / steps
	}
	for _, s := range states { // warm the mapped weights
		decode(s)
	}
	per := make([][]float64, len(types)) // seconds a token, per round
	b.ResetTimer()
	for b.Loop() {
		for range 3 {
			for i, s := range states {
				per[i] = append(per[i], decode(s))
			}
		}
	}
	for i, typ := range types {
		var sum float64
		ratios := make([]float64, len(per[i]))
		for r, t := range per[i] {
			sum += t
			ratios[r] = per[0][r] / t // tok/s over f32's in the same round
		}
		slices.Sort(ratios)
		b.ReportMetric(float64(len(per[i]))/sum, typ.String()+"-tok/s")
		if i > 0 {
			b.ReportMetric(ratios[len(ratios)/2], typ.String()+"-ratio")
			b.ReportMetric(ratios[0], typ.String()+"-ratio-min")
			b.ReportMetric(ratios[len(ratios)-1], typ.String()+"-ratio-max")
		}
	}
}
