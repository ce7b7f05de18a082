package synthproj

import (
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestProjectionsRun: the random projections have the shapes a state
// accepts, at every rank the sweep asks for, and the state runs through
// them (its logits move off the dense model's, so the products really are
// the projected ones), then dense again.
func TestProjectionsRun(t *testing.T) {
	s := synth.Shape{Dim: 128, Layers: 2, Heads: 4, KVHeads: 2, FFN: 256, Vocab: 64}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.WriteWith(path, s, tensor.Q8_0, synth.Options{Random: true}); err != nil {
		t.Fatal(err)
	}
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.NewStateOn(32, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dense := make([]float32, s.Vocab)
	if err := st.Forward([]int32{1, 2, 3}, dense); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, s.Vocab)
	for _, slots := range []string{"qkv", "all"} {
		for _, k := range []int{32, 64, 128} {
			p, err := ProjectionsFor(m, k, slots, 7)
			if err != nil {
				t.Fatalf("%s k=%d: %v", slots, k, err)
			}
			if p.Bytes <= 0 || p.Layers() != s.Layers {
				t.Fatalf("%s k=%d: %d bytes, %d layers", slots, k, p.Bytes, p.Layers())
			}
			if err := st.SetProjections(p); err != nil {
				t.Fatalf("%s k=%d: %v", slots, k, err)
			}
			st.Reset()
			if err := st.Forward([]int32{1, 2, 3}, got); err != nil {
				t.Fatal(err)
			}
			same := true
			for i := range got {
				same = same && got[i] == dense[i]
			}
			if same {
				t.Fatalf("%s k=%d: the projected state gave the dense logits", slots, k)
			}
		}
	}
	if err := st.SetProjections(nil); err != nil {
		t.Fatal(err)
	}
	st.Reset()
	if err := st.Forward([]int32{1, 2, 3}, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != dense[i] {
			t.Fatalf("dense again: logit %d is %g, was %g", i, got[i], dense[i])
		}
	}
	for _, bad := range []struct {
		k     int
		slots string
	}{{0, "qkv"}, {48, "qkv"}, {160, "qkv"}, {32, "ffn"}, {288, "all"}} {
		if _, err := ProjectionsFor(m, bad.k, bad.slots, 1); err == nil {
			t.Errorf("k=%d slots %s: accepted", bad.k, bad.slots)
		}
	}
}
