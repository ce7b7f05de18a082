// Package archgen writes tiny random-weight GGUF models, deterministically,
// so that the engine can be tested against llama.cpp's outputs on them
// without shipping model files. Two sets: the gemma3 and phi3 fixtures
// (Fixtures, Ablations) and the mixture-of-experts fixtures — qwen3moe,
// Mixtral as llama with experts, gpt-oss with MXFP4 experts (MoEFixtures,
// MoEAblations).
//
// The reference outputs live in engine/model/testdata/archs2/golden.json
// and engine/model/testdata/moe/golden.json (see the READMEs there),
// produced from these exact bytes by scripts/llamacpp-ref (`make
// ref-archs`, `make ref-moe`); the golden files record each file's sha256
// and a test here fails when the generator would write anything else. A
// test that needs a model calls Write into a temporary directory.
//
// Besides the fixtures (Fixtures) the package can write ablations
// (Ablations): a fixture with one deliberate change that expresses, in a
// file llama.cpp can run, a mistake an engine could make (a wrong RoPE
// base, the wrong half of a fused tensor, norms shifted by one...). The
// golden file records at which greedy step each ablation departs from its
// fixture: evidence that the goldens catch that mistake.
package archgen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Model describes one file the generator can write.
type Model struct {
	// Name is the file stem: Write creates Name + ".gguf".
	Name string
	// Arch is general.architecture.
	Arch string
	// F16 reports whether 2-D (and 3-D) weights are stored as F16 (1-D
	// tensors and biases stay F32, as llama.cpp's converter keeps them).
	F16 bool
	// MXFP4 reports whether the expert matrices (blk.N.ffn_{gate,up,down}_exps.weight)
	// are stored as MXFP4, as gpt-oss files ship them; general.file_type is
	// then 38 (MOSTLY_MXFP4_MOE) whatever F16 says of the other weights.
	MXFP4 bool
	// SameAs, when set, names the fixture whose reference outputs this file
	// shares: the same weights in another tensor layout, which the engine
	// must run identically (the golden file says whether llama.cpp loads it).
	SameAs string
	// Base is, for an ablation, the fixture it changes; empty for a fixture.
	Base string
	// About says what the file exercises, or for an ablation what it
	// changes and which engine mistake that stands for.
	About string
}

// entry is a Model plus how to build it.
type entry struct {
	Model
	build func() *model
}

// Fixtures lists the models the golden file holds reference outputs for,
// in a fixed order.
func Fixtures() []Model { return models(fixtureEntries()) }

// Ablations lists the deliberately altered fixtures, in a fixed order.
func Ablations() []Model { return models(ablationEntries()) }

func models(es []entry) []Model {
	out := make([]Model, len(es))
	for i, e := range es {
		out[i] = e.Model
	}
	return out
}

// MoEFixtures lists the mixture-of-experts models the golden file
// engine/model/testdata/moe/golden.json holds reference outputs for, in a
// fixed order.
func MoEFixtures() []Model { return models(moeFixtureEntries()) }

// MoEAblations lists the deliberately altered MoE fixtures, in a fixed order.
func MoEAblations() []Model { return models(moeAblationEntries()) }

func lookup(name string) (entry, bool) {
	for _, e := range slices.Concat(fixtureEntries(), ablationEntries(), moeFixtureEntries(), moeAblationEntries()) {
		if e.Name == name {
			return e, true
		}
	}
	return entry{}, false
}

// Encode returns the bytes of the named fixture or ablation.
func Encode(name string) ([]byte, error) {
	e, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("archgen: unknown model %q", name)
	}
	var buf bytes.Buffer
	if err := e.build().write(&buf, e.F16, e.MXFP4); err != nil {
		return nil, fmt.Errorf("archgen: %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// Write writes the named fixture or ablation to dir/name.gguf and returns
// that path.
func Write(dir, name string) (path string, err error) {
	data, err := Encode(name)
	if err != nil {
		return "", err
	}
	path = filepath.Join(dir, name+".gguf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("archgen: %w", err)
	}
	return path, nil
}

// model is a file being built: metadata in file order and F32 tensors in
// file order.
type model struct {
	kv      []gguf.KV
	tensors []*weight
}

// weight is one tensor. dims are ggml's ne, innermost first, so a matrix
// [in, out] holds out rows of in values: row r is data[r*in : (r+1)*in].
type weight struct {
	name string
	dims []uint64
	data []float32
}

func (m *model) add(key string, v gguf.Value) { m.kv = append(m.kv, gguf.KV{Key: key, Value: v}) }

func (m *model) keyIndex(key string) int {
	return slices.IndexFunc(m.kv, func(kv gguf.KV) bool { return kv.Key == key })
}

// set replaces a key's value, or inserts the key right after the key
// after (the file order real converters would use).
func (m *model) set(key string, v gguf.Value, after string) {
	if i := m.keyIndex(key); i >= 0 {
		m.kv[i].Value = v
		return
	}
	i := m.keyIndex(after)
	if i < 0 {
		panic("archgen: no key " + after)
	}
	m.kv = slices.Insert(m.kv, i+1, gguf.KV{Key: key, Value: v})
}

func (m *model) unset(key string) {
	i := m.keyIndex(key)
	if i < 0 {
		panic("archgen: no key " + key)
	}
	m.kv = slices.Delete(m.kv, i, i+1)
}

func (m *model) tensor(name string) *weight {
	for _, t := range m.tensors {
		if t.name == name {
			return t
		}
	}
	panic("archgen: no tensor " + name)
}

func (m *model) addTensor(name string, data []float32, dims ...uint64) {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	if uint64(len(data)) != n {
		panic(fmt.Sprintf("archgen: tensor %s: %d values for dims %v", name, len(data), dims))
	}
	m.tensors = append(m.tensors, &weight{name: name, dims: dims, data: data})
}

// write encodes the model. general.file_type must be present; it is set
// here to ALL_F32 (0), MOSTLY_F16 (1) or MOSTLY_MXFP4_MOE (38). With f16,
// 2-D and 3-D weights are F16 but biases (gpt-oss's expert biases are 2-D) stay
// F32, as llama.cpp's converter keeps them and its add_id needs them.
func (m *model) write(out *bytes.Buffer, f16, mxfp4 bool) error {
	var w gguf.Writer
	ftype := uint32(0)
	if f16 {
		ftype = 1
	}
	if mxfp4 {
		ftype = 38
	}
	for _, kv := range m.kv {
		v := kv.Value
		if kv.Key == "general.file_type" {
			v = gguf.Uint32(ftype)
		}
		if err := w.AddKV(kv.Key, v); err != nil {
			return err
		}
	}
	for _, t := range m.tensors {
		typ, raw := tensor.F32, make([]byte, 0, 4*len(t.data))
		if mxfp4 && expertMatrix(t.name) {
			typ = tensor.MXFP4
			n, err := typ.RowBytes(uint64(len(t.data)))
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			raw = make([]byte, n)
			if err := tensor.Quantize(typ, raw, t.data); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		} else if f16 && len(t.dims) >= 2 && !strings.HasSuffix(t.name, ".bias") {
			typ, raw = tensor.F16, make([]byte, 0, 2*len(t.data))
			for _, x := range t.data {
				raw = binary.LittleEndian.AppendUint16(raw, tensor.F32ToF16(x))
			}
		} else {
			for _, x := range t.data {
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
			}
		}
		if err := w.AddTensor(t.name, typ, t.dims, raw); err != nil {
			return err
		}
	}
	_, err := w.WriteTo(out)
	return err
}

// expertMatrix reports whether a tensor is one of the stacked expert
// matrices blk.N.ffn_{gate,up,down}_exps.weight (not their biases).
func expertMatrix(name string) bool {
	for _, s := range []string{".ffn_gate_exps.weight", ".ffn_up_exps.weight", ".ffn_down_exps.weight"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}
