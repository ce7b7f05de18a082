package runcmd

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/internal/cli/clitest"
)

// TestRunControlVector: llama.cpp's flags, its two-word layer range
// included, steer `isagi run` exactly as the engine steered by hand with
// llama.cpp's semantics (the vectors summed with their scales on layers
// 1–2 only), and the steering changes the reply.
func TestRunControlVector(t *testing.T) {
	path := clitest.Fixture(t, "kjv/kjv-q8_0.gguf")
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := t.TempDir()
	vec := func(name string, seed uint64) (string, *steer.Vector) {
		rng := rand.New(rand.NewPCG(seed, 3))
		v := &steer.Vector{Hint: "llama", Dim: m.Dim, Dirs: make([][]float32, m.Layers)}
		for l := 1; l < m.Layers; l++ {
			d := make([]float32, m.Dim)
			var n float64
			for j := range d {
				d[j] = float32(rng.NormFloat64())
				n += float64(d[j]) * float64(d[j])
			}
			for j := range d {
				d[j] *= 30 / float32(math.Sqrt(n))
			}
			v.Dirs[l] = d
		}
		p := filepath.Join(dir, name+".gguf")
		if err := v.Write(p); err != nil {
			t.Fatal(err)
		}
		return p, v
	}
	pa, va := vec("a", 1)
	pb, vb := vec("b", 2)
	out, errs, err := runCmd(t, "run", "--model", path, "--prompt-ids", "1,300,391,394", "--temp", "0", "--ids", "-n", "16",
		"--control-vector", pa, "--control-vector-scaled", pb+":-0.5", "--control-vector-layer-range", "1", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	plain, _, err := runCmd(t, "run", "--model", path, "--prompt-ids", "1,300,391,394", "--temp", "0", "--ids", "-n", "16")
	if err != nil {
		t.Fatal(err)
	}
	if out == plain {
		t.Fatalf("steering left the reply as it was: %s", out)
	}
	// By hand: a + (−0.5)·b on layers 1 and 2.
	st, err := m.NewStateOn(64, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([][]float32, m.Layers)
	for l := 1; l <= 2; l++ {
		dirs[l] = make([]float32, m.Dim)
		for j := range dirs[l] {
			dirs[l][j] = va.Dirs[l][j] + -0.5*vb.Dirs[l][j]
		}
	}
	if err := st.SetSteering(dirs); err != nil {
		t.Fatal(err)
	}
	g, err := generate.New(st, sample.Params{Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if _, err := g.Generate(t.Context(), []int32{1, 300, 391, 394}, generate.Options{MaxTokens: 16}, func(id int32) error {
		ids = append(ids, itoa(id))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(ids, " ") + "\n"; out != want {
		t.Fatalf("isagi run steered %q, the engine by hand %q", out, want)
	}

	// Mistakes: one line each.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--control-vector-layer-range", "1", "2"}, "needs --control-vector"},
		{[]string{"--control-vector-scaled", pa}, "want FILE:SCALE"},
		{[]string{"--control-vector", filepath.Join(dir, "missing.gguf")}, "no such file"},
		{[]string{"--control-vector", clitest.Fixture(t, "kjv/kjv-q8_0.gguf")}, "not a control vector"},
	} {
		args := append([]string{"run", "--model", path, "--prompt-ids", "1", "-n", "1"}, c.args...)
		_, _, err := runCmd(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

func itoa(id int32) string {
	var b [12]byte
	i := len(b)
	n := int64(id)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
