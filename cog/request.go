package cog

import (
	"strings"
	"unicode"
)

// Normalize is the exact check's form of a request (docs/geometry.md, "When
// an answer is served from memory"): two messages are the same request
// when their normalised forms are equal. It folds case, treats runs of
// white space as one separator and drops the punctuation that frames a
// sentence — full stops, commas, colons, semicolons, question and
// exclamation marks, quotes, brackets, dashes — and nothing else:
//
//   - letters, digits and marks form words; "Moses" and "Aaron" stay
//     different words, so a changed name, number or "not" always fails
//     the check;
//   - punctuation inside a number stays in it ("3.5", "1,000", "10:30"),
//     as does a sign or point that opens one ("-5", ".5"): dropping it
//     would make "3.5" equal "35" and "-5" equal "5";
//   - symbols and the other punctuation marks (+ < > = $ % & # @ * / …)
//     are kept, each as a word of its own: "x > 5" is not "x < 5", and
//     "50% off" is not "50 off".
//
// A message with no word at all ("???") is returned unchanged, so that
// two different strings of punctuation never pass as one request.
func Normalize(s string) string {
	rs := []rune(s)
	var words []string
	var w []rune
	flush := func() {
		if len(w) > 0 {
			words = append(words, string(w))
			w = w[:0]
		}
	}
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' }
	digit := func(i int) bool { return i >= 0 && i < len(rs) && unicode.IsDigit(rs[i]) }
	for i, r := range rs {
		switch {
		case isWord(r):
			w = append(w, unicode.ToLower(r))
		case unicode.IsSpace(r) || unicode.IsControl(r):
			flush()
		case framing(r):
			switch {
			// Inside a number: 3.5, 1,000, 10:30.
			case (r == '.' || r == ',' || r == ':') && digit(i-1) && digit(i+1):
				w = append(w, r)
			// Opening a number: -5, .5 (not after a letter: "A-1" splits).
			case (r == '.' || unicode.Is(unicode.Pd, r)) && len(w) == 0 && digit(i+1):
				w = append(w, r)
			default:
				flush()
			}
		default:
			// A symbol or a meaningful mark: a word of its own.
			flush()
			words = append(words, string(unicode.ToLower(r)))
		}
	}
	flush()
	if len(words) == 0 {
		return s
	}
	return strings.Join(words, " ")
}

// framing reports whether r is punctuation that frames or separates text
// without carrying meaning of its own in a request: sentence punctuation,
// quotes, brackets and dashes (and their full-width forms).
func framing(r rune) bool {
	switch {
	case unicode.In(r, unicode.Pi, unicode.Pf, unicode.Ps, unicode.Pe, unicode.Pd):
		return true
	}
	switch r {
	case '.', ',', ';', ':', '!', '?', '\'', '"', '`', '…', '·', '¡', '¿',
		'。', '、', '，', '！', '？', '：', '；', '＂', '＇':
		return true
	}
	return false
}

// SameRequest reports whether a and b pass the exact check: equal after
// Normalize.
func SameRequest(a, b string) bool { return Normalize(a) == Normalize(b) }
