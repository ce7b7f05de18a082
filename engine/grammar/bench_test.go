package grammar

import (
	"testing"

	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// benchDoc is a document valid for testSchemas[0] ("person"), as a model
// would write it.
const benchDoc = `{"name": "Ada Lovelace, née Byron", "age": 36, "email": "ada@example.org", "tags": ["red", "blue \"quoted\""], "address": {"street": "12 St James's Square", "city": "London", "zip": null}, "score": 98.25, "active": true}`

// benchStates are prefixes of benchDoc at typical points of a step.
var benchStates = []struct{ name, prefix string }{
	{"start", ``},
	{"key", `{"name": "Ada Lovelace, née Byron", "`},
	{"between-keys", `{"name": "Ada Lovelace, née Byron", "age": 36,`},
	{"string", `{"name": "Ada Lov`},
	{"number", `{"name": "Ada Lovelace, née Byron", "age": 3`},
	{"enum", `{"name": "Ada Lovelace, née Byron", "age": 36, "email": "ada@example.org", "tags": ["re`},
}

func benchGrammar(b *testing.B) (*tokenizer.Tokenizer, *Vocab, *Grammar) {
	tk, v := llama3Vocab(b)
	return tk, v, schemaGrammar(b, false, testSchemas[0].schema)
}

// BenchmarkMask measures one step's mask at typical states with the llama3
// vocabulary (128256 tokens): "walk" is the trie walk with the matcher's
// transitions already known, what a state not seen before in the mask
// cache costs; "cached" is a state seen before; "cold" is a fresh matcher
// reaching the state and computing its mask, transitions and all.
func BenchmarkMask(b *testing.B) {
	_, v, g := benchGrammar(b)
	for _, st := range benchStates {
		b.Run(st.name+"/walk", func(b *testing.B) {
			m := NewMatcher(g, v)
			mask := m.NewMask()
			if err := m.AcceptBytes([]byte(st.prefix)); err != nil {
				b.Fatal(err)
			}
			m.fill(mask, m.cur)
			b.ReportAllocs()
			for b.Loop() {
				m.fill(mask, m.cur)
			}
			b.ReportMetric(float64(mask.Count()), "allowed")
		})
		b.Run(st.name+"/cached", func(b *testing.B) {
			m := NewMatcher(g, v)
			mask := m.NewMask()
			if err := m.AcceptBytes([]byte(st.prefix)); err != nil {
				b.Fatal(err)
			}
			m.Allowed(mask)
			b.ReportAllocs()
			for b.Loop() {
				m.Allowed(mask)
			}
		})
		b.Run(st.name+"/cold", func(b *testing.B) {
			mask := NewMask(v.Size())
			for b.Loop() {
				m := NewMatcher(g, v)
				if err := m.AcceptBytes([]byte(st.prefix)); err != nil {
					b.Fatal(err)
				}
				m.Allowed(mask)
			}
		})
	}
}

// BenchmarkDocument measures Allowed+Accept per token over benchDoc as the
// llama3 tokenizer splits it: "first" with a fresh matcher per document
// (every state new), "steady" with one matcher reused (every state
// cached), "nocache" with the mask cache bypassed (every mask walked).
func BenchmarkDocument(b *testing.B) {
	tk, v, g := benchGrammar(b)
	ids, err := tk.Encode(benchDoc, tokenizer.EncodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ids = append(ids, tk.EndOfGeneration()[0])
	run := func(b *testing.B, m *Matcher, mask Mask, nocache bool) {
		m.Reset()
		for _, id := range ids {
			if nocache {
				m.fill(mask, m.cur)
			} else {
				m.Allowed(mask)
			}
			if !mask.Has(id) {
				b.Fatalf("token %d %q not allowed", id, tk.TokenBytes(id))
			}
			if err := m.Accept(id); err != nil {
				b.Fatal(err)
			}
		}
	}
	perToken := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ids)), "µs/token")
	}
	b.Run("first", func(b *testing.B) {
		mask := NewMask(v.Size())
		for b.Loop() {
			run(b, NewMatcher(g, v), mask, false)
		}
		perToken(b)
	})
	b.Run("steady", func(b *testing.B) {
		m := NewMatcher(g, v)
		mask := m.NewMask()
		run(b, m, mask, false)
		b.ReportAllocs()
		for b.Loop() {
			run(b, m, mask, false)
		}
		perToken(b)
	})
	b.Run("nocache", func(b *testing.B) {
		m := NewMatcher(g, v)
		mask := m.NewMask()
		run(b, m, mask, true)
		b.ReportAllocs()
		for b.Loop() {
			run(b, m, mask, true)
		}
		perToken(b)
	})
}

// BenchmarkNewVocab measures preparing the llama3 vocabulary's trie.
func BenchmarkNewVocab(b *testing.B) {
	tk, _ := llama3Vocab(b)
	toks := make([][]byte, tk.VocabSize())
	for id := range toks {
		if !tk.IsControl(int32(id)) {
			toks[id] = tk.TokenBytes(int32(id))
		}
	}
	for b.Loop() {
		if _, err := NewVocab(toks, tk.EndOfGeneration()); err != nil {
			b.Fatal(err)
		}
	}
}
