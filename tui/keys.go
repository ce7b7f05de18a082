package tui

import (
	"github.com/charmbracelet/bubbles/key"
)

// keyMap is every key the TUI answers to. The help overlay and the status
// bar are generated from it; Update matches against the same bindings, and
// the panes that own keys (chat, input, help) are built with them.
type keyMap struct {
	Send       key.Binding
	Newline    key.Binding // the input pane's
	Stop       key.Binding
	Help       key.Binding
	ScrollUp   key.Binding
	ScrollDown key.Binding
	Panes      key.Binding
	Save       key.Binding
	Rotate     key.Binding
	AlphaUp    key.Binding
	AlphaDown  key.Binding
	Regenerate key.Binding
	Suspend    key.Binding
	Quit       key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send message or /command")),
		Newline:    key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter ctrl+j", "new line")),
		Stop:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop reply · close help")),
		Help:       key.NewBinding(key.WithKeys("?", "f1"), key.WithHelp("? f1", "help (? on an empty input)")),
		ScrollUp:   key.NewBinding(key.WithKeys("pgup", "shift+up"), key.WithHelp("pgup shift+↑", "scroll chat back")),
		ScrollDown: key.NewBinding(key.WithKeys("pgdown", "shift+down"), key.WithHelp("pgdn shift+↓", "scroll chat on")),
		Panes:      key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "toggle side panes")),
		Save:       key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save the session (.miku)")),
		Rotate:     key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "rotate the side panes")),
		AlphaUp:    key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "OGD α up (explore more)")),
		AlphaDown:  key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "OGD α down")),
		Regenerate: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "regenerate the last reply")),
		Suspend:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop · clear input · twice: quit")),
	}
}

// ShortHelp is the status bar's reminder.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Stop, k.Quit}
}

// FullHelp is every binding, for the help overlay.
func (k keyMap) FullHelp() [][]key.Binding {
	// Two groups: the help bubble sets them side by side, which keeps the
	// overlay inside an 80×24 terminal.
	return [][]key.Binding{
		{k.Send, k.Newline, k.Stop, k.Help, k.ScrollUp, k.ScrollDown, k.Quit},
		{k.Panes, k.Rotate, k.Save, k.AlphaUp, k.AlphaDown, k.Regenerate, k.Suspend},
	}
}
