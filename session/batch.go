package session

import (
	"fmt"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/model"
)

// Batch runs the forward passes of several conversations of one family (a
// session and its forks) together: continuous batching (engine/model's
// Batcher). A conversation that joins it (JoinBatch) computes its tokens in
// the batch's steps, with whichever other conversations compute at the
// same time: one product per weight matrix for all of them, each with its
// own KV cache, positions, hooks (Snipe, OGD, the TEH gauge, captures) and
// eviction. Its replies are the same, token for token, as alone.
type Batch struct {
	q      *model.Batcher
	b      backend.Backend
	closeB func()
}

// BatchOptions say how a Batch runs; the zero value is the default.
type BatchOptions struct {
	// Chunk is the most prompt tokens of one conversation a step computes
	// while others decode (0: 32).
	Chunk int
	// Wait is how long a step waits for the conversations of the last step
	// to come back with their next token (0: half a step, within 1–50 ms).
	Wait time.Duration
	// Unlock and Lock are called around a conversation's wait for a step,
	// for a caller that holds a lock while it uses its sessions (a
	// server's turn on the model).
	Unlock, Lock func()
}

// BatchStats count a Batch's steps: Seqs/Steps is the mean number of
// conversations a step computed.
type BatchStats struct {
	Steps, Batched, Rows, Seqs int64
}

// NewBatch makes a batch for s's family, on a Share of s's backend.
func (s *Session) NewBatch(o BatchOptions) (*Batch, error) {
	b, closeB, err := s.share()
	if err != nil {
		return nil, fmt.Errorf("session: a backend for the batch: %w", err)
	}
	q, err := s.m.NewBatcher(b, model.BatcherOptions{Chunk: o.Chunk, Wait: o.Wait, Lock: o.Lock, Unlock: o.Unlock})
	if err != nil {
		closeB()
		return nil, fmt.Errorf("session: %w", err)
	}
	return &Batch{q: q, b: b, closeB: closeB}, nil
}

// Stats are the batch's counts so far.
func (b *Batch) Stats() BatchStats {
	st := b.q.Stats()
	return BatchStats{Steps: st.Steps, Batched: st.Batched, Rows: st.Rows, Seqs: st.Seqs}
}

// Batches says whether the batch computes several conversations in one
// step; false on a backend that cannot (the remote one), where each step
// computes one conversation's tokens, in turn.
func (b *Batch) Batches() bool { return b.q.Batches() }

// Close releases the batch's backend. The conversations in it compute on
// their own again; none may be generating.
func (b *Batch) Close() {
	b.q.Close()
	b.closeB()
}

// JoinBatch makes the conversation compute in b's steps from its next
// token on, and after every resize of its cache. b must be of s's family.
// The conversation must not be generating.
func (s *Session) JoinBatch(b *Batch) error {
	if err := b.q.Join(s.st); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	s.batch = b
	return nil
}

// rejoin puts a new conversation state into the batch the session is in.
func (s *Session) rejoin() error {
	if s.batch == nil {
		return nil
	}
	if err := s.batch.q.Join(s.st); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// batchIdle tells the batch the conversation is done computing for now:
// its steps do not wait for it.
func (s *Session) batchIdle() {
	if s.batch != nil {
		s.batch.q.Idle(s.st)
	}
}
