package session

import (
	"errors"
	"fmt"
	"sync"

	"github.com/isagi-lab/isagi/engine/backend"
)

// ErrBackendDead wraps a turn's error once the session's backend has
// failed for good: a remote server that died, a GPU whose context was
// lost. Every later turn fails at once with it, saying so, instead of
// failing the same way with no hint.
var ErrBackendDead = errors.New("the model's backend failed and stays unusable: restart isagi to reconnect")

// health is the backend's fate as the turns found it, shared by a session
// and its forks: they run on one backend domain (a Fork's backend is a
// Share of its parent's), so one's failure is all of theirs. A server
// reads it from its health endpoint while turns run: it is locked.
type health struct {
	mu  sync.Mutex
	err error // the backend's first lasting failure
}

// failed returns the backend's lasting failure, or nil.
func (h *health) failed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// note records b's lasting failure, if it has one. It runs on the
// goroutine that used b (a backend's own error is not for other
// goroutines to read while it runs).
func (h *health) note(b backend.Backend) {
	f, ok := b.(backend.Failer)
	if !ok {
		return
	}
	h.noteErr(f.Err())
}

// noteErr records err as the backend's lasting failure, unless one is
// recorded or err is nil (a batch's backend, which reports its own).
func (h *health) noteErr(err error) {
	if err == nil {
		return
	}
	h.mu.Lock()
	if h.err == nil {
		h.err = err
	}
	h.mu.Unlock()
}

// BackendErr returns the failure that left the session's backend (shared
// with its forks) unusable, wrapping ErrBackendDead, or nil while it
// works. It is safe to call while a turn runs.
func (s *Session) BackendErr() error {
	if err := s.hl.failed(); err != nil {
		return fmt.Errorf("%w (%v)", ErrBackendDead, err)
	}
	return nil
}

// checkBackend is a turn's error once the backend has failed: the
// failure, said as lasting. err is returned as it is otherwise.
func (s *Session) checkBackend(err error) error {
	if err == nil {
		return nil
	}
	s.hl.note(s.b)
	if s.batch != nil {
		s.hl.noteErr(s.batch.q.Err())
	}
	if dead := s.hl.failed(); dead != nil && !errors.Is(err, ErrBackendDead) {
		return fmt.Errorf("session: %w: %v", ErrBackendDead, err)
	}
	return err
}
