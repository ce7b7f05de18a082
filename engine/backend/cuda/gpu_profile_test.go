package cuda

import (
	"os"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
)

// BenchmarkGPUProfile runs one phase of the 8B Q4_K_M shape's work
// (ISAGI_CUDA3_8B, f32 cache) between cuProfilerStart and cuProfilerStop,
// so that `ncu --profile-from-start off` (scripts/device-check.sh, step
// profile) times that phase's kernels and not the model's loading,
// prefill and warm-up. ISAGI_PROFILE_PHASE picks it:
//
//	decode   4 decode steps of one sequence at depth 128 (one CUDA graph
//	         each after the first two)
//	batch    4 steps of 8 sequences at depth 128 joined to one
//	         model.Batcher (isagi serve's batched steps)
//	prefill  one prompt step of 256 tokens
//
// It reports nothing itself: the profiler's per-kernel summary is the
// result.
func BenchmarkGPUProfile(b *testing.B) {
	phase := os.Getenv("ISAGI_PROFILE_PHASE")
	if os.Getenv("ISAGI_CUDA3_8B") == "" || phase == "" {
		b.Skip("ISAGI_CUDA3_8B and ISAGI_PROFILE_PHASE name no model or phase")
	}
	g := gpuDevice(b)
	m, name := cuda3Model(b, "ISAGI_CUDA3_8B")
	defer m.Close()
	const depth, steps, ctx = 128, 4, 512
	d, ok := g.d.(*cu.Driver)
	if !ok {
		b.Fatal("the device is not on the CUDA driver")
	}
	region := func(f func()) {
		if err := g.with(d.ProfilerStart); err != nil {
			b.Fatal(err)
		}
		f()
		if err := g.with(d.ProfilerStop); err != nil {
			b.Fatal(err)
		}
	}
	switch phase {
	case "decode":
		s := newCUDA3Side(b, g, m, name, "profile", ctx, backend.KVF32)
		defer s.close(b)
		if err := s.st.Forward(cuda3Tokens(m, depth, 0), nil); err != nil {
			b.Fatal(err)
		}
		for range 2 { // the graph is made on the second step of a shape
			if err := s.st.Forward([]int32{5}, s.logits); err != nil {
				b.Fatal(err)
			}
		}
		region(func() {
			for range steps {
				if err := s.st.Forward([]int32{5}, s.logits); err != nil {
					b.Fatal(err)
				}
			}
		})
	case "prefill":
		s := newCUDA3Side(b, g, m, name, "profile", ctx, backend.KVF32)
		defer s.close(b)
		if err := s.st.Forward(cuda3Tokens(m, 256, 1), nil); err != nil { // warm: the scratch grows once
			b.Fatal(err)
		}
		s.st.Truncate(0)
		region(func() {
			if err := s.st.Forward(cuda3Tokens(m, 256, 2), s.logits); err != nil {
				b.Fatal(err)
			}
		})
	case "batch":
		var seqs []*cuda3Side
		for i := range cuda3Sequences {
			s := newCUDA3Side(b, g, m, name, "profile", ctx, backend.KVF32)
			defer s.close(b)
			if err := s.st.Forward(cuda3Tokens(m, depth, i+1), nil); err != nil {
				b.Fatal(err)
			}
			seqs = append(seqs, s)
		}
		q, qb := joinBatcher(b, g, m, seqs)
		defer func() {
			q.Close()
			if err := qb.Close(); err != nil {
				b.Error(err)
			}
		}()
		run := func(n int) {
			errs := make([]error, len(seqs))
			var wg sync.WaitGroup
			for i, s := range seqs {
				wg.Go(func() {
					for range n {
						if errs[i] = s.st.Forward([]int32{int32(5 + i)}, s.logits); errs[i] != nil {
							return
						}
					}
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					b.Fatalf("sequence %d: %v", i, err)
				}
			}
		}
		run(2) // warm: the batched scratch grows once
		region(func() { run(steps) })
		st := q.Stats()
		b.Logf("%d steps, %d batched, %d rows", st.Steps, st.Batched, st.Rows)
	default:
		b.Fatalf("ISAGI_PROFILE_PHASE %q: decode, batch or prefill", phase)
	}
}
