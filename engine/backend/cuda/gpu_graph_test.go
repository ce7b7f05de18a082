package cuda

import (
	"math"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
)

// graphDecode is one model's record of graphVsPlain.
type graphDecode struct {
	Model         string  `json:"model"`
	Steps         int     `json:"steps"`
	Equal         bool    `json:"bitwise_equal"`
	FirstDiffStep int     `json:"first_diff_step"` // -1: none
	GraphLaunches int     `json:"graph_launches"`
	GraphsBuilt   int     `json:"graphs_built"`
	GraphTokS     float64 `json:"graph_tok_s"`
	PlainTokS     float64 `json:"plain_tok_s"`
	Note          string  `json:"note,omitempty"`
}

// graphVsPlain decodes the same tokens with one CUDA graph a step and with
// plain launches (a backend whose graphs are off), and wants the logits of
// every step equal bit for bit: the graph's nodes are the plain step's
// launches, so the kernels compute the same. The tokens are the plain
// side's greedy choices; halfway both states truncate four positions, which
// the graph must survive (its positions are inputs in device memory). It
// runs inside TestGPUConformance, for every fixture that test decodes, and
// records graph_decode.jsonl with the speed of both sides (tiny models:
// launch-bound, which is what a graph removes).
func graphVsPlain(t *testing.T, g *Device, m *model.Model, name string) {
	const steps = 32
	var sides [2]struct {
		b      *Backend
		st     *model.State
		logits []float32
		dur    time.Duration
	}
	for i := range sides {
		b, err := g.NewBackend()
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		b.st.off = i == 1 // side 1 launches plainly
		st, err := m.NewStateOn(256, b)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sides[i].b, sides[i].st, sides[i].logits = b, st, make([]float32, m.Config.Vocab)
	}
	prompt := []int32{1, 12, 40, 7, 99, 3}
	for i := range sides {
		if err := sides[i].st.Forward(prompt, sides[i].logits); err != nil {
			t.Fatal(err)
		}
	}
	rec := graphDecode{Model: name, Steps: steps, Equal: true, FirstDiffStep: -1, Note: g.GraphNote()}
	for step := range steps {
		tok := argmax(sides[1].logits)
		if step == steps/2 {
			for i := range sides {
				sides[i].st.Truncate(sides[i].st.Pos() - 4)
			}
		}
		for i := range sides {
			t0 := time.Now()
			if err := sides[i].st.Forward([]int32{tok}, sides[i].logits); err != nil {
				t.Fatal(err)
			}
			sides[i].dur += time.Since(t0)
		}
		for j, v := range sides[0].logits {
			if math.Float32bits(v) != math.Float32bits(sides[1].logits[j]) {
				if rec.Equal {
					t.Errorf("step %d: graph logit %d is %g, plain %g", step, j, v, sides[1].logits[j])
				}
				rec.Equal = false
				if rec.FirstDiffStep < 0 {
					rec.FirstDiffStep = step
				}
				break
			}
		}
	}
	rec.GraphLaunches, rec.GraphsBuilt, _ = sides[0].b.GraphStats()
	if l, _, _ := sides[1].b.GraphStats(); l != 0 {
		t.Errorf("the plain side launched %d graphs", l)
	}
	if g.graphs && rec.GraphLaunches < steps-4 {
		t.Errorf("%d graph launches in %d decode steps (%d built)", rec.GraphLaunches, steps, rec.GraphsBuilt)
	}
	rec.GraphTokS = steps / sides[0].dur.Seconds()
	rec.PlainTokS = steps / sides[1].dur.Seconds()
	t.Logf("graph decode: %d graph launches, %d built, %.0f tok/s against %.0f plain, equal %v",
		rec.GraphLaunches, rec.GraphsBuilt, rec.GraphTokS, rec.PlainTokS, rec.Equal)
	record(t, "graph_decode.jsonl", rec)
}
