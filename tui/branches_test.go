package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// The conversation tree through the TUI on the trained chat fixture: a new
// conversation autosaves itself, /rewind and a new message make a branch,
// /branch switches back, /export writes the branch shown, and /sessions
// lists the saved conversation and reopens it.
func TestBranchCommands(t *testing.T) {
	set := session.DefaultSettings()
	set.Temperature, set.MaxTokens = 0, 16
	s, err := session.Open(filepath.Join("..", "testdata", "models", "chat.gguf"), session.Options{Threads: 2, Ctx: 256, Settings: set, AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dir := t.TempDir()
	tm := start(t, s, 140, 50, Options{SessionDir: dir})
	sc := &term{tm: tm}
	sc.wait(t, true, "ready")
	typeLine(tm, "Count from 3 to 7.")
	sc.wait(t, true, "3, 4, 5, 6, 7", "autosaves to")
	typeLine(tm, "Name a colour.")
	sc.wait(t, true, "message 2")
	typeLine(tm, "/branch next")
	sc.wait(t, false, "the last reply has one version only")
	typeLine(tm, "/rewind 2")
	sc.wait(t, false, "message 1")
	typeLine(tm, "/branch 9 next")
	sc.wait(t, false, `"9" is not one of your messages: 1 to 1`)
	typeLine(tm, "Count from 1 to 4.")
	// The new message is a second version of message 2: its marker
	// shows when the reply ends.
	sc.wait(t, true, "message 2 ‹ 2/2 ›")
	typeLine(tm, "/branch 2 prev")
	sc.wait(t, false, "message 2 ‹ 1/2 ›", "colour")
	out := filepath.Join(t.TempDir(), "b.json")
	typeLine(tm, "/export json "+out)
	sc.wait(t, false, "exported to")
	typeLine(tm, "/export json "+out)
	sc.wait(t, false, "export failed")
	typeLine(tm, "/export html x")
	sc.wait(t, false, `unknown format "html"`)
	typeLine(tm, "/sessions")
	sc.wait(t, false, "saved sessions in", "4 messages, 2 branches  Count from 3 to 7.")
	typeLine(tm, "/sessions 1")
	sc.wait(t, false, "loaded ")
	finish(t, tm)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Name a colour.") || strings.Contains(string(b), "Count from 1 to 4.") {
		t.Fatalf("the export is not the branch shown:\n%s", b)
	}
}
