package geometry

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Source is a loaded model as calibration needs it.
type Source struct {
	Model *model.Model
	// Backend runs calibration's states; the caller's states may share it
	// as long as they do not run meanwhile. nil runs them on the CPU, on a
	// pool of their own.
	Backend backend.Backend
	// Prompt tokenises a calibration prompt the way the model sees a user's
	// message in chat: one user turn rendered by its chat template with the
	// generation prompt, or, for a base model, the text after BOS. The
	// live gauge reads prompts in that same form, so the thresholds carry.
	Prompt func(text string) ([]int32, error)
	// Text tokenises plain prose (BOS, then the text) for the collateral
	// measurement.
	Text func(text string) ([]int32, error)
	// Decode renders reply tokens as text, and Stop says which tokens end
	// a reply: the refusal counts (calibration's held-out one, and
	// geometry/evaluate's) read replies. Either may be nil for the other
	// measures.
	Decode func(ids []int32) string
	Stop   func(id int32) bool
	// Chat says Prompt renders a chat turn (a chat template with its
	// generation prompt): the end of the prompt is then where the model
	// decides how to answer, and the gauge is calibrated there by default
	// (Options.GaugePosition).
	Chat bool
}

// maxPromptTokens caps one calibration prompt (the shipped ones are a
// sentence or two; a longer one is cut, not refused).
const maxPromptTokens = 256

// meanState accumulates the residual stream at one layer over positions.
// Registered after any projector hook, so at the projector's own layer it
// reads the state the next block (or the final norm) will see.
type meanState struct {
	layer int
	sum   []float64
	last  []float64 // the latest position's state
	n     int
}

// HookLayers implements model.LayerHook: the one layer it averages.
func (c *meanState) HookLayers() []int { return []int{c.layer} }

// ReadOnly implements model.ReadOnlyHook.
func (c *meanState) ReadOnly() bool { return true }

func (c *meanState) AfterBlock(layer, _ int, x []float32) {
	if layer != c.layer {
		return
	}
	for i, v := range x {
		c.sum[i] += float64(v)
		c.last[i] = float64(v)
	}
	c.n++
}

// projHook applies h ← h − Q Qᵀ (h − μ) at layers ≥ from (docs/mechanisms.md §7):
// float32 rows of Q precomputed and the engine's vector kernels, so the
// per-token cost is 2·r·d multiply-adds at SIMD speed and no allocation.
type projHook struct {
	from int
	d, r int
	mu   []float32
	q    []float32 // r×d, row j = column j of Q
	c    []float32 // r coefficients, scratch
	xc   []float32 // x − μ, scratch
	// aff is the same map for a backend to apply (model.AffineHook).
	aff model.Affine
}

// newProjHook builds the hook from an orthonormal Q (d×r) and μ; r = 0
// makes a hook that does nothing.
func newProjHook(from int, q *mat.Dense, mu []float64) *projHook {
	d := len(mu)
	h := &projHook{from: from, d: d, mu: narrow(mu)}
	h.aff.Mu = h.mu
	if q == nil {
		return h
	}
	_, r := q.Dims()
	h.r = r
	h.q = make([]float32, r*d)
	h.c = make([]float32, r)
	h.xc = make([]float32, d)
	for j := range r {
		for i := range d {
			h.q[j*d+i] = float32(q.At(i, j))
		}
	}
	h.aff.Q, h.aff.K = h.q, r
	return h
}

// AffineAt implements model.AffineHook: the projector at layers ≥ from,
// as x ← x − QᵀQ(x − μ) on the backend (the same float32 arithmetic as
// AfterBlock on the CPU).
func (h *projHook) AffineAt(layer int) (*model.Affine, bool) {
	if layer < h.from || h.r == 0 {
		return nil, false
	}
	return &h.aff, false
}

// ReadBlock implements model.AffineHook: the projector reads nothing.
func (h *projHook) ReadBlock(int, int, []float32) {}

func (h *projHook) AfterBlock(layer, _ int, x []float32) {
	if layer < h.from || h.r == 0 || len(x) != h.d {
		return
	}
	for i, v := range x {
		h.xc[i] = v - h.mu[i]
	}
	tensor.DotRows(h.q, h.xc, h.c)
	for j, c := range h.c {
		tensor.Axpy(-c, h.q[j*h.d:(j+1)*h.d], x)
	}
}

// runner feeds texts through one model state with optional hooks.
type runner struct {
	src Source
	st  *model.State
	log []float32 // logits for up to chunk tokens
}

// chunk is how many positions' logits one Forward call returns when
// scoring text: bounded so a 150k vocabulary needs tens of MB, not GB.
const chunk = 32

func newRunner(src Source) (*runner, error) {
	if src.Model == nil || src.Prompt == nil || src.Text == nil {
		return nil, fmt.Errorf("geometry: source needs a model and both tokenisers")
	}
	// Every sequence fed is cut to the window, so a window of one prompt
	// is all the KV cache this state needs.
	window := min(src.Model.CtxLen, maxPromptTokens)
	var (
		st  *model.State
		err error
	)
	if src.Backend == nil {
		st, err = src.Model.NewStateOn(window, cpu.New(nil))
	} else {
		st, err = src.Model.NewStateOn(window, src.Backend)
	}
	if err != nil {
		return nil, err
	}
	return &runner{src: src, st: st}, nil
}

// states returns one row per prompt: the mean over the prompt's tokens of
// the residual stream at layer, with hooks (projectors) applied first.
// tokens counts the positions computed.
func (r *runner) states(ctx context.Context, prompts []string, layer int, hooks []any, tick func()) (H *mat.Dense, tokens int, err error) {
	H, _, tokens, err = r.statesAt(ctx, prompts, layer, hooks, tick)
	return H, tokens, err
}

// statesAt is states with, beside each prompt's mean, the state of its
// last token (L, one row per prompt), from the same forward pass.
func (r *runner) statesAt(ctx context.Context, prompts []string, layer int, hooks []any, tick func()) (H, L *mat.Dense, tokens int, err error) {
	d := r.src.Model.Dim
	H, L = mat.NewDense(len(prompts), d, nil), mat.NewDense(len(prompts), d, nil)
	c := &meanState{layer: layer, sum: make([]float64, d), last: make([]float64, d)}
	for _, h := range hooks {
		remove, err := r.st.AddHook(h)
		if err != nil {
			return nil, nil, 0, err
		}
		defer remove()
	}
	remove, err := r.st.AddHook(c)
	if err != nil {
		return nil, nil, 0, err
	}
	defer remove()
	for i, p := range prompts {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		ids, err := r.src.Prompt(p)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("geometry: prompt %q: %w", p, err)
		}
		if len(ids) > r.st.Cap() {
			ids = ids[:r.st.Cap()]
		}
		if len(ids) == 0 {
			return nil, nil, 0, fmt.Errorf("geometry: prompt %q has no tokens", p)
		}
		clear(c.sum)
		c.n = 0
		r.st.Reset()
		if err := r.st.Forward(ids, nil); err != nil {
			return nil, nil, 0, fmt.Errorf("geometry: prompt %q: %w", p, err)
		}
		row := H.RawRowView(i)
		for j := range row {
			row[j] = c.sum[j] / float64(c.n)
		}
		copy(L.RawRowView(i), c.last)
		tokens += len(ids)
		if tick != nil {
			tick()
		}
	}
	return H, L, tokens, nil
}

// crossEntropy is the mean next-token negative log-likelihood (nats) over
// the token sequences, with hooks applied.
func (r *runner) crossEntropy(ctx context.Context, seqs [][]int32, hooks []any) (float64, error) {
	vocab := r.src.Model.Vocab
	if r.log == nil {
		r.log = make([]float32, chunk*vocab)
	}
	for _, h := range hooks {
		remove, err := r.st.AddHook(h)
		if err != nil {
			return 0, err
		}
		defer remove()
	}
	var sum float64
	n := 0
	for _, ids := range seqs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		r.st.Reset()
		for start := 0; start < len(ids)-1; start += chunk {
			end := min(start+chunk, len(ids)-1)
			logits := r.log[:(end-start)*vocab]
			if err := r.st.Forward(ids[start:end], logits); err != nil {
				return 0, fmt.Errorf("geometry: scoring text: %w", err)
			}
			for i := start; i < end; i++ {
				sum += generate.NLL(logits[(i-start)*vocab:(i-start+1)*vocab], ids[i+1])
				n++
			}
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("geometry: no benign tokens to score")
	}
	return sum / float64(n), nil
}

func narrow(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func rows(H *mat.Dense) [][]float64 {
	n, _ := H.Dims()
	out := make([][]float64, n)
	for i := range n {
		out[i] = H.RawRowView(i)
	}
	return out
}

// lastStates runs the sequences once and keeps, for every position but
// each sequence's last, the last block's output: with a projector acting
// only there, cross-entropy can then be rescored by State.Classify alone.
func (r *runner) lastStates(ctx context.Context, seqs [][]int32) ([][]float32, error) {
	rec := &allStates{layer: r.src.Model.Layers - 1}
	remove, err := r.st.AddHook(rec)
	if err != nil {
		return nil, err
	}
	defer remove()
	out := make([][]float32, len(seqs))
	for i, ids := range seqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec.got = rec.got[:0]
		r.st.Reset()
		if err := r.st.Forward(ids[:len(ids)-1], nil); err != nil {
			return nil, fmt.Errorf("geometry: scoring text: %w", err)
		}
		out[i] = append([]float32(nil), rec.got...)
	}
	return out, nil
}

// allStates records one layer's output at every position.
type allStates struct {
	layer int
	got   []float32
}

// HookLayers implements model.LayerHook: the one layer it records.
func (a *allStates) HookLayers() []int { return []int{a.layer} }

// ReadOnly implements model.ReadOnlyHook.
func (a *allStates) ReadOnly() bool { return true }

func (a *allStates) AfterBlock(layer, _ int, x []float32) {
	if layer == a.layer {
		a.got = append(a.got, x...)
	}
}

// crossEntropyLast is crossEntropy for a projector at the last block, from
// the states lastStates kept: the projection applied to a copy of each
// state, then the final norm and classifier. It equals crossEntropy with
// the hook in the forward pass (the last block's output feeds no cache).
func (r *runner) crossEntropyLast(ctx context.Context, seqs [][]int32, states [][]float32, proj *projHook) (float64, error) {
	m := r.src.Model
	d, vocab := m.Dim, m.Vocab
	if r.log == nil {
		r.log = make([]float32, chunk*vocab)
	}
	buf := make([]float32, chunk*d)
	var sum float64
	n := 0
	for si, ids := range seqs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		hs := states[si]
		for start := 0; start < len(ids)-1; start += chunk {
			end := min(start+chunk, len(ids)-1)
			x := buf[:(end-start)*d]
			copy(x, hs[start*d:end*d])
			if proj != nil {
				for i := range end - start {
					proj.AfterBlock(m.Layers-1, 0, x[i*d:(i+1)*d])
				}
			}
			logits := r.log[:(end-start)*vocab]
			if err := r.st.Classify(x, logits); err != nil {
				return 0, err
			}
			for i := start; i < end; i++ {
				sum += generate.NLL(logits[(i-start)*vocab:(i-start+1)*vocab], ids[i+1])
				n++
			}
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("geometry: no benign tokens to score")
	}
	return sum / float64(n), nil
}
