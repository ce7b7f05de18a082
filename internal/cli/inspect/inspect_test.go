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
	p := clitest.UnrunnableModel(t, t.TempDir())
	out, errs, err := runCmd(t, "inspect", p)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	for _, want := range []string{
		// Most bytes first: F32 1024, Q8_K 2×292, I8 512.
		"tensor types  F32 ×1, Q8_K ×2, I8 ×1\n",
		"cannot run    Q8_K ×2, I8 ×1 (this build runs " + tensor.ComputableNames() + ")\n",
		// The types by layer come from the header too.
		"\n  blk 0  ", "  attn Q8_K, ffn_up I8\n",
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
	if want := "architecture  mamba cannot run (this build runs llama, qwen2, qwen3, qwen3moe, gpt-oss, gemma2, gemma3, phi3)\n"; !strings.Contains(out, want) {
		t.Errorf("inspect output lacks %q:\n%s", want, out)
	}
	out, _, err = runCmd(t, "inspect", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"))
	if err != nil || strings.Contains(out, "\narchitecture ") {
		t.Errorf("inspect of a llama file: %v\n%s", err, out)
	}
}

// TestInspectTypesByLayer: inspect prints each type's share and, per run
// of blocks, the type of every matrix slot — for an importance-matrix file
// whose IQ types this build cannot run as for one it can.
func TestInspectTypesByLayer(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"quants2/kjv-iq2_m.gguf", []string{
			"\ntypes by layer    IQ2_S 57% · Q5_K 31% · IQ3_S 11% · F32 1%\n",
			"\n  blk 0–5         1.51 MiB   attn_q IQ2_S, attn_k IQ2_S, attn_v IQ3_S, attn_output IQ3_S, ffn IQ2_S\n",
			"\n  outside blocks  705.0 KiB  token_embd Q5_K\n",
			"cannot run    nothing: this build has a kernel for every type here\n",
		}},
		{"kjv/kjv-q4_k_m.gguf", []string{
			// Q4_K_M gives every third block's attn_v and ffn_down Q6_K.
			"\ntypes by layer    Q4_K 66% · Q6_K 34% · F32 <1%\n",
			"\n  blk 0–1         868.0 KiB  attn Q4_K, ffn Q4_K\n",
			"\n  blk 2           491.8 KiB  attn_q Q4_K, attn_k Q4_K, attn_v Q6_K, attn_output Q4_K, ffn_gate Q4_K, ffn_up Q4_K, ffn_down Q6_K\n",
			"\n  blk 3–4         868.0 KiB  attn Q4_K, ffn Q4_K\n",
			"\n  outside blocks  841.0 KiB  token_embd Q6_K\n",
		}},
	} {
		out, errs, err := runCmd(t, "inspect", clitest.Fixture(t, c.file))
		if err != nil {
			t.Fatalf("inspect %s: %v\n%s", c.file, err, errs)
		}
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("inspect %s lacks %q:\n%s", c.file, want, out)
			}
		}
	}
}

// TestInspectTypesByLayerMixed: a "dynamic" mixture-of-experts file (Q8_0
// attention and router, IQ2_XXS expert stacks, one block's down stack
// IQ3_S) is one row per run of blocks that agree.
func TestInspectTypesByLayerMixed(t *testing.T) {
	var w gguf.Writer
	add := func(name string, typ tensor.Type, dims ...uint64) {
		n, err := typ.TensorBytes(dims)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(name, typ, dims, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	add("token_embd.weight", tensor.Q8_0, 256, 32)
	for n := range 4 {
		p := "blk." + string(rune('0'+n)) + "."
		for _, s := range []string{"attn_q", "attn_k", "attn_v", "attn_output"} {
			add(p+s+".weight", tensor.Q8_0, 256, 256)
		}
		add(p+"ffn_gate_inp.weight", tensor.Q8_0, 256, 8)
		add(p+"ffn_gate_exps.weight", tensor.IQ2_XXS, 256, 256, 8)
		add(p+"ffn_up_exps.weight", tensor.IQ2_XXS, 256, 256, 8)
		down := tensor.IQ2_XXS
		if n == 3 {
			down = tensor.IQ3_S
		}
		add(p+"ffn_down_exps.weight", down, 256, 256, 8)
		add(p+"attn_norm.weight", tensor.F32, 256)
	}
	out, errs, err := runCmd(t, "inspect", clitest.WriteGGUF(t, t.TempDir(), "ud.gguf", &w))
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errs)
	}
	for _, want := range []string{
		"blk 0–2   ", " attn Q8_0, router Q8_0, ffn_exps IQ2_XXS\n",
		"blk 3     ", " attn Q8_0, router Q8_0, ffn_gate_exps IQ2_XXS, ffn_up_exps IQ2_XXS, ffn_down_exps IQ3_S\n",
		"token_embd Q8_0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}
