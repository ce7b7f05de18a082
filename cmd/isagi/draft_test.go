package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDraft: run --draft gives the same greedy text as a plain run,
// for a compressed drafter (with the online basis) and the n-gram one, and
// -v says what speculation did.
func TestRunDraft(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the drafter's GRC cache
	m := fixture(t, "kjv/kjv-f32.gguf")
	base := []string{"run", "--model", m, "--prompt", "And God said", "--temp", "0", "-n", "32", "-v"}
	plain, errs, err := runCmd(t, base...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	for _, d := range [][]string{
		{"--draft", "rank:64,qkv,ffn", "--draft-n", "3", "--online-basis", "--online-share", "1"},
		{"--draft", "ngram"},
	} {
		out, errs, err := runCmd(t, append(append([]string{}, base...), d...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", d, err, errs)
		}
		if out != plain {
			t.Fatalf("%v: speculative text %q, plain %q", d, out, plain)
		}
		if !strings.Contains(errs, "speculative: ") {
			t.Fatalf("%v: -v says nothing of speculation:\n%s", d, errs)
		}
	}
}

// TestBenchDraftJSON: bench --draft decodes held-out lines plainly and
// speculatively and reports the comparison; its flags are checked.
func TestBenchDraftJSON(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	m := fixture(t, "kjv/kjv-q8_0.gguf")
	out, errs, err := runCmd(t, "bench", "--model", m, "--draft", "rank:128,all", "--draft-n", "2",
		"--prompt-file", fixture(t, "kjv/heldout.txt"), "--prompts", "3", "-p", "16", "-n", "24", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var r struct {
		Drafter    string  `json:"drafter"`
		Prompts    int     `json:"prompts"`
		Plain      float64 `json:"plain_decode_tok_s"`
		Spec       float64 `json:"spec_decode_tok_s"`
		Ratio      float64 `json:"speed_ratio"`
		Alpha      float64 `json:"alpha"`
		Steps      int     `json:"verifier_steps"`
		Mismatches int     `json:"mismatches"`
		Verify     float64 `json:"verify_cost_steps"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Drafter != "rank 128 qkv,o,ffn" || r.Prompts != 3 || r.Plain <= 0 || r.Spec <= 0 || r.Ratio <= 0 ||
		r.Alpha <= 0 || r.Alpha > 1 || r.Steps == 0 || r.Mismatches != 0 || r.Verify <= 0 {
		t.Fatalf("report %+v", r)
	}
	for _, bad := range [][]string{
		{"--draft", "fast"},
		{"--draft-n", "3"},
		{"--online-basis"},
		{"--draft", "ngram", "--online-basis"},
		{"--draft", "rank:64", "--draft-n", "17"},
		{"--prompt-file", "x.txt"},
		{"--draft", "ngram", "--prompts", "0"},
		{"--draft", "rank:64", "--online-share", "0.5"},
	} {
		_, _, err := runCmd(t, append([]string{"bench", "--model", m}, bad...)...)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("bench %v: %v (want a usage error)", bad, err)
		}
	}
	if _, _, err := runCmd(t, "bench", "--model", m, "--draft", "ngram", "--prompt-file", filepath.Join(t.TempDir(), "none.txt")); err == nil {
		t.Error("a missing --prompt-file was accepted")
	}
}
