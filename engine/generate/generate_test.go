package generate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

func fixture(t testing.TB, rel string) string { t.Helper(); return fixtures.Path(t, rel) }

func newGen(t testing.TB, file string, ctx int, p sample.Params) *Generator {
	t.Helper()
	m, err := model.Open(fixture(t, file))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	st, err := m.NewStateOn(ctx, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(st, p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func collect(t *testing.T, g *Generator, ctx context.Context, prompt []int32, o Options) ([]int32, Stats, error) {
	t.Helper()
	var out []int32
	st, err := g.Generate(ctx, prompt, o, func(tok int32) error {
		out = append(out, tok)
		return nil
	})
	return out, st, err
}

// TestGreedyMatchesGoldenAndStopsAtEOS: greedy generation from the golden
// prompt ids reproduces the reference continuation and stops on </s>
// exactly where the reference does ("In the beginning", step 17).
func TestGreedyMatchesGoldenAndStopsAtEOS(t *testing.T) {
	var gold struct {
		EOS   int32 `json:"eos_token_id"`
		Cases []struct {
			Prompt       string  `json:"prompt"`
			PromptIDs    []int32 `json:"prompt_ids"`
			GreedyIDs    []int32 `json:"greedy_ids"`
			FirstEOSStep *int    `json:"first_eos_step"`
		} `json:"cases"`
	}
	b, err := os.ReadFile(fixture(t, "kjv/golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &gold); err != nil {
		t.Fatal(err)
	}
	g := newGen(t, "kjv/kjv-f32.gguf", 0, sample.Params{})
	sawEOS := false
	for _, c := range gold.Cases {
		g.Reset(0)
		got, st, err := collect(t, g, context.Background(), c.PromptIDs, Options{MaxTokens: len(c.GreedyIDs), Stop: []int32{gold.EOS}})
		if err != nil {
			t.Fatal(err)
		}
		want := c.GreedyIDs
		wantReason := StopMaxTokens
		if c.FirstEOSStep != nil {
			want = want[:*c.FirstEOSStep+1]
			wantReason = StopToken
			sawEOS = true
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", c.Prompt, got, want)
		}
		if st.Reason != wantReason || st.Generated != len(want) || st.PromptTokens != len(c.PromptIDs) {
			t.Errorf("%q: stats %+v, want reason %v and %d tokens", c.Prompt, st, wantReason, len(want))
		}
		if st.TimeToFirst <= 0 || st.PrefillTokPerSec() <= 0 {
			t.Errorf("%q: timing stats missing: %+v", c.Prompt, st)
		}
	}
	if !sawEOS {
		t.Fatal("no golden case stops at EOS: the stop path went untested")
	}
}

func TestSeededSamplingIsReproducible(t *testing.T) {
	p := sample.Params{Temperature: 0.9, TopK: 40, TopP: 0.95, Seed: 7}
	prompt := []int32{1, 300, 391, 394}
	run := func(seed uint64) []int32 {
		q := p
		q.Seed = seed
		g := newGen(t, "kjv/kjv-q8_0.gguf", 0, q)
		out, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 40})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different tokens:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("seeds 7 and 8 gave the same 40 tokens: the seed is not used")
	}
}

// TestContinuationEqualsOneCall: two calls (the second with an empty prompt)
// continue exactly like one long call, thanks to the pending token.
func TestContinuationEqualsOneCall(t *testing.T) {
	prompt := []int32{1, 300, 391, 394}
	g := newGen(t, "kjv/kjv-f32.gguf", 0, sample.Params{})
	whole, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	g.Reset(0)
	first, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	rest, _, err := collect(t, g, context.Background(), nil, Options{MaxTokens: 18})
	if err != nil {
		t.Fatal(err)
	}
	if got := append(first, rest...); !slices.Equal(got, whole) {
		t.Fatalf("split generation differs:\n got %v\nwant %v", got, whole)
	}
	if h := g.History(); len(h) != len(prompt)+30 || !slices.Equal(h[len(prompt):], whole) {
		t.Fatalf("history %v", h)
	}
}

func TestCancellation(t *testing.T) {
	g := newGen(t, "kjv/kjv-q8_0.gguf", 0, sample.Params{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	st, err := g.Generate(ctx, []int32{1, 300}, Options{}, func(int32) error {
		n++
		if n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || st.Reason != StopCancelled || n != 5 {
		t.Fatalf("err %v, reason %v, %d tokens; want Canceled after 5", err, st.Reason, n)
	}
}

func TestContextFullIsTyped(t *testing.T) {
	g := newGen(t, "kjv/kjv-q8_0.gguf", 16, sample.Params{})
	out, st, err := collect(t, g, context.Background(), []int32{1, 300, 391, 394}, Options{})
	if !errors.Is(err, model.ErrContextFull) || st.Reason != StopContext {
		t.Fatalf("err %v, reason %v; want ErrContextFull", err, st.Reason)
	}
	if len(out) != 16-4+1 {
		t.Fatalf("%d tokens from a 16-position cache and a 4-token prompt, want 13", len(out))
	}
	if _, _, err := collect(t, g, context.Background(), make([]int32, 40), Options{}); !errors.Is(err, model.ErrContextFull) {
		t.Fatalf("an oversized prompt: %v", err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	g := newGen(t, "kjv/kjv-q8_0.gguf", 0, sample.Params{})
	boom := errors.New("pipe closed")
	st, err := g.Generate(context.Background(), []int32{1, 300}, Options{}, func(int32) error { return boom })
	if !errors.Is(err, boom) || st.Reason != StopEmit || st.Generated != 1 {
		t.Fatalf("err %v, stats %+v", err, st)
	}
}

// TestGenerateAllocatesNothing: a whole call, prefill and 30 decoded tokens
// with temperature, top-k, top-p, min-p and penalty, allocates nothing.
func TestGenerateAllocatesNothing(t *testing.T) {
	g := newGen(t, "kjv/kjv-q8_0.gguf", 0, sample.Params{Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05, RepeatPenalty: 1.1, Seed: 1})
	prompt := []int32{1, 300, 391, 394}
	emit := func(int32) error { return nil }
	ctx := context.Background()
	o := Options{MaxTokens: 30}
	if _, err := g.Generate(ctx, prompt, o, emit); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() {
		g.Reset(1)
		if _, err := g.Generate(ctx, prompt, o, emit); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per 30-token generation", n)
	}
}

// TestTruncateRewinds: rewinding to a prefix and generating again gives
// exactly what a fresh run from that prefix gives.
func TestTruncateRewinds(t *testing.T) {
	prompt := []int32{1, 300, 391, 394}
	g := newGen(t, "kjv/kjv-f32.gguf", 0, sample.Params{})
	if _, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 10}); err != nil {
		t.Fatal(err)
	}
	g.Truncate(2) // keep "<s> And", drop the rest
	if g.State().Pos() != 2 || len(g.History()) != 2 {
		t.Fatalf("after Truncate(2): pos %d, history %v", g.State().Pos(), g.History())
	}
	again, _, err := collect(t, g, context.Background(), prompt[2:], Options{MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	g.Reset(0)
	fresh, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, fresh) {
		t.Fatalf("after rewind %v, fresh %v", again, fresh)
	}
}

// failing is the CPU backend failing for good after its first few
// products of logits, as a remote backend does when its server dies.
type failing struct {
	backend.Backend
	left int // logits products before the failure
}

func (f *failing) Logits(dst []float32, w backend.Matrix, x backend.Buffer, row0, n int) {
	f.left--
	f.Backend.Logits(dst, w, x, row0, n)
}

func (f *failing) Err() error {
	if f.left < 0 {
		return errors.New("rpc server 127.0.0.1:1 closed the connection")
	}
	return nil
}

// TestFailureReason: a call that ends because the model failed says so
// (StopError, "failed"), not "stop token", the zero Reason.
func TestFailureReason(t *testing.T) {
	m, err := model.Open(fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.NewStateOn(0, &failing{Backend: cpu.New(nil), left: 5})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(st, sample.Params{Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	_, stats, err := collect(t, g, context.Background(), []int32{1, 400, 500}, Options{MaxTokens: 50})
	if err == nil {
		t.Fatal("generation on a failed backend succeeded")
	}
	if stats.Reason != StopError || stats.Reason.String() != "failed" {
		t.Errorf("reason %v, want failed", stats.Reason)
	}
	if stats.Generated == 0 {
		t.Errorf("the failure came before any token: the test wants one mid-generation")
	}
}
