package tokenizer

import (
	"golang.org/x/text/unicode/norm"

	"slices"
	"testing"
)

// TestPreTokenizers checks the scanners on hand-derived splits of the
// reference regexes (the goldens cover llama-bpe and qwen2 end to end;
// gpt2 and smollm have no vocabulary fixture).
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
