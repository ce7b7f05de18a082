package generate

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// Bench measures a model on st: a prefill of promptLen tokens (BOS, then
// pseudo-random ids from a fixed seed, so runs are comparable) and greedy
// decoding of genLen tokens with no stop token. The state is reset first
// and left holding the run.
func Bench(ctx context.Context, st *model.State, bos int32, promptLen, genLen int) (Stats, error) {
	if promptLen < 1 || genLen < 1 || promptLen+genLen > st.Cap() {
		return Stats{}, fmt.Errorf("generate: bench of %d+%d tokens does not fit a %d-token context", promptLen, genLen, st.Cap())
	}
	g, err := New(st, sample.Params{})
	if err != nil {
		return Stats{}, err
	}
	g.Reset(0)
	rng := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int32, promptLen)
	prompt[0] = bos
	for i := 1; i < promptLen; i++ {
		prompt[i] = int32(rng.IntN(st.Model().Vocab))
	}
	return g.Generate(ctx, prompt, Options{MaxTokens: genLen}, func(int32) error { return nil })
}
