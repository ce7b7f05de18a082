package bench

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// runCmd runs `isagi bench ARGS…` in process: args[0] is "bench".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "bench" {
		t.Fatalf("runCmd %q: not bench", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

func TestBenchJSON(t *testing.T) {
	out, errs, err := runCmd(t, "bench", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "-p", "16", "-n", "8", "--json", "--no-probe")
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

// TestBenchDraftJSON: bench --draft decodes held-out lines plainly and
// speculatively and reports the comparison; its flags are checked.
func TestBenchDraftJSON(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	m := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	out, errs, err := runCmd(t, "bench", "--model", m, "--draft", "rank:128,all", "--draft-n", "2",
		"--prompt-file", clitest.Fixture(t, "kjv/heldout.txt"), "--prompts", "3", "-p", "16", "-n", "24", "--json")
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
		if err == nil || base.ExitCode(err) != 2 {
			t.Errorf("bench %v: %v (want a usage error)", bad, err)
		}
	}
	if _, _, err := runCmd(t, "bench", "--model", m, "--draft", "ngram", "--prompt-file", filepath.Join(t.TempDir(), "none.txt")); err == nil {
		t.Error("a missing --prompt-file was accepted")
	}
}

// TestBenchVariants: bench measures the mechanisms' variants side by side,
// the compression alone labelled by its rank, and the KV projection's row
// holds half the KV bytes per position at rank d/2; stderr says each
// variant's compression once.
func TestBenchVariants(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	out, errs, err := runCmd(t, "bench", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "-p", "16", "-n", "8", "--json", "--no-probe",
		"--rank", "128", "--kv-proj", "--sink-bypass")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var r struct {
		KVBytes  int64 `json:"kv_bytes_per_token"`
		Variants []struct {
			Label   string  `json:"variant"`
			Decode  float64 `json:"decode_tok_s"`
			KVBytes int64   `json:"kv_bytes_per_token"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(r.Variants) != 4 {
		t.Fatalf("variants %+v", r.Variants)
	}
	kv := map[string]int64{}
	for _, v := range r.Variants {
		if v.Decode <= 0 {
			t.Errorf("%s: decode %g tok/s", v.Label, v.Decode)
		}
		kv[v.Label] = v.KVBytes
	}
	if kv["rank 128"] != 2*kv["+kv-proj"] || kv["+sink-bypass"] != kv["rank 128"] || r.KVBytes != kv["all"] {
		t.Errorf("KV bytes per position %v, report %d", kv, r.KVBytes)
	}
	// Each compression is said once — the one asked for, then each
	// variant's — not again at every switch of every round.
	if n := strings.Count(errs, "isagi: GRC "); n != 1+len(r.Variants) {
		t.Errorf("%d GRC lines on stderr for %d variants:\n%s", n, len(r.Variants), errs)
	}
	if n := strings.Count(errs, "isagi: KV projection: "); n > 3 {
		t.Errorf("the KV projection said %d times:\n%s", n, errs)
	}
}

// TestBenchKVType: --kv-type is reported with the KV bytes per position
// it stores (kjv: 6 layers, 4 KV heads of 32 values), and a type that
// does not exist is a usage error.
func TestBenchKVType(t *testing.T) {
	m := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	for typ, bytes := range map[string]int64{"f32": 6144, "f16": 3072, "q8_0": 1632} {
		out, errs, err := runCmd(t, "bench", "--model", m, "-p", "16", "-n", "8", "--json", "--no-probe", "--kv-type", typ)
		if err != nil {
			t.Fatalf("%s: %v\n%s", typ, err, errs)
		}
		var r struct {
			KVType  string  `json:"kv_type"`
			KVBytes int64   `json:"kv_bytes_per_token"`
			Decode  float64 `json:"decode_tok_s"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if r.KVType != typ || r.KVBytes != bytes || r.Decode <= 0 {
			t.Errorf("--kv-type %s: report %+v, want %d bytes per position", typ, r, bytes)
		}
	}
	if _, _, err := runCmd(t, "bench", "--model", m, "--kv-type", "q4_0"); err == nil || base.ExitCode(err) != 2 {
		t.Errorf("--kv-type q4_0: %v (want a usage error)", err)
	}
}

// TestBenchMoE: on a mixture of experts bench reports its experts, the
// weight bytes a token reads (its chosen experts') below those it holds
// (every expert), and under --rank over every slot a compression that
// leaves the experts dense.
func TestBenchMoE(t *testing.T) {
	clitest.Isolate(t) // the GRC cache
	path := fixtures.Rebuilt(t, "archs/qwen3.gguf", t.TempDir(), "qwen3moe.gguf",
		fixtures.Change{Arch: "qwen3moe", Experts: 4, ExpertsUsed: 2})
	out, errs, err := runCmd(t, "bench", "--model", path, "-p", "16", "-n", "8", "--json", "--no-probe", "--rank", "16", "--slots", "all")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var r benchReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Experts != "4 (2 per token, 32 wide)" || r.WeightMB <= 0 || r.WeightMB >= r.HeldMB || r.DecodeTokS <= 0 {
		t.Errorf("report: experts %q, %.3f MB per token of %.3f held, %.1f tok/s", r.Experts, r.WeightMB, r.HeldMB, r.DecodeTokS)
	}
	if !strings.Contains(r.GRC, "experts stay dense in 2 of 2 blocks") || !strings.Contains(errs, "experts stay dense") {
		t.Errorf("compression %q; log:\n%s", r.GRC, errs)
	}
	var text strings.Builder
	if err := r.write(&text, false, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "experts      4 (2 per token, 32 wide): a token reads") {
		t.Errorf("report for a person:\n%s", text.String())
	}
}
