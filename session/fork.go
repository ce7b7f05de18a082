package session

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/isagi-lab/isagi/engine/backend"
)

// This file holds what a server needs beyond the TUI's one conversation:
// more conversations on one loaded model (Fork), whole settings sets
// (Apply, RankBuilt), raw completions (Complete).

// Fork starts another conversation on s's loaded model: its own KV cache
// of ctx tokens (0: s's size), settings set, living manifold and
// conversation, sharing the weights (bound once on the device), the
// tokenizer, the compressions built so far (a rank built for one
// conversation is instant for the others) and the geometry profile. It
// runs on a Share of s's backend, so that the sessions of one family may
// run at the same time (on the CPU they share the worker pool, which takes
// their products in turn). Closing a fork releases what its own states
// bound; closing s releases the model for all of them, after which no
// fork may run.
func (s *Session) Fork(ctx int, set Settings) (*Session, error) {
	if ctx <= 0 {
		ctx = s.st.MaxPos()
	}
	b, closeB, err := s.share()
	if err != nil {
		return nil, fmt.Errorf("session: a backend for another conversation: %w", err)
	}
	f := newSession(s.m, s.tok, s.cv.template(), Options{AppVersion: s.appVersion})
	f.b, f.closeB, f.info, f.stops, f.forked = b, closeB, s.info, s.stops, true
	f.kvType, f.hl = s.kvType, s.hl
	// What the family shares: the model's bytes and hash, the
	// compressions built so far and the directories.
	f.pr, f.comp, f.gm, f.sr = s.pr.fork(f), s.comp.fork(f), s.gm.fork(f), s.sr.fork(f)
	if err := f.fork(s, ctx, set); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// share is a Share of s's backend and how to close it (a no-op for a
// backend that holds nothing to close).
func (s *Session) share() (backend.Backend, func(), error) {
	b, err := s.b.Share()
	if err != nil {
		return nil, nil, err
	}
	closeB := func() {}
	if c, ok := b.(io.Closer); ok {
		closeB = func() { _ = c.Close() }
	}
	return b, closeB, nil
}

// fork sets up f, a fork of s: its state, settings and geometry.
func (f *Session) fork(s *Session, ctx int, set Settings) error {
	if err := f.resizeKV(ctx, set.KVKeep); err != nil {
		return err
	}
	// Steering last: a vector may be a category of the profile.
	steering := set.Steer
	set.Steer = ""
	if err := f.apply(set); err != nil {
		return err
	}
	if p := s.gm.Profile(); p != nil {
		if err := f.gm.Set(p); err != nil {
			return err
		}
		f.notes = nil // the profile's notes were told when s loaded it
	}
	if steering != "" {
		set.Steer = steering
		if err := f.sr.use(set); err != nil {
			return fmt.Errorf("steer %q: %w", steering, err)
		}
		f.set.Steer = steering
	}
	return nil
}

// Apply installs a whole settings set, as a sequence of /set would, keeping
// the conversation: a rank not built yet is built (progress told, ctx
// stops it) or read from the cache. Invalid settings change nothing.
func (s *Session) Apply(ctx context.Context, n Settings, progress func(done, total int)) error {
	old := s.set
	if err := s.applyCtx(ctx, n, progress); err != nil {
		// applyCtx checks the sampling values before it changes anything;
		// what fails later (a build cancelled) leaves the old path in use.
		_ = s.applyCtx(context.Background(), old, nil)
		return err
	}
	return nil
}

// ErrLastNotUser is returned by SetTranscript for chat messages that do not
// end with the user's: there is nothing to answer.
var ErrLastNotUser = errors.New("the last message must be the user's or a tool's result")

// SendNoMemory is Send without the living manifold: nothing is looked up,
// served or recorded. A server's stateless requests use it, so that one
// client's answers are never served to another.
func (s *Session) SendNoMemory(ctx context.Context, input string, emit func(Event)) (Turn, error) {
	return s.send(ctx, input, sendNoMemory, emit)
}

// Complete continues text as raw text, whatever the model's template (an
// API's completion request), without the living manifold. The
// conversation is left as it was; the KV cache keeps what it computed, so
// a later turn reuses whatever prefix the two share.
func (s *Session) Complete(ctx context.Context, text string, emit func(Event)) (Turn, error) {
	back := s.cv.asText()
	defer back()
	return s.send(ctx, text, sendNoMemory, emit)
}

// AddHook registers a model hook (model.State.AddHook) on the
// conversation's state, e.g. to read each token's logits.
func (s *Session) AddHook(h any) (remove func(), err error) { return s.st.AddHook(h) }
