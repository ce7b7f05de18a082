package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// pane is a sub-model of the root Model: it keeps its own state and
// changes it in Update, from the messages the root routes to it — the keys
// that are its own, the streaming reply, the session's results — and the
// root reads it back through its views and a few small methods, never
// through its fields. A pane ignores the messages that do not concern it,
// so the root can hand one to all of them (broadcast).
//
// Update has a pointer receiver and changes the pane in place, where
// bubbles' components return a changed copy: the chat pane holds a
// strings.Builder, which must not be copied once written, and the editor
// memoises its wrap across calls. The root keeps its panes as values and
// calls Update on their addresses.
type pane interface {
	Update(msg tea.Msg) tea.Cmd
}

// Every pane is one; the compiler checks it here rather than at the
// first call that needs it.
var (
	_ pane = (*chatPane)(nil)
	_ pane = (*inputPane)(nil)
	_ pane = (*perfPane)(nil)
	_ pane = (*hardwarePane)(nil)
	_ pane = (*modelPane)(nil)
	_ pane = (*geometryPane)(nil)
	_ pane = (*kvPane)(nil)
	_ pane = (*expertsPane)(nil)
	_ pane = (*manifoldPane)(nil)
	_ pane = (*helpOverlay)(nil)
)

// panes lists the root's panes in a fixed order: a broadcast reaches them
// in it, so what they do never depends on map or scheduling order.
func (m *Model) panes() []pane {
	return []pane{&m.chat, &m.input, &m.perf, &m.hw, &m.model, &m.geo, &m.kvp, &m.xpp, &m.mani, &m.help}
}

// broadcast hands msg to every pane, within the Update that caused it (not
// through the program's queue, which would draw a frame in between), and
// batches the commands they return.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes() {
		cmds = append(cmds, p.Update(msg))
	}
	return tea.Batch(cmds...)
}

// The messages below are the root's own: it makes them from what it
// learns (a reply starts, the session reports its state) and routes them to
// the panes directly, so they never pass through the program. They change
// what a pane shows and ask for nothing back: for them Update returns nil,
// which the root passes on where it returns a command anyway and drops
// where it returns none.

// replyBeginMsg says a reply starts streaming: the chat shows its cursor,
// the Perf pane goes live. regenerate marks ctrl+r, which replaces an
// answer served from memory: the Manifold pane has none to offer again.
type replyBeginMsg struct{ regenerate bool }

// replyStoppingMsg says the user stopped the streaming reply; it ends when
// the session lets go, and the chat says so meanwhile.
type replyStoppingMsg struct{}

// newConversationMsg says /clear replaced the conversation: the panes'
// figures of the last turn describe the forgotten one.
type newConversationMsg struct{}

// contextMsg is how full the context window is, read between replies.
type contextMsg struct{ used, limit int }

// infoMsg is the session's Info, read again after what may change it (a
// /set of num_ctx or rank, a /load).
type infoMsg struct{ info session.Info }

// kvMsg is the KV cache's state, read at every frame: evictions happen
// while a reply streams.
type kvMsg struct{ st session.KVStatus }

// thermalMsg is the rank the thermal controller chose between replies.
type thermalMsg struct{ d gpu.Decision }

// calibratingMsg says a calibration starts; its stages follow as
// jobProgressMsg, its end as calibMsg.
type calibratingMsg struct{}
