package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// inputPane is the message box. Enter is handled by the root model (send);
// the root model also inserts a newline on keys.Newline.
type inputPane struct {
	ed editor
}

func newInputPane(placeholder string) inputPane {
	return inputPane{ed: newEditor(placeholder)}
}

func (p *inputPane) setSize(w, h int) { p.ed.setSize(w, h) }

// update gives a key to the editor; other messages are ignored.
func (p *inputPane) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		p.ed.update(k)
	}
	return nil
}

func (p *inputPane) value() string { return p.ed.value() }
func (p *inputPane) reset()        { p.ed.reset() }

// height is the rows the pane takes: its border line and the text rows.
func (p *inputPane) height() int { return 1 + p.ed.height }

func (p *inputPane) View() string { return theme.InputBox.Render(p.ed.view()) }
