package tokenizer

import (
	"strings"
	"testing"
)

// benchText is about 1 MB of the corpus strings repeated.
func benchText(b *testing.B) string {
	var g golden
	loadJSON(b, "tokenizers/llama3-bpe/golden.json", &g)
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		for _, c := range g.Cases {
			sb.WriteString(c.Text)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// BenchmarkEncode reports encode throughput (MB/s) on 1 MB of mixed text
// for each family.
func BenchmarkEncode(b *testing.B) {
	text := benchText(b)
	for _, fam := range []string{"llama-spm", "llama3-bpe", "qwen3-bpe"} {
		tk := load(b, "tokenizers/"+fam+"/tokenizer.gguf")
		b.Run(fam, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := tk.Encode(text, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecoder measures streaming decode per token.
func BenchmarkDecoder(b *testing.B) {
	tk := load(b, "tokenizers/llama3-bpe/tokenizer.gguf")
	ids, _ := tk.Encode(benchText(b)[:1<<16], EncodeOptions{})
	d := tk.NewDecoder(DecodeOptions{})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d.Write(ids[i%len(ids)])
	}
}
