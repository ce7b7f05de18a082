package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// inputPane is the message box. Enter is handled by the root model (send);
// the root model also inserts a newline on keys.Newline.
type inputPane struct {
	ed    editor
	width int // the window's: the rule above the input spans it
}

func newInputPane(placeholder string) inputPane {
	return inputPane{ed: newEditor(placeholder)}
}

func (p *inputPane) setSize(w, h int) {
	p.width = w
	p.ed.setSize(w, h)
}

// update gives a key to the editor; other messages are ignored.
func (p *inputPane) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		p.ed.update(k)
	}
	return nil
}

func (p *inputPane) value() string { return p.ed.value() }
func (p *inputPane) reset()        { p.ed.reset() }

// empty reports whether nothing is typed, without copying the text (the
// status line asks on every frame, and the input may hold a large paste).
func (p *inputPane) empty() bool { return len(p.ed.buf) == 0 }

// height is the rows the pane takes: its border line and the text rows.
func (p *inputPane) height() int { return 1 + p.ed.height }

// View draws the rule and the text. The rule is the box's top border, as
// wide as its content: the width makes it span the window rather than the
// longest row typed so far (the editor keeps every row inside it).
func (p *inputPane) View() string {
	return theme.InputBox.Width(max(p.width, 1)).Render(p.ed.view())
}
