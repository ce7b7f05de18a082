package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// inputPane is the message box. It has the keys the root does not take:
// the editing keys and keys.Newline. Enter is the root's (send).
type inputPane struct {
	ed      editor
	width   int         // the window's: the rule above the input spans it
	newline key.Binding // keys.Newline
}

func newInputPane(placeholder string, keys keyMap) inputPane {
	return inputPane{ed: newEditor(placeholder), newline: keys.Newline}
}

func (p *inputPane) setSize(w, h int) {
	p.width = w
	p.ed.setSize(w, h)
}

// Update gives a key to the editor; keys.Newline breaks the line. Typed
// or pasted text is inserted whatever it spells ("ctrl+j" typed is text,
// see isText). Other messages are ignored.
func (p *inputPane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
	case !isText(k) && key.Matches(k, p.newline):
		p.ed.newline()
	default:
		p.ed.update(k)
	}
	return nil
}

func (p *inputPane) value() string { return p.ed.value() }
func (p *inputPane) reset()        { p.ed.reset() }

// giveBack puts a message the session refused back for the user to
// shorten, unless something new has been typed meanwhile.
func (p *inputPane) giveBack(text string) {
	if p.empty() {
		p.ed.insertString(text)
	}
}

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
