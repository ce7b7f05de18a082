package cuda

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/model"
)

// Issue 55's (CUDA III) measurements on the device: prefill of 512 tokens
// on the 1B and 8B Q4_K_M shapes, decode at a depth of 8K against depth 0
// on the 1B, eight sequences batched against one on the 8B, each with the
// KV cache in f32 and f16; compute-sanitizer's long run (a prefill of more
// than 256 tokens, decode at a depth past 1K) and a decode step's host
// allocations. scripts/device-check.sh makes the synthetic models
// (synthgguf -random) and names them in these variables:
//
//	ISAGI_CUDA3_1B           llama-1b Q4_K_M (prefill, depth)
//	ISAGI_CUDA3_8B           llama-8b Q4_K_M (prefill, batch)
//	ISAGI_CUDA3_LONG_MODELS  comma-separated models with a context of at
//	                         least 2K (memcheck, allocations): the 1B and
//	                         8B shapes cut to two layers
//	ISAGI_CUDA3_KV           the KV types, comma-separated (f32,f16)
//	ISAGI_CUDA3_DEPTH        the deep side's depth (8192)
//	ISAGI_CUDA3_ROUNDS       timed rounds per figure (5)
//
// Every figure is the median of alternated rounds (the sides compared take
// turns, the order flipping each round, so that clocks and heat drift on
// both alike), with its min and max, and its share of the memory roofline:
// the bytes a token reads (weights, and the KV cache it attends over) ×
// tok/s ÷ the copy bandwidth measured in the same process. Records go to
// cuda3.jsonl; the device check's summary prints one line per goal.

// cuda3Goals are issue 55's goals, which the records carry so that the
// summary needs no copy of them.
const (
	goalPrefill8B   = 8000.0  // tok/s, 512 tokens
	goalPrefill1B   = 30000.0 // tok/s, 512 tokens
	goalDepthRatio  = 0.8     // decode at depth 8K ÷ depth 0, 1B
	goalBatchRatio  = 5.0     // 8 sequences' aggregate ÷ one's, 8B
	cuda3Sequences  = 8
	cuda3PrefillLen = 512
)

// cuda3Rounds is the timed rounds per figure: ISAGI_CUDA3_ROUNDS, or 5.
func cuda3Rounds() int {
	if n, err := strconv.Atoi(os.Getenv("ISAGI_CUDA3_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 5
}

// cuda3KVTypes are the KV cache types to measure: ISAGI_CUDA3_KV, or f32
// and f16.
func cuda3KVTypes(tb testing.TB) []backend.KVType {
	s := os.Getenv("ISAGI_CUDA3_KV")
	if s == "" {
		return []backend.KVType{backend.KVF32, backend.KVF16}
	}
	var ts []backend.KVType
	for _, name := range strings.Split(s, ",") {
		t, err := backend.ParseKVType(strings.TrimSpace(name))
		if err != nil {
			tb.Fatalf("ISAGI_CUDA3_KV: %v", err)
		}
		ts = append(ts, t)
	}
	return ts
}

// cuda3Model opens the model named by the variable env, and skips when it
// names none (the device check always names them).
func cuda3Model(tb testing.TB, env string) (*model.Model, string) {
	tb.Helper()
	path := os.Getenv(env)
	if path == "" {
		tb.Skipf("%s names no model", env)
	}
	m, err := model.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	return m, strings.TrimSuffix(filepath.Base(path), ".gguf")
}

// cuda3Side is one State on a backend of its own.
type cuda3Side struct {
	b      *Backend
	st     *model.State
	logits []float32
}

func (s *cuda3Side) close(tb testing.TB) {
	s.st.Close()
	if err := s.b.Close(); err != nil {
		tb.Error(err)
	}
}

// newCUDA3Side makes a State of ctx positions with its KV cache in kv. A
// compact type the backend refuses is recorded (the GPU gains f16 in
// issue 55) and returns nil, so that the caller goes on with the others.
func newCUDA3Side(tb testing.TB, g *Device, m *model.Model, name, what string, ctx int, kv backend.KVType) *cuda3Side {
	tb.Helper()
	b, err := g.NewBackend()
	if err != nil {
		tb.Fatal(err)
	}
	st, err := m.NewStateWith(ctx, b, model.StateOptions{KV: kv})
	if err != nil {
		_ = b.Close()
		if kv == backend.KVF32 {
			tb.Fatal(err)
		}
		tb.Logf("%s %s: the %s cache is refused: %v", name, what, kv, err)
		record(tb, "cuda3.jsonl", map[string]any{"kind": "refused", "what": what, "model": name, "kv": kv.String(), "error": err.Error(), "device": g.Name()})
		return nil
	}
	return &cuda3Side{b: b, st: st, logits: make([]float32, m.Config.Vocab)}
}

// cuda3Tokens are n prompt tokens spread over the vocabulary, different
// for each seed.
func cuda3Tokens(m *model.Model, n, seed int) []int32 {
	p := make([]int32, n)
	v := m.Config.Vocab - 3
	for i := range p {
		p[i] = int32(3 + (i*31+seed*977)%v)
	}
	return p
}

// spread is a figure's rounds: median, least and most.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) spread {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: med, Min: s[0], Max: s[len(s)-1]}
}

func (s spread) String() string {
	return fmt.Sprintf("%.1f (%.1f…%.1f)", s.Median, s.Min, s.Max)
}

// weightBytes splits what a forward step reads of m's weights into the
// blocks' matrices (read once per step whatever its rows) and the
// classifier (read once per step that wants logits): the output matrix,
// or the embedding table when it is tied; a step reads one row of an
// untied table, which is left out. Params are the same in values.
type weightBytes struct {
	layers, classifier            int64
	layerParams, classifierParams int64
}

func weightsOf(m *model.Model) weightBytes {
	f := m.File()
	_, untied := f.Tensor("output.weight")
	var w weightBytes
	for _, ti := range f.Tensors {
		if len(ti.Dims) < 2 {
			continue
		}
		n := int64(1)
		for _, d := range ti.Dims {
			n *= int64(d)
		}
		switch {
		case strings.HasPrefix(ti.Name, "blk."):
			w.layers += int64(ti.Size)
			w.layerParams += n
		case ti.Name == "output.weight" || ti.Name == "token_embd.weight" && !untied:
			w.classifier += int64(ti.Size)
			w.classifierParams += n
		}
	}
	return w
}

// kvPosBytes is what one position of m's cache takes in kv, keys and
// values, every layer: what a token attending over it reads.
func kvPosBytes(m *model.Model, kv backend.KVType) int64 {
	c := &m.Config
	return int64(c.Layers) * 2 * int64(c.KVHeads) * int64(kv.RowBytes(c.HeadDim))
}

// prefillCost is what a prefill of n tokens from position 0 reads and
// computes, in steps of batch rows: each step reads the blocks' weights
// once, the cache up to its last position and writes its own positions;
// the classifier runs for the last row. FLOPs are the products' (2 a
// weight a row) and causal attention's (QKᵀ and PV, 4 a head value a
// key).
func prefillCost(m *model.Model, kv backend.KVType, n, batch int) (bytes, flops float64) {
	w := weightsOf(m)
	c := &m.Config
	pb := float64(kvPosBytes(m, kv))
	for p0 := 0; p0 < n; p0 += batch {
		k := min(batch, n-p0)
		bytes += float64(w.layers) + pb*float64(p0+k) + pb*float64(k)
	}
	bytes += float64(w.classifier)
	flops = 2*float64(w.layerParams)*float64(n) + 2*float64(w.classifierParams)
	// Σ over rows of the keys each attends to: 1 + 2 + … + n.
	flops += 4 * float64(c.Layers*c.Heads*c.HeadDim) * float64(n) * float64(n+1) / 2
	return bytes, flops
}

// decodeStepBytes is what one decode step reads at a cache depth of depth
// positions: the weights (decodeBytes) and the cache.
func decodeStepBytes(m *model.Model, kv backend.KVType, depth float64) float64 {
	return float64(decodeBytes(m)) + float64(kvPosBytes(m, kv))*depth
}

// BenchmarkGPUCUDA3Prefill times a prefill of 512 tokens on the 1B and 8B
// Q4_K_M shapes (ISAGI_CUDA3_1B, ISAGI_CUDA3_8B), with each KV type's
// cache; the types take turns. Goals: 30,000 tok/s on the 1B, 8,000 on the
// 8B. Like BenchmarkGPURanks it times its own rounds (ISAGI_CUDA3_ROUNDS)
// once per call: run it, and the two below, with -test.benchtime 1x.
func BenchmarkGPUCUDA3Prefill(b *testing.B) {
	if os.Getenv("ISAGI_CUDA3_1B") == "" && os.Getenv("ISAGI_CUDA3_8B") == "" {
		b.Skip("ISAGI_CUDA3_1B and ISAGI_CUDA3_8B name no models")
	}
	g := gpuDevice(b)
	bw := copyBandwidth(b, g)
	for _, sh := range []struct {
		env, label string
		goal       float64
	}{{"ISAGI_CUDA3_1B", "1b", goalPrefill1B}, {"ISAGI_CUDA3_8B", "8b", goalPrefill8B}} {
		if os.Getenv(sh.env) == "" {
			continue
		}
		b.Run(sh.label, func(b *testing.B) { prefillRounds(b, g, sh.env, sh.label, sh.goal, bw) })
	}
}

func prefillRounds(b testing.TB, g *Device, env, label string, goal, bw float64) {
	m, name := cuda3Model(b, env)
	defer m.Close()
	type side struct {
		kv backend.KVType
		s  *cuda3Side
		r  []float64
	}
	var sides []*side
	for _, kv := range cuda3KVTypes(b) {
		if s := newCUDA3Side(b, g, m, name, "prefill", 2*cuda3PrefillLen, kv); s != nil {
			sides = append(sides, &side{kv: kv, s: s})
			defer s.close(b)
		}
	}
	prompt := cuda3Tokens(m, cuda3PrefillLen, 1)
	run := func(s *cuda3Side) float64 {
		s.st.Reset()
		start := time.Now()
		if err := s.st.Forward(prompt, s.logits); err != nil { // returns once the logits are on the host
			b.Fatal(err)
		}
		return float64(len(prompt)) / time.Since(start).Seconds()
	}
	for _, sd := range sides {
		run(sd.s) // warm: kernels loaded, scratch made
	}
	rounds := cuda3Rounds()
	for r := range rounds {
		for i := range sides {
			sd := sides[i]
			if r%2 == 1 {
				sd = sides[len(sides)-1-i]
			}
			sd.r = append(sd.r, run(sd.s))
		}
	}
	for _, sd := range sides {
		tps := spreadOf(sd.r)
		bytes, flops := prefillCost(m, sd.kv, len(prompt), sd.s.st.BatchSize())
		sec := float64(len(prompt)) / tps.Median
		roof := 100 * bytes / bw / sec
		b.Logf("%s prefill %d, %s cache: %s tok/s, %.1f TFLOP/s, %.1f%% of the memory roofline; goal %.0f", name, len(prompt), sd.kv, tps, flops/sec/1e12, roof, goal)
		record(b, "cuda3.jsonl", map[string]any{
			"kind": "prefill", "model": name, "shape": label, "kv": sd.kv.String(), "tokens": len(prompt), "rounds": rounds,
			"tok_s": tps, "tflops": flops / sec / 1e12, "roofline_pct": roof, "bytes_per_prefill": bytes,
			"copy_bandwidth_gbs": bw / 1e9, "goal_tok_s": goal, "met": tps.Median >= goal, "device": g.Name(),
		})
	}
}

// BenchmarkGPUCUDA3Depth times decode on the 1B shape (ISAGI_CUDA3_1B) at
// a depth of 8K (ISAGI_CUDA3_DEPTH) against depth 0, the two states taking
// turns, 32 steps a round from the same depth each time, with each KV
// type. Goal: the deep side at least 0.8 of the shallow one.
func BenchmarkGPUCUDA3Depth(b *testing.B) {
	if os.Getenv("ISAGI_CUDA3_1B") == "" {
		b.Skip("ISAGI_CUDA3_1B names no model")
	}
	g := gpuDevice(b)
	bw := copyBandwidth(b, g)
	depth := 8192
	if n, err := strconv.Atoi(os.Getenv("ISAGI_CUDA3_DEPTH")); err == nil && n > 0 {
		depth = n
	}
	depthRounds(b, g, depth, bw)
}

func depthRounds(b testing.TB, g *Device, depth int, bw float64) {
	m, name := cuda3Model(b, "ISAGI_CUDA3_1B")
	defer m.Close()
	const steps = 32
	ctx := depth + 2*steps
	if ctx > m.CtxLen {
		b.Fatalf("%s holds %d positions; a depth of %d needs %d", name, m.CtxLen, depth, ctx)
	}
	rounds := cuda3Rounds()
	tok := []int32{5}
	for _, kv := range cuda3KVTypes(b) {
		shallow := newCUDA3Side(b, g, m, name, "depth", ctx, kv)
		if shallow == nil {
			continue
		}
		deep := newCUDA3Side(b, g, m, name, "depth", ctx, kv)
		if deep == nil {
			shallow.close(b)
			continue
		}
		fill := time.Now()
		if err := deep.st.Forward(cuda3Tokens(m, depth, 2), nil); err != nil {
			b.Fatal(err)
		}
		fillSec := time.Since(fill).Seconds()
		run := func(s *cuda3Side, from int) float64 {
			s.st.Truncate(from)
			start := time.Now()
			for range steps {
				if err := s.st.Forward(tok, s.logits); err != nil {
					b.Fatal(err)
				}
			}
			return steps / time.Since(start).Seconds()
		}
		run(shallow, 0) // warm: the step's graph built
		run(deep, depth)
		var rs, rd, ratios []float64
		for r := range rounds {
			var s, d float64
			if r%2 == 0 {
				s, d = run(shallow, 0), run(deep, depth)
			} else {
				d, s = run(deep, depth), run(shallow, 0)
			}
			rs, rd, ratios = append(rs, s), append(rd, d), append(ratios, d/s)
		}
		ss, sd, sr := spreadOf(rs), spreadOf(rd), spreadOf(ratios)
		ratio := sd.Median / ss.Median
		// The mean depth a step attends over: steps/2 past its start.
		roofS := 100 * decodeStepBytes(m, kv, steps/2) * ss.Median / bw
		roofD := 100 * decodeStepBytes(m, kv, float64(depth)+steps/2) * sd.Median / bw
		b.Logf("%s decode, %s cache: depth 0 %s tok/s (%.1f%% of roofline), depth %d %s tok/s (%.1f%%), ratio %.3f (rounds' %s); goal %.2f; the %d-token fill took %.2f s",
			name, kv, ss, roofS, depth, sd, roofD, ratio, sr, goalDepthRatio, depth, fillSec)
		record(b, "cuda3.jsonl", map[string]any{
			"kind": "depth", "model": name, "kv": kv.String(), "depth": depth, "steps": steps, "rounds": rounds,
			"depth0_tok_s": ss, "deep_tok_s": sd, "ratio": ratio, "round_ratios": sr,
			"depth0_roofline_pct": roofS, "deep_roofline_pct": roofD,
			"weight_bytes_per_token": decodeBytes(m), "kv_bytes_per_position": kvPosBytes(m, kv),
			"fill_tok_s": float64(depth) / fillSec, "copy_bandwidth_gbs": bw / 1e9,
			"goal_ratio": goalDepthRatio, "met": ratio >= goalDepthRatio, "device": g.Name(),
		})
		shallow.close(b)
		deep.close(b)
	}
}

// BenchmarkGPUCUDA3Batch times decode on the 8B shape (ISAGI_CUDA3_8B) of
// eight sequences joined to one engine/model Batcher (a step multiplies
// their eight rows at once, as Serve runs them) against one sequence
// alone, taking turns, 16 steps a round from a depth of 128, with each
// KV type. Goal: the eight's aggregate tok/s at least 5× the one's.
func BenchmarkGPUCUDA3Batch(b *testing.B) {
	if os.Getenv("ISAGI_CUDA3_8B") == "" {
		b.Skip("ISAGI_CUDA3_8B names no model")
	}
	g := gpuDevice(b)
	bw := copyBandwidth(b, g)
	batchRounds(b, g, bw)
}

// joinBatcher makes a model.Batcher on a backend of its own and joins the
// sides' States to it; the caller closes both, the batcher first.
func joinBatcher(b testing.TB, g *Device, m *model.Model, seqs []*cuda3Side) (*model.Batcher, *Backend) {
	b.Helper()
	qb, err := g.NewBackend()
	if err != nil {
		b.Fatal(err)
	}
	q, err := m.NewBatcher(qb, model.BatcherOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if !q.Batches() {
		b.Fatal("the CUDA backend's batcher runs one sequence a step")
	}
	for _, s := range seqs {
		if err := q.Join(s.st); err != nil {
			b.Fatal(err)
		}
	}
	return q, qb
}

func batchRounds(b testing.TB, g *Device, bw float64) {
	m, name := cuda3Model(b, "ISAGI_CUDA3_8B")
	defer m.Close()
	const depth, steps, ctx = 128, 16, 256
	rounds := cuda3Rounds()
	for _, kv := range cuda3KVTypes(b) {
		lone := newCUDA3Side(b, g, m, name, "batch", ctx, kv)
		if lone == nil {
			continue
		}
		if err := lone.st.Forward(cuda3Tokens(m, depth, 0), nil); err != nil {
			b.Fatal(err)
		}
		var seqs []*cuda3Side
		for i := range cuda3Sequences {
			s := newCUDA3Side(b, g, m, name, "batch", ctx, kv)
			if s == nil {
				b.Fatalf("the %s cache was made once and refused the second time", kv)
			}
			if err := s.st.Forward(cuda3Tokens(m, depth, i+1), nil); err != nil {
				b.Fatal(err)
			}
			seqs = append(seqs, s)
		}
		q, qb := joinBatcher(b, g, m, seqs)
		alone := func() float64 {
			lone.st.Truncate(depth)
			start := time.Now()
			for range steps {
				if err := lone.st.Forward([]int32{5}, lone.logits); err != nil {
					b.Fatal(err)
				}
			}
			return steps / time.Since(start).Seconds()
		}
		errs := make([]error, len(seqs))
		toks := make([][]int32, len(seqs))
		for i := range toks {
			toks[i] = []int32{int32(5 + i)}
		}
		together := func() float64 {
			for _, s := range seqs {
				s.st.Truncate(depth)
			}
			var wg sync.WaitGroup
			start := time.Now()
			for i, s := range seqs {
				wg.Go(func() {
					for range steps {
						if errs[i] = s.st.Forward(toks[i], s.logits); errs[i] != nil {
							return
						}
					}
				})
			}
			wg.Wait()
			sec := time.Since(start).Seconds()
			for i, err := range errs {
				if err != nil {
					b.Fatalf("sequence %d: %v", i, err)
				}
			}
			return float64(len(seqs)*steps) / sec
		}
		alone() // warm
		together()
		st0 := q.Stats()
		var ra, rt, ratios []float64
		for r := range rounds {
			var a, t float64
			if r%2 == 0 {
				a, t = alone(), together()
			} else {
				t, a = together(), alone()
			}
			ra, rt, ratios = append(ra, a), append(rt, t), append(ratios, t/a)
		}
		st1 := q.Stats()
		if err := q.Err(); err != nil {
			b.Fatal(err)
		}
		sa, stg, sr := spreadOf(ra), spreadOf(rt), spreadOf(ratios)
		ratio := stg.Median / sa.Median
		meanBatch := 0.0
		if n := st1.Steps - st0.Steps; n > 0 {
			meanBatch = float64(st1.Seqs-st0.Seqs) / float64(n)
		}
		// A batched step reads the weights once and every sequence's cache.
		roofA := 100 * decodeStepBytes(m, kv, depth+steps/2) * sa.Median / bw
		n := float64(len(seqs))
		stepBytes := float64(decodeBytes(m)) + n*float64(kvPosBytes(m, kv))*(depth+steps/2)
		roofT := 100 * stepBytes * stg.Median / n / bw
		b.Logf("%s decode, %s cache: one sequence %s tok/s (%.1f%% of roofline), %d batched %s tok/s in aggregate (%.1f%%), ratio %.2f (rounds' %s), mean batch %.2f; goal %.1f",
			name, kv, sa, roofA, len(seqs), stg, roofT, ratio, sr, meanBatch, goalBatchRatio)
		record(b, "cuda3.jsonl", map[string]any{
			"kind": "batch", "model": name, "kv": kv.String(), "sequences": len(seqs), "depth": depth, "steps": steps, "rounds": rounds,
			"one_tok_s": sa, "aggregate_tok_s": stg, "ratio": ratio, "round_ratios": sr, "mean_batch": meanBatch,
			"one_roofline_pct": roofA, "aggregate_roofline_pct": roofT, "weight_bytes_per_step": decodeBytes(m),
			"copy_bandwidth_gbs": bw / 1e9, "goal_ratio": goalBatchRatio, "met": ratio >= goalBatchRatio, "device": g.Name(),
		})
		q.Close()
		for _, s := range seqs {
			s.close(b)
		}
		lone.close(b)
		if err := qb.Close(); err != nil {
			b.Error(err)
		}
	}
}

// cuda3LongModels are the models of ISAGI_CUDA3_LONG_MODELS; the test
// skips when it names none.
func cuda3LongModels(t *testing.T) []string {
	s := os.Getenv("ISAGI_CUDA3_LONG_MODELS")
	if s == "" {
		t.Skip("ISAGI_CUDA3_LONG_MODELS names no models")
	}
	return strings.Split(s, ",")
}

// longDepth is where the long tests decode: past 1K, reached by one
// Forward of that many tokens (a prefill of more than 256 tokens, in the
// engine's steps).
const longDepth = 1100

// longRun opens path, prefills longDepth tokens on a state with the KV
// cache in kv and calls f with it; a refused compact type is recorded and
// skipped.
func longRun(t testing.TB, g *Device, path string, kv backend.KVType, what string, f func(m *model.Model, s *cuda3Side)) {
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	name := strings.TrimSuffix(filepath.Base(path), ".gguf")
	s := newCUDA3Side(t, g, m, name, what, longDepth+64, kv)
	if s == nil {
		return
	}
	defer s.close(t)
	// A prefill of 300 (one full step and a partial one), then on to the
	// depth: the second Forward's steps attend over a cache already past
	// a step's rows.
	if err := s.st.Forward(cuda3Tokens(m, 300, 3), s.logits); err != nil {
		t.Fatal(err)
	}
	if err := s.st.Forward(cuda3Tokens(m, longDepth-300, 4), s.logits); err != nil {
		t.Fatal(err)
	}
	f(m, s)
}

// TestGPUMemcheckLong is compute-sanitizer's long run: on each model of
// ISAGI_CUDA3_LONG_MODELS, with the KV cache in f32 and in f16, a prefill
// of 300 tokens then 800 more, and four greedy decode steps at a depth
// past 1,100; the logits must be finite.
func TestGPUMemcheckLong(t *testing.T) {
	paths := cuda3LongModels(t)
	memcheckLong(t, gpuDevice(t), paths)
}

func memcheckLong(t *testing.T, g *Device, paths []string) {
	for _, path := range paths {
		for _, kv := range []backend.KVType{backend.KVF32, backend.KVF16} {
			t.Run(filepath.Base(path)+"/"+kv.String(), func(t *testing.T) {
				longRun(t, g, path, kv, "memcheck_long", func(m *model.Model, s *cuda3Side) {
					for step := range 4 {
						if err := s.st.Forward([]int32{argmax(s.logits)}, s.logits); err != nil {
							t.Fatal(err)
						}
						for i, v := range s.logits {
							if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
								t.Fatalf("step %d at depth %d: logit %d is %g", step, s.st.Pos()-1, i, v)
							}
						}
					}
					record(t, "cuda3.jsonl", map[string]any{"kind": "memcheck_long", "model": filepath.Base(path), "kv": kv.String(), "depth": s.st.Pos(), "device": g.Name()})
				})
			})
		}
	}
}

// TestGPUDecodeAllocs: a decode step allocates nothing on the host, at a
// shallow depth and past 1K, with each KV type, on each model of
// ISAGI_CUDA3_LONG_MODELS (warm steps first: the first steps build the
// step's graph).
func TestGPUDecodeAllocs(t *testing.T) {
	paths := cuda3LongModels(t)
	decodeAllocs(t, gpuDevice(t), paths)
}

func decodeAllocs(t *testing.T, g *Device, paths []string) {
	for _, path := range paths {
		for _, kv := range cuda3KVTypes(t) {
			t.Run(filepath.Base(path)+"/"+kv.String(), func(t *testing.T) {
				longRun(t, g, path, kv, "allocs", func(m *model.Model, s *cuda3Side) {
					tok := []int32{7}
					for _, depth := range []int{longDepth, 8} { // Truncate only goes back
						s.st.Truncate(depth)
						for range 3 {
							if err := s.st.Forward(tok, s.logits); err != nil {
								t.Fatal(err)
							}
						}
						n := testing.AllocsPerRun(20, func() {
							s.st.Truncate(s.st.Pos() - 1)
							if err := s.st.Forward(tok, s.logits); err != nil {
								t.Fatal(err)
							}
						})
						record(t, "cuda3.jsonl", map[string]any{"kind": "allocs", "model": filepath.Base(path), "kv": kv.String(), "depth": s.st.Pos(), "allocs_per_step": n, "device": g.Name()})
						if n != 0 {
							t.Errorf("a decode step at depth %d allocates %v times on the host", s.st.Pos(), n)
						}
					}
				})
			})
		}
	}
}
