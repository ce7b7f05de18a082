package generate

import (
	"context"
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/model"
)

// PerplexityResult is what Perplexity measured.
type PerplexityResult struct {
	PPL    float64 // exp of the mean negative log-likelihood
	NLL    float64 // mean negative log-likelihood, in nats per token
	Scored int     // tokens scored
	Chunks int
}

// Perplexity scores ids as llama.cpp's perplexity tool does: the text is cut
// into chunks of the state's context length, each chunk starts with bos in
// place of its first token, and only the second half of each chunk is
// scored, so every scored token sees at least half a window of context.
// progress (may be nil) is told after each chunk. The state is reset.
func Perplexity(ctx context.Context, st *model.State, ids []int32, bos int32, progress func(done, total int)) (PerplexityResult, error) {
	n := st.Cap()
	vocab := st.Model().Vocab
	chunks := len(ids) / n
	if chunks == 0 {
		return PerplexityResult{}, fmt.Errorf("generate: perplexity needs at least %d tokens (one window), the text has %d", n, len(ids))
	}
	logits := make([]float32, n*vocab)
	chunk := make([]int32, n)
	var sum float64
	scored := 0
	for c := range chunks {
		if err := ctx.Err(); err != nil {
			return PerplexityResult{}, err
		}
		copy(chunk, ids[c*n:(c+1)*n])
		if bos >= 0 {
			chunk[0] = bos
		}
		st.Reset()
		if err := st.Forward(chunk, logits); err != nil {
			return PerplexityResult{}, err
		}
		for i := n / 2; i < n-1; i++ {
			sum += NLL(logits[i*vocab:(i+1)*vocab], chunk[i+1])
			scored++
		}
		if progress != nil {
			progress(c+1, chunks)
		}
	}
	st.Reset()
	mean := sum / float64(scored)
	return PerplexityResult{PPL: math.Exp(mean), NLL: mean, Scored: scored, Chunks: chunks}, nil
}

// NLL is −log softmax(logits)[tok], in float64: the cross-entropy of one
// next-token prediction.
func NLL(logits []float32, tok int32) float64 {
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v))
	}
	var z float64
	for _, v := range logits {
		z += math.Exp(float64(v) - mx)
	}
	return mx + math.Log(z) - float64(logits[tok])
}
