package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"

	"github.com/isagi-lab/isagi/internal/termtext"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryNotice // something the user should notice: dropped turns, a stop
	entryInfo   // command output
	entryError
)

type entry struct {
	kind  entryKind
	text  string
	label string // shown beside the name: "message 2 ‹ 1/2 ›"
}

// chatPane is the conversation: finished entries (rendered once per width
// and cached) and the reply being streamed (plain text, wrapped on each
// frame; markdown is rendered once when it ends).
type chatPane struct {
	vp         viewport.Model
	width      int
	userName   string
	modelName  string
	markdown   bool   // render finished answers with glamour
	mdStyle    string // glamour standard style
	renderer   *glamour.TermRenderer
	rendererW  int
	entries    []entry
	hangs      map[int]int // entry index → its listing's description column (hangWrap)
	history    string      // entries rendered at width
	streaming  bool
	stream     strings.Builder
	streamNote string // shown under the streaming text, e.g. "stopping…"
}

func newChatPane(modelName string, markdown bool, mdStyle string, keys keyMap) chatPane {
	vp := viewport.New(20, 5)
	// Only the scroll keys: the root routes the chat no other key, and
	// viewport's own defaults (the arrows, j, k, space…) belong to the
	// input — typing must not scroll.
	vp.KeyMap = viewport.KeyMap{HalfPageUp: keys.ScrollUp, HalfPageDown: keys.ScrollDown}
	user, model := "you", termtext.Clean(modelName) // the name is the GGUF's metadata
	if !markdown {
		user, model = "prompt", "continuation"
	}
	return chatPane{vp: vp, userName: user, modelName: model, markdown: markdown, mdStyle: mdStyle}
}

func (c *chatPane) setSize(w, h int) {
	// Whether the view was pinned to the newest line is a fact about the
	// old size: measured after a shrink, the same offset no longer reaches
	// the bottom, and the newest reply would hide until pgdn.
	atBottom := c.vp.AtBottom() || c.vp.TotalLineCount() <= c.vp.Height
	c.vp.Width, c.vp.Height = w, h
	if w != c.width {
		c.width = w
		c.rerender()
	}
	c.refresh()
	if atBottom {
		c.vp.GotoBottom()
	}
}

// Update scrolls on the scroll keys (keys.ScrollUp, keys.ScrollDown) and
// follows the streaming reply.
func (c *chatPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		var cmd tea.Cmd
		c.vp, cmd = c.vp.Update(msg)
		return cmd
	case replyBeginMsg:
		c.beginReply()
	case streamMsg:
		c.appendReply(msg.text)
	case replyStoppingMsg:
		c.streamNote = "stopping…"
		c.refresh()
	}
	return nil
}

func (c *chatPane) add(kind entryKind, text string) { c.addListing(kind, text, 0) }

// addLabelled adds a message with a label beside its author's name.
func (c *chatPane) addLabelled(kind entryKind, text, label string) {
	e := entry{kind: kind, text: text, label: label}
	c.entries = append(c.entries, e)
	c.history = joinBlocks(c.history, c.render(e, 0))
	c.refresh()
}

// addListing adds a two-column listing whose descriptions start at column
// hang: when the pane is too narrow for a row, its description wraps under
// itself (and again at every width the pane is resized to).
func (c *chatPane) addListing(kind entryKind, text string, hang int) {
	e := entry{kind: kind, text: text}
	if hang > 0 {
		if c.hangs == nil {
			c.hangs = map[int]int{}
		}
		c.hangs[len(c.entries)] = hang
	}
	c.entries = append(c.entries, e)
	c.history = joinBlocks(c.history, c.render(e, hang))
	c.refresh()
}

func (c *chatPane) clear() {
	c.entries, c.history, c.hangs = nil, "", nil
	c.stream.Reset()
	c.streaming = false
	c.refresh()
}

func (c *chatPane) beginReply() {
	c.streaming = true
	c.stream.Reset()
	c.streamNote = ""
	c.refresh()
}

func (c *chatPane) appendReply(text string) {
	if text == "" {
		return
	}
	c.stream.WriteString(text)
	c.refresh()
}

// endReply turns the streamed text into a finished entry; notices (already
// in order) follow it.
func (c *chatPane) endReply(text string, notices ...entry) {
	c.streaming = false
	c.streamNote = ""
	if text == "" {
		text = c.stream.String()
	}
	c.stream.Reset()
	if strings.TrimSpace(text) != "" {
		e := entry{kind: entryAssistant, text: text}
		c.entries = append(c.entries, e)
		c.history = joinBlocks(c.history, c.render(e, 0))
	}
	for _, n := range notices {
		c.entries = append(c.entries, n)
		c.history = joinBlocks(c.history, c.render(n, 0))
	}
	c.refresh()
}

func (c *chatPane) rerender() {
	c.renderer = nil
	var b string
	for i, e := range c.entries {
		b = joinBlocks(b, c.render(e, c.hangs[i]))
	}
	c.history = b
}

// refresh puts history plus the streaming reply into the viewport, keeping
// it pinned to the bottom when it was there.
func (c *chatPane) refresh() {
	atBottom := c.vp.AtBottom() || c.vp.TotalLineCount() <= c.vp.Height
	content := c.history
	if c.streaming {
		s := theme.ModelLabel.Render(c.modelName) + "\n" +
			theme.Streaming.Width(max(c.width, 4)).Render(termtext.Clean(c.stream.String())+"▌")
		if c.streamNote != "" {
			s += "\n" + theme.Notice.Render(termtext.Clean(c.streamNote))
		}
		content = joinBlocks(content, s)
	}
	if content == "" {
		content = theme.Info.Width(max(c.width, 4)).Render("Type a message and press enter. ? shows keys and /commands.")
	}
	c.vp.SetContent(content)
	if atBottom {
		c.vp.GotoBottom()
	}
}

// render draws one entry at the pane's width; hang is its listing's
// description column, 0 for other text.
func (c *chatPane) render(e entry, hang int) string {
	w := max(c.width, 4)
	// A message may come from a session file or a model: its control
	// characters are shown, never sent to the terminal (termtext).
	e.text, e.label = termtext.Clean(e.text), termtext.Clean(e.label)
	switch e.kind {
	case entryUser:
		return theme.UserLabel.Render(c.userName) + c.labelOf(e) + "\n" + theme.User.Width(w-1).Render(abbreviate(e.text))
	case entryAssistant:
		return theme.ModelLabel.Render(c.modelName) + c.labelOf(e) + "\n" + c.renderMarkdown(e.text, w)
	case entryNotice:
		return theme.Notice.Width(w).Render("⚠ " + e.text)
	case entryError:
		// The mark shifts the first line only: a listing's rows below it
		// keep their columns.
		return theme.Error.Width(w).Render(hangWrap("✗ "+e.text, w, hang))
	default:
		return theme.Info.Width(w).Render(hangWrap(e.text, w, hang))
	}
}

// renderMarkdown renders a finished answer with glamour at the pane's
// width, falling back to wrapped plain text (completion mode, or when
// rendering fails).
func (c *chatPane) renderMarkdown(text string, w int) string {
	plain := func() string { return theme.Streaming.Width(w).Render(text) }
	if !c.markdown {
		return plain()
	}
	if c.renderer == nil || c.rendererW != w {
		r, err := glamour.NewTermRenderer(
			glamour.WithStandardStyle(c.mdStyle),
			glamour.WithColorProfile(lipgloss.ColorProfile()),
			glamour.WithWordWrap(w-2),
		)
		if err != nil {
			return plain()
		}
		c.renderer, c.rendererW = r, w
	}
	out, err := c.renderer.Render(text)
	if err != nil {
		return plain()
	}
	out = strings.Trim(out, "\n")
	// glamour pads lines to the wrap width; clip anything wider than the pane
	return lipgloss.NewStyle().MaxWidth(w).Render(out)
}

// labelOf is an entry's label as shown after its author's name.
func (c *chatPane) labelOf(e entry) string {
	if e.label == "" {
		return ""
	}
	return "  " + theme.HeaderDim.Render(e.label)
}

func joinBlocks(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

func (c *chatPane) View() string { return c.vp.View() }

// shownMessage bounds how much of one message the chat shows: a pasted
// megabyte would cost every redraw of the history. The message itself is
// sent and kept whole.
const shownMessage = 4000

// abbreviate returns text, or for a long one its start and a line saying
// how much more was sent.
func abbreviate(text string) string {
	if len(text) <= shownMessage {
		return text
	}
	cut := shownMessage
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	rest := text[cut:]
	return text[:cut] + fmt.Sprintf("… [%s more, %d more words — shown in part, kept whole]", fmtBytes(int64(len(rest))), len(strings.Fields(rest)))
}
