package sessioncmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// TestSessionInfoNotAFile: session info on a device or a directory returns
// at once with an error instead of reading /dev/zero until memory runs
// out.
func TestSessionInfoNotAFile(t *testing.T) {
	paths := []string{t.TempDir()}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		done := make(chan error, 1)
		go func() {
			_, _, err := clitest.Run(t, Main, "info", p)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a .miku file") {
				t.Fatalf("session info %s: %v", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("session info %s did not return in 10 s", p)
		}
	}
}

// TestSessionInfoCountsTheBranch: after more turns than the window holds,
// info counts the messages of the branch in use (the tree), not those of
// the conversation section, which keeps only what fits the window — in
// the table and in --json alike.
func TestSessionInfoCountsTheBranch(t *testing.T) {
	const turns = 25
	path := savedChat(t, turns)
	out, _, err := clitest.Run(t, Main, "info", path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("chat mode, %d messages in the branch in use, 1 branch", 2*turns); !strings.Contains(out, want) {
		t.Errorf("info says:\n%s\nwant %q", out, want)
	}
	out, _, err = clitest.Run(t, Main, "info", "--json", path)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Messages, Branches int
		Mode               string
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if info.Messages != 2*turns || info.Branches != 1 || info.Mode != "chat" {
		t.Errorf("info --json: %+v, want %d messages in 1 branch, chat", info, 2*turns)
	}
}

// TestSessionInfoDamagedOrEmpty: a file whose tree the other commands
// refuse is refused by info too (not "1 branch", exit 0), and a file
// without a conversation says so instead of a blank mode.
func TestSessionInfoDamagedOrEmpty(t *testing.T) {
	good := savedChat(t, 1)
	dir := filepath.Dir(good)
	rewrite := func(name string, change func(*miku.File)) string {
		f, err := miku.Read(good)
		if err != nil {
			t.Fatal(err)
		}
		change(f)
		p := filepath.Join(dir, name)
		if err := miku.Write(p, f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := rewrite("broken.miku", func(f *miku.File) {
		for i := range f.Sections {
			if f.Sections[i].Name == "conversation.tree" {
				f.Sections[i].Data = []byte(`{"nodes":[{"role":"user","content":"a","parent":7}],"current":3}`)
			}
		}
	})
	if _, _, err := clitest.Run(t, Main, "export", broken); err == nil {
		t.Fatal("export accepted the broken tree: the test needs a tree the other commands refuse")
	}
	if out, _, err := clitest.Run(t, Main, "info", broken); err == nil {
		t.Errorf("info accepted a tree export refuses:\n%s", out)
	}
	empty := rewrite("empty.miku", func(f *miku.File) {
		var keep []miku.Section
		for _, sec := range f.Sections {
			if !strings.HasPrefix(sec.Name, "conversation") {
				keep = append(keep, sec)
			}
		}
		f.Sections = keep
	})
	out, _, err := clitest.Run(t, Main, "info", empty)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "conversation  none (the file has no conversation section)") {
		t.Errorf("info of a file without a conversation:\n%s", out)
	}
}

// TestSessionExportOutIsSaid: export -o to a file that exists, or to a
// folder, is refused in one sentence that names it (not Go's "open …: file
// exists"), and neither is changed.
func TestSessionExportOutIsSaid(t *testing.T) {
	file := savedChat(t, 1)
	dir := filepath.Dir(file)
	existing := filepath.Join(dir, "chat.md")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		existing: "-o " + existing + " already exists: choose another name or remove it",
		dir:      "-o " + dir + " is a folder",
	} {
		_, _, err := clitest.Run(t, Main, "export", file, "-o", out)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "open ") || strings.Contains(err.Error(), "file exists") {
			t.Errorf("export -o %s: %v; want %q", out, err, want)
		}
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q, %v", b, err)
	}
}

// savedChat saves a conversation of the given number of turns with the
// chat demo model, in a window of 128 tokens (so that a long one drops its
// old turns from the conversation section), and returns the file's path.
func savedChat(t *testing.T, turns int) string {
	t.Helper()
	set := session.DefaultSettings()
	set.Temperature, set.MaxTokens = 0, 6
	s, err := session.OpenBytes(demo.ChatName, demo.ChatModel, session.Options{Settings: set, Ctx: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range turns {
		if _, err := s.Send(context.Background(), fmt.Sprintf("Count from %d to %d.", i, i+3), func(session.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "chat.miku")
	if err := s.Files().Save(context.Background(), path, session.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}
