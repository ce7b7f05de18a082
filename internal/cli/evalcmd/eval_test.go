package evalcmd

import (
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/miku"
)

func TestEvalWithoutProfileSaysHowToBuildOne(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	_, _, err := runCmd(t, "eval", "teh", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"))
	if err == nil || !strings.Contains(err.Error(), "no geometry profile") || !strings.Contains(err.Error(), "isagi calibrate --model") {
		t.Fatalf("eval without a profile: %v", err)
	}
	if _, _, err := runCmd(t, "eval", "bogus"); err == nil {
		t.Fatal("eval bogus succeeded")
	}
	for _, bad := range [][]string{{"--reply-tokens", "0"}, {"--per-category", "-1"}} {
		_, _, err := runCmd(t, append([]string{"eval", "refusals", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf")}, bad...)...)
		if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), bad[0]+" "+bad[1]) {
			t.Errorf("eval refusals %v: exit %d, %v", bad, base.ExitCode(err), err)
		}
	}
	// The held-out directory and --positions are checked before any model
	// is loaded, each in one sentence.
	kjv := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	_, _, err = runCmd(t, "eval", "refusals", "--model", kjv, "--positions")
	if base.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--positions is a flag of eval teh") {
		t.Errorf("eval refusals --positions: exit %d, %v", base.ExitCode(err), err)
	}
	missing := filepath.Join(t.TempDir(), "nowhere")
	_, _, err = runCmd(t, "eval", "teh", "--model", kjv, "--set", missing)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(missing, "benign.jsonl")) {
		t.Errorf("eval teh --set %s: %v", missing, err)
	}
}

// A profile made for another model is refused, naming both.
func TestEvalRefusesAnotherModelsProfile(t *testing.T) {
	p := &geometry.Profile{Format: geometry.ProfileFormat, D: 256, K: 2, Layer: 5, SnipeLayer: 5,
		Mu: make([]float64, 256), B: mat.NewDense(256, 2, nil),
		Model: miku.ModelRef{File: "other.gguf", SHA256: strings.Repeat("ab", 32), Arch: "llama", Name: "other"}}
	p.B.Set(0, 0, 1)
	p.B.Set(1, 1, 1)
	path := filepath.Join(t.TempDir(), "other.geometry.miku")
	if err := p.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCmd(t, "eval", "snipe", "--model", clitest.Fixture(t, "kjv/kjv-q8_0.gguf"), "--profile", path)
	if err == nil || !strings.Contains(err.Error(), "built for another model") || !strings.Contains(err.Error(), "other") {
		t.Fatalf("eval with another model's profile: %v", err)
	}
}

func TestEvalOverlap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cols [2]int) string {
		p := &geometry.Profile{Format: geometry.ProfileFormat, D: 4, K: 2, Mu: make([]float64, 4), B: mat.NewDense(4, 2, nil),
			Model: miku.ModelRef{File: name + ".gguf", SHA256: "00"}}
		p.B.Set(cols[0], 0, 1)
		p.B.Set(cols[1], 1, 1)
		path := filepath.Join(dir, name+".miku")
		if err := p.Save(path, "test"); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b, c := write("a", [2]int{0, 1}), write("b", [2]int{1, 0}), write("c", [2]int{2, 3})
	for _, tc := range []struct {
		x, y, want string
	}{{a, b, "overlap 1.0000"}, {a, c, "overlap 0.0000"}} {
		out, _, err := runCmd(t, "eval", "overlap", tc.x, tc.y)
		if err != nil || !strings.HasPrefix(out, tc.want) {
			t.Fatalf("overlap %s %s: %q, %v; want %s", tc.x, tc.y, out, err, tc.want)
		}
	}
	if _, _, err := runCmd(t, "eval", "overlap", a); err == nil {
		t.Fatal("one profile accepted")
	}
}
