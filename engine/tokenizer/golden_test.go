package tokenizer

import (
	"slices"
	"testing"
)

// TestTokenizerGoldens checks every corpus string of every family against
// the reference ids and the reference decoding (README in
// shared/fixtures/tokenizers).
func TestTokenizerGoldens(t *testing.T) {
	for _, fam := range []string{"llama-spm", "llama3-bpe", "qwen3-bpe"} {
		t.Run(fam, func(t *testing.T) {
			var g golden
			loadJSON(t, "tokenizers/"+fam+"/golden.json", &g)
			tk := load(t, "tokenizers/"+fam+"/tokenizer.gguf")
			if len(g.Cases) < 70 {
				t.Fatalf("golden has only %d cases", len(g.Cases))
			}
			pass := 0
			for _, c := range g.Cases {
				ok := true
				got, err := tk.Encode(c.Text, EncodeOptions{})
				if err != nil {
					t.Errorf("%s: Encode: %v", c.Name, err)
					continue
				}
				if !slices.Equal(got, c.IDs) {
					ok = false
					t.Errorf("%s: Encode(%q)\n got  %v %q\n want %v %q", c.Name, c.Text, got, pieces(tk, got), c.IDs, c.Pieces)
				}
				for i, id := range c.IDs {
					if tk.Piece(id) != c.Pieces[i] {
						ok = false
						t.Errorf("%s: Piece(%d) = %q, want %q", c.Name, id, tk.Piece(id), c.Pieces[i])
					}
				}
				if dec := tk.Decode(c.IDs, DecodeOptions{}); dec != c.Decoded {
					ok = false
					t.Errorf("%s: Decode = %q, want %q", c.Name, dec, c.Decoded)
				}
				if c.IDsParseSpecial != nil {
					got, _ := tk.EncodeMarkup(c.Text, EncodeOptions{})
					if !slices.Equal(got, c.IDsParseSpecial) {
						ok = false
						t.Errorf("%s: EncodeMarkup(%q)\n got  %v %q\n want %v", c.Name, c.Text, got, pieces(tk, got), c.IDsParseSpecial)
					}
					want := c.Decoded
					if c.DecodedParseSpecial != nil {
						want = *c.DecodedParseSpecial
					}
					if dec := tk.Decode(c.IDsParseSpecial, DecodeOptions{Special: true}); dec != want {
						ok = false
						t.Errorf("%s: Decode(special) = %q, want %q", c.Name, dec, want)
					}
				}
				if ok {
					pass++
				}
			}
			t.Logf("%s: %d/%d cases exact", fam, pass, len(g.Cases))
		})
	}
}

func pieces(tk *Tokenizer, ids []int32) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = tk.Piece(id)
	}
	return s
}
