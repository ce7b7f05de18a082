package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/session"
)

// KVCache is implemented by sessions whose KV cache can evict single
// entries (*session.Session does): the KV pane reads it, and kv_keep and
// kv_scorer go through Session.Set.
type KVCache interface {
	KV() session.KVStatus
}

// kvCache is the session's KV cache, if it can evict.
func (f features) kvCache() (KVCache, bool) {
	return part[KVCache](f.sess, func(p parted) any { return p.Compression() })
}

// kvPane shows the KV cache under eviction (kv_keep below 1): the budget,
// what is kept and evicted, the memory not allocated, the scorer and how
// far the mean key has drifted since the first eviction.
type kvPane struct {
	st session.KVStatus
}

// Update takes the cache's state.
func (p *kvPane) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(kvMsg); ok {
		p.st = msg.st
	}
	return nil
}

// on reports whether the cache evicts: only then is there a pane to show.
func (p *kvPane) on() bool { return p.st.On }

func (p *kvPane) lines() []string {
	s := p.st
	lines := []string{
		kv("scorer", fmt.Sprintf("%s · keep %g", s.Scorer, s.Keep)),
		kv("cache", fmt.Sprintf("%d of %d positions", s.Entries, s.Window)),
		kv("budget", fmt.Sprintf("%d (+%d before evicting)", s.Budget, session.EvictInterval)),
		kv("kept", fmt.Sprintf("%d of %d run", s.Kept, s.Positions)),
		kv("evicted", fmt.Sprintf("%d · %d×", s.Evicted, s.Evictions)),
		kv("saved", fmtBytes(s.SavedBytes)),
	}
	drift := "–"
	if s.Evictions > 1 {
		drift = fmt.Sprintf("%.1f%%", 100*s.Drift)
	}
	return append(lines, kv("μ drift", drift))
}

func (p *kvPane) summary() string {
	return fmt.Sprintf("KV %s %d/%d kept", p.st.Scorer, p.st.Kept, p.st.Positions)
}
