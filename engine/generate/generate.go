// Package generate is the engine's generation API: it feeds a prompt to a
// model state (prefill), then samples and decodes token by token, streaming
// each token to the caller, until an end-of-generation token, a token limit,
// a full context or cancellation.
//
// A Generator continues its state: a second Generate call appends to the
// conversation the first one left in the KV cache. Residual-stream hooks are
// registered on the model.State and see every position, prompt and
// generated alike.
package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// Options bound one Generate call.
type Options struct {
	// MaxTokens caps the generated tokens; 0 means until the context is full.
	MaxTokens int
	// Stop holds the tokens that end generation (EOS and the model's
	// end-of-turn tokens). A stop token is reported to emit and counted, but
	// nothing after it is generated.
	Stop []int32
	// Constraint, when set, limits every sampled token to what it allows
	// (a grammar: engine/grammar through an adapter). Speculative decoding
	// is off for such a call: a drafter does not know the constraint.
	Constraint Constraint
	// Progress, when set, is told how far the prefill has come: the
	// prompt tokens computed so far and the prompt's length, once before
	// the first step (done 0) and after every step of the state
	// (model.State.BatchSize tokens, or EvictChunk while evicting), on the
	// calling goroutine. A long prompt is cancelled (ctx) between the same
	// steps. It is not called for an empty prompt.
	Progress func(done, total int)
}

// Constraint limits the tokens a Generate call may sample.
type Constraint interface {
	// Mask sets the logits of the tokens not allowed next to −Inf.
	Mask(logits []float32)
	// Accept advances past tok, which Mask allowed.
	Accept(tok int32) error
}

// Reason says why a Generate call ended.
type Reason int

// Why generation stopped.
const (
	StopToken     Reason = iota // a token in Options.Stop was generated
	StopMaxTokens               // Options.MaxTokens were generated
	StopContext                 // the KV cache is full (the error wraps model.ErrContextFull)
	StopCancelled               // the context was cancelled (the error is ctx.Err())
	StopEmit                    // emit returned an error
	StopError                   // the model failed (a backend's error): the error says why
)

func (r Reason) String() string {
	switch r {
	case StopToken:
		return "stop token"
	case StopMaxTokens:
		return "token limit"
	case StopContext:
		return "context full"
	case StopCancelled:
		return "cancelled"
	case StopEmit:
		return "output error"
	case StopError:
		return "failed"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Stats describes one Generate call.
type Stats struct {
	PromptTokens    int
	Generated       int           // tokens sampled, the stop token included
	TimeToFirst     time.Duration // from the call to the first sampled token
	PrefillDuration time.Duration // prompt processing
	DecodeDuration  time.Duration // every step after the first token
	Reason          Reason
	// Spec is what speculative decoding did, when it was on.
	Spec SpecStats
}

// PrefillTokPerSec is prompt tokens per second of prefill.
func (s Stats) PrefillTokPerSec() float64 {
	return perSec(s.PromptTokens, s.PrefillDuration)
}

// DecodeTokPerSec is generated tokens per second of decoding, counting the
// forward passes after the first token (each yields one more token).
func (s Stats) DecodeTokPerSec() float64 {
	return perSec(s.Generated-1, s.DecodeDuration)
}

func perSec(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Generator samples continuations from one model.State.
type Generator struct {
	state   *model.State
	params  sample.Params
	sampler *sample.Sampler
	logits  []float32
	history []int32 // every token fed to the state, then pending if any
	pending bool    // the last sampled token is not in the state yet
	one     [1]int32
	spec    *specState // speculative decoding, or nil
	evict   *Eviction  // token-level KV eviction, or nil
}

// New returns a generator over st (which should be empty, or hold exactly the
// tokens passed to earlier Generate calls) with sampling parameters p.
func New(st *model.State, p sample.Params) (*Generator, error) {
	vocab := st.Model().Vocab
	s, err := sample.New(vocab, p)
	if err != nil {
		return nil, err
	}
	return &Generator{
		state: st, sampler: s, params: p,
		logits:  make([]float32, vocab),
		history: make([]int32, 0, st.Cap()+1),
	}, nil
}

// State is the model state the generator continues.
func (g *Generator) State() *model.State { return g.state }

// History is every token of the conversation, prompt and generated, oldest
// first — the last one may still be pending (see Generate). It aliases the
// generator's storage: copy it to keep it.
func (g *Generator) History() []int32 { return g.history }

// Truncate keeps the first n tokens of the history and forgets the rest,
// in the state too, so a conversation can be rewound to where a new prompt
// departs from it (n ≥ len(History()) changes nothing). Below the state's
// TruncateFloor (an eviction chose which earlier entries to keep) it
// forgets everything: the history then starts again from nothing.
func (g *Generator) Truncate(n int) {
	if n < 0 || n >= len(g.history) {
		return
	}
	if n < g.state.TruncateFloor() {
		n = 0
	}
	g.history = g.history[:n]
	g.state.Truncate(n)
	g.pending = false
}

// SetParams replaces the sampling parameters (and restarts the random
// stream from p.Seed); the conversation is kept.
func (g *Generator) SetParams(p sample.Params) error {
	if g.sampler != nil {
		if err := g.sampler.SetParams(p); err != nil {
			return err
		}
		g.params = p
		return nil
	}
	s, err := sample.New(g.state.Model().Vocab, p)
	if err != nil {
		return err
	}
	g.sampler, g.params = s, p
	return nil
}

// Reseed restarts the sampler's random stream from seed, keeping the
// conversation and the other parameters.
func (g *Generator) Reseed(seed uint64) {
	g.sampler.Reset(seed)
	g.params.Seed = seed
}

// Params are the sampling parameters in use.
func (g *Generator) Params() sample.Params { return g.params }

// Reset empties the state and the history and reseeds the sampler.
func (g *Generator) Reset(seed uint64) {
	g.state.Reset()
	g.history = g.history[:0]
	g.pending = false
	g.sampler.Reset(seed)
}

// Generate runs prompt through the model, then samples tokens and passes
// each to emit as soon as it exists. It returns when a stop token is
// sampled, opts.MaxTokens are reached, the KV cache is full (the error then
// wraps model.ErrContextFull), ctx is cancelled (the error is ctx.Err()), or
// emit fails (its error is returned). Stats are valid in every case.
//
// The last sampled token is left pending rather than run through the model
// (a finished answer needs no logits after it); the next Generate call feeds
// it ahead of its prompt, so consecutive calls continue one conversation
// exactly as one long call would. An empty prompt continues from the
// pending token.
//
// A decoded token costs no heap allocation.
func (g *Generator) Generate(ctx context.Context, prompt []int32, opts Options, emit func(tok int32) error) (Stats, error) {
	st, err := g.generate(ctx, prompt, opts, emit)
	if err != nil && st.Reason == StopToken {
		// No stop token ends a call with an error: the reason was never
		// set, because the model (its backend) failed.
		st.Reason = StopError
	}
	return st, err
}

// generate is Generate, leaving the reason of a failure unset.
func (g *Generator) generate(ctx context.Context, prompt []int32, opts Options, emit func(tok int32) error) (Stats, error) {
	st := Stats{PromptTokens: len(prompt)}
	start := time.Now()
	if len(prompt) == 0 && !g.pending {
		return st, errors.New("generate: an empty prompt needs a pending token from an earlier call")
	}
	n := len(prompt)
	if g.pending {
		n++
	}
	if g.state.Pos()+n > g.state.MaxPos() || (g.evict == nil && g.state.Len()+n > g.state.Cap()) {
		st.Reason = StopContext
		return st, fmt.Errorf("generate: %d tokens at position %d: %w", n, g.state.Pos(), model.ErrContextFull)
	}
	if g.pending {
		// The pending token is already in history; run it alone (the next
		// chunk's logits replace its own) so the prompt keeps its batches.
		g.one[0] = g.history[len(g.history)-1]
		var out []float32
		if len(prompt) == 0 {
			out = g.logits
		}
		if err := g.evictFor(1); err != nil {
			return st, err
		}
		if err := g.state.Forward(g.one[:], out); err != nil {
			return st, err
		}
		g.pending = false
	}
	// Prefill in the state's own steps, so that a long prompt can be
	// cancelled, and its progress told, between them: Forward would run
	// the same steps in one call.
	step := g.state.BatchSize()
	if g.evict != nil {
		step = EvictChunk
	}
	if opts.Progress != nil && len(prompt) > 0 {
		opts.Progress(0, len(prompt))
	}
	for i := 0; i < len(prompt); i += step {
		if err := ctx.Err(); err != nil {
			st.Reason = StopCancelled
			return st, err
		}
		chunk := prompt[i:min(i+step, len(prompt))]
		var out []float32
		if i+len(chunk) == len(prompt) {
			out = g.logits
		}
		if err := g.evictFor(len(chunk)); err != nil {
			return st, err
		}
		if err := g.state.Forward(chunk, out); err != nil {
			return st, err
		}
		g.history = append(g.history, chunk...)
		if opts.Progress != nil {
			opts.Progress(i+len(chunk), len(prompt))
		}
	}
	st.PrefillDuration = time.Since(start)

	var decodeStart time.Time
	if g.spec != nil {
		g.spec.begin()
	}
	done := false
	// take handles each new token: it is emitted and counted, and ends
	// the call on a stop token, the token limit or an emit error.
	take := func(tok int32) (bool, error) {
		st.Generated++
		if st.Generated == 1 {
			st.TimeToFirst = time.Since(start)
			decodeStart = time.Now()
		}
		if err := emit(tok); err != nil {
			st.Reason, done = StopEmit, true
			return false, err
		}
		if slices.Contains(opts.Stop, tok) {
			st.Reason, done = StopToken, true
			return false, nil
		}
		if opts.MaxTokens > 0 && st.Generated >= opts.MaxTokens {
			st.Reason, done = StopMaxTokens, true
			return false, nil
		}
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		st.Reason = StopCancelled
		return g.finish(st, decodeStart), err
	}
	// The first token comes from the prompt's logits.
	tok, err := g.sample(opts.Constraint)
	if err != nil {
		return g.finish(st, decodeStart), err
	}
	g.history = append(g.history, tok)
	g.pending = true
	if _, err := take(tok); done || err != nil {
		return g.finish(st, decodeStart), err
	}
	for {
		if err := ctx.Err(); err != nil {
			st.Reason = StopCancelled
			return g.finish(st, decodeStart), err
		}
		if err := g.evictFor(1); err != nil {
			return g.finish(st, decodeStart), err
		}
		var err error
		if opts.Constraint != nil {
			err = g.plainStep(opts.Constraint, take)
		} else {
			err = g.step(st.Generated, opts, take)
		}
		if done || err != nil {
			if !done && errors.Is(err, model.ErrContextFull) {
				st.Reason = StopContext
			}
			return g.finish(st, decodeStart), err
		}
	}
}

// sample draws the next token from g.logits, inside c when it is set.
func (g *Generator) sample(c Constraint) (int32, error) {
	if c == nil {
		return g.sampler.Sample(g.logits, g.history), nil
	}
	c.Mask(g.logits)
	tok := g.sampler.Sample(g.logits, g.history)
	if err := c.Accept(tok); err != nil {
		return tok, fmt.Errorf("generate: the constraint refused token %d it allowed: %w", tok, err)
	}
	return tok, nil
}

// plainStep runs the pending token and samples one (inside c, when set).
func (g *Generator) plainStep(c Constraint, out func(int32) (bool, error)) error {
	t0 := time.Now()
	g.one[0] = g.history[len(g.history)-1]
	if err := g.state.Forward(g.one[:], g.logits); err != nil {
		return err
	}
	g.pending = false
	if s := g.spec; s != nil {
		s.ctl.plain(time.Since(t0))
		s.stats.Plain++
		s.stats.Gamma = 0
	}
	tok, err := g.sample(c)
	if err != nil {
		return err
	}
	g.history = append(g.history, tok)
	g.pending = true
	_, err = out(tok)
	return err
}

func (g *Generator) finish(st Stats, decodeStart time.Time) Stats {
	if g.spec != nil {
		st.Spec = g.spec.end()
	}
	if !decodeStart.IsZero() {
		st.DecodeDuration = time.Since(decodeStart)
	}
	return st
}
