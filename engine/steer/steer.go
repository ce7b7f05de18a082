// Package steer reads, writes and combines control vectors: llama.cpp's
// steering format, so that a vector made by either tool steers the other.
//
// A control vector file is a GGUF file with general.architecture
// "controlvector", controlvector.model_hint (the architecture of the
// model it was made on), controlvector.layer_count, and one F32 1-D
// tensor "direction.N" of the model's width per layer N ≥ 1. llama.cpp
// (common_control_vector_load, llama_adapter_cvec) adds direction.N to
// the residual stream after block N (counting from 0) — never after block
// 0 — for N inside the layer range, start and end inclusive, by default 1
// to the model's layer count. Several vectors, each with its scale, are
// summed layer by layer before that.
//
// Where a direction is read from: llama-cvector-generator and repeng read
// direction.N from the stream entering block N (Hugging Face's
// hidden_states[N], the output of block N−1) and llama.cpp adds it after
// block N. Vectors this package's callers make follow the same convention,
// so that theirs and ours mean the same thing on the same model.
package steer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Arch is general.architecture of a control vector file.
const Arch = "controlvector"

// Metadata keys of a control vector file.
const (
	KeyHint       = Arch + ".model_hint"
	KeyLayerCount = Arch + ".layer_count"
	// KeyMethod and KeySource are ISAGI's own (llama.cpp ignores them):
	// how the vector was made and from what, shown where it is used.
	KeyMethod = "isagi.steer.method"
	KeySource = "isagi.steer.source"
)

// Vector is one control vector.
type Vector struct {
	// Hint is the architecture of the model the vector was made on
	// (controlvector.model_hint; "" when the file has none).
	Hint string
	// Dim is the width of every direction: the model's residual stream.
	Dim int
	// Dirs[N] is direction.N (nil where the file has none); Dirs[0] is
	// always nil, as llama.cpp never steers after block 0. Directions of
	// one layer named twice in a file are summed, as llama.cpp does.
	Dirs [][]float32
	// Method and Source say how the vector was made ("" when unknown).
	Method, Source string
}

// Layers is the highest layer with a direction plus one (0 when empty).
func (v *Vector) Layers() int {
	for n := len(v.Dirs) - 1; n >= 1; n-- {
		if v.Dirs[n] != nil {
			return n + 1
		}
	}
	return 0
}

// Read reads a control vector file.
func Read(path string) (*Vector, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("steer: %w", err)
	}
	return Parse(path, data)
}

// maxLayers bounds a direction's layer number: far more than any model
// has, and small enough that a hostile name cannot make a huge table.
const maxLayers = 4096

// Parse reads a control vector from data (name is for messages). Every
// failure is one sentence naming the file and what is wrong in it.
func Parse(name string, data []byte) (*Vector, error) {
	f, err := gguf.Parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("steer: %s is not a control vector: %w", name, err)
	}
	v := &Vector{}
	if a, err := f.Architecture(); err == nil && a != Arch {
		return nil, fmt.Errorf("steer: %s is a %q file, not a control vector (general.architecture %q)", name, a, Arch)
	}
	if _, ok := f.Lookup(KeyHint); ok {
		h, err := f.String(KeyHint)
		if err != nil {
			return nil, fmt.Errorf("steer: %s: %s is not a string", name, KeyHint)
		}
		v.Hint = h
	}
	v.Method, _ = f.String(KeyMethod)
	v.Source, _ = f.String(KeySource)
	if len(f.Tensors) == 0 {
		return nil, fmt.Errorf("steer: %s has no direction tensors", name)
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		n, ok := layerOf(ti.Name)
		switch {
		case !ok:
			return nil, fmt.Errorf("steer: %s: tensor %q is not a direction (direction.N with N from 1)", name, ti.Name)
		case n > maxLayers:
			return nil, fmt.Errorf("steer: %s: tensor %q names layer %d; no model has that many", name, ti.Name, n)
		case ti.Type != tensor.F32:
			return nil, fmt.Errorf("steer: %s: tensor %q is %s; directions are F32", name, ti.Name, ti.Type)
		case len(ti.Dims) != 1:
			return nil, fmt.Errorf("steer: %s: tensor %q has %d dimensions; a direction has one", name, ti.Name, len(ti.Dims))
		case ti.Dims[0] == 0 || ti.Dims[0] > 1<<20:
			return nil, fmt.Errorf("steer: %s: tensor %q has %d values", name, ti.Name, ti.Dims[0])
		}
		d := int(ti.Dims[0])
		if v.Dim == 0 {
			v.Dim = d
		} else if d != v.Dim {
			return nil, fmt.Errorf("steer: %s: tensor %q has %d values, the ones before it %d", name, ti.Name, d, v.Dim)
		}
		raw := f.TensorData(ti)
		if len(raw) != 4*d {
			return nil, fmt.Errorf("steer: %s: tensor %q's data is cut short", name, ti.Name)
		}
		if len(v.Dirs) <= n {
			v.Dirs = append(v.Dirs, make([][]float32, n+1-len(v.Dirs))...)
		}
		if v.Dirs[n] == nil {
			v.Dirs[n] = make([]float32, d)
		}
		dst := v.Dirs[n]
		for j := range d {
			x := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("steer: %s: tensor %q has a value that is not finite", name, ti.Name)
			}
			dst[j] += x
		}
	}
	return v, nil
}

// layerOf parses "direction.N" with N ≥ 1 in plain decimal.
func layerOf(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "direction.")
	if !ok || s == "" || len(s) > 6 || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// WriteTo writes v in llama.cpp's format.
func (v *Vector) WriteTo(out io.Writer) (int64, error) {
	var w gguf.Writer
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: gguf.String(Arch)},
		{Key: KeyHint, Value: gguf.String(v.Hint)},
	}
	count := 0
	for _, d := range v.Dirs {
		if d != nil {
			count++
		}
	}
	kvs = append(kvs, gguf.KV{Key: KeyLayerCount, Value: gguf.Int32(int32(count))})
	if v.Method != "" {
		kvs = append(kvs, gguf.KV{Key: KeyMethod, Value: gguf.String(v.Method)})
	}
	if v.Source != "" {
		kvs = append(kvs, gguf.KV{Key: KeySource, Value: gguf.String(v.Source)})
	}
	for _, kv := range kvs {
		if err := w.AddKV(kv.Key, kv.Value); err != nil {
			return 0, fmt.Errorf("steer: %w", err)
		}
	}
	if count == 0 {
		return 0, fmt.Errorf("steer: a control vector with no direction")
	}
	for n, d := range v.Dirs {
		if d == nil {
			continue
		}
		if n == 0 {
			return 0, fmt.Errorf("steer: a direction for layer 0, which llama.cpp never steers")
		}
		if len(d) != v.Dim {
			return 0, fmt.Errorf("steer: direction %d has %d values, the vector's width is %d", n, len(d), v.Dim)
		}
		raw := make([]byte, 4*len(d))
		for j, x := range d {
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(x))
		}
		if err := w.AddTensor("direction."+strconv.Itoa(n), tensor.F32, []uint64{uint64(len(d))}, raw); err != nil {
			return 0, fmt.Errorf("steer: %w", err)
		}
	}
	return w.WriteTo(out)
}

// Write writes v to path, whole or not at all (through a temporary file
// beside it).
func (v *Vector) Write(path string) error {
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dirOf(path), ".steer-*")
	if err != nil {
		return fmt.Errorf("steer: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("steer: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("steer: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("steer: writing %s: %w", path, err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// Model is what a vector is checked against.
type Model struct {
	Arch   string // general.architecture
	Dim    int    // residual stream width
	Layers int    // blocks
}

// Check says, in one sentence, why v cannot steer m: another width, a
// direction for a layer m does not have, or another architecture named in
// its hint. (llama.cpp checks only the width and ignores directions past
// the last layer; a vector made for a deeper model is more likely a
// mistake than a wish, so it is refused here.)
func (v *Vector) Check(name string, m Model) error {
	if v.Dim != m.Dim {
		return fmt.Errorf("steer: %s has directions of width %d; the model's residual stream has %d", name, v.Dim, m.Dim)
	}
	if n := v.Layers(); n > m.Layers {
		return fmt.Errorf("steer: %s has a direction for layer %d; the model has %d layers (0–%d)", name, n-1, m.Layers, m.Layers-1)
	}
	if v.Hint != "" && m.Arch != "" && v.Hint != m.Arch {
		return fmt.Errorf("steer: %s was made for a %s model; this one is %s", name, v.Hint, m.Arch)
	}
	return nil
}

// Use is one vector with its scale.
type Use struct {
	V     *Vector
	Scale float32
}

// Range is the layers steered, start and end inclusive, as llama.cpp's
// --control-vector-layer-range; a bound ≤ 0 is its default (start 1, end
// the model's layer count).
type Range struct{ Start, End int }

// Combine sums the uses' directions, each times its scale, layer by layer,
// keeping the layers in r, as llama.cpp does: the result, one entry per
// layer of m (nil where nothing is added), is what model.State.SetSteering
// takes. No use, or no direction in the range, gives nil.
func Combine(uses []Use, r Range, m Model) ([][]float32, error) {
	start, end := r.Start, r.End
	if start <= 0 {
		start = 1
	}
	if end <= 0 {
		end = m.Layers
	}
	if start > end {
		return nil, fmt.Errorf("steer: the layer range %d–%d is empty", start, end)
	}
	var out [][]float32
	for _, u := range uses {
		if u.V == nil {
			continue
		}
		if u.V.Dim != m.Dim {
			return nil, fmt.Errorf("steer: a vector of width %d on a model of width %d", u.V.Dim, m.Dim)
		}
		if math.IsNaN(float64(u.Scale)) || math.IsInf(float64(u.Scale), 0) {
			return nil, fmt.Errorf("steer: a scale that is not finite")
		}
		for n, d := range u.V.Dirs {
			if d == nil || n < max(start, 1) || n > end || n >= m.Layers {
				continue
			}
			if out == nil {
				out = make([][]float32, m.Layers)
			}
			if out[n] == nil {
				out[n] = make([]float32, m.Dim)
			}
			for j, x := range d {
				out[n][j] += u.Scale * x
			}
		}
	}
	return out, nil
}
