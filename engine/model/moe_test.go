package model

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// tinyMoE is a two-layer llama with four experts, two per token.
func tinyMoE() synth.Shape {
	return synth.Shape{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, FFN: 96, Vocab: 300, Experts: 4, ExpertsUsed: 2, ExpertFFN: 32}
}

func writeTinyMoE(t testing.TB, s synth.Shape) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "moe.gguf")
	if err := synth.Write(path, s, tensor.F32); err != nil {
		t.Fatal(err)
	}
	return path
}

// routes records every RouteHook call.
type routes struct {
	calls   []routeCall
	rewound []int
}

type routeCall struct {
	layer, pos int
	ids        []int32
	w          []float32
}

func (r *routes) Routed(layer, pos int, ids []int32, w []float32) {
	r.calls = append(r.calls, routeCall{layer, pos, slices.Clone(ids), slices.Clone(w)})
}
func (r *routes) Rewind(pos int) { r.rewound = append(r.rewound, pos) }

// TestMoEModel: a mixture-of-experts llama (Mixtral's form) and a qwen3moe
// load; decoding token by token gives the prefill's logits; the route hook
// sees every layer and position with k distinct experts whose weights sum
// to one; an expert switched off is never chosen again and its layer's
// weights still sum to one; and the bytes a token reads count only the
// experts it runs.
func TestMoEModel(t *testing.T) {
	for _, shape := range []synth.Shape{tinyMoE(), func() synth.Shape {
		s := tinyMoE()
		s.Arch, s.HeadDim = "qwen3moe", 32
		return s
	}()} {
		t.Run(shape.Arch, func(t *testing.T) {
			m, err := Open(writeTinyMoE(t, shape))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if !m.IsMoE() || m.Experts != 4 || m.ExpertsUsed != 2 || m.ExpertFFN != 32 || !m.MoELayer(1) {
				t.Fatalf("config %+v", m.Config)
			}
			prompt := []int32{5, 60, 7, 200, 33, 9}
			s, err := m.NewStateOn(64, testBackend())
			if err != nil {
				t.Fatal(err)
			}
			h := &routes{}
			if _, err := s.AddHook(h); err != nil {
				t.Fatal(err)
			}
			all := make([]float32, len(prompt)*m.Vocab)
			if err := s.Forward(prompt, all); err != nil {
				t.Fatal(err)
			}
			if len(h.calls) != len(prompt)*m.Layers {
				t.Fatalf("%d route calls, want %d", len(h.calls), len(prompt)*m.Layers)
			}
			for _, c := range h.calls {
				var sum float32
				for _, w := range c.w {
					sum += w
				}
				if len(c.ids) != 2 || c.ids[0] == c.ids[1] || c.ids[0] < 0 || c.ids[1] >= 4 || math.Abs(float64(sum)-1) > 1e-5 || c.w[0] < c.w[1] {
					t.Fatalf("route %+v", c)
				}
			}
			one, err := m.NewStateOn(64, testBackend())
			if err != nil {
				t.Fatal(err)
			}
			logits := make([]float32, m.Vocab)
			for i, tok := range prompt {
				if err := one.Forward([]int32{tok}, logits); err != nil {
					t.Fatal(err)
				}
				if d := maxDiff32(logits, all[i*m.Vocab:(i+1)*m.Vocab]); d > 1e-4 {
					t.Fatalf("position %d: decoded logits differ from the prefill's by %g", i, d)
				}
			}

			// Switch off, in every layer, the expert the first token chose
			// first in layer 0.
			off := int(h.calls[0].ids[0])
			if err := s.SetExpertOff(-1, off, true); err != nil {
				t.Fatal(err)
			}
			if got := s.ExpertsOff(); len(got) != m.Layers || got[0] != (ExpertRef{0, off}) {
				t.Fatalf("ExpertsOff %v", got)
			}
			s.Reset()
			h.calls = nil
			if err := s.Forward(prompt, logits); err != nil {
				t.Fatal(err)
			}
			for _, c := range h.calls {
				var sum float32
				for _, w := range c.w {
					sum += w
				}
				if slices.Contains(c.ids, int32(off)) || math.Abs(float64(sum)-1) > 1e-5 {
					t.Fatalf("expert %d off, yet layer %d position %d chose %v (weights %v)", off, c.layer, c.pos, c.ids, c.w)
				}
			}
			if d := maxDiff32(logits, all[(len(prompt)-1)*m.Vocab:]); d == 0 {
				t.Error("switching an expert off changed nothing in the logits")
			}
			// Two more off would leave one expert of four for k = 2.
			others := []int{}
			for e := range 4 {
				if e != off {
					others = append(others, e)
				}
			}
			if err := s.SetExpertOff(0, others[0], true); err != nil {
				t.Fatal(err)
			}
			if err := s.SetExpertOff(0, others[1], true); err == nil || !strings.Contains(err.Error(), "leave layer 0") {
				t.Errorf("a third expert off of four with k = 2: %v", err)
			}
			for _, bad := range []struct{ l, e int }{{0, 4}, {0, -1}, {7, 0}} {
				if err := s.SetExpertOff(bad.l, bad.e, true); err == nil {
					t.Errorf("SetExpertOff(%d, %d) accepted", bad.l, bad.e)
				}
			}
			if err := s.SetExpertOff(-1, off, false); err != nil {
				t.Fatal(err)
			}
			if err := s.SetExpertOff(0, others[0], false); err != nil {
				t.Fatal(err)
			}
			if got := s.ExpertsOff(); len(got) != 0 {
				t.Errorf("all back on, ExpertsOff = %v", got)
			}
			s.Truncate(3)
			if len(h.rewound) == 0 || h.rewound[len(h.rewound)-1] != 3 {
				t.Errorf("a route hook was not told of the truncation: %v", h.rewound)
			}

			var all3, dense int64
			for i := range m.layers {
				for _, w := range m.layers[i].moe.all() {
					all3 += int64(len(w.Data))
				}
				dense += int64(len(m.layers[i].wq.Data) + len(m.layers[i].wk.Data) + len(m.layers[i].wv.Data) + len(m.layers[i].wo.Data) + len(m.layers[i].moe.router.Data))
			}
			if got, want := m.WeightBytes(), dense+all3/2+int64(len(m.output.Data)); got != want {
				t.Errorf("WeightBytes %d, want %d (half the experts' bytes: 2 of 4 run)", got, want)
			}
		})
	}
}

// rewrite copies the GGUF at path with edit applied to its keys and
// tensors, and returns the new file's path.
func rewrite(t *testing.T, path string, edit func(w *gguf.Writer, f *gguf.File) error) string {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w gguf.Writer
	if err := edit(&w, f); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edited.gguf")
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := w.WriteTo(fh); err != nil {
		t.Fatal(err)
	}
	return out
}

// copyKeys copies every key but drop, with the values of set replacing
// theirs.
func copyKeys(w *gguf.Writer, f *gguf.File, drop string, set map[string]gguf.Value) error {
	for _, kv := range f.KV {
		if kv.Key == drop {
			continue
		}
		v := kv.Value
		if s, ok := set[kv.Key]; ok {
			v = s
		}
		if err := w.AddKV(kv.Key, v); err != nil {
			return err
		}
	}
	return nil
}

// TestMoEOldExpertNames: a Mixtral file of the first conversions, one 2-D
// tensor per expert (blk.N.ffn_gate.E.weight), runs as its 3-D twin does.
func TestMoEOldExpertNames(t *testing.T) {
	path := writeTinyMoE(t, tinyMoE())
	old := rewrite(t, path, func(w *gguf.Writer, f *gguf.File) error {
		if err := copyKeys(w, f, "", nil); err != nil {
			return err
		}
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			data := f.TensorData(ti)
			var blk int
			var kind string
			if n, _ := fmtSscan(ti.Name, &blk, &kind); n == 2 {
				per := len(data) / int(ti.Dims[2])
				for e := range int(ti.Dims[2]) {
					name := "blk." + strconv.Itoa(blk) + ".ffn_" + kind + "." + strconv.Itoa(e) + ".weight"
					if err := w.AddTensor(name, ti.Type, ti.Dims[:2], data[e*per:(e+1)*per]); err != nil {
						return err
					}
				}
				continue
			}
			if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, data); err != nil {
				return err
			}
		}
		return nil
	})
	run := func(p string) []float32 {
		m, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		s, err := m.NewStateOn(32, testBackend())
		if err != nil {
			t.Fatal(err)
		}
		logits := make([]float32, m.Vocab)
		if err := s.Forward([]int32{4, 90, 17}, logits); err != nil {
			t.Fatal(err)
		}
		return logits
	}
	if a, b := run(path), run(old); !slices.Equal(a, b) {
		t.Fatalf("per-expert tensors give other logits (max diff %g)", maxDiff32(a, b))
	}
}

// fmtSscan parses blk.N.ffn_KIND_exps.weight.
func fmtSscan(name string, blk *int, kind *string) (int, error) {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return 0, nil
	}
	num, rest, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, nil
	}
	k, ok := strings.CutPrefix(rest, "ffn_")
	if !ok {
		return 0, nil
	}
	k, ok = strings.CutSuffix(k, "_exps.weight")
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, nil
	}
	*blk, *kind = n, k
	return 2, nil
}

// TestMoELoadErrors: a wrong or missing MoE tensor or key is one sentence
// naming it, and a backend without expert operations refuses the model.
func TestMoELoadErrors(t *testing.T) {
	path := writeTinyMoE(t, tinyMoE())
	for _, tc := range []struct {
		name string
		edit func(w *gguf.Writer, f *gguf.File) error
		want string
	}{
		{"no expert_used_count", func(w *gguf.Writer, f *gguf.File) error {
			if err := copyKeys(w, f, "llama.expert_used_count", nil); err != nil {
				return err
			}
			return copyTensors(w, f, "")
		}, "llama.expert_used_count"},
		{"k above the experts", func(w *gguf.Writer, f *gguf.File) error {
			if err := copyKeys(w, f, "", map[string]gguf.Value{"llama.expert_used_count": gguf.Uint32(9)}); err != nil {
				return err
			}
			return copyTensors(w, f, "")
		}, "expert_used_count = 9 is out of range"},
		{"missing down experts", func(w *gguf.Writer, f *gguf.File) error {
			if err := copyKeys(w, f, "", nil); err != nil {
				return err
			}
			return copyTensors(w, f, "blk.1.ffn_down_exps.weight")
		}, `"blk.1.ffn_down_exps.weight"`},
		{"experts of the wrong width", func(w *gguf.Writer, f *gguf.File) error {
			if err := copyKeys(w, f, "", map[string]gguf.Value{"llama.expert_feed_forward_length": gguf.Uint32(64)}); err != nil {
				return err
			}
			return copyTensors(w, f, "")
		}, "ffn_gate_exps.weight"},
	} {
		_, err := Open(rewrite(t, path, tc.edit))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.NewStateOn(32, plainBackend{testBackend()})
	if err == nil || !strings.Contains(err.Error(), "cannot run mixture-of-experts layers") {
		t.Errorf("a backend without expert operations: %v", err)
	}
	if errors.Is(err, ErrMissingTensor) {
		t.Error("the refusal reads as a missing tensor")
	}
}

// plainBackend hides every optional interface of the backend it wraps.
type plainBackend struct{ backend.Backend }

// copyTensors copies every tensor but drop.
func copyTensors(w *gguf.Writer, f *gguf.File, drop string) error {
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if ti.Name == drop {
			continue
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, f.TensorData(ti)); err != nil {
			return err
		}
	}
	return nil
}

// TestMoEDecodeAllocatesNothing: a decoded token of a mixture-of-experts
// model allocates nothing, with and without a route hook.
func TestMoEDecodeAllocatesNothing(t *testing.T) {
	m, err := Open(writeTinyMoE(t, tinyMoE()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewStateOn(256, testBackend())
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Vocab)
	if err := s.Forward([]int32{1, 2, 3}, logits); err != nil {
		t.Fatal(err)
	}
	tok := []int32{7}
	step := func() {
		if err := s.Forward(tok, logits); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("a decoded token allocates %v times", a)
	}
	if _, err := s.AddHook(countRoutes{new(int)}); err != nil {
		t.Fatal(err)
	}
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("a decoded token with a route hook allocates %v times", a)
	}
}

type countRoutes struct{ n *int }

func (c countRoutes) Routed(int, int, []int32, []float32) { *c.n++ }
