package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// fixtureRoot is the repository root's ../shared/fixtures, seen from this
// package directory.
const fixtureRoot = "../../../shared/fixtures"

// fixture returns the path of a shared fixture, failing the test if it is
// missing: a missing fixture must never turn into a silent skip.
func fixture(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(fixtureRoot, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("fixture %s is missing (expected at shared/fixtures/%s relative to the repository root's parent): %v", p, rel, err)
	}
	return p
}

// loadJSON decodes a fixture JSON file into v.
func loadJSON(tb testing.TB, rel string, v any) {
	tb.Helper()
	data, err := os.ReadFile(fixture(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
}

var tokCache sync.Map // path -> *Tokenizer; tests only, built once per binary

// load opens a GGUF fixture and builds its tokenizer.
func load(tb testing.TB, rel string) *Tokenizer {
	tb.Helper()
	p := fixture(tb, rel)
	if t, ok := tokCache.Load(p); ok {
		return t.(*Tokenizer)
	}
	f, err := gguf.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tk, err := FromGGUF(f)
	if err != nil {
		tb.Fatal(err)
	}
	tokCache.Store(p, tk)
	return tk
}

// goldenCase is one entry of shared/fixtures/tokenizers/*/golden.json.
type goldenCase struct {
	Name                string   `json:"name"`
	Text                string   `json:"text"`
	IDs                 []int32  `json:"ids"`
	Pieces              []string `json:"pieces"`
	Decoded             string   `json:"decoded"`
	RoundtripExact      bool     `json:"roundtrip_exact"`
	IDsParseSpecial     []int32  `json:"ids_parse_special"`
	DecodedParseSpecial *string  `json:"decoded_parse_special"`
}

type golden struct {
	Family string       `json:"family"`
	Cases  []goldenCase `json:"cases"`
}
