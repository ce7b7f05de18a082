package main

import (
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	return out.String(), errb.String(), err
}

// TestRunIDs: the scripted interface — --prompt-ids in, --ids out — gives
// the reference's greedy continuation of "And God said" (kjv golden.json).
func TestRunIDs(t *testing.T) {
	out, errs, err := runCmd(t, "run", "--model", clitest.Fixture(t, "kjv/kjv-f32.gguf"),
		"--prompt-ids", "1,300,391,394", "--temp", "0", "--ids", "-n", "8")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if want := "325 336 4049 299 496 261 345 4049\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// TestRunTextPrompt: --prompt goes through the tokenizer (BOS added) and
// the continuation is printed as text.
func TestRunTextPrompt(t *testing.T) {
	out, errs, err := runCmd(t, "run", "--model", clitest.Fixture(t, "kjv/kjv-f32.gguf"),
		"--prompt", "And God said", "--temp", "0", "-n", "5")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	// Greedy ids 325 336 4049 299 496 decode to " unto him, I am".
	if want := " unto him, I am\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// TestShowPromptNeedsNoWeights: --chat --show-prompt renders a conversation
// file with the model's template and counts its tokens on a tokenizer-only
// GGUF; a user's "<|im_end|>" stays text.
func TestShowPromptNeedsNoWeights(t *testing.T) {
	conv := filepath.Join(t.TempDir(), "conv.json")
	if err := os.WriteFile(conv, []byte(`[{"role":"user","content":"Hi"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := runCmd(t, "run", "--model", clitest.Fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if !strings.Contains(out, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n") || !strings.Contains(out, " tokens\n") {
		t.Fatalf("rendered prompt:\n%s", out)
	}
	noGen, _, err := runCmd(t, "run", "--model", clitest.Fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt", "--no-generation-prompt")
	if err != nil || strings.Contains(noGen, "<|im_start|>assistant") {
		t.Fatalf("--no-generation-prompt still opened the assistant turn (%v):\n%s", err, noGen)
	}
	tmpl := filepath.Join(t.TempDir(), "t.jinja")
	if err := os.WriteFile(tmpl, []byte(`{% for m in messages %}[{{ m.role }}|{{ date_string }}] {{ m.content }}{% endfor %}`), 0o644); err != nil {
		t.Fatal(err)
	}
	custom, _, err := runCmd(t, "run", "--model", clitest.Fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt", "--chat-template-file", tmpl, "--template-var", "date_string=26 Jul 2024")
	if err != nil || !strings.HasPrefix(custom, "[user|26 Jul 2024] Hi\n") {
		t.Fatalf("custom template with a variable (%v):\n%s", err, custom)
	}
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
