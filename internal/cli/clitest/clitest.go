// Package clitest holds the helpers the tests of isagi's commands share:
// an isolated store, small GGUF files, a calibrated demo profile, and a
// command run in process.
package clitest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// Fixture is the path of the shared test fixture rel (fixtures.Path).
func Fixture(t *testing.T, rel string) string { t.Helper(); return fixtures.Path(t, rel) }

// Run runs a command's entry point in process on args, with version
// "dev" and an empty standard input, and returns what it wrote to stdout
// and stderr, and its error.
func Run(t *testing.T, main base.Main, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := main(Env(&out, &errb), args)
	return out.String(), errb.String(), err
}

// Env is a test's environment for a command: version "dev", an empty
// standard input, and stdout and stderr.
func Env(stdout, stderr io.Writer) base.Env {
	return base.Env{Version: "dev", Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr}
}

// IsolateStore points the XDG directories at a temp dir and clears the
// model and Hub environment.
func IsolateStore(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("ISAGI_MODEL", "")
	t.Setenv("HF_TOKEN", "")
}

// Isolate keeps a run's data (profiles, GRC cache) out of the user's.
func Isolate(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// DefaultPaths is the store's layout for an isolated test, which has every
// base directory.
func DefaultPaths(t *testing.T) store.Paths {
	t.Helper()
	p, err := store.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TinyModel is a header-valid GGUF file of one Q8_0 tensor, as bytes.
func TinyModel(t *testing.T) []byte {
	t.Helper()
	var w gguf.Writer
	if err := w.AddKV("general.architecture", gguf.String("llama")); err != nil {
		t.Fatal(err)
	}
	if err := w.AddKV("general.file_type", gguf.Uint32(7)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("blk.0.attn_q.weight", tensor.Q8_0, []uint64{64, 4}, make([]byte, 34*2*4)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// WriteGGUF writes w to a new file named name in dir and returns its path.
func WriteGGUF(t *testing.T, dir, name string, w *gguf.Writer) string {
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

// UnrunnableModel is a header-valid file whose weights are Q8_K and I8,
// types no file stores as weights and no kernel of this build multiplies
// (ggml's activation grid, and plain integers), so it stays unrunnable
// whatever weight types are added.
func UnrunnableModel(t *testing.T, dir string) string {
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
		{"blk.0.attn_q.weight", tensor.Q8_K, []uint64{256, 1}},
		{"blk.0.attn_k.weight", tensor.Q8_K, []uint64{256, 1}},
		{"blk.0.ffn_up.weight", tensor.I8, []uint64{128, 4}},
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
	return WriteGGUF(t, dir, "odd-types.gguf", &w)
}

// DemoProfile isolates the data directories and stores a quickly
// calibrated profile of the demo model where the commands look for it (a
// part of the prompt set, one projector step: the memory gate is
// calibrated as `isagi calibrate` does it).
func DemoProfile(t *testing.T) {
	t.Helper()
	Isolate(t)
	s, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Threads: 2, Ctx: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set, err := prompts.Default()
	if err != nil {
		t.Fatal(err)
	}
	for i := range set.Zones {
		set.Zones[i].Train = set.Zones[i].Train[:8]
	}
	for i := range set.Categories {
		set.Categories[i].Train = set.Categories[i].Train[:4]
		set.Categories[i].Heldout = set.Categories[i].Heldout[:1]
	}
	set.Benign.Train, set.Benign.Heldout = set.Benign.Train[:1], set.Benign.Heldout[:1]
	o := geometry.DefaultOptions()
	o.MaxCoords, o.MaxForbidden, o.BenignTokens = 1, 2, 32
	p, err := geometry.Calibrate(context.Background(), s.Geometry().CalibrationSource(), set, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Model, err = s.Probe().Ref(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "isagi", "profiles")
	if err := p.Save(geometry.ProfilePath(dir, p.Model.SHA256), "test"); err != nil {
		t.Fatal(err)
	}
}
