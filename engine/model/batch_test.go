package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/testkit/archgen"
)

// batchScript is one sequence of TestBatcherMatchesAlone: a prompt, greedy
// decoding, and what makes it unlike the others.
type batchScript struct {
	name    string
	prompt  int // prompt tokens
	steps   int // decoded tokens
	kv      backend.KVType
	hook    bool             // a block hook that writes (an ablation at layer 1)
	evictAt int              // after this many decoded tokens, evict to half (0: never)
	verify  bool             // ends with one Forward of 3 tokens, every row's logits
	proj    *testProjections // its products through projections (nil: dense)
	pause   time.Duration    // between tokens, so that steps form without it
	idle    bool             // says Idle when done
	route   bool             // records the experts chosen (a RouteHook)
	steer   float32          // a control vector of this scale after layers 1… (0: none)
}

// routeRec records each routing it sees as one vector: layer, position,
// the experts, their weights.
type routeRec struct{ seen [][]float32 }

func (r *routeRec) Routed(layer, pos int, experts []int32, weights []float32) {
	v := []float32{float32(layer), float32(pos)}
	for _, e := range experts {
		v = append(v, float32(e))
	}
	r.seen = append(r.seen, append(v, weights...))
}

// runScript runs sc on s and returns every logits vector it produced, in
// order.
func runScript(t *testing.T, s *State, sc batchScript, seed uint64) ([][]float32, error) {
	m := s.Model()
	V := m.Vocab
	rng := rand.New(rand.NewPCG(seed, 1))
	prompt := make([]int32, sc.prompt)
	for i := range prompt {
		prompt[i] = int32(1 + rng.IntN(V-1))
	}
	if sc.hook {
		u := make([]float32, m.Dim)
		for i := range u {
			u[i] = float32(rng.NormFloat64())
		}
		var n float64
		for _, x := range u {
			n += float64(x) * float64(x)
		}
		for i := range u {
			u[i] /= float32(math.Sqrt(n))
		}
		if _, err := s.AddHook(&ablate{layer: 1, u: u}); err != nil {
			return nil, err
		}
	}
	if sc.steer != 0 {
		if err := s.SetSteering(randomSteering(m, rng, sc.steer)); err != nil {
			return nil, err
		}
	}
	if sc.proj != nil {
		if err := s.SetProjections(sc.proj); err != nil {
			return nil, err
		}
	}
	var rec *routeRec
	if sc.route {
		rec = &routeRec{}
		if _, err := s.AddHook(rec); err != nil {
			return nil, err
		}
	}
	var out [][]float32
	logits := make([]float32, V)
	if err := s.Forward(prompt, logits); err != nil {
		return nil, err
	}
	out = append(out, append([]float32(nil), logits...))
	for i := range sc.steps {
		if sc.pause > 0 {
			time.Sleep(sc.pause)
		}
		if err := s.Forward([]int32{argmax(logits)}, logits); err != nil {
			return nil, err
		}
		out = append(out, append([]float32(nil), logits...))
		if sc.evictAt > 0 && i+1 == sc.evictAt {
			keepLast := func(layer, head int, keys []float32, n, hd int, pos []int32, keep []int32) {
				for k := range keep {
					keep[k] = int32(n - len(keep) + k)
				}
			}
			if err := s.Evict(s.Len()/2, keepLast); err != nil {
				return nil, err
			}
		}
	}
	if sc.verify {
		all := make([]float32, 3*V)
		if err := s.Forward([]int32{argmax(logits), 5, 9}, all); err != nil {
			return nil, err
		}
		out = append(out, all)
	}
	if sc.idle && s.joined != nil {
		s.joined.q.Idle(s)
	}
	if rec != nil {
		out = append(out, rec.seen...)
	}
	return out, nil
}

// TestBatcherMatchesAlone: sequences of every kind — prompts of different
// lengths, a writing hook, an eviction, a compact KV cache, projected
// products (two with the same projections, one with others), a Forward of
// every row's logits, one that pauses between tokens — run concurrently
// through one Batcher give bit for bit the logits each gives alone, and
// steps did run several of them at once.
func TestBatcherMatchesAlone(t *testing.T) {
	m := openModel(t, "kjv/kjv-q4_k_m.gguf")
	projA := randomProjections(t, m, 0, 2)
	projB := randomProjections(t, m, 1)
	scripts := []batchScript{
		{name: "short", prompt: 3, steps: 24, idle: true},
		{name: "long prompt", prompt: 150, steps: 10},
		{name: "hook", prompt: 20, steps: 16, hook: true},
		{name: "evict", prompt: 40, steps: 20, evictAt: 8},
		{name: "q8_0 cache", prompt: 33, steps: 12, kv: backend.KVQ8_0},
		{name: "verify", prompt: 9, steps: 8, verify: true},
		{name: "projections A", prompt: 12, steps: 10, proj: &projA},
		{name: "projections A again", prompt: 17, steps: 10, proj: &projA},
		{name: "projections B", prompt: 6, steps: 10, proj: &projB},
		{name: "pauses", prompt: 5, steps: 8, pause: 3 * time.Millisecond},
		{name: "steered", prompt: 14, steps: 12, steer: 4},
		{name: "steered otherwise", prompt: 4, steps: 12, steer: -3},
	}
	st := batchedLikeAlone(t, m, scripts, 256)
	if st.Batched == 0 {
		t.Fatal("no step ran more than one sequence")
	}
}

// TestBatcherArchs: the other block functions and layer options — Gemma 3's
// post-norms and local RoPE base, phi3's LongRoPE factors, the mixtures of
// experts (their routing read by a RouteHook per sequence), gpt-oss's sinks,
// window and MXFP4 experts — batched as they run alone.
func TestBatcherArchs(t *testing.T) {
	for _, name := range []string{"gemma3", "phi3-longrope", "qwen3moe", "gpt-oss"} {
		t.Run(name, func(t *testing.T) {
			path, err := archgen.Write(t.TempDir(), name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			scripts := []batchScript{
				{name: "short", prompt: 3, steps: 12, route: true},
				{name: "long prompt", prompt: 90, steps: 8},
				{name: "verify", prompt: 7, steps: 6, verify: true, route: true},
				{name: "hook", prompt: 11, steps: 9, hook: true},
				{name: "steered", prompt: 5, steps: 9, steer: 2},
			}
			batchedLikeAlone(t, m, scripts, 0)
		})
	}
}

// noViews is a backend without backend.Viewer (nor any other optional
// capability): a batcher on it runs each State alone, a step each.
type noViews struct{ backend.Backend }

// TestBatcherWithoutViews: on a backend that cannot view its buffers (the
// remote one), the batcher runs one State a step, each as it runs alone.
func TestBatcherWithoutViews(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	scripts := []batchScript{
		{name: "short", prompt: 3, steps: 12},
		{name: "long prompt", prompt: 70, steps: 8},
		{name: "verify", prompt: 9, steps: 6, verify: true},
		{name: "steered", prompt: 5, steps: 6, steer: 3},
	}
	st := batchedLikeAloneOn(t, m, scripts, 256, func(b backend.Backend) backend.Backend { return noViews{b} })
	if st.Batched != 0 {
		t.Fatalf("%d steps ran several States without views", st.Batched)
	}
}

// batchedLikeAlone runs each script alone, then all of them at once through
// one Batcher, on states of ctx positions; each must give the same logits
// bit for bit. It returns the batcher's counts.
func batchedLikeAlone(t *testing.T, m *Model, scripts []batchScript, ctx int) BatcherStats {
	return batchedLikeAloneOn(t, m, scripts, ctx, func(b backend.Backend) backend.Backend { return b })
}

// batchedLikeAloneOn is batchedLikeAlone with the batcher's backend passed
// through wrap.
func batchedLikeAloneOn(t *testing.T, m *Model, scripts []batchScript, ctx int, wrap func(backend.Backend) backend.Backend) BatcherStats {
	t.Helper()
	base := testBackend()
	newState := func(sc batchScript) *State {
		b, err := base.Share()
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.NewStateWith(ctx, b, StateOptions{KV: sc.kv})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	want := make([][][]float32, len(scripts))
	for i, sc := range scripts {
		out, err := runScript(t, newState(sc), sc, uint64(i))
		if err != nil {
			t.Fatalf("%s alone: %v", sc.name, err)
		}
		want[i] = out
	}

	qb, err := base.Share()
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.NewBatcher(wrap(qb), BatcherOptions{Chunk: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	got := make([][][]float32, len(scripts))
	errs := make([]error, len(scripts))
	states := make([]*State, len(scripts))
	for i, sc := range scripts {
		states[i] = newState(sc)
		if err := q.Join(states[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, sc := range scripts {
		wg.Go(func() {
			<-start
			got[i], errs[i] = runScript(t, states[i], sc, uint64(i))
		})
	}
	close(start)
	wg.Wait()
	for i, sc := range scripts {
		if errs[i] != nil {
			t.Fatalf("%s batched: %v", sc.name, errs[i])
		}
		if err := sameLogits(want[i], got[i]); err != nil {
			t.Errorf("%s: batched differs from alone: %v", sc.name, err)
		}
	}
	st := q.Stats()
	t.Logf("%d steps, %d of them batched, %d rows, %.2f sequences a step", st.Steps, st.Batched, st.Rows, float64(st.Seqs)/float64(st.Steps))
	return st
}

// sameLogits says where two runs' logits first differ in any bit.
func sameLogits(want, got [][]float32) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d logits vectors, want %d", len(got), len(want))
	}
	for k := range want {
		for i := range want[k] {
			if math.Float32bits(want[k][i]) != math.Float32bits(got[k][i]) {
				return fmt.Errorf("step %d, logit %d: %v, alone %v", k, i, got[k][i], want[k][i])
			}
		}
	}
	return nil
}

// TestBatcherStragglerWaitedForOnce: a sequence of the last step that does
// not come back (a client that stopped reading) holds the next step up for
// the batcher's wait once, not every step after.
func TestBatcherStragglerWaitedForOnce(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	base := testBackend()
	qb, _ := base.Share()
	const wait = time.Second
	q, err := m.NewBatcher(qb, BatcherOptions{Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var states [2]*State
	for i := range states {
		b, _ := base.Share()
		if states[i], err = m.NewStateOn(256, b); err != nil {
			t.Fatal(err)
		}
		defer states[i].Close()
		if err := q.Join(states[i]); err != nil {
			t.Fatal(err)
		}
	}
	logits := [2][]float32{make([]float32, m.Vocab), make([]float32, m.Vocab)}
	// Both in one step, so that both are expected back.
	var wg sync.WaitGroup
	for i := range states {
		wg.Go(func() {
			if err := states[i].Forward([]int32{1, 300, 391}, logits[i]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// The second never comes back; the first decodes 20 tokens.
	start := time.Now()
	for range 20 {
		if err := states[0].Forward([]int32{argmax(logits[0])}, logits[0]); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 5*wait {
		t.Fatalf("20 tokens took %v: the straggler held up more than the first step (wait %v)", took, wait)
	}
}

// BenchmarkBatcherDecode measures what joining a Batcher costs a State
// decoding alone (a server with one client): 64 tokens with the State on
// its own, then 64 with it joined, taking turns each iteration, on the
// SmolLM2-135M shape in Q8_0 (or ISAGI_BENCH_MODEL). It reports both
// speeds and joined/alone.
func BenchmarkBatcherDecode(b *testing.B) {
	path := os.Getenv("ISAGI_BENCH_MODEL")
	if path == "" {
		path = writeSynth(b, b.TempDir(), tensor.Q8_0)
	}
	pool := tensor.NewPool(0)
	defer pool.Close()
	m, s := benchState(b, path, tensor.NewKernels(pool))
	q, err := m.NewBatcher(cpu.New(tensor.NewKernels(pool)), BatcherOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	logits := make([]float32, m.Vocab)
	decode := func(joined bool) time.Duration {
		if joined {
			if err := q.Join(s); err != nil {
				b.Fatal(err)
			}
			defer q.Leave(s)
		}
		s.Reset()
		if err := s.Forward([]int32{3, 4, 5, 6, 7, 8, 9, 10}, logits); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		for range 64 {
			if err := s.Forward([]int32{5}, logits); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	for t0 := time.Now(); time.Since(t0) < 2*time.Second; {
		decode(false)
		decode(true)
	}
	var ta, tj time.Duration
	for b.Loop() {
		ta += decode(false)
		tj += decode(true)
	}
	b.ReportMetric(64*float64(b.N)/ta.Seconds(), "alone-tok/s")
	b.ReportMetric(64*float64(b.N)/tj.Seconds(), "joined-tok/s")
	b.ReportMetric(ta.Seconds()/tj.Seconds(), "joined/alone")
}
