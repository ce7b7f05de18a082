package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/specialfile"
)

// notRegular is the sentence every reader gives for a special file.
func notRegular(c specialfile.Case) string {
	return c.Path + " is not a regular file (" + c.Kind + ")"
}

// runWithin runs the command with specialfile.Within, so that a command that
// reads a device forever or waits on a FIFO fails the test, not CI.
func runWithin(t *testing.T, args ...string) error {
	t.Helper()
	return specialfile.Within(t, func() error { _, _, err := runCmd(t, args...); return err })
}

// TestSpecialFileAsModel: inspect and run, given a device, a FIFO or a
// directory for the model, refuse it at once with the sentence saying what
// it is and what to give instead.
func TestSpecialFileAsModel(t *testing.T) {
	clitest.IsolateStore(t)
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			hint := ": give the path of a .gguf model file"
			if err := runWithin(t, "inspect", c.Path); err == nil || err.Error() != notRegular(c)+hint {
				t.Errorf("inspect: got %v, want %q", err, notRegular(c)+hint)
			}
			err := runWithin(t, "run", "--model", c.Path, "--prompt", "x")
			want := "--model: " + notRegular(c) + hint
			if c.Kind == "a directory" {
				want = "--model names " + c.Path + ", which is a directory" // store.Resolve's own wording
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("run --model: got %v, want %q", err, want)
			}
		})
	}
}

// TestSpecialFileAsSession: session info refuses a special file instead of
// reading it as a .miku file, naming it and saying what it is. (package
// miku words the sentence its own way: "a device", "a named pipe".)
func TestSpecialFileAsSession(t *testing.T) {
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			err := runWithin(t, "session", "info", c.Path)
			word := map[string]string{"a character device": "device", "a directory": "directory", "a FIFO": "pipe"}[c.Kind]
			if err == nil || !strings.Contains(err.Error(), c.Path+" is ") || !strings.Contains(err.Error(), word) {
				t.Errorf("got %v, want a sentence naming %s as %s", err, c.Path, c.Kind)
			}
		})
	}
}

// TestSpecialFileAsInput: the text files commands read whole (--messages,
// --chat-template-file, --calib, ppl --file) refuse special files, and
// files over their bound, naming the flag.
func TestSpecialFileAsInput(t *testing.T) {
	clitest.IsolateStore(t)
	tok := clitest.Fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf")
	kjv := clitest.Fixture(t, "kjv/kjv-q4_k_m.gguf")
	for _, c := range specialfile.Special(t) {
		t.Run(c.Name, func(t *testing.T) {
			for flag, args := range map[string][]string{
				"--messages":           {"run", "--model", tok, "--chat", "--show-prompt", "--messages", c.Path},
				"--chat-template-file": {"run", "--model", tok, "--chat", "--show-prompt", "--prompt", "Hi", "--chat-template-file", c.Path},
				"--calib":              {"run", "--model", kjv, "--rank", "8", "--alloc", "mcr", "--calib", c.Path, "--prompt", "x", "-n", "1"},
				"--file":               {"ppl", "--model", kjv, "--file", c.Path},
			} {
				want := flag + ": " + notRegular(c)
				if err := runWithin(t, args...); err == nil || err.Error() != want {
					t.Errorf("%s: got %v, want %q", flag, err, want)
				}
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		// Sparse: the size costs no disk, and no byte of it is read.
		big := filepath.Join(t.TempDir(), "big.txt")
		f, err := os.Create(big)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(base.MaxTextBytes + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
		want := "--file: " + big + " is too large (67108865 bytes; the limit is 64 MiB)"
		if err := runWithin(t, "ppl", "--model", kjv, "--file", big); err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}
