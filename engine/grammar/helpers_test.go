package grammar

import (
	"testing"
)

// byteVocab is a vocabulary of the 256 single bytes plus one
// end-of-generation token (id 256), for feeding text byte by byte.
func byteVocab(tb testing.TB) *Vocab {
	tb.Helper()
	toks := make([][]byte, 257)
	for b := range 256 {
		toks[b] = []byte{byte(b)}
	}
	v, err := NewVocab(toks, []int32{256})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// mustParse parses src or fails the test.
func mustParse(tb testing.TB, src string) *Grammar {
	tb.Helper()
	g, err := Parse(src)
	if err != nil {
		tb.Fatalf("Parse: %v\n%s", err, src)
	}
	return g
}

// matches reports whether g accepts exactly text: every byte allowed and
// the root complete at the end.
func matches(g *Grammar, v *Vocab, text string) bool {
	m := NewMatcher(g, v)
	return m.AcceptBytes([]byte(text)) == nil && m.Done()
}

// checkMatches fails for every text whose acceptance is not want.
func checkMatches(t *testing.T, g *Grammar, want bool, texts ...string) {
	t.Helper()
	v := byteVocab(t)
	for _, s := range texts {
		if got := matches(g, v, s); got != want {
			t.Errorf("match(%q) = %v, want %v", s, got, want)
		}
	}
}
