package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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

// openChat opens the trained chat fixture, greedy and short.
func openChat(t *testing.T) *session.Session {
	t.Helper()
	set := session.DefaultSettings()
	set.Temperature, set.MaxTokens = 0, 16
	s, err := session.Open(filepath.Join("..", "testdata", "models", "chat.gguf"), session.Options{Threads: 2, Ctx: 256, Settings: set, AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// userMessages are the user's messages on the branch in use, and how many
// versions each has.
func userMessages(s *session.Session) (texts []string, versions []int) {
	for _, msg := range s.Conversation().Branch() {
		if msg.Role == session.RoleUser {
			texts = append(texts, msg.Content)
			versions = append(versions, msg.Siblings)
		}
	}
	return texts, versions
}

// Hardening III, item 8: ctrl+c during /edit leaves the edit, and says
// so: the next message is a new one, not a silent replacement of message
// N. Esc does the same.
func TestCtrlCAndEscLeaveEdit(t *testing.T) {
	for _, k := range []tea.KeyMsg{{Type: tea.KeyCtrlC}, {Type: tea.KeyEsc}} {
		t.Run(k.String(), func(t *testing.T) {
			s := openChat(t)
			tm := start(t, s, 140, 50)
			sc := &term{tm: tm}
			sc.wait(t, true, "ready")
			typeLine(tm, "Count from 3 to 7.")
			sc.wait(t, true, "3, 4, 5, 6, 7")
			typeLine(tm, "/edit 1")
			sc.wait(t, false, "editing your message")
			tm.Send(k)
			sc.wait(t, false, "edit of message 1 left")
			typeLine(tm, "Name a colour.")
			sc.wait(t, true, "message 2")
			finish(t, tm)
			texts, versions := userMessages(s)
			if fmt.Sprint(texts) != "[Count from 3 to 7. Name a colour.]" || fmt.Sprint(versions) != "[1 1]" {
				t.Fatalf("after %s in an edit the branch holds %q with versions %v; want the new message after message 1, which is unchanged", k, texts, versions)
			}
		})
	}
}

// Hardening III, item 8: /rewind has a way back — /forward returns to
// where the conversation was before it, until a new message starts
// another branch there.
func TestRewindThenForward(t *testing.T) {
	s := openChat(t)
	tm := start(t, s, 140, 50)
	sc := &term{tm: tm}
	sc.wait(t, true, "ready")
	typeLine(tm, "/forward")
	sc.wait(t, false, "nothing to go forward to")
	typeLine(tm, "Count from 3 to 7.")
	sc.wait(t, true, "3, 4, 5, 6, 7")
	typeLine(tm, "Name a colour.")
	sc.wait(t, true, "message 2")
	typeLine(tm, "/rewind 2")
	sc.wait(t, false, "/forward returns")
	typeLine(tm, "/rewind 1")
	sc.wait(t, false, "/forward returns")
	if texts, _ := userMessages(s); len(texts) != 0 {
		t.Fatalf("after /rewind 1 the branch holds %q", texts)
	}
	typeLine(tm, "/forward")
	sc.wait(t, false, "back to where the conversation was")
	m := finish(t, tm)
	if texts, _ := userMessages(s); fmt.Sprint(texts) != "[Count from 3 to 7. Name a colour.]" {
		t.Fatalf("after /forward the branch holds %q", texts)
	}
	if f := screen(m); !strings.Contains(f, "Name a colour.") {
		t.Errorf("the chat does not show the branch /forward returned to:\n%s", f)
	}
}

// Hardening III, item 7: each version of a reply says the seed it was
// sampled with, and that seed reproduces it: /set seed S, then /regen,
// writes the same reply again.
func TestReplySeedReproducesIt(t *testing.T) {
	s := openChat(t)
	// Sampled wide: the fixture is sure of its words, and two versions
	// must differ for the test to tell which seed made which.
	for _, kv := range [][2]string{{"temperature", "2"}, {"top_k", "0"}, {"top_p", "1"}, {"min_p", "0"}, {"seed", "11"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	tm := start(t, s, 160, 60)
	sc := &term{tm: tm}
	sc.wait(t, true, "ready")
	typeLine(tm, "Name a colour.")
	sc.wait(t, true, "message 1")
	typeLine(tm, "/regen")
	sc.wait(t, true, "‹ 2/2 ›")
	replies := func() []session.BranchMessage {
		br := s.Conversation().Branch()
		last := br[len(br)-1]
		out := make([]session.BranchMessage, last.Siblings)
		for range last.Siblings {
			br := s.Conversation().Branch()
			out[br[len(br)-1].Sibling] = br[len(br)-1]
			if err := s.Conversation().Switch(br[len(br)-1].ID, 1); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	// Read between turns: the UI waits for the next line.
	vs := replies()
	if len(vs) != 2 || vs[0].Made == nil || vs[1].Made == nil {
		t.Fatalf("versions %+v", vs)
	}
	t.Logf("versions %q / %q", vs[0].Content, vs[1].Content)
	if vs[0].Made.Seed == vs[1].Made.Seed {
		t.Errorf("both versions say seed %d: the label does not tell them apart", vs[0].Made.Seed)
	}
	// The branch shows version 2 again (Switch wrapped around twice).
	second := vs[1]
	if cur := s.Conversation().Branch(); cur[len(cur)-1].ID != second.ID {
		t.Fatalf("the branch ends at %d, want version 2 (%d)", cur[len(cur)-1].ID, second.ID)
	}
	typeLine(tm, fmt.Sprintf("/set seed %d", second.Made.Seed))
	sc.wait(t, false, fmt.Sprintf("set seed = %d", second.Made.Seed))
	typeLine(tm, "/regen")
	sc.wait(t, true, "‹ 3/3 ›", fmt.Sprintf("seed %d", second.Made.Seed))
	finish(t, tm)
	br := s.Conversation().Branch()
	third := br[len(br)-1]
	if third.Content != second.Content || third.Made.Seed != second.Made.Seed {
		t.Fatalf("seed %d gave %q (labelled seed %d); the version labelled with it was %q", second.Made.Seed, third.Content, third.Made.Seed, second.Content)
	}
}
