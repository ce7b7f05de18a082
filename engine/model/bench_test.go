package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// synthConfig is the shape of a synthetic llama model for benchmarks.
type synthConfig struct {
	dim, layers, heads, kvHeads, ffn, vocab int
}

// smolLM2 is SmolLM2-135M's shape: the small model users run first.
var smolLM2 = synthConfig{dim: 576, layers: 30, heads: 9, kvHeads: 3, ffn: 1536, vocab: 49152}

// writeSynth writes a llama GGUF with random weights (std 0.02, norms 1)
// of the given matrix type to dir and returns its path.
func writeSynth(tb testing.TB, dir string, c synthConfig, typ tensor.Type) string {
	tb.Helper()
	var w gguf.Writer
	kv := func(k string, v gguf.Value) {
		if err := w.AddKV(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	kv("general.architecture", gguf.String("llama"))
	kv("general.name", gguf.String("synthetic"))
	kv("llama.context_length", gguf.Uint32(2048))
	kv("llama.embedding_length", gguf.Uint32(uint32(c.dim)))
	kv("llama.block_count", gguf.Uint32(uint32(c.layers)))
	kv("llama.feed_forward_length", gguf.Uint32(uint32(c.ffn)))
	kv("llama.attention.head_count", gguf.Uint32(uint32(c.heads)))
	kv("llama.attention.head_count_kv", gguf.Uint32(uint32(c.kvHeads)))
	kv("llama.rope.freq_base", gguf.Float32(100000))
	kv("llama.attention.layer_norm_rms_epsilon", gguf.Float32(1e-5))
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float32, 0)
	add := func(name string, t tensor.Type, dims ...uint64) {
		n := int(dims[0])
		if len(dims) > 1 {
			n *= int(dims[1])
		}
		if cap(vals) < n {
			vals = make([]float32, n)
		}
		v := vals[:n]
		for i := range v {
			if len(dims) == 1 {
				v[i] = 1
			} else {
				v[i] = float32(rng.NormFloat64() * 0.02)
			}
		}
		size, err := t.TensorBytes(dims)
		if err != nil {
			tb.Fatal(err)
		}
		data := make([]byte, size)
		if err := tensor.Quantize(t, data, v); err != nil {
			tb.Fatal(err)
		}
		if err := w.AddTensor(name, t, dims, data); err != nil {
			tb.Fatal(err)
		}
	}
	d, kvd, f := uint64(c.dim), uint64(c.dim/c.heads*c.kvHeads), uint64(c.ffn)
	add("token_embd.weight", typ, d, uint64(c.vocab))
	add("output_norm.weight", tensor.F32, d)
	for l := range c.layers {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", tensor.F32, d)
		add(p+"attn_q.weight", typ, d, d)
		add(p+"attn_k.weight", typ, d, kvd)
		add(p+"attn_v.weight", typ, d, kvd)
		add(p+"attn_output.weight", typ, d, d)
		add(p+"ffn_norm.weight", tensor.F32, d)
		add(p+"ffn_gate.weight", typ, d, f)
		add(p+"ffn_up.weight", typ, d, f)
		add(p+"ffn_down.weight", typ, f, d)
	}
	path := filepath.Join(dir, fmt.Sprintf("synth-%s.gguf", typ))
	fh, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	if _, err := w.WriteTo(fh); err != nil {
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
	s, err := m.NewState(min(m.CtxLen, 1024), k)
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
		{"smollm2-135m-shape-Q8_0", func() string { return writeSynth(b, dir, smolLM2, tensor.Q8_0) }},
		{"smollm2-135m-shape-F16", func() string { return writeSynth(b, dir, smolLM2, tensor.F16) }},
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
		{"smollm2-135m-shape-Q8_0", func() string { return writeSynth(b, dir, smolLM2, tensor.Q8_0) }},
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

// BenchmarkDecodeGRC measures decode speed with weights compressed to rank
// k (engine/grc) — Q/K/V alone, and every slot (Q/K/V, O, FFN gate+up,
// FFN down by SVD) — against the uncompressed model in the same run (the
// "ratio" metric: compressed tok/s over uncompressed tok/s), on kjv and on
// the SmolLM2-135M shape. "bytes-ratio" is the compressed slots' bytes per
// token over the originals'; "energy" the mean energy kept over blocks and
// slots.
func BenchmarkDecodeGRC(b *testing.B) {
	dir := b.TempDir()
	cases := []struct {
		name  string
		path  func() string
		ranks []int
	}{
		{"kjv-q8_0", func() string { return fixture(b, "kjv/kjv-q8_0.gguf") }, []int{64, 128, 192, 256}},
		{"smollm2-135m-shape-Q8_0", func() string { return writeSynth(b, dir, smolLM2, tensor.Q8_0) }, []int{128, 256, 384, 576}},
	}
	pool := tensor.NewPool(0)
	defer pool.Close()
	k := tensor.NewKernels(pool)
	for _, c := range cases {
		m, err := Open(c.path())
		if err != nil {
			b.Fatal(err)
		}
		s, err := m.NewState(min(m.CtxLen, 256), k)
		if err != nil {
			b.Fatal(err)
		}
		logits := make([]float32, m.Vocab)
		tok := []int32{5}
		// decode times 64 tokens from an empty cache, best of 2.
		decode := func() float64 {
			best := math.Inf(1)
			for range 2 {
				s.Reset()
				t0 := time.Now()
				for range 64 {
					if err := s.Forward(tok, logits); err != nil {
						b.Fatal(err)
					}
				}
				best = math.Min(best, time.Since(t0).Seconds()/64)
			}
			return best
		}
		for range 3 { // warm the mapped weights
			decode()
		}
		for _, slots := range []GRCSlots{GRCQKV, GRCAllSlots} {
			gb, err := m.NewGRCBuilderFor(slots)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range c.ranks {
				g, err := gb.Build(r)
				if err != nil {
					b.Fatal(err)
				}
				var e float64
				sum := g.Summary()
				for _, sl := range sum {
					e += sl.MeanEnergy
				}
				b.Run(fmt.Sprintf("%s/%s/k=%d", c.name, strings.ReplaceAll(slots.String(), ",", "+"), r), func(b *testing.B) {
					// Five alternating rounds, medians: other load on a
					// shared machine drifts slowly, and pairing each
					// compressed run with an uncompressed one beside it
					// cancels most of it.
					var full, comp, ratio []float64
					for b.Loop() {
						full, comp, ratio = full[:0], comp[:0], ratio[:0]
						for range 5 {
							s.SetGRC(nil)
							f := decode()
							s.SetGRC(g)
							c := decode()
							full, comp, ratio = append(full, f), append(comp, c), append(ratio, f/c)
						}
					}
					b.ReportMetric(1/median(comp), "tok/s")
					b.ReportMetric(1/median(full), "full-tok/s")
					b.ReportMetric(median(ratio), "ratio")
					b.ReportMetric(float64(g.BytesAfter)/float64(g.BytesBefore), "bytes-ratio")
					b.ReportMetric(e/float64(len(sum)), "energy")
				})
			}
		}
		m.Close()
	}
}

// median of a few values (sorts v).
func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
