package tui

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// TestKVPane: the pane says the scorer and keep share, the budget, what is
// kept and evicted, the memory saved, and the mean key's drift once there
// is one to show.
func TestKVPane(t *testing.T) {
	p := kvPane{st: session.KVStatus{On: true, Scorer: "manifold", Keep: 0.5, Entries: 2176, Window: 4096,
		Positions: 3000, Kept: 1530, Evicted: 1470, Budget: 1500, EntryBytes: 12288, SavedBytes: 1920 * 12288, Evictions: 3, Drift: 0.042}}
	text := strings.Join(p.lines(), "\n")
	for _, want := range []string{"manifold · keep 0.5", "2176 of 4096", "1500", "1530 of 3000", "1470 · 3×", "4.2%"} {
		if !strings.Contains(text, want) {
			t.Errorf("pane lacks %q:\n%s", want, text)
		}
	}
	p.st.Evictions = 1
	if text := strings.Join(p.lines(), "\n"); strings.Contains(text, "4.2%") {
		t.Errorf("a drift shown after one eviction (nothing to compare):\n%s", text)
	}
	if s := p.summary(); !strings.Contains(s, "1530/3000") {
		t.Errorf("summary %q", s)
	}
}
