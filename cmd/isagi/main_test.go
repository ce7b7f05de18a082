package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestUnknownCommand: an unknown command is a usage error (exit 2) whose
// one line points at the help.
func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	err := run([]string{"frobnicate"}, &out, &errb)
	if err == nil {
		t.Fatal("unknown command accepted")
	}
	if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), `"frobnicate"`) || !strings.Contains(err.Error(), "isagi --help") {
		t.Fatalf("unknown command: exit %d, %v", base.ExitCode(err), err)
	}
}

// run runs isagi args in process, as main does but with the given
// stdout and stderr.
func run(args []string, stdout, stderr io.Writer) error {
	return cli.Run(base.Env{Version: version, Stdin: os.Stdin, Stdout: stdout, Stderr: stderr}, args)
}

// runCmd runs isagi args in process and returns what it wrote to stdout
// and stderr, and its error.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	return out.String(), errb.String(), err
}

// TestRunSessionAndInfo: run --session appends turns to a .miku file
// (creating it), session info reads it without a model, and a session is
// refused for another model.
func TestRunSessionAndInfo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.miku")
	q8 := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	for _, p := range []string{"And God said", " And"} {
		if _, errs, err := runCmd(t, "run", "--model", q8, "--session", file, "--prompt", p, "-n", "6", "--seed", "3"); err != nil {
			t.Fatalf("%v\n%s", err, errs)
		}
	}
	out, _, err := runCmd(t, "session", "info", file, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Mode      string `json:"mode"`
		TextBytes int    `json:"text_bytes"`
		Model     struct {
			File string `json:"file"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if info.Mode != "completion" || info.Model.File != "kjv-q8_0.gguf" || info.TextBytes < len("And God said And") {
		t.Fatalf("session info %+v", info)
	}
	_, _, err = runCmd(t, "run", "--model", clitest.Fixture(t, "kjv/kjv-f32.gguf"), "--session", file, "--prompt", "x", "-n", "2")
	if err == nil || !strings.Contains(err.Error(), "another model") {
		t.Fatalf("another model's session: %v", err)
	}
}
