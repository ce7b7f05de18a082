package session

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/steer"
)

// writeVector writes a random control vector of norm scale at layers
// 1…layers−1 for a model of width dim, as NAME.gguf in dir.
func writeVector(t *testing.T, dir, name, arch string, dim, layers int, seed uint64, scale float32) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	v := &steer.Vector{Hint: arch, Dim: dim, Dirs: make([][]float32, layers)}
	for l := 1; l < layers; l++ {
		d := make([]float32, dim)
		var n float64
		for j := range d {
			d[j] = float32(rng.NormFloat64())
			n += float64(d[j]) * float64(d[j])
		}
		for j := range d {
			d[j] *= scale / float32(math.Sqrt(n))
		}
		v.Dirs[l] = d
	}
	path := filepath.Join(dir, name+".gguf")
	if err := v.Write(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSteering: a vector by name steers the reply, the same as by path;
// a fork with the same settings replies the same; "off" gives back the
// unsteered reply (the conversation recomputed, not the steered cache
// reused); the setting survives a .miku round trip; bad vectors are one
// sentence and change nothing.
func TestSteering(t *testing.T) {
	path := chatModel(t)
	dir := t.TempDir()
	a := open(t, path, Options{Settings: greedy(), SteerDir: dir})
	m := a.Probe()
	writeVector(t, dir, "push", a.Info().Arch, m.Dim(), m.Layers(), 1, 40)
	plain := open(t, path, Options{Settings: greedy()})
	plainText := send(t, plain, "Hello world").Text

	if err := a.Set("steer", "push:1.5@1-2"); err != nil {
		t.Fatal(err)
	}
	if got := a.Settings().Steer; got != "push:1.5@1-2" {
		t.Fatalf("steer setting %q", got)
	}
	steered := send(t, a, "Hello world").Text
	if steered == plainText {
		t.Fatalf("steering did not change the reply %q", plainText)
	}
	// The same vector by path.
	b := open(t, path, Options{Settings: greedy()})
	if err := b.Set("steer", filepath.Join(dir, "push.gguf")+":1.5@1-2"); err != nil {
		t.Fatal(err)
	}
	if got := send(t, b, "Hello world").Text; got != steered {
		t.Fatalf("by path %q, by name %q", got, steered)
	}
	// A fork with the settings.
	f, err := a.Fork(0, a.Settings())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := send(t, f, "Hello world").Text; got != steered {
		t.Fatalf("fork %q, session %q", got, steered)
	}
	// Saved and loaded.
	file := filepath.Join(t.TempDir(), "s.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	c := open(t, path, Options{SteerDir: dir})
	if _, err := c.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if c.Settings().Steer != "push:1.5@1-2" || !c.Steering().On() {
		t.Fatalf("loaded steer %q, on %v", c.Settings().Steer, c.Steering().On())
	}
	// Loaded where the vector is not at hand: the conversation opens,
	// unsteered, and a note says why.
	d := open(t, path, Options{})
	notes, err := d.Files().Load(context.Background(), file, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Settings().Steer != "" || len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "runs without it") {
		t.Fatalf("loaded without the vector: steer %q, notes %q", d.Settings().Steer, notes)
	}
	// Off, within the conversation: the next reply is the unsteered
	// model's over the same transcript (the steered cache not reused).
	if err := a.Set("steer", "off"); err != nil {
		t.Fatal(err)
	}
	a2 := open(t, path, Options{Settings: greedy()})
	tr := append(a.Conversation().Transcript(), chat.Message{Role: "user", Content: "Thanks"})
	if _, err := a2.Conversation().SetTranscript(tr); err != nil {
		t.Fatal(err)
	}
	if x, y := send(t, a, "Thanks").Text, send(t, a2, "Thanks").Text; x != y {
		t.Fatalf("after steer off %q, never steered %q", x, y)
	}

	// Refusals: one sentence each, and the setting in use stays.
	wide := writeVector(t, t.TempDir(), "wide", a.Info().Arch, m.Dim()+1, m.Layers(), 2, 1)
	deep := writeVector(t, t.TempDir(), "deep", a.Info().Arch, m.Dim(), m.Layers()+1, 2, 1)
	other := writeVector(t, t.TempDir(), "other", "gemma2", m.Dim(), m.Layers(), 2, 1)
	for _, c := range []struct{ value, want string }{
		{"push:1", "no geometry profile"}, // by name, but b has no steering directory
		{wide, "the model's residual stream has"},
		{deep, "the model has"},
		{other, "made for a gemma2 model"},
		{"push:x", "not a number"},
		{"push@3-1", "layers are A-B"},
	} {
		err := b.Set("steer", c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("steer %s: %v, want %q", c.value, err, c.want)
		}
	}
	if got := b.Settings().Steer; !strings.HasSuffix(got, "push.gguf:1.5@1-2") {
		t.Fatalf("a refused steer replaced the one in use: %q", got)
	}
}
