package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// writeGGUF writes w to a new file named name in dir and returns its path.
func writeGGUF(t *testing.T, dir, name string, w *gguf.Writer) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(fh); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// ternaryModel is a header-valid file whose weights are IQ2_XXS and TQ1_0,
// types no kernel of this build handles (1.5- to 2-bit IQ and ternary are
// not among the types being added), so it stays unrunnable.
func ternaryModel(t *testing.T, dir string) string {
	t.Helper()
	var w gguf.Writer
	if err := w.AddKV("general.architecture", gguf.String("llama")); err != nil {
		t.Fatal(err)
	}
	for _, tn := range []struct {
		name string
		typ  tensor.Type
		dims []uint64
	}{
		{"blk.0.attn_q.weight", tensor.IQ2_XXS, []uint64{256, 2}},
		{"blk.0.attn_k.weight", tensor.IQ2_XXS, []uint64{256, 2}},
		{"blk.0.ffn_up.weight", tensor.TQ1_0, []uint64{256, 4}},
		{"blk.0.attn_norm.weight", tensor.F32, []uint64{256}},
	} {
		n, err := tn.typ.TensorBytes(tn.dims)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(tn.name, tn.typ, tn.dims, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	return writeGGUF(t, dir, "ternary.gguf", &w)
}

// TestInspectNamesTypes: inspect names every tensor type with its count,
// the bulk of the bytes first, and says whether this build can run them.
func TestInspectNamesTypes(t *testing.T) {
	out, errs, err := runCmd(t, "inspect", fixture(t, "kjv/kjv-q4_k_m.gguf"))
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	for _, want := range []string{
		"tensor types  Q4_K ×38, Q6_K ×5, F32 ×13\n",
		"cannot run    nothing: this build has a kernel for every type here\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}

// TestInspectCannotRun: a file with types this build has no kernel for is
// inspected (the header is all inspect reads) and the types are named with
// the ones that would run.
func TestInspectCannotRun(t *testing.T) {
	p := ternaryModel(t, t.TempDir())
	out, errs, err := runCmd(t, "inspect", p)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	for _, want := range []string{
		// Most bytes first: F32 1024, IQ2_XXS 4×66, TQ1_0 4×54.
		"tensor types  F32 ×1, IQ2_XXS ×2, TQ1_0 ×1\n",
		"cannot run    IQ2_XXS ×2, TQ1_0 ×1 (this build runs " + tensor.ComputableNames() + ")\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}

// TestModelsCannotRun: models lists each model's tensor types, marks the
// one this build cannot run with the types it lacks, and says once what
// the build runs; --json carries the same.
func TestModelsCannotRun(t *testing.T) {
	isolateStore(t)
	dir := defaultPaths(t).Models
	ternaryModel(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "tiny-Q8_0.gguf"), tinyModel(t), 0o644); err != nil {
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
	if l := lines[1]; !strings.HasPrefix(l, "ternary ") || !strings.Contains(l, "F32 ×1, IQ2_XXS ×2, TQ1_0 ×1  ← cannot run IQ2_XXS, TQ1_0") {
		t.Errorf("ternary row %q", l)
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
	if strings.Join(tern.CannotRun, ",") != "IQ2_XXS,TQ1_0" || len(tern.Types) != 3 || tern.Types[1].Type != "IQ2_XXS" || tern.Types[1].Tensors != 2 || tern.Types[1].Bytes != 264 {
		t.Errorf("ternary: %+v", tern)
	}
	if tiny.CannotRun != nil || len(tiny.Types) == 0 {
		t.Errorf("tiny-Q8_0: %+v", tiny)
	}
}

// TestRunUnsupportedNamesSupported: running a model whose weight type or
// architecture this build lacks fails with one line that lists what it
// supports. Both files are kjv-q8_0 rebuilt with one change, so everything
// else about them loads.
func TestRunUnsupportedNamesSupported(t *testing.T) {
	isolateStore(t)
	dir := t.TempDir()
	rebuild := func(name string, c fixtures.Change) string {
		return fixtures.Rebuilt(t, "kjv/kjv-q8_0.gguf", dir, name, c)
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{rebuild("iq2.gguf", fixtures.Change{Tensor: "blk.1.attn_v.weight", Type: tensor.IQ2_XXS}), []string{"blk.1.attn_v.weight", "weight type IQ2_XXS", "supported: " + tensor.ComputableNames()}},
		{rebuild("mamba.gguf", fixtures.Change{Arch: "mamba"}), []string{`"mamba"`, "supported: llama, "}},
	} {
		_, _, err := runCmd(t, "run", "--model", c.file, "--prompt", "And God said", "-n", "1")
		if err == nil {
			t.Errorf("%s ran", c.file)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", c.file, err, want)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.file, err)
		}
	}
}

// TestInspectUnknownArchitecture: an architecture this build has no forward
// pass for is named in inspect with the ones it runs; a supported one says
// nothing more.
func TestInspectUnknownArchitecture(t *testing.T) {
	var w gguf.Writer
	if err := w.AddKV("general.architecture", gguf.String("mamba")); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("token_embd.weight", tensor.F32, []uint64{32, 2}, make([]byte, 256)); err != nil {
		t.Fatal(err)
	}
	path := writeGGUF(t, t.TempDir(), "mamba.gguf", &w)
	out, errs, err := runCmd(t, "inspect", path)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	if want := "architecture  mamba cannot run (this build runs llama, qwen2, qwen3, gemma2, gemma3, phi3)\n"; !strings.Contains(out, want) {
		t.Errorf("inspect output lacks %q:\n%s", want, out)
	}
	out, _, err = runCmd(t, "inspect", fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil || strings.Contains(out, "\narchitecture ") {
		t.Errorf("inspect of a llama file: %v\n%s", err, out)
	}
}
