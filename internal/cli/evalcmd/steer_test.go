package evalcmd

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/demo"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
	"github.com/isagi-lab/isagi/session"
)

func TestSteerFlagValues(t *testing.T) {
	f := steerFlags{scales: "0.25, 1,2"}
	if got, err := f.parseScales(); err != nil || !slices.Equal(got, []float64{0.25, 1, 2}) {
		t.Errorf("scales %v, %v", got, err)
	}
	f.layers = "2, 1-3,4-4"
	if got, err := f.parseLayers(); err != nil || !slices.Equal(got, [][2]int{{2, 2}, {1, 3}, {4, 4}}) {
		t.Errorf("layers %v, %v", got, err)
	}
	for _, bad := range []string{"0", "3-1", "x", "1-", "1,,2"} {
		f.layers = bad
		if _, err := f.parseLayers(); err == nil {
			t.Errorf("--steer-layers %q accepted", bad)
		}
	}
	for _, none := range []string{"", "none"} {
		f.scales = none
		if got, err := f.parseScales(); err != nil || got != nil {
			t.Errorf("scales %q: %v, %v", none, got, err)
		}
	}
}

// The steering flags' mistakes are usage errors said before any model
// loads; a broken vector file is named.
func TestEvalRefusalsSteerFlagErrors(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	missing := filepath.Join(t.TempDir(), "nowhere.gguf")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"refusals", "--steer-scales", "0"}, 2, "--steer-scales 0"},
		{[]string{"refusals", "--steer-scales", "1,x"}, 2, `"x" is not a scale`},
		{[]string{"refusals", "--steer-layers", "3-1"}, 2, `--steer-layers 3-1: "3-1" is not a block`},
		{[]string{"refusals", "--control-vector-layer-range", "1", "2"}, 2, "--control-vector-layer-range needs --control-vector"},
		{[]string{"refusals", "--control-vector-layer-range", "3", "1", "--control-vector", missing}, 2, "START ≤ END"},
		{[]string{"teh", "--steer-scales", "1"}, 2, "--steer-scales is a flag of eval refusals"},
		{[]string{"snipe", "--control-vector", missing}, 2, "--control-vector is a flag of eval refusals"},
		{[]string{"refusals", "--control-vector-scaled", missing, "0.5"}, 1, missing},
	} {
		_, _, err := runCmd(t, append(append([]string{"eval"}, tc.args...), "--model", "unused.gguf")...)
		if err == nil || base.ExitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval %q: exit %d, %v; want exit %d and %q", tc.args, base.ExitCode(err), err, tc.code, tc.want)
		}
	}
}

// `isagi eval refusals` on the demo with steering arms and a control
// vector written by engine/steer, given with llama.cpp's flags: the text
// table and the JSON report carry every arm; a vector of another width
// is refused in one sentence.
func TestEvalRefusalsSteering(t *testing.T) {
	clitest.DemoProfile(t)
	s, err := session.OpenBytes(demo.Name, demo.Model, session.Options{Threads: 2, Ctx: 256})
	if err != nil {
		t.Fatal(err)
	}
	m := s.Geometry().CalibrationSource().Model
	arch, D, L := s.Info().Arch, m.Dim, m.Layers
	s.Close()
	dir := t.TempDir()
	write := func(name string, dim int) string {
		v := &steer.Vector{Hint: arch, Dim: dim, Dirs: make([][]float32, L)}
		for l := 1; l < L; l++ {
			v.Dirs[l] = make([]float32, dim)
			v.Dirs[l][l] = 3
		}
		path := filepath.Join(dir, name)
		if err := v.Write(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("up.gguf", D)
	args := []string{"eval", "refusals", "--demo", "--per-category", "1", "--reply-tokens", "3", "--steer-scales", "0.5,2",
		"--control-vector-scaled", good, "0.5", "--control-vector-layer-range", "2", "3"}
	out, errb, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	ranges := evaluate.DefaultSteerRanges(L)
	wants := []string{"steer +0.5 × up.gguf, layers 2–3", "steer −S × refusal:", "calibration (train) pairs"}
	for _, rg := range ranges {
		for _, sc := range []float64{-0.5, -2} {
			wants = append(wants, (&evaluate.SteerArm{Vector: "refusal", Scale: sc, First: rg[0], Last: rg[1]}).String())
		}
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("eval refusals output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCmd(t, append(args, "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var rep evaluate.RefusalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var arms []evaluate.SteerArm
	for _, r := range rep.Results {
		if r.Steer != nil {
			arms = append(arms, *r.Steer)
		}
	}
	if len(arms) != 2*len(ranges)+1 || arms[len(arms)-1] != (evaluate.SteerArm{Vector: "up.gguf", Scale: 0.5, First: 2, Last: 3}) || rep.RefusalFrom == "" {
		t.Fatalf("steering arms %+v, direction from %q", arms, rep.RefusalFrom)
	}
	wide := write("wide.gguf", D+1)
	_, _, err = runCmd(t, "eval", "refusals", "--demo", "--per-category", "1", "--steer-scales", "none", "--control-vector", wide)
	if err == nil || !strings.Contains(err.Error(), "wide.gguf has directions of width") {
		t.Fatalf("a vector of another width: %v", err)
	}
}
