package tui

import (
	"github.com/isagi-lab/isagi/session"
)

// parted is a session made of parts, as *session.Session is: each feature
// of the TUI talks to the part that owns it. A test's fake session is not
// parted and implements the features' interfaces itself.
type parted interface {
	Conversation() *session.Conversation
	Compression() *session.Compression
	Geometry() *session.Geometry
	Memory() *session.Memory
	Files() *session.Files
	Experts() *session.Experts
	Steering() *session.Steering
}

// Chat is the conversation part as the TUI uses it: the window's fill and
// the system message. Every session has it.
type Chat interface {
	ContextUsed() (used, limit int)
	SetSystem(text string)
}

// Branches is implemented by conversations kept as a tree
// (*session.Conversation is): edit an earlier message, regenerate a reply,
// switch between versions and export. The TUI offers /edit, /regen,
// /branch and /export only when its session has it.
type Branches interface {
	Branch() []session.BranchMessage
	Switch(id, delta int) error
	Rewind(id int) error
}

// part finds the feature F of sess: on its part when sess is parted (get
// picks the part), else on sess itself.
func part[F any](sess Session, get func(parted) any) (F, bool) {
	if p, ok := sess.(parted); ok {
		f, ok := get(p).(F)
		return f, ok
	}
	f, ok := sess.(F)
	return f, ok
}

// features finds the TUI's optional features on the session. It looks one
// up each time it is asked — a type assertion, cheap enough for every
// frame — rather than keeping what it found, so the TUI assumes nothing
// about how long the session keeps a part. Each lookup sits beside its
// feature's interface, in the feature's file.
type features struct{ sess Session }

// chat is the session's conversation part.
func (f features) chat() Chat {
	c, ok := part[Chat](f.sess, func(p parted) any { return p.Conversation() })
	if !ok {
		return noChat{}
	}
	return c
}

// noChat stands in for a session without the conversation part's methods.
type noChat struct{}

func (noChat) ContextUsed() (used, limit int) { return 0, 0 }
func (noChat) SetSystem(string)               {}

// notesOf are what the session has to tell after a load (a profile it
// could not use…), when it keeps such notes.
func notesOf(sess Session) []string {
	if n, ok := sess.(interface{ Notes() []string }); ok {
		return n.Notes()
	}
	return nil
}

// The TUI finds the session's features on its parts by type assertion: a
// renamed method would silently turn one off, so the build checks them.
var (
	_ parted       = (*session.Session)(nil)
	_ Session      = (*session.Session)(nil)
	_ RankBuilder  = (*session.Session)(nil)
	_ Restarter    = (*session.Session)(nil)
	_ Chat         = (*session.Conversation)(nil)
	_ Brancher     = (*session.Conversation)(nil)
	_ Regenerator  = (*session.Conversation)(nil)
	_ Transcripts  = (*session.Conversation)(nil)
	_ Sessions     = (*session.Files)(nil)
	_ Geometry     = (*session.Geometry)(nil)
	_ Manifold     = (*session.Memory)(nil)
	_ KVCache      = (*session.Compression)(nil)
	_ ExpertMapper = (*session.Experts)(nil)
)
