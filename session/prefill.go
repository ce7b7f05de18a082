package session

import (
	"context"
	"time"
)

// Prefill is how far a turn's prompt has been computed: the tokens done
// of the turn's new tokens (Turn.PromptTok: only what the KV cache lacks,
// the whole conversation for the first turn after a session file loads),
// the time since the prefill began and the speed so far.
type Prefill struct {
	Done, Total int
	Elapsed     time.Duration
	TokPerSec   float64 // Done over Elapsed; 0 before the first step
}

// prefillKey is the context key of the function WithPrefill sets.
type prefillKey struct{}

// WithPrefill returns a context that carries fn: a turn run with it (Send,
// Regenerate, Edit) tells fn the prefill's progress, once before its first
// step and after every step of the model (at most 256 tokens: the
// backend's batch, or less while the KV cache evicts), on the turn's
// goroutine, before the first token's Event. A long prompt — a pasted document, the conversation a
// resumed session recomputes — can so be shown while it is read; it stops
// between the same steps when the context is cancelled.
//
// It rides in the context rather than in Event so that the callers of
// Send that want only tokens (the server, `isagi run`) see nothing new.
func WithPrefill(ctx context.Context, fn func(Prefill)) context.Context {
	return context.WithValue(ctx, prefillKey{}, fn)
}

// ReportPrefill tells p to the function ctx carries (WithPrefill), if any.
// A session calls it itself; it is exported for the stand-ins of a
// session in tests of its callers.
func ReportPrefill(ctx context.Context, p Prefill) {
	if fn := prefillFunc(ctx); fn != nil {
		fn(p)
	}
}

func prefillFunc(ctx context.Context) func(Prefill) {
	fn, _ := ctx.Value(prefillKey{}).(func(Prefill))
	return fn
}

// prefillProgress is the generator's progress function for a turn run
// with ctx: the counts with the time since the first, told to ctx's
// function; nil when ctx carries none.
func prefillProgress(ctx context.Context) func(done, total int) {
	fn := prefillFunc(ctx)
	if fn == nil {
		return nil
	}
	var began time.Time
	return func(done, total int) {
		now := time.Now()
		if began.IsZero() {
			began = now
		}
		p := Prefill{Done: done, Total: total, Elapsed: now.Sub(began)}
		if done > 0 && p.Elapsed > 0 {
			p.TokPerSec = float64(done) / p.Elapsed.Seconds()
		}
		fn(p)
	}
}
