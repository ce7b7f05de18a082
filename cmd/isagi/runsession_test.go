package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// savedSession is what the run --session tests read back from a file.
type savedSession struct {
	Text  string
	Knobs struct {
		Temperature float32 `json:"temperature"`
		Seed        uint64  `json:"seed"`
		MaxTokens   int     `json:"max_tokens"`
		Rank        int     `json:"rank"`
	}
}

func readSession(t *testing.T, file string) savedSession {
	t.Helper()
	f, err := miku.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	var s savedSession
	if err := json.Unmarshal(f.Header.Knobs, &s.Knobs); err != nil {
		t.Fatal(err)
	}
	sec, ok := f.Section("conversation")
	if !ok {
		t.Fatal("no conversation section")
	}
	var conv struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		t.Fatal(err)
	}
	s.Text = conv.Text
	return s
}

// TestRunSessionConcurrentLoopsLoseNoTurn: two loops of run --session on
// one file, side by side, each of 5 turns: every turn of both is in the
// file afterwards (each run holds the file's lock from load to save, so
// the runs take turns instead of saving over each other).
func TestRunSessionConcurrentLoopsLoseNoTurn(t *testing.T) {
	clitest.Isolate(t)
	file := filepath.Join(t.TempDir(), "s.miku")
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	const loops, turns = 2, 5
	var wg sync.WaitGroup
	errs := make(chan error, loops*turns)
	for l := range loops {
		wg.Go(func() {
			for i := range turns {
				p := fmt.Sprintf(" Loop%c turn%d.", 'A'+l, i)
				if _, errb, err := runCmd(t, "run", "--model", q8, "--session", file, "--prompt", p, "-n", "2", "--seed", "1"); err != nil {
					errs <- fmt.Errorf("loop %d turn %d: %v\n%s", l, i, err, errb)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	text := readSession(t, file).Text
	var lost []string
	for l := range loops {
		for i := range turns {
			if p := fmt.Sprintf(" Loop%c turn%d.", 'A'+l, i); !strings.Contains(text, p) {
				lost = append(lost, strings.TrimSpace(p))
			}
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d turns lost: %v\nfile text: %q", len(lost), loops*turns, lost, text)
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
		t.Fatalf("%d entries beside the session (lock or temporary files left?)", len(ents))
	}
}

// generated is the count of tokens run -v reports.
var generated = regexp.MustCompile(`(\d+) generated \(([^)]*)\)`)

// TestRunSessionFlagsOverrideSaved: on an existing session, -n, --temp
// and --seed given on the command line win over the saved settings (and
// are saved with the session); flags not given keep the saved values.
func TestRunSessionFlagsOverrideSaved(t *testing.T) {
	clitest.Isolate(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.miku")
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	if _, errb, err := runCmd(t, "run", "--model", q8, "--session", file, "--prompt", "And God said", "-n", "60", "--temp", "0"); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if k := readSession(t, file).Knobs; k.MaxTokens != 60 || k.Temperature != 0 {
		t.Fatalf("saved knobs %+v", k)
	}
	base, _ := os.ReadFile(file)
	copyOf := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, base, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// -n 3: exactly three tokens, and the session keeps -n 3.
	f3 := copyOf("n3.miku")
	_, errb, err := runCmd(t, "run", "--model", q8, "--session", f3, "--prompt", " And", "-n", "3", "-v")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	m := generated.FindStringSubmatch(errb)
	if m == nil || m[1] != "3" || m[2] != "token limit" {
		t.Fatalf("-n 3 on a session saved with max_tokens 60: %q", errb)
	}
	if k := readSession(t, f3).Knobs; k.MaxTokens != 3 || k.Temperature != 0 {
		t.Fatalf("saved after -n 3: %+v", k)
	}
	// Not given again, the saved -n 3 holds.
	_, errb, err = runCmd(t, "run", "--model", q8, "--session", f3, "--prompt", " And", "-v")
	if m := generated.FindStringSubmatch(errb); err != nil || m == nil || m[1] != "3" {
		t.Fatalf("second run without -n: %v %q", err, errb)
	}

	// --seed with --temp 1: the seed decides the reply.
	reply := func(name, seed string) string {
		t.Helper()
		out, errb, err := runCmd(t, "run", "--model", q8, "--session", copyOf(name), "--prompt", " And", "-n", "24", "--temp", "1", "--top-k", "0", "--top-p", "1", "--min-p", "0", "--seed", seed)
		if err != nil {
			t.Fatalf("%v\n%s", err, errb)
		}
		return out
	}
	s5, s6, s5again := reply("s5.miku", "5"), reply("s6.miku", "6"), reply("s5b.miku", "5")
	if s5 != s5again {
		t.Fatalf("--seed 5 twice: %q, %q", s5, s5again)
	}
	if s5 == s6 {
		t.Fatalf("--seed 5 and --seed 6 gave the same reply %q: the saved seed won", s5)
	}
	if k := readSession(t, filepath.Join(dir, "s6.miku")).Knobs; k.Seed != 6 || k.Temperature != 1 || k.MaxTokens != 24 {
		t.Fatalf("saved after --seed 6 --temp 1 -n 24: %+v", k)
	}
}

// TestRunSessionRank: --rank on run --session switches the session to the
// GRC compression (as /set rank does) and is saved with it; --rank off
// switches it back.
func TestRunSessionRank(t *testing.T) {
	clitest.Isolate(t)
	file := filepath.Join(t.TempDir(), "s.miku")
	f32 := clitest.Fixture(t, "kjv/kjv-f32.gguf")
	_, errb, err := runCmd(t, "run", "--model", f32, "--session", file, "--prompt", "And God said", "-n", "2", "--rank", "64", "-v")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if k := readSession(t, file).Knobs; k.Rank != 64 {
		t.Fatalf("saved rank %d after --rank 64\n%s", k.Rank, errb)
	}
	if !strings.Contains(errb, "GRC rank 64") {
		t.Fatalf("no word of the compression:\n%s", errb)
	}
	// The saved rank holds on the next run; --rank off turns it off.
	_, errb, err = runCmd(t, "run", "--model", f32, "--session", file, "--prompt", " And", "-n", "2", "-v")
	if err != nil || !strings.Contains(errb, "GRC rank 64") {
		t.Fatalf("resumed: %v\n%s", err, errb)
	}
	_, errb, err = runCmd(t, "run", "--model", f32, "--session", file, "--prompt", " And", "-n", "2", "--rank", "off")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if k := readSession(t, file).Knobs; k.Rank != 0 {
		t.Fatalf("saved rank %d after --rank off", k.Rank)
	}
	for _, bad := range [][]string{{"--rank", "9999"}, {"--slots", "all"}, {"--rank", "8", "--rank-floor", "4"}} {
		args := append([]string{"run", "--model", f32, "--session", file, "--prompt", " x", "-n", "1"}, bad...)
		if _, _, err := runCmd(t, args...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestRunSessionDemo: run --session takes --demo as the TUI does: two runs
// on one file leave a session of two turns, saved with the demo model.
func TestRunSessionDemo(t *testing.T) {
	clitest.Isolate(t)
	file := filepath.Join(t.TempDir(), "s.miku")
	for i := range 2 {
		if _, errs, err := runCmd(t, "run", "--demo", "--session", file, "--prompt", "And God said", "-n", "3"); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, errs)
		}
	}
	// session info says what a completion session holds: running text,
	// not "0 messages".
	out, errs, err := runCmd(t, "session", "info", file)
	if err != nil || strings.Contains(out, "0 messages") || !strings.Contains(out, "completion mode") || !strings.Contains(out, "bytes of running text") {
		t.Fatalf("session info: %v\n%s%s", err, out, errs)
	}
	f, err := miku.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	sec, ok := f.Section("conversation")
	if !ok {
		t.Fatal("no conversation section")
	}
	var conv struct {
		Parts []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(sec.Data, &conv); err != nil {
		t.Fatal(err)
	}
	prompts := 0
	for _, p := range conv.Parts {
		if p.Role == session.RolePrompt {
			prompts++
		}
	}
	if prompts != 2 {
		t.Fatalf("want 2 turns in the file, got %d prompts: %+v", prompts, conv.Parts)
	}
	if f.Header.Model.SHA256 != base.BytesSHA256(demo.Model) {
		t.Fatalf("saved with model %+v, want the demo", f.Header.Model)
	}
}

// TestRunSessionBranches: run --session --regenerate and --edit make
// branches of the saved conversation, and session export writes them.
func TestRunSessionBranches(t *testing.T) {
	clitest.Isolate(t)
	file := filepath.Join(t.TempDir(), "b.miku")
	model := filepath.Join("..", "..", "testdata", "models", "chat.gguf")
	turn := func(args ...string) string {
		t.Helper()
		out, errs, err := runCmd(t, append([]string{"run", "--model", model, "--session", file, "--temp", "0", "-n", "16"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errs)
		}
		return out
	}
	turn("--prompt", "Count from 3 to 7.")
	turn("--regenerate")
	turn("--edit", "1", "--prompt", "Count from 1 to 4.")
	out, _, err := runCmd(t, "session", "export", file, "--all", "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.Contains(lines[2], "Count from 1 to 4.") {
		t.Fatalf("export --all:\n%s", out)
	}
	md, _, err := runCmd(t, "session", "export", file)
	if err != nil || !strings.Contains(md, "**User**\n\nCount from 1 to 4.") || strings.Contains(md, "3 to 7") {
		t.Fatalf("export of the branch in use: %v\n%s", err, md)
	}
	dst := filepath.Join(t.TempDir(), "out.json")
	if _, _, err := runCmd(t, "session", "export", file, "--format", "json", "-o", dst); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "session", "export", file, "--format", "json", "-o", dst); err == nil {
		t.Fatal("export overwrote an existing file")
	}
	for _, bad := range [][]string{
		{"session", "export", file, "--format", "html"},
		{"session", "export"},
		{"run", "--model", model, "--session", file, "--regenerate", "--prompt", "x"},
		{"run", "--model", model, "--session", file, "--edit", "7", "--prompt", "x"},
	} {
		if _, _, err := runCmd(t, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	info, _, err := runCmd(t, "session", "info", file)
	if err != nil || !strings.Contains(info, "3 branches") {
		t.Fatalf("session info: %v\n%s", err, info)
	}
}
