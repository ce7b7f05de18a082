package tui

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/steer"
	"github.com/isagi-lab/isagi/session"
)

// TestSteerCommand: /steer lists the vectors at hand, adds one at a scale
// on a layer range, refuses a bad scale in one line, and the first reply
// after the change shows its readout beside the reply before it.
func TestSteerCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 4))
	v := &steer.Vector{Hint: "llama", Dim: 256, Dirs: make([][]float32, 4)}
	for l := 1; l < 4; l++ {
		d := make([]float32, 256)
		var n float64
		for j := range d {
			d[j] = float32(rng.NormFloat64())
			n += float64(d[j]) * float64(d[j])
		}
		for j := range d {
			d[j] /= float32(math.Sqrt(n))
		}
		v.Dirs[l] = d
	}
	if err := v.Write(filepath.Join(dir, "push.gguf")); err != nil {
		t.Fatal(err)
	}
	set := session.DefaultSettings()
	set.Temperature, set.MaxTokens = 0, 16
	s, err := session.Open(filepath.Join("..", "testdata", "models", "chat.gguf"), session.Options{Threads: 2, Ctx: 256, Settings: set, AppVersion: "test", SteerDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tm := start(t, s, 140, 50, Options{})
	sc := &term{tm: tm}
	sc.wait(t, true, "ready")
	typeLine(tm, "/steer")
	sc.wait(t, false, "steering: off", "vectors: push")
	typeLine(tm, "Count from 3 to 7.")
	sc.wait(t, true, "3, 4, 5, 6, 7")
	typeLine(tm, "/steer push x")
	sc.wait(t, false, `the scale "x" is not a number`)
	typeLine(tm, "/steer push 40 1-3")
	sc.wait(t, false, "steering: push:40@1-3")
	typeLine(tm, "Count from 3 to 7.")
	sc.wait(t, true, "steering push:40@1-3: refusal", "(before: no)")
	if got := s.Settings().Steer; got != "push:40@1-3" {
		t.Fatalf("the session's steer setting is %q", got)
	}
	typeLine(tm, "/steer off")
	sc.wait(t, false, "steering: off")
}
