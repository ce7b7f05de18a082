package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// preTokenizer names a word splitter. Go's regexp has no look-ahead, so
// each reference regex is a hand-written scanner: next(s, i) returns the end
// of the pre-token that starts at byte i of s. The scanners try the regex's
// alternatives in order, exactly as a backtracking engine would.
type preTokenizer int

const (
	// preLlama3 is Llama 3's split (llama.cpp "llama-bpe"):
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
	// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
	preLlama3 preTokenizer = iota + 1
	// preQwen2 is the same with \p{N} (one digit per pre-token).
	preQwen2
	// preGPT2 is GPT-2's split:
	// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
	preGPT2
	// preSmolLM isolates every \p{N} first, then applies the GPT-2 split to
	// the rest (llama.cpp "smollm", shared with StarCoder).
	preSmolLM
	// preGPT4o is tiktoken's o200k split (GPT-4o, gpt-oss), with
	// U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and L = [\p{Ll}\p{Lm}\p{Lo}\p{M}]:
	// [^\r\n\p{L}\p{N}]?U*L+C?|[^\r\n\p{L}\p{N}]?U+L*C?|\p{N}{1,3}|
	// ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
	// where C is (?i:'s|'t|'re|'ve|'m|'ll|'d): a contraction belongs to
	// the word before it, and a case change starts a new word.
	preGPT4o
)

// preTokenizers maps tokenizer.ggml.pre values to splitters. ignore is
// llama.cpp's ignore_merges (a pre-token that is itself a vocabulary entry
// is emitted whole); nfc is the NFC normaliser of the Hugging Face
// tokenizer (Qwen2/Qwen3).
var preTokenizers = map[string]struct {
	pre    preTokenizer
	ignore bool
	nfc    bool
}{
	"llama-bpe":        {preLlama3, true, false},
	"llama3":           {preLlama3, true, false},
	"llama-v3":         {preLlama3, true, false},
	"qwen2":            {preQwen2, false, true},
	"deepseek-r1-qwen": {preQwen2, false, true},
	"smollm":           {preSmolLM, false, false},
	"gpt-2":            {preGPT2, false, false},
	// tiktoken looks a whole pre-token up before merging (ignore_merges).
	// llama.cpp runs this split as a std::regex over text whose non-ASCII
	// code points are collapsed to their category, which drops the case
	// of non-ASCII letters and counts combining marks as punctuation
	// ("नमस्ते" becomes three pre-tokens): we follow tiktoken, the
	// tokenizer the model was trained with.
	"gpt-4o":  {preGPT4o, true, false},
	"gpt2":    {preGPT2, false, false},
	"default": {preGPT2, false, false},
	"":        {preGPT2, false, false},
}

// White_Space, \p{L} and \p{N} as the reference regex engines define them.
// unicode.IsSpace is exactly Unicode White_Space (it includes U+0085 and
// NBSP, not U+FEFF, as Rust's and llama.cpp's \s).
func isWS(r rune) bool { return unicode.IsSpace(r) }
func isLetter(r rune) bool {
	return r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') || r >= utf8.RuneSelf && unicode.IsLetter(r)
}
func isNumber(r rune) bool { return '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsNumber(r) }

func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// contraction returns the length of 's 't 're 've 'm 'll 'd at s[i] (which
// is '\”), or 0. fold makes the letters case-insensitive.
func contraction(s string, i int, fold bool) int {
	if i+1 >= len(s) {
		return 0
	}
	lower := func(c byte) byte {
		if fold && 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return 3
		}
	case 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return 3
		}
	}
	return 0
}

// spanWhile returns the end of the run of runes from i that satisfy f.
func spanWhile(s string, i int, f func(rune) bool) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if !f(r) {
			break
		}
		i += n
	}
	return i
}

func isOther(r rune) bool { return !isWS(r) && !isLetter(r) && !isNumber(r) }

// nextLlama3 scans one pre-token of the Llama 3 / Qwen2 split starting at
// s[i]; maxDigits is 3 for Llama 3 and 1 for Qwen2.
func nextLlama3(s string, i int, maxDigits int) int {
	r, n := runeAt(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r == '\'' {
		if l := contraction(s, i, true); l > 0 {
			return i + l
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r) {
		return spanWhile(s, i+n, isLetter)
	}
	if r != '\r' && r != '\n' && !isNumber(r) && i+n < len(s) {
		if r2, n2 := runeAt(s, i+n); isLetter(r2) {
			return spanWhile(s, i+n+n2, isLetter)
		}
	}
	// \p{N}{1,maxDigits}
	if isNumber(r) {
		j := i + n
		for k := 1; k < maxDigits && j < len(s); k++ {
			r2, n2 := runeAt(s, j)
			if !isNumber(r2) {
				break
			}
			j += n2
		}
		return j
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	j := i
	if r == ' ' {
		j = i + 1
	}
	if k := spanWhile(s, j, isOther); k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	if !isWS(r) {
		return i + n // unreachable: every other rune matched above
	}
	return nextSpace(s, i)
}

// nextGPT2 scans one pre-token of the GPT-2 split starting at s[i]. A rune
// no alternative matches (a lone whitespace rune before a word that the
// optional space cannot take) is its own pre-token, as the Isolated split
// keeps unmatched text.
func nextGPT2(s string, i int) int {
	r, n := runeAt(s, i)
	if r == '\'' {
		if l := contraction(s, i, false); l > 0 {
			return i + l
		}
	}
	j := i
	if r == ' ' {
		j = i + 1
	}
	if j < len(s) {
		r2, _ := runeAt(s, j)
		switch {
		case isLetter(r2):
			return spanWhile(s, j, isLetter)
		case isNumber(r2):
			return spanWhile(s, j, isNumber)
		case isOther(r2):
			return spanWhile(s, j, isOther)
		}
	}
	if !isWS(r) {
		return i + n
	}
	// \s+(?!\S)
	end, lastStart := i, i
	for end < len(s) {
		r2, n2 := runeAt(s, end)
		if !isWS(r2) {
			break
		}
		lastStart = end
		end += n2
	}
	if end == len(s) || lastStart == i {
		return end // at the end of the fragment, or an unmatched single rune
	}
	return lastStart
}

// nextSpace scans the whitespace alternatives the Llama 3 and o200k splits
// share, at a whitespace rune s[i]: \s*[\r\n]+|\s+(?!\S)|\s+.
func nextSpace(s string, i int) int {
	// \s*[\r\n]+ : the whitespace run up to its last \r or \n.
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		r2, n2 := runeAt(s, end)
		if !isWS(r2) {
			break
		}
		lastStart = end
		end += n2
		if r2 == '\r' || r2 == '\n' {
			lastNL = end
		}
	}
	if lastNL > 0 {
		return lastNL
	}
	// \s+(?!\S) : the run, less its last rune when a non-space follows.
	if end == len(s) || lastStart == i {
		return end // at the end, or \s+ for a single rune before \S
	}
	return lastStart
}

// split calls word for every pre-token of s in order.
func (p preTokenizer) split(s string, word func(string)) {
	switch p {
	case preLlama3, preQwen2:
		digits := 3
		if p == preQwen2 {
			digits = 1
		}
		for i := 0; i < len(s); {
			j := nextLlama3(s, i, digits)
			word(s[i:j])
			i = j
		}
	case preGPT2:
		for i := 0; i < len(s); {
			j := nextGPT2(s, i)
			word(s[i:j])
			i = j
		}
	case preGPT4o:
		for i := 0; i < len(s); {
			j := nextGPT4o(s, i)
			word(s[i:j])
			i = j
		}
	case preSmolLM:
		for i := 0; i < len(s); {
			if r, n := runeAt(s, i); isNumber(r) {
				word(s[i : i+n])
				i += n
				continue
			}
			seg := s[i:spanWhile(s, i, func(r rune) bool { return !isNumber(r) })]
			for k := 0; k < len(seg); {
				j := nextGPT2(seg, k)
				word(seg[k:j])
				k = j
			}
			i += len(seg)
		}
	}
}

// The letter classes of the o200k split. A combining mark counts as a
// letter of either case, as do modifier and other letters (CJK, kana, …),
// so that a word keeps its marks and caseless scripts run on.
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// gpt4oWord matches U*L+C? (lowerFirst) or U+L*C? at s[p], returning the
// end and whether it matched. For U*L+ a backtracking engine gives back
// letters of the greedy U run until an L letter follows: the match ends
// after the last L letter of the run's prefix, or runs on through the L
// letters after the run.
func gpt4oWord(s string, p int, lowerFirst bool) (int, bool) {
	m := spanWhile(s, p, isUpperish)
	if !lowerFirst && m == p {
		return 0, false // U+ needs one
	}
	var end int
	switch {
	case m < len(s) && isLowerish(firstRune(s, m)):
		end = spanWhile(s, m, isLowerish)
	case !lowerFirst:
		end = m
	default:
		// The last rune of the U run that is also an L letter ends the
		// match (the runes after it are neither, or it would be later).
		end = -1
		for k := p; k < m; {
			r, n := runeAt(s, k)
			if isLowerish(r) {
				end = k + n
			}
			k += n
		}
		if end < 0 {
			return 0, false
		}
	}
	if end < len(s) && s[end] == '\'' {
		end += contraction(s, end, true)
	}
	return end, true
}

func firstRune(s string, i int) rune {
	r, _ := runeAt(s, i)
	return r
}

// nextGPT4o scans one pre-token of the o200k split starting at s[i].
func nextGPT4o(s string, i int) int {
	r, n := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]? before a word: tried with the rune, then without
	// (a combining mark is no \p{L} but can start a word itself).
	prefix := r != '\r' && r != '\n' && !isLetter(r) && !isNumber(r)
	for _, lowerFirst := range []bool{true, false} {
		if prefix && i+n < len(s) {
			if end, ok := gpt4oWord(s, i+n, lowerFirst); ok {
				return end
			}
		}
		if end, ok := gpt4oWord(s, i, lowerFirst); ok {
			return end
		}
	}
	// \p{N}{1,3}
	if isNumber(r) {
		j := i + n
		for k := 1; k < 3 && j < len(s); k++ {
			r2, n2 := runeAt(s, j)
			if !isNumber(r2) {
				break
			}
			j += n2
		}
		return j
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
	j := i
	if r == ' ' {
		j = i + 1
	}
	if k := spanWhile(s, j, isOther); k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
			k++
		}
		return k
	}
	if !isWS(r) {
		return i + n // unreachable: every other rune matched above
	}
	return nextSpace(s, i)
}
