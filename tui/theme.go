package tui

import "github.com/charmbracelet/lipgloss"

// Colours are ANSI-256 so they survive most terminals; on a terminal
// without colour lipgloss drops them and the layout still reads.
var (
	colAccent = lipgloss.Color("39")  // blue: the user, titles
	colModel  = lipgloss.Color("170") // magenta: the model
	colWarn   = lipgloss.Color("214") // amber: notices, mode labels
	colErr    = lipgloss.Color("203") // red
	colDim    = lipgloss.Color("245")
	colBorder = lipgloss.Color("238")
)

// theme holds every style the panes use.
var theme = struct {
	Header, HeaderDim, Banner        lipgloss.Style
	Pane, PaneTitle, Label, Value    lipgloss.Style
	User, UserLabel, ModelLabel      lipgloss.Style
	Streaming, Notice, Error, Info   lipgloss.Style
	InputBox, Status, StatusKey      lipgloss.Style
	HelpBox, HelpTitle, HelpKey, Dim lipgloss.Style
	Spark, Cursor                    lipgloss.Style
}{
	Header:    lipgloss.NewStyle().Bold(true).Foreground(colAccent),
	HeaderDim: lipgloss.NewStyle().Foreground(colDim),
	Banner:    lipgloss.NewStyle().Foreground(colWarn).Bold(true),

	Pane:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colBorder).Padding(0, 1),
	PaneTitle: lipgloss.NewStyle().Bold(true).Foreground(colAccent),
	Label:     lipgloss.NewStyle().Foreground(colDim),
	Value:     lipgloss.NewStyle(),

	User:       lipgloss.NewStyle().Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(colAccent).PaddingLeft(1),
	UserLabel:  lipgloss.NewStyle().Bold(true).Foreground(colAccent),
	ModelLabel: lipgloss.NewStyle().Bold(true).Foreground(colModel),
	Streaming:  lipgloss.NewStyle().PaddingLeft(2),
	Notice:     lipgloss.NewStyle().Foreground(colWarn).Italic(true),
	Error:      lipgloss.NewStyle().Foreground(colErr),
	Info:       lipgloss.NewStyle().Foreground(colDim),

	InputBox:  lipgloss.NewStyle().Border(lipgloss.NormalBorder(), true, false, false, false).BorderForeground(colBorder),
	Status:    lipgloss.NewStyle().Foreground(colDim),
	StatusKey: lipgloss.NewStyle().Foreground(colAccent),

	HelpBox:   lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colAccent).Padding(0, 1),
	HelpTitle: lipgloss.NewStyle().Bold(true).Foreground(colAccent),
	HelpKey:   lipgloss.NewStyle().Foreground(colAccent),
	Dim:       lipgloss.NewStyle().Foreground(colDim),

	Spark:  lipgloss.NewStyle().Foreground(colModel),
	Cursor: lipgloss.NewStyle().Reverse(true),
}
