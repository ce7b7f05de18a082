package archgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// goldenSets pairs each golden file, whose reference outputs were computed
// from the exact bytes this package writes, with the models it covers and
// the make target that regenerates it.
var goldenSets = []struct {
	path, target string
	models       func() []Model
}{
	{"../../../engine/model/testdata/archs2/golden.json", "ref-archs", func() []Model { return slices.Concat(Fixtures(), Ablations()) }},
	{"../../../engine/model/testdata/moe/golden.json", "ref-moe", func() []Model { return slices.Concat(MoEFixtures(), MoEAblations()) }},
}

func allModels() []Model {
	return slices.Concat(Fixtures(), Ablations(), MoEFixtures(), MoEAblations())
}

// encodedCache keeps each file's bytes across tests: encoding every model
// several times is most of this package's test time under -race.
var encodedCache = map[string][]byte{}

func encoded(t *testing.T, name string) []byte {
	t.Helper()
	if b, ok := encodedCache[name]; ok {
		return b
	}
	b, err := Encode(name)
	if err != nil {
		t.Fatal(err)
	}
	encodedCache[name] = b
	return b
}

// TestWriteTwiceIdentical writes every file twice, through Write into two
// directories, and requires identical bytes.
func TestWriteTwiceIdentical(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	for _, m := range allModels() {
		p1, err := Write(d1, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := Write(d2, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p1) != m.Name+".gguf" {
			t.Errorf("Write(%q) wrote %s", m.Name, p1)
		}
		b1, err := os.ReadFile(p1)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := os.ReadFile(p2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1, b2) || !bytes.Equal(b1, encoded(t, m.Name)) {
			t.Errorf("%s: two writes differ", m.Name)
		}
	}
}

// TestGoldenHashes fails when the generator would write anything but the
// bytes the goldens were computed from: regenerate them (`make ref-archs`,
// `make ref-moe`) together with any generator change.
func TestGoldenHashes(t *testing.T) {
	for _, set := range goldenSets {
		checkGoldenHashes(t, set.path, set.target, set.models())
	}
}

func checkGoldenHashes(t *testing.T, goldenPath, target string, models []Model) {
	raw, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	type fileEntry struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
	}
	var golden struct {
		Models    map[string]fileEntry `json:"models"`
		Ablations map[string]fileEntry `json:"ablations"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	recorded := map[string]fileEntry{}
	for n, e := range golden.Models {
		recorded[n] = e
	}
	for n, e := range golden.Ablations {
		recorded[n] = e
	}
	for _, m := range models {
		e, ok := recorded[m.Name]
		if !ok {
			t.Errorf("%s: not in %s (run make %s)", m.Name, goldenPath, target)
			continue
		}
		delete(recorded, m.Name)
		sum := sha256.Sum256(encoded(t, m.Name))
		if got := hex.EncodeToString(sum[:]); got != e.SHA256 {
			t.Errorf("%s: sha256 %s, the golden file was made from %s: regenerate the goldens (make %s) or restore the generator", m.Name, got, e.SHA256, target)
		}
		if e.File != m.Name+".gguf" {
			t.Errorf("%s: golden file name %q", m.Name, e.File)
		}
	}
	for n := range recorded {
		t.Errorf("%s: in %s but no longer generated", n, goldenPath)
	}
}

// TestFilesParse reads every file back with the engine's parser and checks
// what the goldens rely on: the architecture, the file type, the storage
// type of each tensor (MXFP4 expert matrices, F16 2-D and 3-D weights but
// not biases, F32 otherwise), and the vocabulary.
func TestFilesParse(t *testing.T) {
	for _, m := range allModels() {
		f, err := gguf.Parse(m.Name, encoded(t, m.Name))
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if a, err := f.Architecture(); err != nil || a != m.Arch {
			t.Errorf("%s: architecture %q, %v; want %q", m.Name, a, err, m.Arch)
		}
		wantType := uint32(0)
		if m.F16 {
			wantType = 1
		}
		if m.MXFP4 {
			wantType = 38
		}
		if ft, err := f.Uint32("general.file_type"); err != nil || ft != wantType {
			t.Errorf("%s: file_type %d, %v; want %d", m.Name, ft, err, wantType)
		}
		for _, ti := range f.Tensors {
			want := tensor.F32
			switch {
			case m.MXFP4 && strings.HasSuffix(ti.Name, "_exps.weight"):
				want = tensor.MXFP4
			case m.F16 && len(ti.Dims) >= 2 && !strings.HasSuffix(ti.Name, ".bias"):
				want = tensor.F16
			}
			if ti.Type != want {
				t.Errorf("%s: %s is %v, want %v", m.Name, ti.Name, ti.Type, want)
			}
		}
		tokens, err := f.Strings("tokenizer.ggml.tokens")
		if err != nil || len(tokens) != nVocab {
			t.Fatalf("%s: %d tokens, %v", m.Name, len(tokens), err)
		}
		if tokens[220] != "Ġ" || tokens[198] != "Ċ" || tokens[0] != "!" || tokens[256] != "he" || !strings.HasPrefix(tokens[firstSpecial], "<") {
			t.Errorf("%s: vocabulary layout differs from shared/fixtures/archs", m.Name)
		}
	}
}

// TestAblationsDiffer guards against an ablation that silently changes
// nothing in the file.
func TestAblationsDiffer(t *testing.T) {
	for _, a := range Ablations() {
		if bytes.Equal(encoded(t, a.Name), encoded(t, a.Base)) {
			t.Errorf("%s: identical to %s", a.Name, a.Base)
		}
	}
}

func TestRareTokens(t *testing.T) {
	var rare []int
	for id := range nVocab {
		if rareToken(id) {
			rare = append(rare, id)
		}
	}
	// 256 bytes − 95 printable ASCII − newline = 160, plus 3 specials.
	if len(rare) != 163 || rareToken(220) || rareToken(198) || rareToken(0) || !rareToken(187) || !rareToken(firstSpecial) {
		t.Errorf("%d rare tokens: %v", len(rare), rare)
	}
}

// TestAblationsAcrossSets guards the ablation list of each set: every base
// is a fixture of the same set, and names are unique over all sets (Write
// looks a name up in all of them).
func TestAblationsAcrossSets(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range allModels() {
		if seen[m.Name] {
			t.Errorf("%s: defined twice", m.Name)
		}
		seen[m.Name] = true
	}
	for _, set := range [][2][]Model{{Fixtures(), Ablations()}, {MoEFixtures(), MoEAblations()}} {
		for _, a := range set[1] {
			if !slices.ContainsFunc(set[0], func(f Model) bool { return f.Name == a.Base }) {
				t.Errorf("%s: base %q is not a fixture of its set", a.Name, a.Base)
			}
		}
	}
}

// TestMoELayouts checks the tensor layouts the MoE goldens rely on: the
// stacked expert tensors' shapes, mixtral-split holding exactly mixtral's
// expert values under the per-expert names, and gpt-oss's MXFP4 experts
// decoding to values near the F32 weights they were quantised from.
func TestMoELayouts(t *testing.T) {
	parse := func(name string) *gguf.File {
		f, err := gguf.Parse(name, encoded(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	dims := func(f *gguf.File, name string) []uint64 {
		for _, ti := range f.Tensors {
			if ti.Name == name {
				return ti.Dims
			}
		}
		t.Fatalf("no tensor %s", name)
		return nil
	}
	q := parse("qwen3moe")
	for name, want := range map[string][]uint64{
		"blk.0.ffn_gate_inp.weight":  {nEmbd, qwen3moeExperts},
		"blk.0.ffn_gate_exps.weight": {nEmbd, qwen3moeExpertFF, qwen3moeExperts},
		"blk.2.ffn_up_exps.weight":   {nEmbd, qwen3moeExpertFF, qwen3moeExperts},
		"blk.1.ffn_down_exps.weight": {qwen3moeExpertFF, nEmbd, qwen3moeExperts},
	} {
		if got := dims(q, name); !slices.Equal(got, want) {
			t.Errorf("qwen3moe %s: dims %v, want %v", name, got, want)
		}
	}
	g := parse("gpt-oss")
	for name, want := range map[string][]uint64{
		"blk.3.attn_sinks.weight":  {nHead},
		"blk.0.ffn_gate_inp.bias":  {gptossExperts},
		"blk.0.ffn_gate_exps.bias": {gptossFF, gptossExperts},
		"blk.0.ffn_down_exps.bias": {nEmbd, gptossExperts},
		"blk.1.attn_q.weight":      {nEmbd, nHead * gptossHeadDim},
		"blk.1.attn_output.weight": {nHead * gptossHeadDim, nEmbd},
	} {
		if got := dims(g, name); !slices.Equal(got, want) {
			t.Errorf("gpt-oss %s: dims %v, want %v", name, got, want)
		}
	}

	// mixtral-split's per-expert tensors are slabs of mixtral's stacked ones.
	stacked, split := mixtralModel(false), mixtralModel(true)
	for _, kind := range []string{"gate", "up", "down"} {
		all := stacked.tensor("blk.1.ffn_" + kind + "_exps.weight").data
		per := len(all) / mixtralExperts
		for e := range mixtralExperts {
			one := split.tensor(fmt.Sprintf("blk.1.ffn_%s.%d.weight", kind, e)).data
			if !slices.Equal(one, all[e*per:(e+1)*per]) {
				t.Errorf("mixtral-split ffn_%s.%d differs from mixtral's expert %d", kind, e, e)
			}
		}
	}

	// The MXFP4 bytes decode to within one quantisation step of the weights.
	ref := gptossModel().tensor("blk.2.ffn_down_exps.weight").data
	ti, ok := g.Tensor("blk.2.ffn_down_exps.weight")
	if !ok {
		t.Fatal("gpt-oss: no blk.2.ffn_down_exps.weight")
	}
	got := make([]float32, len(ref))
	if err := tensor.Dequantize(tensor.MXFP4, got, g.TensorData(ti)); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range ref {
		worst = max(worst, math.Abs(float64(got[i]-ref[i])))
	}
	if worst == 0 || worst > 0.5 {
		t.Errorf("gpt-oss MXFP4 down_exps: max |dequantised − f32| %g", worst)
	}
}
