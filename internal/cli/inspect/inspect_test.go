package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// runCmd runs `isagi inspect ARGS…` in process: args[0] is "inspect".
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	if len(args) == 0 || args[0] != "inspect" {
		t.Fatalf("runCmd %q: not inspect", args)
	}
	return clitest.Run(t, Main, args[1:]...)
}

func TestInspectShowsModel(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Main(clitest.Env(&out, &errb), []string{"--tensors", clitest.Fixture(t, "kjv/kjv-q4_k_m.gguf")}); err != nil {
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
	err := Main(clitest.Env(&out, &errb), []string{bad})
	if err == nil || !strings.Contains(err.Error(), "notes.gguf") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

// TestInspectNamesTypes: inspect names every tensor type with its count,
// the bulk of the bytes first, and says whether this build can run them.
func TestInspectNamesTypes(t *testing.T) {
	out, errs, err := runCmd(t, "inspect", clitest.Fixture(t, "kjv/kjv-q4_k_m.gguf"))
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
	p := clitest.TernaryModel(t, t.TempDir())
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
	path := clitest.WriteGGUF(t, t.TempDir(), "mamba.gguf", &w)
	out, errs, err := runCmd(t, "inspect", path)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	if want := "architecture  mamba cannot run (this build runs llama, qwen2, qwen3, gemma2, gemma3, phi3)\n"; !strings.Contains(out, want) {
		t.Errorf("inspect output lacks %q:\n%s", want, out)
	}
	out, _, err = runCmd(t, "inspect", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil || strings.Contains(out, "\narchitecture ") {
		t.Errorf("inspect of a llama file: %v\n%s", err, out)
	}
}
