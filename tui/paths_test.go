package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hardening III, item 10: /save, /load and /export take ~ for the home
// directory, and a path with spaces in double or single quotes.
func TestFileCommandsTakeHomeAndQuotes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s := openChat(t)
	tm := start(t, s, 160, 50, Options{NoAutosave: true})
	sc := &term{tm: tm}
	sc.wait(t, true, "ready")
	typeLine(tm, "Count from 3 to 7.")
	sc.wait(t, true, "3, 4, 5, 6, 7")
	typeLine(tm, "/save ~/plain.miku")
	sc.wait(t, true, "saved to "+filepath.Join(home, "plain.miku"))
	typeLine(tm, `/save! "~/my file.miku"`)
	sc.wait(t, true, "saved to "+filepath.Join(home, "my file.miku"))
	typeLine(tm, `/export md '`+home+`/my export.md'`)
	sc.wait(t, true, "exported to "+filepath.Join(home, "my export.md"))
	typeLine(tm, `/export json "~/all of it.json" --all`)
	sc.wait(t, true, "exported to "+filepath.Join(home, "all of it.json"))
	typeLine(tm, `/load "~/my file.miku"`)
	sc.wait(t, true, "loaded "+filepath.Join(home, "my file.miku"))
	typeLine(tm, `/save "~/unclosed.miku`)
	sc.wait(t, true, "no closing")
	finish(t, tm)
	for _, name := range []string{"plain.miku", "my file.miku", "my export.md", "all of it.json"} {
		if _, err := os.Stat(filepath.Join(home, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "my export.md")); err != nil || !strings.Contains(string(b), "Count from 3 to 7.") {
		t.Errorf("the export holds %q (%v)", b, err)
	}
}

func TestSplitArgs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: `md a.md --all`, want: []string{"md", "a.md", "--all"}},
		{in: `md "my file.md"`, want: []string{"md", "my file.md"}},
		{in: `md 'it''s.md'`, want: []string{"md", "its.md"}},
		{in: `md "say \"hi\".md"`, want: []string{"md", `say "hi".md`}},
		{in: `md ~/x.md`, want: []string{"md", home + "/x.md"}},
		{in: `md "~/a b.md"`, want: []string{"md", home + "/a b.md"}},
		{in: `md ~`, want: []string{"md", home}},
		{in: `md a~/b.md`, want: []string{"md", "a~/b.md"}},
		{in: `md "open.md`, bad: true},
		{in: `md 'open.md`, bad: true},
	} {
		got, err := splitArgs(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error, got %q", c.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// Hardening III, item 10: an export to a file that exists, or to a
// folder, says so in words, not as Go's "open …: file exists".
func TestExportRefusalsInWords(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "there.md")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		file: file + " exists — nothing was written; name another file",
		dir:  dir + " is a folder — name a file in it",
	} {
		got := exportDoneMsg{path: path, err: exportTo(nil, path, "md", false)}
		if _, text := got.note(); text != "export failed: "+want {
			t.Errorf("export to %s says %q, want %q", path, text, "export failed: "+want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("the existing file was changed: %q", b)
	}
}
