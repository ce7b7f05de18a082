package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/internal/termtext"
)

// hostile is text a session file or a model may hold: it retitles the
// terminal, clears the screen, moves the cursor, rings the bell, writes
// the clipboard (OSC 52) and uses an 8-bit CSI.
const hostile = "hi\x1b]0;PWNED\x07\x1b[2J\x1b[H\x1b[10;10Hmoved\x1b]52;c;aGk=\x07\u009b2J\rover"

// TestHostileTextShownNotSent: a message, a reply and a model name full of
// terminal sequences reach the screen as visible characters; the frame
// holds no escape but the styles' own.
func TestHostileTextShownNotSent(t *testing.T) {
	f := newFake()
	f.info.Name = "evil\x1b]0;NAME\x07model"
	m := New(f, Options{Version: "test"})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 32})
	m.chat.add(entryUser, hostile)
	m.chat.endReply(hostile)
	view := m.View()
	if !termtext.FrameSafe(view) {
		t.Fatalf("the frame holds control sequences:\n%q", view)
	}
	plain := stripSGR(view)
	for _, want := range []string{"␛]0;PWNED␇", "␛[2J", "evil␛]0;NAME␇model"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the screen does not show %q:\n%s", want, plain)
		}
	}
}

// stripSGR drops the SGR sequences of a frame.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] != 'm' {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FuzzChatRender feeds text with any control character through the chat
// pane's render path — every kind of entry, the streaming reply, markdown
// on and off — and wants no ESC but an SGR sequence's, and no other C0 or
// C1 control but newline and tab, in what the pane draws.
func FuzzChatRender(f *testing.F) {
	for _, s := range []string{hostile, "plain", "**bold**\n\n- a\n- b", "\x00\x01\x7f\u0085", "`\x1b[31m`", "\xc2\x9b", "a\r\nb"} {
		f.Add(s, true)
	}
	keys := newKeyMap()
	f.Fuzz(func(t *testing.T, s string, markdown bool) {
		c := newChatPane("model "+s, markdown, "dark", keys)
		c.setSize(60, 40)
		c.add(entryUser, s)
		c.addLabelled(entryUser, s, s)
		c.add(entryNotice, s)
		c.add(entryError, s)
		c.add(entryInfo, s)
		c.endReply(s)
		c.beginReply()
		c.appendReply(s)
		c.streamNote = s
		c.refresh()
		if v := c.View(); !termtext.FrameSafe(v) {
			t.Fatalf("the chat pane drew control sequences for %q:\n%q", s, v)
		}
	})
}
