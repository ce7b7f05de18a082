package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi models ARGS…` in process: args[0] is "models".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "models" {
		t.Fatalf("runCmd %q: not models", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

// TestModelsCannotRun: models lists each model's tensor types, marks the
// one this build cannot run with the types it lacks, and says once what
// the build runs; --json carries the same.
func TestModelsCannotRun(t *testing.T) {
	clitest.IsolateStore(t)
	dir := clitest.DefaultPaths(t).Models
	clitest.UnrunnableModel(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "tiny-Q8_0.gguf"), clitest.TinyModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := runCmd(t, "models")
	if err != nil {
		t.Fatalf("models: %v\n%s", err, errs)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "TYPES") {
		t.Fatalf("models output:\n%s", out)
	}
	if l := lines[1]; !strings.HasPrefix(l, "odd-types ") || !strings.Contains(l, "F32 ×1, Q8_K ×2, I8 ×1  ← cannot run Q8_K, I8") {
		t.Errorf("unrunnable row %q", l)
	}
	if l := lines[2]; !strings.HasPrefix(l, "tiny-Q8_0 ") || !strings.Contains(l, "Q8_0 ×1") || strings.Contains(l, "cannot run") {
		t.Errorf("tiny-Q8_0 row %q", l)
	}
	if want := "this build runs " + tensor.ComputableNames() + "; "; !strings.Contains(out, want) {
		t.Errorf("models output lacks %q:\n%s", want, out)
	}

	out, errs, err = runCmd(t, "models", "--json")
	if err != nil {
		t.Fatalf("models --json: %v\n%s", err, errs)
	}
	var j struct {
		Runs   []string `json:"runs_types"`
		Models []struct {
			Name  string
			Types []struct {
				Type    string
				Tensors int
				Bytes   uint64
			}
			CannotRun []string `json:"cannot_run"`
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("models --json: %v\n%s", err, out)
	}
	if strings.Join(j.Runs, ", ") != tensor.ComputableNames() || len(j.Models) != 2 {
		t.Fatalf("models --json: %+v", j)
	}
	tern, tiny := j.Models[0], j.Models[1]
	if strings.Join(tern.CannotRun, ",") != "Q8_K,I8" || len(tern.Types) != 3 || tern.Types[1].Type != "Q8_K" || tern.Types[1].Tensors != 2 || tern.Types[1].Bytes != 584 {
		t.Errorf("unrunnable: %+v", tern)
	}
	if tiny.CannotRun != nil || len(tiny.Types) == 0 {
		t.Errorf("tiny-Q8_0: %+v", tiny)
	}
}
