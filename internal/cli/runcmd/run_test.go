package runcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi run` in process: args[0] is "run", as the user types
// it.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return clitest.Run(t, Main, args[1:]...)
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

// TestRunVerboseNamesBackend: run -v says what ran the model on its
// summary line, plainly and with --session.
func TestRunVerboseNamesBackend(t *testing.T) {
	clitest.Isolate(t)
	file := filepath.Join(t.TempDir(), "s.miku")
	for _, args := range [][]string{
		{"run", "--demo", "--cpu", "--threads", "2", "--prompt", "And God said", "-n", "2", "-v"},
		{"run", "--demo", "--cpu", "--threads", "2", "--session", file, "--prompt", "And God said", "-n", "2", "-v"},
	} {
		_, errs, err := runCmd(t, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, errs)
		}
		if !regexp.MustCompile(`generated \([^)]*\);.*; on cpu \S+ × 2 threads\n`).MatchString(errs) {
			t.Errorf("%s: -v does not name the backend:\n%s", strings.Join(args, " "), errs)
		}
	}
}
