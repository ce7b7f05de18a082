package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/isagi-lab/isagi/session"
)

// helpOverlay lists every key binding (from keyMap) and every slash command
// (from the command table). Nothing in it is written by hand twice. It takes
// the whole screen but the status line.
type helpOverlay struct {
	show bool
	keys keyMap
}

// Update takes the keys while the overlay is shown — it is modal: esc, ?,
// f1 and q close it, and every other key is swallowed rather than acting
// on a screen the user cannot see. Hidden, it takes none.
func (h *helpOverlay) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !h.show {
		return nil
	}
	if key.Matches(k, h.keys.Stop, h.keys.Help) || k.String() == "q" {
		h.show = false
	}
	return nil
}

func (h *helpOverlay) visible() bool { return h.show }
func (h *helpOverlay) open()         { h.show = true }
func (h *helpOverlay) close()        { h.show = false }

// helpCommands are the help overlay's own.
func helpCommands() []slashCommand {
	return []slashCommand{{name: "/help", alias: "/?", help: "show keys and commands", run: cmdHelp}}
}

func cmdHelp(m *Model, _ string) tea.Cmd {
	m.help.open()
	return nil
}

// View draws the overlay on a w×ht screen.
func (h *helpOverlay) View(w, ht int) string {
	keys := h.keys
	hm := help.New()
	hm.ShowAll = true
	hm.Styles.FullKey = theme.HelpKey
	hm.Styles.FullDesc = lipgloss.NewStyle()
	hm.FullSeparator = "  "
	keysCol := theme.HelpTitle.Render("Keys") + "\n" + hm.FullHelpView(keys.FullHelp())

	var cmds []slashCommand
	for _, c := range commands() {
		if !c.unlisted {
			cmds = append(cmds, c)
		}
	}
	usage := func(c slashCommand) string {
		u := strings.TrimSpace(c.name + " " + c.args)
		if c.alias != "" {
			u += ", " + c.alias
		}
		return u
	}
	nameW := 0
	for _, c := range cmds {
		nameW = max(nameW, lipgloss.Width(usage(c)))
	}
	var b strings.Builder
	b.WriteString(theme.HelpTitle.Render("Commands"))
	for _, c := range cmds {
		b.WriteString("\n" + theme.HelpKey.Render(padCells(usage(c), nameW)) + "  " + c.help)
	}
	cmdCol := b.String()
	footer := theme.Dim.Render("esc or ? closes this help")

	// side by side in a box; else stacked in a box; else stacked with the
	// commands packed several to a line (a small terminal: 80×24); else
	// stacked, unboxed
	layouts := []string{
		lipgloss.JoinHorizontal(lipgloss.Top, keysCol, "   ", cmdCol) + "\n\n" + footer,
		keysCol + "\n\n" + cmdCol + "\n\n" + footer,
		keysCol + "\n\n" + packedCommands(commands(), usage, max(w-4, 20)) + "\n\n" + footer,
	}
	for _, body := range layouts {
		box := theme.HelpBox.Render(body)
		if lipgloss.Width(box) <= w && lipgloss.Height(box) <= ht {
			return lipgloss.Place(w, ht, lipgloss.Center, lipgloss.Center, box)
		}
	}
	body := keysCol + "\n" + cmdCol + "\n" + footer
	if lipgloss.Height(body) > ht {
		body = keysCol + "\n" + packedCommands(commands(), usage, w) + "\n" + footer
	}
	return lipgloss.NewStyle().MaxWidth(w).MaxHeight(ht).Render(body)
}

// packedCommands is the commands' usages without their help, several to
// a line of width w, then the settings' names: what a small terminal has
// room for.
func packedCommands(cmds []slashCommand, usage func(slashCommand) string, w int) string {
	var b strings.Builder
	b.WriteString(theme.HelpTitle.Render("Commands") + "  " + theme.Dim.Render("(a larger window shows what each does)"))
	line := ""
	flush := func() {
		if line != "" {
			b.WriteString("\n" + line)
		}
		line = ""
	}
	add := func(word string, style lipgloss.Style) {
		if line != "" && lipgloss.Width(line)+2+lipgloss.Width(word) > w {
			flush()
		}
		if line != "" {
			line += "  "
		}
		line += style.Render(word)
	}
	for _, c := range cmds {
		if c.name == "" { // a continuation line of /set's help
			continue
		}
		add(usage(c), theme.HelpKey)
	}
	flush()
	add("settings:", theme.Dim)
	for _, k := range session.KnobNames() {
		add(k, lipgloss.NewStyle())
	}
	flush()
	return b.String()
}
