package archgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// goldenPath is the golden file whose reference outputs were computed from
// the exact bytes this package writes.
const goldenPath = "../../../engine/model/testdata/archs2/golden.json"

func allModels() []Model { return slices.Concat(Fixtures(), Ablations()) }

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
// bytes the goldens were computed from: regenerate them (`make ref-archs`)
// together with any generator change.
func TestGoldenHashes(t *testing.T) {
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
	for _, m := range allModels() {
		e, ok := recorded[m.Name]
		if !ok {
			t.Errorf("%s: not in %s (run make ref-archs)", m.Name, goldenPath)
			continue
		}
		delete(recorded, m.Name)
		sum := sha256.Sum256(encoded(t, m.Name))
		if got := hex.EncodeToString(sum[:]); got != e.SHA256 {
			t.Errorf("%s: sha256 %s, the golden file was made from %s: regenerate the goldens (make ref-archs) or restore the generator", m.Name, got, e.SHA256)
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
// what the goldens rely on: the architecture, the file type, F16 for 2-D
// weights only, and the vocabulary.
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
		if ft, err := f.Uint32("general.file_type"); err != nil || ft != wantType {
			t.Errorf("%s: file_type %d, %v; want %d", m.Name, ft, err, wantType)
		}
		for _, ti := range f.Tensors {
			want := tensor.F32
			if m.F16 && len(ti.Dims) == 2 {
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
