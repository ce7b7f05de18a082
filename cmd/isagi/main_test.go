package main

import (
	"fmt"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, rel string) string { t.Helper(); return fixtures.Path(t, rel) }

func TestInspectShowsModel(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"inspect", "--tensors", fixture(t, "kjv/kjv-q4_k_m.gguf")}, &out, &errb); err != nil {
		t.Fatalf("inspect: %v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		`general.architecture`, `"llama"`,
		"tensors  56,",
		"Q4_K   38 tensors", "Q6_K   5 tensors", "F32    13 tensors",
		"blk.0.attn_q.weight",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, s)
		}
	}
}

func TestInspectRejectsNonGGUF(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notes.gguf")
	if err := os.WriteFile(bad, []byte("hello, this is not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run([]string{"inspect", bad}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "notes.gguf") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

// TestUnknownCommand: an unknown command is a usage error (exit 2) whose
// one line points at the help.
func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	err := run([]string{"frobnicate"}, &out, &errb)
	if err == nil {
		t.Fatal("unknown command accepted")
	}
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `"frobnicate"`) || !strings.Contains(err.Error(), "isagi --help") {
		t.Fatalf("unknown command: exit %d, %v", exitCode(err), err)
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
	out, errs, err := runCmd(t, "run", "--model", fixture(t, "kjv/kjv-f32.gguf"),
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
	out, errs, err := runCmd(t, "run", "--model", fixture(t, "kjv/kjv-f32.gguf"),
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
	out, errs, err := runCmd(t, "run", "--model", fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if !strings.Contains(out, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n") || !strings.Contains(out, " tokens\n") {
		t.Fatalf("rendered prompt:\n%s", out)
	}
	noGen, _, err := runCmd(t, "run", "--model", fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt", "--no-generation-prompt")
	if err != nil || strings.Contains(noGen, "<|im_start|>assistant") {
		t.Fatalf("--no-generation-prompt still opened the assistant turn (%v):\n%s", err, noGen)
	}
	tmpl := filepath.Join(t.TempDir(), "t.jinja")
	if err := os.WriteFile(tmpl, []byte(`{% for m in messages %}[{{ m.role }}|{{ date_string }}] {{ m.content }}{% endfor %}`), 0o644); err != nil {
		t.Fatal(err)
	}
	custom, _, err := runCmd(t, "run", "--model", fixture(t, "tokenizers/qwen3-bpe/tokenizer.gguf"),
		"--chat", "--messages", conv, "--show-prompt", "--chat-template-file", tmpl, "--template-var", "date_string=26 Jul 2024")
	if err != nil || !strings.HasPrefix(custom, "[user|26 Jul 2024] Hi\n") {
		t.Fatalf("custom template with a variable (%v):\n%s", err, custom)
	}
}

func TestTokenizeRoundTrip(t *testing.T) {
	m := fixture(t, "kjv/kjv-q8_0.gguf")
	out, _, err := runCmd(t, "tokenize", "--model", m, "And God said")
	if err != nil || out != "1 300 391 394\n" {
		t.Fatalf("tokenize: %q, %v", out, err)
	}
	out, _, err = runCmd(t, "tokenize", "--model", m, "--decode", "1", "300", "391", "394")
	if err != nil || out != "And God said\n" {
		t.Fatalf("decode: %q, %v", out, err)
	}
}

func TestBenchJSON(t *testing.T) {
	out, errs, err := runCmd(t, "bench", "--model", fixture(t, "kjv/kjv-q8_0.gguf"), "-p", "16", "-n", "8", "--json", "--no-probe")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"prefill_tok_s", "decode_tok_s"} {
		if v, ok := r[k].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v", k, r[k])
		}
	}
}

// TestRunSessionAndInfo: run --session appends turns to a .miku file
// (creating it), session info reads it without a model, and a session is
// refused for another model.
func TestRunSessionAndInfo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.miku")
	q8 := fixture(t, "kjv/kjv-q8_0.gguf")
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
	_, _, err = runCmd(t, "run", "--model", fixture(t, "kjv/kjv-f32.gguf"), "--session", file, "--prompt", "x", "-n", "2")
	if err == nil || !strings.Contains(err.Error(), "another model") {
		t.Fatalf("another model's session: %v", err)
	}
}

func TestPPL(t *testing.T) {
	text := filepath.Join(t.TempDir(), "t.txt")
	held, err := os.ReadFile(fixture(t, "kjv/heldout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, held[:3000], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := runCmd(t, "ppl", "--model", fixture(t, "kjv/kjv-q8_0.gguf"), "--file", text, "--ctx", "128")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var ppl float64
	if _, err := fmt.Sscanf(out, "ppl=%g\n", &ppl); err != nil || ppl <= 1 || ppl > 1000 {
		t.Fatalf("output %q (%v)", out, err)
	}
}
