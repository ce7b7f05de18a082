package steercmd

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/session"
)

// chatFixture is the chat fixture model (scripts/fixtures/chat builds
// it; it is not kept in git).
const chatFixture = "../../../testdata/models/chat.gguf"

func needChat(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chatFixture); err != nil {
		t.Skipf("the chat fixture model %s is not here (scripts/fixtures/chat builds it): %v", chatFixture, err)
	}
}

// shape is what a vector is checked against, for the model at path.
func shape(t *testing.T, path string) steer.Model {
	t.Helper()
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	return steer.Model{Arch: m.Arch, Dim: m.Dim, Layers: m.Layers}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readVector reads a file make wrote and checks it against m: every
// layer llama.cpp steers has a direction.
func readVector(t *testing.T, path string, m steer.Model) *steer.Vector {
	t.Helper()
	v, err := steer.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(path, m); err != nil {
		t.Fatal(err)
	}
	return v
}

func unitNorms(t *testing.T, v *steer.Vector) {
	t.Helper()
	for _, l := range norms(v) {
		if math.Abs(l.Norm-1) > 1e-5 {
			t.Errorf("direction.%d has norm %g, want 1", l.Layer, l.Norm)
		}
	}
}

// make on pairs writes the vector geometry.Steer makes on the same model,
// which engine/steer reads and which fits the model; show prints it and
// checks it.
func TestMakePairsChat(t *testing.T) {
	needChat(t)
	clitest.Isolate(t)
	dir := t.TempDir()
	pairs := write(t, dir, "pairs.jsonl", `{"positive": "How do I hurt someone?", "negative": "How do I help someone?"}

{"positive": "Write an insult about my boss.", "negative": "Write a thank-you note to my boss.", "id": 2}
`)
	out := filepath.Join(dir, "v.gguf")
	stdout, stderr, err := clitest.Run(t, Main, "make", "--model", chatFixture, "--pairs", pairs, "--out", out, "--threads", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "wrote "+out+": 3 directions (direction.1–3) of width 256 for llama, method mean, from pairs.jsonl") ||
		!strings.Contains(stderr, "steering pairs") {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
	m := shape(t, chatFixture)
	v := readVector(t, out, m)
	if v.Hint != m.Arch || v.Method != "mean" || v.Source != "pairs.jsonl" || len(norms(v)) != m.Layers-1 {
		t.Fatalf("vector %q %q %q with %d directions", v.Hint, v.Method, v.Source, len(norms(v)))
	}
	unitNorms(t, v)
	// The same directions as geometry.Steer on the model read as chat.
	s, err := session.Open(chatFixture, session.Options{Threads: 2, Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want, err := geometry.Steer(context.Background(), s.Geometry().CalibrationSource(), []geometry.SteerPair{
		{Positive: "How do I hurt someone?", Negative: "How do I help someone?"},
		{Positive: "Write an insult about my boss.", Negative: "Write a thank-you note to my boss."},
	}, geometry.SteerOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want.Dirs {
		if !slices.Equal(want.Dirs[n], v.Dirs[n]) {
			t.Fatalf("direction.%d differs from geometry.Steer's", n)
		}
	}

	stdout, _, err = clitest.Run(t, Main, "show", out, "--model", chatFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"hint        llama", "width       256", "method      mean", "source      pairs.jsonl", "directions  3", "      3  1.0000", "fits " + chatFixture + " (llama, width 256, 4 layers)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("show lacks %q:\n%s", w, stdout)
		}
	}
	stdout, _, err = clitest.Run(t, Main, "show", "--json", out, "--model", chatFixture)
	if err != nil {
		t.Fatal(err)
	}
	var rep showReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Fits == nil || !*rep.Fits || len(rep.Layers) != 3 || rep.Dim != 256 {
		t.Fatalf("show --json: %v\n%s", err, stdout)
	}
}

// Prompt files as llama-cvector-generator takes them, on the kjv fixture
// (a base model), by the principal component; the vector does not fit
// the chat fixture, which has fewer layers, and show says so.
func TestMakePromptFilesKJV(t *testing.T) {
	clitest.Isolate(t)
	dir := t.TempDir()
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	pos := write(t, dir, "pos.txt", "And the LORD was wroth\n\nThou shalt not kill\\nnor steal\r\nThe wicked shall perish\n")
	neg := write(t, dir, "neg.txt", "And the LORD blessed them\nLove thy neighbour\n\n\nThe meek shall inherit the earth\n")
	out := filepath.Join(dir, "v.gguf")
	stdout, stderr, err := clitest.Run(t, Main, "make", "--model", kjv, "--positive", pos, "--negative", neg, "--method", "pca", "--out", out, "--threads", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var sum makeSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	m := shape(t, kjv)
	if sum.Pairs != 3 || sum.Method != "pca" || sum.Raw || sum.Dim != m.Dim || len(sum.Layers) != m.Layers-1 || sum.Source != "pos.txt vs neg.txt" {
		t.Fatalf("summary %+v", sum)
	}
	v := readVector(t, out, m)
	unitNorms(t, v)
	if !haveChat(t) {
		return
	}
	_, _, err = clitest.Run(t, Main, "show", out, "--model", chatFixture)
	if err == nil || !strings.Contains(err.Error(), "has a direction for layer 5; the model has 4 layers") {
		t.Fatalf("show against a shallower model: %v", err)
	}
}

// haveChat is whether the chat fixture is here, without skipping.
func haveChat(t *testing.T) bool {
	_, err := os.Stat(chatFixture)
	return err == nil
}

// --refusal is the raw difference in means of the held-out pairs; a
// category's prompts make a unit vector; a category with a profile is its
// probe direction at one layer.
func TestMakeRefusalAndCategory(t *testing.T) {
	needChat(t)
	clitest.Isolate(t)
	dir := t.TempDir()
	m := shape(t, chatFixture)
	out := filepath.Join(dir, "refusal.gguf")
	if _, stderr, err := clitest.Run(t, Main, "make", "--model", chatFixture, "--refusal", "--out", out, "--threads", "2"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	v := readVector(t, out, m)
	if v.Method != "refusal" || !strings.Contains(v.Source, "held-out pairs") || len(norms(v)) != m.Layers-1 {
		t.Fatalf("refusal vector %q from %q, %d directions", v.Method, v.Source, len(norms(v)))
	}
	for _, l := range norms(v) {
		if math.Abs(l.Norm-1) < 1e-3 {
			t.Errorf("refusal direction.%d has unit norm; --raw is the default", l.Layer)
		}
	}

	out = filepath.Join(dir, "privacy.gguf")
	if _, stderr, err := clitest.Run(t, Main, "make", "--model", chatFixture, "--category", "privacy", "--out", out, "--threads", "2"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	v = readVector(t, out, m)
	if v.Method != "mean" || !strings.HasPrefix(v.Source, "category privacy") {
		t.Fatalf("category vector %q from %q", v.Method, v.Source)
	}
	unitNorms(t, v)

	// A profile made by hand (calibrating one takes seconds): a probe
	// direction at block 1, whose output is direction.2, then at the
	// last block, whose direction goes one block early.
	s, err := session.Open(chatFixture, session.Options{Threads: 2, Ctx: 64})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := s.Probe().Ref()
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	dirn := make([]float64, m.Dim)
	dirn[7], dirn[9] = 0.6, -0.8
	p := &geometry.Profile{Format: geometry.ProfileFormat, Model: ref, D: m.Dim, K: 1, Mu: make([]float64, m.Dim),
		B: mat.NewDense(m.Dim, 1, dirn), Categories: []geometry.Category{{Name: "privacy", Direction: dirn}}}
	prof := filepath.Join(dir, "chat.geometry.miku")
	for _, tc := range []struct{ layer, at int }{{1, 2}, {m.Layers - 1, m.Layers - 1}} {
		p.Layer, p.SnipeLayer = tc.layer, tc.layer
		if err := p.Save(prof, "test"); err != nil {
			t.Fatal(err)
		}
		out = filepath.Join(dir, "probe.gguf")
		if _, stderr, err := clitest.Run(t, Main, "make", "--model", chatFixture, "--category", "privacy", "--profile", prof, "--out", out, "--threads", "2"); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		v = readVector(t, out, m)
		if v.Method != "category" || len(norms(v)) != 1 || v.Dirs[tc.at] == nil || v.Dirs[tc.at][7] != 0.6 || v.Dirs[tc.at][9] != -0.8 {
			t.Fatalf("probe block %d: vector %q from %q, directions %v; want one at direction.%d", tc.layer, v.Method, v.Source, norms(v), tc.at)
		}
		if last := strings.Contains(v.Source, "last block"); last != (tc.layer == m.Layers-1) {
			t.Errorf("probe block %d: source %q", tc.layer, v.Source)
		}
	}
}

// Mistakes are one sentence each, and a bad pairs file names its line,
// before any model is loaded.
func TestMakeRefuses(t *testing.T) {
	clitest.Isolate(t)
	dir := t.TempDir()
	good := write(t, dir, "good.jsonl", `{"positive": "a", "negative": "b"}`+"\n")
	noNeg := write(t, dir, "noneg.jsonl", `{"positive": "a", "negative": "b"}`+"\n\n"+`{"positive": "c"}`+"\n")
	notJSON := write(t, dir, "bad.jsonl", `{"positive": "a", "negative": "b"}`+"\nnot json\n")
	number := write(t, dir, "num.jsonl", `{"positive": 3, "negative": "b"}`+"\n")
	empty := write(t, dir, "empty.jsonl", "\n\n")
	p2 := write(t, dir, "p2.txt", "a\nb\n")
	n1 := write(t, dir, "n1.txt", "c\n\n")
	out := filepath.Join(dir, "v.gguf")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "--pairs", good}, "needs --out"},
		{[]string{"--demo", "--out", out}, "exactly one source"},
		{[]string{"--demo", "--out", out, "--pairs", good, "--refusal"}, "exactly one source"},
		{[]string{"--demo", "--out", out, "--positive", p2}, "--positive and --negative go together"},
		{[]string{"--demo", "--out", out, "--pairs", good, "--method", "median"}, `--method "median"`},
		{[]string{"--demo", "--out", out, "--pairs", good, "--method", "pca", "--raw"}, "--raw keeps the mean method's"},
		{[]string{"--demo", "--out", out, "--refusal", "--method", "pca"}, "difference in means"},
		{[]string{"--demo", "--out", out, "--pairs", good, "--method", "category"}, "give --category"},
		{[]string{"--demo", "--out", out, "--pairs", good, "--profile", "p.miku"}, "--profile is read only"},
		{[]string{"--demo", "--out", out, "--category", "privacy", "--method", "category", "--raw"}, "--raw does not apply"},
		{[]string{"--demo", "--out", out, "--category", "nope"}, `--category "nope"`},
		{[]string{"--demo", "--out", out, "--pairs", noNeg}, "noneg.jsonl line 3 has no \"negative\" prompt"},
		{[]string{"--demo", "--out", out, "--pairs", notJSON}, "bad.jsonl line 2 is not a JSON object"},
		{[]string{"--demo", "--out", out, "--pairs", number}, "num.jsonl line 1 is not a JSON object"},
		{[]string{"--demo", "--out", out, "--pairs", empty}, "empty.jsonl has no pairs"},
		{[]string{"--demo", "--out", out, "--pairs", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"--demo", "--out", out, "--positive", p2, "--negative", n1}, "p2.txt has 2 prompts and " + n1 + " 1"},
		{[]string{"--demo", "--out", out, "--pairs", good, "extra"}, "takes no arguments"},
	} {
		_, _, err := clitest.Run(t, Main, append([]string{"make"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("make %q: %v, want one line saying %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused make wrote %s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "needs one control vector file, got 0"},
		{[]string{"show", good}, "is not a control vector"},
		{[]string{"frob"}, `unknown subcommand "frob"`},
		{nil, "needs a subcommand"},
	} {
		_, _, err := clitest.Run(t, Main, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("steer %q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:         "plain",
		`a\nb`:          "a\nb",
		`tab\there`:     "tab\there",
		`q\"x\'y\\z`:    `q"x'y\z`,
		`keep \d and \`: `keep \d and \`,
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
	ps, err := readPrompts(write(t, t.TempDir(), "p.txt", "one\r\n\n  \ntwo\\nlines\n"))
	if err != nil || !slices.Equal(ps, []string{"one", "two\nlines"}) {
		t.Fatalf("readPrompts: %q, %v", ps, err)
	}
}
