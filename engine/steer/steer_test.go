package steer

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// file builds a control vector file the way llama-cvector-generator
// writes one (export_gguf), with the tensors given.
func file(t testing.TB, arch string, kvs []gguf.KV, tensors map[string][]float32, order []string) []byte {
	t.Helper()
	var w gguf.Writer
	if arch != "" {
		if err := w.AddKV("general.architecture", gguf.String(arch)); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range kvs {
		if err := w.AddKV(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range order {
		d := tensors[name]
		raw := make([]byte, 4*len(d))
		for j, x := range d {
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(x))
		}
		if err := w.AddTensor(name, tensor.F32, []uint64{uint64(len(d))}, raw); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	v := &Vector{Hint: "llama", Dim: 3, Method: "mean", Source: "pairs.txt",
		Dirs: [][]float32{nil, {1, 2, 3}, nil, {-0.5, 0, 0.25}}}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse("v", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The keys llama.cpp's generator writes, with its types.
	if a, _ := f.Architecture(); a != "controlvector" {
		t.Errorf("architecture %q", a)
	}
	if n, ok := f.Lookup(KeyLayerCount); !ok || n.Type() != gguf.TypeInt32 {
		t.Errorf("layer_count %v", n)
	} else if x, _ := n.Int(); x != 2 {
		t.Errorf("layer_count %d, want 2", x)
	}
	got, err := Parse("v", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Hint != "llama" || got.Dim != 3 || got.Method != "mean" || got.Source != "pairs.txt" || got.Layers() != 4 {
		t.Fatalf("read back %+v", got)
	}
	for n := range v.Dirs {
		var g []float32
		if n < len(got.Dirs) {
			g = got.Dirs[n]
		}
		if (g == nil) != (v.Dirs[n] == nil) {
			t.Fatalf("layer %d: %v, want %v", n, g, v.Dirs[n])
		}
		for j := range g {
			if g[j] != v.Dirs[n][j] {
				t.Fatalf("layer %d: %v, want %v", n, g, v.Dirs[n])
			}
		}
	}
}

// TestSameLayerSums: a file naming one layer twice sums the two, as
// common_control_vector_load_one does (dst[j] += src[j]).
func TestSameLayerSums(t *testing.T) {
	// The writer refuses duplicate names, as GGUF does; llama.cpp's loader
	// sums per layer index, so "direction.2" and "direction.02" land on
	// one layer there. Ours refuses a leading zero as not plain decimal?
	// No: strconv accepts it, and so does std::stoi — both name layer 2.
	data := file(t, Arch, nil, map[string][]float32{"direction.2": {1, 1}, "direction.02": {2, -1}}, []string{"direction.2", "direction.02"})
	v, err := Parse("v", data)
	if err != nil {
		t.Fatal(err)
	}
	if d := v.Dirs[2]; d[0] != 3 || d[1] != 0 {
		t.Fatalf("layer 2 = %v, want [3 0]", d)
	}
}

func TestParseRefuses(t *testing.T) {
	one := map[string][]float32{"direction.1": {1, 2}}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not gguf", []byte("hello"), "not a control vector"},
		{"a model", file(t, "llama", nil, one, []string{"direction.1"}), `"llama" file`},
		{"no tensors", file(t, Arch, nil, nil, nil), "no direction"},
		{"layer 0", file(t, Arch, nil, map[string][]float32{"direction.0": {1}}, []string{"direction.0"}), "not a direction"},
		{"other name", file(t, Arch, nil, map[string][]float32{"token_embd.weight": {1}}, []string{"token_embd.weight"}), "not a direction"},
		{"sign", file(t, Arch, nil, map[string][]float32{"direction.+1": {1}}, []string{"direction.+1"}), "not a direction"},
		{"widths", file(t, Arch, nil, map[string][]float32{"direction.1": {1, 2}, "direction.2": {1}}, []string{"direction.1", "direction.2"}), "the ones before it 2"},
		{"nan", file(t, Arch, nil, map[string][]float32{"direction.1": {float32(math.NaN())}}, []string{"direction.1"}), "not finite"},
		{"huge layer", file(t, Arch, nil, map[string][]float32{"direction.99999": {1}}, []string{"direction.99999"}), "no model has"},
		{"hint type", file(t, Arch, []gguf.KV{{Key: KeyHint, Value: gguf.Int32(3)}}, one, []string{"direction.1"}), "not a string"},
	}
	for _, c := range cases {
		_, err := Parse("x.gguf", c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: not one line: %q", c.name, err)
		}
	}
	// A 2-D tensor.
	var w gguf.Writer
	_ = w.AddKV("general.architecture", gguf.String(Arch))
	_ = w.AddTensor("direction.1", tensor.F32, []uint64{2, 2}, make([]byte, 16))
	var b bytes.Buffer
	_, _ = w.WriteTo(&b)
	if _, err := Parse("x", b.Bytes()); err == nil || !strings.Contains(err.Error(), "2 dimensions") {
		t.Errorf("2-D: %v", err)
	}
	// An F16 tensor.
	w = gguf.Writer{}
	_ = w.AddKV("general.architecture", gguf.String(Arch))
	_ = w.AddTensor("direction.1", tensor.F16, []uint64{2}, make([]byte, 4))
	b.Reset()
	_, _ = w.WriteTo(&b)
	if _, err := Parse("x", b.Bytes()); err == nil || !strings.Contains(err.Error(), "F32") {
		t.Errorf("F16: %v", err)
	}
}

func TestCheck(t *testing.T) {
	v := &Vector{Hint: "llama", Dim: 4, Dirs: [][]float32{nil, {1, 0, 0, 0}, nil, {0, 1, 0, 0}}}
	m := Model{Arch: "llama", Dim: 4, Layers: 4}
	if err := v.Check("v", m); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    Model
		want string
	}{
		{Model{Arch: "llama", Dim: 8, Layers: 4}, "width 4; the model's residual stream has 8"},
		{Model{Arch: "llama", Dim: 4, Layers: 3}, "layer 3; the model has 3 layers"},
		{Model{Arch: "qwen2", Dim: 4, Layers: 4}, "made for a llama model; this one is qwen2"},
	} {
		if err := v.Check("v", c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.m, err, c.want)
		}
	}
	// No hint: any architecture.
	v.Hint = ""
	if err := v.Check("v", Model{Arch: "qwen2", Dim: 4, Layers: 4}); err != nil {
		t.Error(err)
	}
}

// TestCombine pins llama.cpp's semantics: scaled sum over files, layer 0
// never, the range inclusive with its defaults, nothing past the last
// layer.
func TestCombine(t *testing.T) {
	m := Model{Dim: 2, Layers: 4}
	a := &Vector{Dim: 2, Dirs: [][]float32{nil, {1, 0}, {0, 1}, {1, 1}}}
	b := &Vector{Dim: 2, Dirs: [][]float32{nil, nil, {2, 2}}}
	got, err := Combine([]Use{{a, 2}, {b, -0.5}}, Range{}, m)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{nil, {2, 0}, {-1, 1}, {2, 2}}
	eq := func(got, want [][]float32) bool {
		if len(got) != len(want) {
			return false
		}
		for l := range want {
			if (got[l] == nil) != (want[l] == nil) {
				return false
			}
			for j := range want[l] {
				if got[l][j] != want[l][j] {
					return false
				}
			}
		}
		return true
	}
	if !eq(got, want) {
		t.Fatalf("default range: %v, want %v", got, want)
	}
	got, _ = Combine([]Use{{a, 1}}, Range{Start: 2, End: 2}, m)
	if !eq(got, [][]float32{nil, nil, {0, 1}, nil}) {
		t.Fatalf("range 2–2: %v", got)
	}
	// Start 0 is llama.cpp's default of 1: layer 0 is never steered.
	got, _ = Combine([]Use{{a, 1}}, Range{Start: 0, End: 1}, m)
	if !eq(got, [][]float32{nil, {1, 0}, nil, nil}) {
		t.Fatalf("range 0–1: %v", got)
	}
	if got, _ := Combine(nil, Range{}, m); got != nil {
		t.Fatalf("no vector: %v", got)
	}
	if _, err := Combine([]Use{{a, 1}}, Range{Start: 3, End: 2}, m); err == nil {
		t.Fatal("an empty range was accepted")
	}
	if _, err := Combine([]Use{{a, float32(math.Inf(1))}}, Range{}, m); err == nil {
		t.Fatal("an infinite scale was accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(file(f, Arch, []gguf.KV{{Key: KeyHint, Value: gguf.String("llama")}}, map[string][]float32{"direction.1": {1, 2}, "direction.3": {3, 4}}, []string{"direction.1", "direction.3"}))
	f.Add([]byte("GGUF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse("fuzz", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
			return
		}
		// Whatever parses writes back and reads the same.
		var b bytes.Buffer
		if _, err := v.WriteTo(&b); err != nil {
			t.Fatalf("write back: %v", err)
		}
		w, err := Parse("again", b.Bytes())
		if err != nil || w.Dim != v.Dim || w.Layers() != v.Layers() {
			t.Fatalf("read back: %v %+v", err, w)
		}
	})
}
