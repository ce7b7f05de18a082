package tokenizer

import (
	"golang.org/x/text/unicode/norm"

	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRoundTrip: on byte-level BPE, decode(encode(s)) == s for any valid
// UTF-8 (Llama 3 has no normaliser), and any input, valid or not, encodes
// and decodes without panicking in all three families.
func FuzzRoundTrip(f *testing.F) {
	var g golden
	loadJSON(f, "tokenizers/llama3-bpe/golden.json", &g)
	for _, c := range g.Cases {
		f.Add(c.Text)
	}
	f.Add("\xff\xfe<|im_end|>\xe2\x82")
	f.Add("\u2581\u2581 x")
	llama3 := load(f, "tokenizers/llama3-bpe/tokenizer.gguf")
	qwen := load(f, "tokenizers/qwen3-bpe/tokenizer.gguf")
	spm := load(f, "tokenizers/llama-spm/tokenizer.gguf")
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := llama3.Encode(s, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := llama3.Decode(ids, DecodeOptions{}); got != s {
			t.Fatalf("llama3 round trip of %+q gave %+q (ids %v)", s, got, ids)
		}
		qids, _ := qwen.Encode(s, EncodeOptions{})
		if got := qwen.Decode(qids, DecodeOptions{}); utf8.ValidString(s) && norm.NFC.IsNormalString(s) && got != s {
			t.Fatalf("qwen3 round trip of %+q gave %+q", s, got)
		}
		sids, _ := spm.Encode(s, EncodeOptions{AddSpecial: true})
		got := spm.Decode(sids, DecodeOptions{})
		// SentencePiece: every byte survives; only U+2581 becomes a space.
		if want := strings.ReplaceAll(s, "\u2581", " "); got != want && !(strings.HasPrefix(want, " ") && got == want[1:]) {
			t.Fatalf("spm round trip of %+q gave %+q", s, got)
		}
		for _, tk := range []*Tokenizer{llama3, qwen, spm} {
			p, _ := tk.EncodePrompt(s, []Span{{0, len(s) / 2}}, EncodeOptions{AddSpecial: true})
			tk.Decode(p, DecodeOptions{Special: true})
		}
	})
}
