package evalcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestEvalKVCommand: eval kv reads a --cases file, prints one row per
// task, length and scorer with a column per keep share, and --json the
// same cells; --ppl adds perplexity under eviction; bad flags are one
// clear line.
func TestEvalKVCommand(t *testing.T) {
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	cases := filepath.Join(t.TempDir(), "cases.json")
	ctx := strings.Repeat("And God said, Let there be light: and there was light. ", 12)
	if err := os.WriteFile(cases, []byte(`[{"context":"`+ctx+`","question":" And God saw the light, that it was","answer":" good."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := runCmd(t, "eval", "kv", "--model", kjv, "--cases", cases, "--scorers", "manifold,streaming", "--keeps", "1,0.5")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	for _, want := range []string{"retrieval", "manifold", "streaming", "0.5", "intrinsic dimension"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The attention scorers and AdaKV's budgets (masked, the held share
	// and no leak said) on the same case.
	out, errs, err = runCmd(t, "eval", "kv", "--model", kjv, "--cases", cases, "--scorers", "snapkv,h2o,adakv+snapkv,adakv+manifold", "--keeps", "1,0.5", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var att struct {
		Cells []struct {
			Scorer string  `json:"scorer"`
			Keep   float64 `json:"keep"`
			Held   float64 `json:"held"`
			Leaks  int     `json:"mask_leaks"`
		} `json:"retrieval"`
		Dims []struct {
			Layer int     `json:"layer"`
			Fit   float64 `json:"fit"`
		} `json:"intrinsic_dim"`
	}
	if err := json.Unmarshal([]byte(out), &att); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(att.Cells) != 8 || len(att.Dims) == 0 || !(att.Dims[0].Fit > 0) {
		t.Fatalf("report %+v", att)
	}
	for _, c := range att.Cells {
		if c.Keep == 0.5 && strings.HasPrefix(c.Scorer, "adakv+") && (c.Held < 0.5 || c.Held > 1 || c.Leaks != 0) {
			t.Errorf("%s: held %g, %d leaks", c.Scorer, c.Held, c.Leaks)
		}
	}
	out, errs, err = runCmd(t, "eval", "kv", "--model", kjv, "--cases", cases, "--scorers", "keydiff", "--keeps", "1,0.25",
		"--ppl", clitest.Fixture(t, "kjv/heldout.txt"), "--ppl-window", "128", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	var rep struct {
		Cells []struct {
			Scorer string  `json:"scorer"`
			Keep   float64 `json:"keep"`
			Cases  int     `json:"cases"`
		} `json:"retrieval"`
		PPL []struct {
			Keep float64 `json:"keep"`
			PPL  float64 `json:"ppl"`
		} `json:"ppl"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Cells) != 2 || rep.Cells[1].Keep != 0.25 || rep.Cells[1].Scorer != "keydiff" || len(rep.PPL) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if !(rep.PPL[0].PPL > 1 && rep.PPL[1].PPL > 1) {
		t.Fatalf("perplexities %+v", rep.PPL)
	}
	for _, bad := range [][]string{
		{"--cases", cases, "--keeps", "0"},
		{"--cases", cases, "--scorers", "adakv+none"},
		{"--cases", cases, "--scorers", "h2o", "--ppl", cases},
		{"--cases", cases, "--floor", "2"},
		{"--cases", cases, "--haystack", cases},
		{},
	} {
		_, _, err := runCmd(t, append([]string{"eval", "kv", "--model", kjv}, bad...)...)
		if err == nil {
			t.Errorf("eval kv %v succeeded", bad)
		}
	}
}

// TestEvalKVLengthsPastTheWindow: a --lengths past the model's window is a
// usage error that names the window, found before any case is generated
// (kjv's window is 256 tokens); a cases file that is a folder or not the
// cases' JSON is said in words, with the file's name.
func TestEvalKVLengthsPastTheWindow(t *testing.T) {
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	heldout := clitest.Fixture(t, "kjv/heldout.txt")
	_, _, err := runCmd(t, "eval", "kv", "--model", kjv, "--haystack", heldout, "--lengths", "128,99999", "--tasks", "single", "--cases-per", "1")
	if base.ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "--lengths 99999: the model's context is 256 tokens") {
		t.Errorf("--lengths 99999: exit %d, %v", base.ExitCode(err), err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(bad, []byte(`[{"context": 5}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{dir: "is not a regular file (a directory)", bad: bad + ": the cases are not"} {
		_, _, err := runCmd(t, "eval", "kv", "--model", kjv, "--cases", file)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "read "+dir) {
			t.Errorf("--cases %s: %v; want %q", file, err, want)
		}
	}
}
