package tokenizer

import (
	"golang.org/x/text/unicode/norm"

	"slices"
	"strings"
	"testing"
)

// TestPreTokenizers checks the scanners on hand-derived splits of the
// reference regexes (the goldens cover llama-bpe and qwen2 end to end;
// gpt2, smollm and gpt-4o have no vocabulary fixture). The gpt-4o splits
// are the reference's own: tiktoken's o200k pattern run by Python's regex
// module (the engine tiktoken's pattern was written for), which also
// agreed with nextGPT4o on the 78 strings of the fixtures' corpus and on
// 20,000 random strings over letters of every case class, marks, digits,
// quotes, slashes and Unicode spaces.
func TestPreTokenizers(t *testing.T) {
	for _, c := range []struct {
		pre  preTokenizer
		text string
		want []string
	}{
		{preGPT2, "Hello world's 123  abc\n\n", []string{"Hello", " world", "'s", " 123", " ", " abc", "\n\n"}},
		{preGPT2, "DON'T\tgo", []string{"DON", "'", "T", "\t", "go"}},
		{preGPT2, "a!!  ?", []string{"a", "!!", " ", " ?"}},
		{preGPT2, "x\u00a0\u00a0y", []string{"x", "\u00a0", "\u00a0", "y"}},
		{preSmolLM, "a 2024 b", []string{"a", " ", "2", "0", "2", "4", " b"}},
		{preSmolLM, "v1.25x", []string{"v", "1", ".", "2", "5", "x"}},
		{preLlama3, "DON'T  go 12345\r\n\n  x", []string{"DON", "'T", " ", " go", " ", "123", "45", "\r\n\n", " ", " x"}},
		{preLlama3, "\t\tindented", []string{"\t", "\tindented"}},
		{preLlama3, "a  \n b", []string{"a", "  \n", " b"}},
		{preLlama3, "ok!?\n\nnext", []string{"ok", "!?\n\n", "next"}},
		{preQwen2, "3.14", []string{"3", ".", "1", "4"}},
		{preGPT4o, "Hello world's DON'T go", []string{"Hello", " world's", " DON'T", " go"}},
		{preGPT4o, "I'm you'RE they'll we'VE it'd 'tis", []string{"I'm", " you'RE", " they'll", " we'VE", " it'd", " '", "tis"}},
		{preGPT4o, "x's  's Rock'n'roll", []string{"x's", " ", " '", "s", " Rock", "'n", "'roll"}},
		{preGPT4o, "camelCaseWord HTTPServer iPhone ABCdef", []string{"camel", "Case", "Word", " HTTPServer", " i", "Phone", " ABCdef"}},
		{preGPT4o, "12345 3.14159 1000000 v2.0", []string{"123", "45", " ", "3", ".", "141", "59", " ", "100", "000", "0", " v", "2", ".", "0"}},
		{preGPT4o, "\u4e2d\u6587abc \u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8\u3002", []string{"\u4e2d\u6587abc", " \u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8", "\u3002"}},
		{preGPT4o, "\u041f\u0440\u0438\u0432\u0435\u0442\u041c\u0438\u0440 hello\u00c9cole", []string{"\u041f\u0440\u0438\u0432\u0435\u0442", "\u041c\u0438\u0440", " hello", "\u00c9cole"}},
		{preGPT4o, "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e", []string{"\u0928\u092e\u0938\u094d\u0924\u0947", " \u0926\u0941\u0928\u093f\u092f\u093e"}},
		{preGPT4o, "a!!!  ?? ...\n\nnext", []string{"a", "!!!", " ", " ??", " ...\n\n", "next"}},
		{preGPT4o, "path/to/file\n/next //x", []string{"path", "/to", "/file", "\n", "/next", " //", "x"}},
		{preGPT4o, "line1\r\n\r\n  line2\t\tx  ", []string{"line", "1", "\r\n\r\n", " ", " line", "2", "\t", "\tx", "  "}},
		{preGPT4o, "x\u00a0\u00a0y\u3000z", []string{"x", "\u00a0", "\u00a0y", "\u3000z"}},
		{preGPT4o, "\u01c5ungla \u02b0a \u0301a", []string{"\u01c5ungla", " \u02b0a", " \u0301a"}},
		{preGPT4o, "e\u0301cole CAF\u00c9's", []string{"e\u0301cole", " CAF\u00c9's"}},
		{preGPT4o, "<|start|>user", []string{"<|", "start", "|>", "user"}},
		{preQwen2, "caf\u00e9 \u4f60\u597d", []string{"caf\u00e9", " \u4f60\u597d"}},
	} {
		var got []string
		c.pre.split(c.text, func(w string) { got = append(got, w) })
		if !slices.Equal(got, c.want) {
			t.Errorf("pre %d split(%q) = %q, want %q", c.pre, c.text, got, c.want)
		}
	}
}

// TestNFC checks the Qwen normaliser on canonical equivalents.
func TestNFC(t *testing.T) {
	for _, c := range [][2]string{
		{"cafe\u0301", "caf\u00e9"},
		{"A\u030a", "\u00c5"},
		{"\u212b", "\u00c5"},               // singleton decomposition
		{"q\u0307\u0323", "q\u0323\u0307"}, // reordered, no composite
		{"e\u0323\u0302", "\u1ec7"},        // two marks compose in order
		{"\u1100\u1161\u11a8", "\uac01"},   // Hangul L+V+T
		{"\u0958", "\u0915\u093c"},         // composition exclusion
		{"plain ascii", "plain ascii"},
		{"bad\xffbyte\u0301", "bad\xffbyt\u00e9"}, // invalid byte kept
	} {
		if got := norm.NFC.String(c[0]); got != c[1] {
			t.Errorf("nfc(%+q) = %+q, want %+q", c[0], got, c[1])
		}
	}
}

// FuzzPreTokenizers: every split cuts any input, valid UTF-8 or not, into
// non-empty pieces that add up to it.
func FuzzPreTokenizers(f *testing.F) {
	for _, s := range []string{"Hello world's DON'T", "नमस्ते 世界 12345\r\n\n  x", "\xff'\u0301S/\n/", " \u00a0\u3000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, pre := range []preTokenizer{preLlama3, preQwen2, preGPT2, preSmolLM, preGPT4o} {
			var b strings.Builder
			pre.split(s, func(w string) {
				if w == "" {
					t.Fatalf("pre %d: empty piece in %+q", pre, s)
				}
				b.WriteString(w)
			})
			if b.String() != s {
				t.Fatalf("pre %d: pieces of %+q add up to %+q", pre, s, b.String())
			}
		}
	})
}
