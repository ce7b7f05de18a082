package geometry

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Reader reads a model as calibration does, on a model state of its own:
// prompts' hidden states read as user turns, and greedy replies with or
// without a projection, steered or not (Steer). It is what the held-out evaluation
// (geometry/evaluate) measures with, so that its figures come from the
// same readings calibration made, without the evaluation reaching into
// calibration's internals. One goroutine drives it at a time.
type Reader struct{ r *runner }

// NewReader prepares a reader over src, which needs a model and both
// tokenisers.
func NewReader(src Source) (*Reader, error) {
	r, err := newRunner(src)
	if err != nil {
		return nil, err
	}
	return &Reader{r: r}, nil
}

// States reads every prompt at layer: the mean of its tokens' states (one
// row of mean per prompt) and its last token's state (a row of last),
// from one forward pass each. tick, when not nil, is called after each
// prompt.
func (rd *Reader) States(ctx context.Context, prompts []string, layer int, tick func()) (mean, last *mat.Dense, err error) {
	mean, last, _, err = rd.r.statesAt(ctx, prompts, layer, nil, tick)
	return mean, last, err
}

// LastStates reads every prompt's last token's state at each of layers
// (the residual stream leaving that block: after its steering, when the
// reader steers), from one forward pass per prompt: out[i] has one row
// per prompt, for layers[i]. tick, when not nil, is called after each
// prompt.
func (rd *Reader) LastStates(ctx context.Context, prompts []string, layers []int, tick func()) ([]*mat.Dense, error) {
	r := rd.r
	d, L := r.src.Model.Dim, r.src.Model.Layers
	rec := &lastAt{at: make([]int, L), last: make([][]float32, len(layers))}
	for i := range rec.at {
		rec.at[i] = -1
	}
	out := make([]*mat.Dense, len(layers))
	for i, l := range layers {
		if l < 0 || l >= L {
			return nil, fmt.Errorf("geometry: layer %d; the model has %d (0–%d)", l, L, L-1)
		}
		if rec.at[l] >= 0 {
			return nil, fmt.Errorf("geometry: layer %d named twice", l)
		}
		rec.at[l] = i
		rec.layers = append(rec.layers, l)
		rec.last[i] = make([]float32, d)
		out[i] = mat.NewDense(len(prompts), d, nil)
	}
	remove, err := r.st.AddHook(rec)
	if err != nil {
		return nil, err
	}
	defer remove()
	for j, p := range prompts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ids, err := r.promptIDs(p, 0)
		if err != nil {
			return nil, err
		}
		r.st.Reset()
		if err := r.st.Forward(ids, nil); err != nil {
			return nil, fmt.Errorf("geometry: prompt %q: %w", p, err)
		}
		for i := range layers {
			row := out[i].RawRowView(j)
			for k, v := range rec.last[i] {
				row[k] = float64(v)
			}
		}
		if tick != nil {
			tick()
		}
	}
	return out, nil
}

// lastAt keeps the latest position's state at some layers.
type lastAt struct {
	layers []int
	at     []int       // per model layer: its index in last, or −1
	last   [][]float32 // per layer asked for: the latest state
}

// HookLayers implements model.LayerHook.
func (a *lastAt) HookLayers() []int { return a.layers }

// ReadOnly implements model.ReadOnlyHook.
func (a *lastAt) ReadOnly() bool { return true }

func (a *lastAt) AfterBlock(layer, _ int, x []float32) {
	if layer < len(a.at) && a.at[layer] >= 0 {
		copy(a.last[a.at[layer]], x)
	}
}

// Steer sets the steering the reader's forward passes run with from now
// on, beside any projection a call names: dirs[l] added to the residual
// stream after block l, as model.State.SetSteering takes it (a control
// vector combined by engine/steer). nil turns it off. It stays until the
// next Steer, so a caller that steers turns it off when done.
func (rd *Reader) Steer(dirs [][]float32) error {
	return rd.r.st.SetSteering(dirs)
}

// Projection is an intervention on a Reader's replies: the residual
// stream's component in a subspace, centred at the profile's μ, removed
// at every block from the profile's ℓ_s on, as a Snipe projector acts
// (docs/mechanisms.md §7). A nil *Projection is no intervention.
type Projection struct{ h *projHook }

// hook is the projection's model hook (nil for a nil projection).
func (pr *Projection) hook() *projHook {
	if pr == nil {
		return nil
	}
	return pr.h
}

// Projection is the projector on the basis coordinates cs: what Snipe
// applies for a category whose projector holds cs.
func (p *Profile) Projection(cs []int) *Projection {
	return &Projection{h: newProjHook(p.SnipeLayer, coordsQ(p.B, cs), p.Mu)}
}

// Ablation removes one unit direction dir (length D), in the projector's
// place: the refusal-direction paper's intervention, for comparison.
func (p *Profile) Ablation(dir []float64) *Projection {
	return &Projection{h: newProjHook(p.SnipeLayer, mat.NewDense(len(dir), 1, dir), p.Mu)}
}

// errNoDecode refuses a reply from a source that cannot render one.
var errNoDecode = errors.New("geometry: the source cannot decode replies")

// Reply decodes up to n tokens greedily after prompt text read as a user
// turn (cut at the front to leave room for the reply), with proj acting,
// and renders them as text. A token the source's Stop names ends it.
func (rd *Reader) Reply(ctx context.Context, text string, proj *Projection, n int) (string, error) {
	if rd.r.src.Decode == nil {
		return "", errNoDecode
	}
	return rd.r.reply(ctx, text, proj.hook(), n)
}

// ReplyIDs is Reply after prompt tokens already rendered (ids), with no
// projection.
func (rd *Reader) ReplyIDs(ctx context.Context, ids []int32, n int) (string, error) {
	if rd.r.src.Decode == nil {
		return "", errNoDecode
	}
	return rd.r.replyIDs(ctx, ids, n)
}

// FirstLogits are the logits of the first reply token after prompt text,
// with proj acting.
func (rd *Reader) FirstLogits(ctx context.Context, text string, proj *Projection) ([]float32, error) {
	r := rd.r
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, err := r.promptIDs(text, 1)
	if err != nil {
		return nil, err
	}
	logits := make([]float32, r.src.Model.Vocab)
	if err := r.withHook(proj.hook(), func() error { return r.st.Forward(ids, logits) }); err != nil {
		return nil, err
	}
	return logits, nil
}

// TurnStates are one prompt's states at one layer at each place of its
// turn.
type TurnStates struct {
	// Mean is the mean over the prompt's tokens, Last the prompt's last
	// token's state: the one the first reply token is predicted from.
	Mean, Last []float64
	// Reply is the mean over the greedy reply's tokens as the model reads
	// them back, of ReplyTokens tokens; Last when the reply is empty (the
	// model said nothing more).
	Reply       []float64
	ReplyTokens int
}

// Turn reads prompt text's states at layer, and those of up to n greedily
// decoded reply tokens, in one pass.
func (rd *Reader) Turn(ctx context.Context, text string, layer, n int) (TurnStates, error) {
	r := rd.r
	n = min(n, r.st.Cap()-1)
	ids, err := r.promptIDs(text, n)
	if err != nil {
		return TurnStates{}, err
	}
	rec := &allStates{layer: layer}
	remove, err := r.st.AddHook(rec)
	if err != nil {
		return TurnStates{}, err
	}
	defer remove()
	r.st.Reset()
	logits := make([]float32, r.src.Model.Vocab)
	if err := r.st.Forward(ids, logits); err != nil {
		return TurnStates{}, fmt.Errorf("geometry: prompt %q: %w", text, err)
	}
	d := r.src.Model.Dim
	var ts TurnStates
	ts.Mean = meanRows(rec.got, d)
	ts.Last = widen(rec.got[len(rec.got)-d:])
	rec.got = rec.got[:0]
	for range n {
		if err := ctx.Err(); err != nil {
			return TurnStates{}, err
		}
		t := int32(argmax32(logits))
		if r.src.Stop != nil && r.src.Stop(t) {
			break
		}
		if err := r.st.Forward([]int32{t}, logits); err != nil {
			return TurnStates{}, fmt.Errorf("geometry: reply to %q: %w", text, err)
		}
		ts.ReplyTokens++
	}
	if ts.ReplyTokens == 0 {
		ts.Reply = ts.Last
	} else {
		ts.Reply = meanRows(rec.got, d)
	}
	return ts, nil
}

// meanRows is the mean of the d-wide rows of flat.
func meanRows(flat []float32, d int) []float64 {
	out := make([]float64, d)
	n := len(flat) / d
	for i := range n {
		for j, v := range flat[i*d : (i+1)*d] {
			out[j] += float64(v)
		}
	}
	for j := range out {
		out[j] /= float64(n)
	}
	return out
}

func widen(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// replyIDs decodes up to n tokens greedily after the prompt ids (cut at
// the front to leave room for the reply, as promptIDs cuts).
func (r *runner) replyIDs(ctx context.Context, ids []int32, n int) (string, error) {
	n = min(n, r.st.Cap()-1)
	if room := r.st.Cap() - n; len(ids) > room {
		ids = ids[len(ids)-room:]
	}
	if len(ids) == 0 {
		return "", errors.New("geometry: an empty prompt")
	}
	r.st.Reset()
	logits := make([]float32, r.src.Model.Vocab)
	if err := r.st.Forward(ids, logits); err != nil {
		return "", err
	}
	var out []int32
	for range n {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		t := int32(argmax32(logits))
		if r.src.Stop != nil && r.src.Stop(t) {
			break
		}
		out = append(out, t)
		if err := r.st.Forward([]int32{t}, logits); err != nil {
			return "", err
		}
	}
	return r.src.Decode(out), nil
}
