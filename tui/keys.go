package tui

import (
	"github.com/charmbracelet/bubbles/key"
)

// keyMap is every key the TUI answers to. The help overlay and the status
// bar are generated from it; Update matches against the same bindings.
type keyMap struct {
	Send       key.Binding
	Newline    key.Binding // also installed as the textarea's InsertNewline
	Stop       key.Binding
	Help       key.Binding
	ScrollUp   key.Binding
	ScrollDown key.Binding
	Panes      key.Binding
	Save       key.Binding
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
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit (or /bye)")),
	}
}

// ShortHelp is the status bar's reminder.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Stop, k.Quit}
}

// FullHelp is every binding, for the help overlay.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Send, k.Newline, k.Stop, k.Help, k.ScrollUp, k.ScrollDown, k.Panes, k.Save, k.Quit}}
}
