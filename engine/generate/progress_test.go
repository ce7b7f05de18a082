package generate

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// smallSteps is the CPU backend taking batches of rows rows: a prompt
// longer than that is prefilled in several steps (the kjv fixture's
// window, 256, is one step of model.MaxBatch).
type smallSteps struct {
	backend.Backend
	rows int
}

func (b smallSteps) BatchSize() int { return b.rows }

// newSmallStepGen is a greedy generator over kjv on a backend of 32-row
// steps.
func newSmallStepGen(t *testing.T) *Generator {
	t.Helper()
	m, err := model.Open(fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	st, err := m.NewStateOn(0, smallSteps{cpu.New(nil), 32})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(st, sample.Params{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// progressPrompt is a 100-token prompt: four steps of 32 rows, the last
// one short.
func progressPrompt() []int32 {
	p := make([]int32, 100)
	for i := range p {
		p[i] = int32(300 + 7*i%900)
	}
	p[0] = 1
	return p
}

// TestPrefillProgress: Options.Progress is told 0 of the prompt before the
// first step and each step's end after it, in the state's own steps; the
// reply is the one generated without it; and telling it allocates
// nothing.
func TestPrefillProgress(t *testing.T) {
	prompt := progressPrompt()
	g := newSmallStepGen(t)
	want, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	g.Reset(0)
	var seen [][2]int
	progress := func(done, total int) { seen = append(seen, [2]int{done, total}) }
	got, _, err := collect(t, g, context.Background(), prompt, Options{MaxTokens: 12, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("with progress %v, without %v", got, want)
	}
	if w := [][2]int{{0, 100}, {32, 100}, {64, 100}, {96, 100}, {100, 100}}; !slices.Equal(seen, w) {
		t.Fatalf("progress %v, want %v", seen, w)
	}

	// A continuation with an empty prompt has no prefill to tell.
	seen = seen[:0]
	if _, _, err := collect(t, g, context.Background(), nil, Options{MaxTokens: 2, Progress: progress}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 {
		t.Fatalf("an empty prompt told progress %v", seen)
	}

	var calls int
	quiet := func(done, total int) { calls++ }
	emit := func(int32) error { return nil }
	o := Options{MaxTokens: 4, Progress: quiet}
	if n := testing.AllocsPerRun(5, func() {
		g.Reset(0)
		if _, err := g.Generate(context.Background(), prompt, o, emit); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per generation told its progress", n)
	}
	if calls == 0 {
		t.Fatal("the progress function was never called")
	}
}

// TestPrefillCancelledBetweenSteps: a context cancelled during a long
// prefill (here by the progress function, after the second step) stops it
// before the next step: the state holds the two steps' tokens, nothing is
// sampled, and the reason is StopCancelled.
func TestPrefillCancelledBetweenSteps(t *testing.T) {
	g := newSmallStepGen(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	st, err := g.Generate(ctx, progressPrompt(), Options{Progress: func(done, total int) {
		if done == 64 {
			cancel()
		}
	}}, func(int32) error {
		n++
		return nil
	})
	if !errors.Is(err, context.Canceled) || st.Reason != StopCancelled || n != 0 {
		t.Fatalf("err %v, reason %v, %d tokens; want Canceled before any", err, st.Reason, n)
	}
	if p := g.State().Pos(); p != 64 || len(g.History()) != 64 {
		t.Fatalf("cancelled after 64 prompt tokens, the state holds %d and the history %d", p, len(g.History()))
	}
}
