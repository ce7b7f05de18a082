package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
)

// inputPane is the multi-line message box. Enter is handled by the root
// model (send); the textarea inserts a newline on keys.Newline.
type inputPane struct {
	ta textarea.Model
}

func newInputPane(newline key.Binding, placeholder string) inputPane {
	ta := textarea.New()
	ta.KeyMap.InsertNewline = newline
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.ShowLineNumbers = false
	ta.SetPromptFunc(2, func(line int) string {
		if line == 0 {
			return "› "
		}
		return "  "
	})
	ta.Placeholder = placeholder
	ta.FocusedStyle.CursorLine = ta.FocusedStyle.CursorLine.UnsetBackground()
	ta.Focus()
	return inputPane{ta: ta}
}

func (p *inputPane) setSize(w, h int) {
	p.ta.SetWidth(max(w, 4))
	p.ta.SetHeight(max(h, 1))
}

func (p *inputPane) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.ta, cmd = p.ta.Update(msg)
	return cmd
}

func (p *inputPane) value() string { return p.ta.Value() }
func (p *inputPane) reset()        { p.ta.Reset() }

func (p *inputPane) View() string { return theme.InputBox.Render(p.ta.View()) }
