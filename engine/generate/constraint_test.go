package generate

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/isagi-lab/isagi/engine/sample"
)

// everyThird allows only token ids divisible by 3 and counts what it was
// shown and told.
type everyThird struct{ masks, accepts int }

func (c *everyThird) Mask(logits []float32) {
	c.masks++
	for i := range logits {
		if i%3 != 0 {
			logits[i] = float32(math.Inf(-1))
		}
	}
}

func (c *everyThird) Accept(tok int32) error {
	c.accepts++
	if tok%3 != 0 {
		return fmt.Errorf("token %d", tok)
	}
	return nil
}

// TestConstraint: every token sampled under a constraint is one it
// allowed, greedy and sampled, with a drafter installed (speculation is
// off under a constraint), and each is masked and accepted once.
func TestConstraint(t *testing.T) {
	for _, p := range []sample.Params{{Temperature: 0}, {Temperature: 1, Seed: 9, TopK: 40}} {
		m := openModel(t, "kjv/kjv-q8_0.gguf")
		g := specGen(t, m, p, NewNGramDrafter(), 4)
		c := &everyThird{}
		out, st, err := collect(t, g, context.Background(), []int32{1, 300, 391, 394}, Options{MaxTokens: 24, Constraint: c})
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range out {
			if tok%3 != 0 {
				t.Fatalf("temperature %v: token %d sampled against the constraint (%v)", p.Temperature, tok, out)
			}
		}
		if c.masks != len(out) || c.accepts != len(out) || st.Generated != len(out) {
			t.Fatalf("%d tokens, %d masks, %d accepts", len(out), c.masks, c.accepts)
		}
		if st.Spec.Drafted != 0 || st.Spec.Steps != 0 {
			t.Fatalf("speculation ran under a constraint: %+v", st.Spec)
		}
	}
}
