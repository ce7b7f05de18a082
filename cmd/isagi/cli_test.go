package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"

	"github.com/isagi-lab/isagi/engine/model"
)

// TestMain lets a test run the real main — exit status included — by
// re-executing the test binary with ISAGI_TEST_MAIN set (see runMain).
func TestMain(m *testing.M) {
	if os.Getenv("ISAGI_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs `isagi args…` as a process, with its own empty data and
// config directories, and returns its output and exit status.
func runMain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	dir := t.TempDir()
	cmd.Env = append(os.Environ(), "ISAGI_TEST_MAIN=1", "ISAGI_MODEL=",
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("isagi %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestHelpExitsZero: --help, -h and `help` print a usage and exit 0, at the
// top level and for every subcommand.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"--demo", "--help"},
		{"run", "--help"}, {"run", "-h"}, {"bench", "--help"}, {"tokenize", "--help"},
		{"pull", "--help"}, {"models", "--help"}, {"session", "--help"}, {"session", "info", "--help"},
		{"ppl", "--help"}, {"calibrate", "--help"}, {"eval", "--help"}, {"eval", "teh", "--help"},
		{"eval", "snipe", "-h"}, {"eval", "ogd", "--help"}, {"explore", "--help"}, {"inspect", "--help"}, {"inspect", "-h"},
	} {
		out, errs, code := runMain(t, args...)
		if code != 0 {
			t.Errorf("isagi %s: exit %d, want 0\n%s", strings.Join(args, " "), code, errs)
		}
		if !strings.Contains(out+errs, "Usage") {
			t.Errorf("isagi %s printed no usage:\n%s%s", strings.Join(args, " "), out, errs)
		}
	}
}

// TestUsageErrorsExitTwo: a wrong command line exits 2 with one line that
// says what is wrong.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"}, {"run", "--bogus"}, {"run", "-n", "many"}, {"inspect"},
		{"run", "--prompt", "a", "--prompt-ids", "1"}, {"--bogus"}, {"explore"},
		{"pull"}, {"pull", "--bogus", "smollm2-135m-instruct"}, {"pull", "a", "b"},
	} {
		_, errs, code := runMain(t, args...)
		if code != 2 {
			t.Errorf("isagi %s: exit %d, want 2\n%s", strings.Join(args, " "), code, errs)
		}
		if lines := strings.Split(strings.TrimSpace(errs), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "isagi") {
			t.Errorf("isagi %s: want one line on stderr, got:\n%s", strings.Join(args, " "), errs)
		}
	}
}

// TestTopHelpListsTUIFlags: `isagi --help` shows the flags the TUI takes,
// not only the subcommands.
func TestTopHelpListsTUIFlags(t *testing.T) {
	out, _, code := runMain(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-model", "-demo", "-load", "-force-model", "-ctx", "-threads", "-snipe", "-ogd-alpha", "-thermal-rank", "run ", "calibrate"} {
		if !strings.Contains(out, f) {
			t.Errorf("isagi --help lacks %q:\n%s", f, out)
		}
	}
}

// TestRunDemo: `run --demo` uses the embedded demo model, as the TUI's
// --demo does.
func TestRunDemo(t *testing.T) {
	out, errs, err := runCmd(t, "run", "--demo", "--prompt", "And God said", "-n", "2", "--temp", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if strings.TrimSpace(out) == "" {
		t.Fatal("run --demo printed no text")
	}
	out, _, err = runCmd(t, "tokenize", "--demo", "And God said")
	if err != nil || out != "1 300 391 394\n" {
		t.Fatalf("tokenize --demo: %q, %v", out, err)
	}
	if _, _, err := runCmd(t, "run", "--demo", "--model", "x.gguf", "--prompt", "a"); err == nil {
		t.Fatal("--demo with --model accepted")
	}
}

// TestCtxAboveWindowWarns: --ctx above the model's window is used as the
// window, and stderr says so once.
func TestCtxAboveWindowWarns(t *testing.T) {
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	_, errs, err := runCmd(t, "run", "--model", q8, "--ctx", "100000", "--prompt", "And God said", "-n", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if want := "--ctx 100000 is above"; strings.Count(errs, want) != 1 || !strings.Contains(errs, "(256 tokens); using 256") {
		t.Fatalf("want one warning naming the limit, stderr:\n%s", errs)
	}
	file := filepath.Join(t.TempDir(), "s.miku")
	_, errs, err = runCmd(t, "run", "--model", q8, "--session", file, "--ctx", "100000", "--prompt", "And God said", "-n", "2")
	if err != nil {
		t.Fatalf("session: %v\n%s", err, errs)
	}
	if !strings.Contains(errs, "100000") || !strings.Contains(errs, "using 256") {
		t.Fatalf("session path: want a warning naming the limit, stderr:\n%s", errs)
	}
}

// TestRunContextFull: a scripted run that stops because the context is full
// fails (exit 1) and says why; the hint to raise --ctx is given only when
// --ctx is below the model's window.
func TestRunContextFull(t *testing.T) {
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	_, _, err := runCmd(t, "run", "--model", q8, "--ctx", "24", "--prompt", "And God said", "-n", "100", "--temp", "0")
	if !errors.Is(err, model.ErrContextFull) || !strings.Contains(err.Error(), "raise --ctx") {
		t.Fatalf("small --ctx: %v", err)
	}
	_, _, err = runCmd(t, "run", "--model", q8, "--prompt", "And God said", "-n", "400", "--temp", "0")
	if !errors.Is(err, model.ErrContextFull) || strings.Contains(err.Error(), "raise --ctx") || !strings.Contains(err.Error(), "256") {
		t.Fatalf("at the model's window: %v", err)
	}
	_, errs, code := runMain(t, "run", "--model", q8, "--ctx", "24", "--prompt", "And God said", "-n", "100", "--temp", "0")
	if code != 1 || !strings.Contains(errs, "context") {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errs)
	}
	file := filepath.Join(t.TempDir(), "s.miku")
	_, _, err = runCmd(t, "run", "--model", q8, "--session", file, "--ctx", "32", "--prompt", "And God said", "-n", "100", "--temp", "0")
	if !errors.Is(err, model.ErrContextFull) {
		t.Fatalf("session run that filled the context: %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the session was not saved: %v", err)
	}
	if _, errs, code := runMain(t, "run", "--model", q8, "--prompt", "And God said", "-n", "2"); code != 0 {
		t.Fatalf("a run stopped at -n: exit %d\n%s", code, errs)
	}
}

// TestHelpCitesOurDocs: help text points at the repository's docs, which
// exist, not at files outside it.
func TestHelpCitesOurDocs(t *testing.T) {
	for _, cmd := range []string{"calibrate", "explore"} {
		out, errs, _ := runMain(t, cmd, "--help")
		if strings.Contains(out+errs, "MECHANISMS.md") || !strings.Contains(out+errs, "docs/") {
			t.Errorf("%s --help:\n%s%s", cmd, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "docs", "mechanisms.md")); err != nil {
		t.Error(err)
	}
}

// TestRunDefaultFitsTheWindow: without -n a completion runs to an
// end-of-generation token or to the end of the window, and the window's
// end is its natural end (exit 0, a note on stderr) on every seed — the
// old default of 256 tokens equalled the demo's whole window and failed
// most runs. -n below 1 is refused as a usage error.
func TestRunDefaultFitsTheWindow(t *testing.T) {
	for seed := range 4 {
		_, errs, code := runMain(t, "run", "--demo", "--cpu", "--prompt", " The LORD", "--seed", strconv.Itoa(seed))
		if code != 0 {
			t.Fatalf("seed %d: exit %d\n%s", seed, code, errs)
		}
		if errs != "" && !strings.Contains(errs, "end of the 256-token context window") {
			t.Errorf("seed %d: stderr %q", seed, errs)
		}
	}
	for _, n := range []string{"0", "-5"} {
		if _, errs, code := runMain(t, "run", "--demo", "--cpu", "--prompt", "x", "-n", n); code != 2 || !strings.Contains(errs, "-n "+n) {
			t.Errorf("-n %s: exit %d, stderr %q", n, code, errs)
		}
	}
}

// TestFlagsAsUsersTypeThem: llama-cli's and ollama's habits work — short
// flags, llama.cpp's long names, a positional prompt — and mistakes come
// back as typed, in one sentence without Go's parser names, exit 2.
func TestFlagsAsUsersTypeThem(t *testing.T) {
	a, errs, code := runMain(t, "run", "--demo", "--cpu", "-n", "6", "--temp", "0", " The LORD")
	if code != 0 {
		t.Fatalf("positional prompt: exit %d\n%s", code, errs)
	}
	b, errs, code := runMain(t, "run", "--demo", "--cpu", "--n-predict", "6", "--temp", "0", "-c", "64", "-t", "1", "-s", "3", "-p", " The LORD")
	if code != 0 || a != b {
		t.Fatalf("aliases: exit %d, output %q against %q\n%s", code, b, a, errs)
	}
	file := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(file, []byte(" The LORD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, errs, code := runMain(t, "run", "--demo", "--cpu", "--predict", "6", "--temp", "0", "--ctx-size", "64", "-f", file); code != 0 || c != a {
		t.Fatalf("-f: exit %d, output %q against %q\n%s", code, c, a, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ctx-sise", "5"}, "unknown flag --ctx-sise"},
		{[]string{"-x"}, "unknown flag -x"},
		{[]string{"--temp", "abc", "-p", "x"}, `--temp "abc": not a number`},
		{[]string{"-n", "x", "-p", "y"}, `-n "x": not a number`},
		{[]string{"--threads", "-3", "-p", "x"}, "--threads -3: give a positive number"},
		{[]string{"--prompt-ids", "abc"}, `"abc" is not a token id`},
	} {
		_, errs, code := runMain(t, append([]string{"run", "--demo", "--cpu"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "strconv") || strings.Contains(errs, "parse error") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestUserMessage: errors reach the user as sentences — a missing folder
// or file named as given, no Go package prefixes, a file name ending in
// ".miku" left whole, a JSON value of the wrong kind said without Go's
// type names.
func TestUserMessage(t *testing.T) {
	dir := t.TempDir()
	_, lockErr := os.Open(filepath.Join(dir, "nodir", ".x.miku.lock"))
	_, missing := os.Open(filepath.Join(dir, "gone.miku"))
	var cases []struct {
		Context string `json:"context"`
	}
	fieldErr := json.Unmarshal([]byte(`[{"context": 5}]`), &cases)
	var list []json.RawMessage
	listErr := json.Unmarshal([]byte(`{"role": "user"}`), &list)
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("miku: lock %s: %w", filepath.Join(dir, "nodir", "x.miku"), lockErr), filepath.Join(dir, "nodir", "x.miku") + ": the folder " + filepath.Join(dir, "nodir") + " does not exist"},
		{fmt.Errorf("miku: %w", missing), filepath.Join(dir, "gone.miku") + " does not exist"},
		{errors.New("miku: /a/b.miku: not a .miku file"), "/a/b.miku: not a .miku file"},
		{fmt.Errorf("session: %w", errors.New("miku: x.miku: too large")), "x.miku: too large"},
		{fmt.Errorf("the cases are not a JSON array: %w", fieldErr), `the cases are not a JSON array: the JSON field "context" holds a number where text belongs`},
		{fmt.Errorf("c.json: %w", fmt.Errorf("chat: conversation must be a JSON list of {role, content}: %w", listErr)),
			"c.json: conversation must be a JSON list of {role, content}: the JSON holds an object where a list belongs"},
	} {
		if got := userMessage(c.err); got != c.want {
			t.Errorf("userMessage(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestRunMistakesExitTwo: mistakes in run's command line — flags that act
// on a saved conversation without --session, --edit 0 (messages are
// numbered from 1, as /edit numbers them) or without a prompt, two
// devices, a rank that is no number, a mechanism or a KV scorer without
// what it refines — exit 2 with one line, before anything runs: the
// session file is not created.
func TestRunMistakesExitTwo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.miku")
	demo := []string{"run", "--demo", "-n", "1", "--temp", "0"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--regenerate"}, "--regenerate acts on a saved conversation"},
		{[]string{"--edit", "1", "--prompt", "x"}, "--edit acts on a saved conversation"},
		{[]string{"--snipe", "privacy", "--prompt", "x"}, "--snipe acts on a saved conversation"},
		{[]string{"--session", file, "--edit", "0", "--prompt", "x"}, "numbered from 1"},
		{[]string{"--session", file, "--edit", "2"}, "--edit 2 needs --prompt"},
		{[]string{"--session", file}, "--session needs --prompt"},
		{[]string{"--session", file, "--prompt-ids", "1,2"}, "not --prompt-ids"},
		{[]string{"--session", file, "--rank", "abc", "--prompt", "x"}, `--rank "abc": want a number or off`},
		{[]string{"--gpu", "--cpu", "--prompt", "x"}, "--gpu and --cpu: choose one"},
		{[]string{"--rank", "abc", "--prompt", "x"}, `--rank "abc": want a number or off`},
		{[]string{"--gauge", "--prompt", "x"}, "need --rank K"},
		{[]string{"--calib", "x.txt", "--rank", "8", "--prompt", "x"}, "--calib is for --alloc mcr"},
		{[]string{"--kv-scorer", "keydiff", "--prompt", "x"}, "give --kv-keep too"},
	} {
		args := append(append([]string{}, demo...), c.args...)
		out, errs, code := runMain(t, args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("isagi %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(args, " "), code, errs, c.want)
		}
		if out != "" {
			t.Errorf("isagi %s generated %q", strings.Join(args, " "), out)
		}
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run touched the session file: %v", err)
	}
	// --kv-scorer with --kv-keep, and with --session (whose file may hold
	// a keep share), is taken.
	if _, errs, code := runMain(t, append(append([]string{}, demo...), "--kv-keep", "0.5", "--kv-scorer", "keydiff", "--prompt", "x")...); code != 0 {
		t.Errorf("--kv-keep 0.5 --kv-scorer keydiff: exit %d\n%s", code, errs)
	}
}
