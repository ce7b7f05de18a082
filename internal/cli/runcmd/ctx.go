package runcmd

import (
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/session"
)

// sessionTurnError is what a scripted session turn (run --session) returns
// once the session is saved: saveErr if saving failed, else a
// base.ContextFullError when the reply stopped because the context was full.
func sessionTurnError(s *session.Session, turn session.Turn, saveErr error) error {
	if saveErr != nil || turn.Stop != generate.StopContext.String() {
		return saveErr
	}
	_, capacity := s.Conversation().ContextUsed()
	return base.ContextFullError(capacity, s.Probe().ModelContext(), s.Info().Name, turn.Tokens)
}
