package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// The tables in nfc_tables.go were generated once from Python's unicodedata
// (see that file's header); they are immutable.

// Hangul syllable constants (Unicode §3.12).
const (
	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

func inRanges(r rune, tab [][2]rune) bool {
	i := sort.Search(len(tab), func(i int) bool { return tab[i][1] >= r })
	return i < len(tab) && tab[i][0] <= r
}

// nfcMaybe reports whether NFC may decompose r or compose it with a
// preceding rune.
func nfcMaybe(r rune) bool { return r >= 0x300 && inRanges(r, nfcUnsafe[:]) }

func combiningClass(r rune) int32 {
	if r < 0x300 {
		return 0
	}
	i := sort.Search(len(cccRanges), func(i int) bool { return rune(cccRanges[i][1]) >= r })
	if i < len(cccRanges) && rune(cccRanges[i][0]) <= r {
		return cccRanges[i][2]
	}
	return 0
}

// nfcQuick reports whether s is certainly in NFC: no rune in it can be
// decomposed, reordered or composed with a neighbour.
func nfcQuick(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xCC { // lead byte of a rune ≥ U+0300
			goto slow
		}
	}
	return true
slow:
	for _, r := range s {
		if nfcMaybe(r) {
			return false
		}
	}
	return true
}

// nfc returns s in Unicode Normalization Form C, as the Hugging Face NFC
// normaliser of Qwen2/Qwen3 tokenizers does. Invalid UTF-8 bytes are kept.
func (st *bpeState) nfc(s string) string {
	if nfcQuick(s) {
		return s
	}
	// Decompose, keeping invalid bytes as themselves (marked by -1-byte).
	rs := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			rs = append(rs, -1-rune(s[i]))
			i++
			continue
		}
		i += n
		if !nfcMaybe(r) {
			rs = append(rs, r)
			continue
		}
		rs = appendDecomposed(rs, r)
	}
	// Canonical ordering: stable sort of each run of non-starters.
	for i := 0; i < len(rs); {
		if rs[i] < 0 || combiningClass(rs[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j] >= 0 && combiningClass(rs[j]) != 0 {
			j++
		}
		for k := i + 1; k < j; k++ { // stable insertion sort: runs are short
			for m := k; m > i && combiningClass(rs[m-1]) > combiningClass(rs[m]); m-- {
				rs[m-1], rs[m] = rs[m], rs[m-1]
			}
		}
		i = j
	}
	// Canonical composition.
	out := rs[:0]
	starter := -1 // index in out of the last starter
	var lastCCC int32 = -1
	for _, r := range rs {
		if r < 0 {
			out = append(out, r)
			starter, lastCCC = -1, -1
			continue
		}
		ccc := combiningClass(r)
		if starter >= 0 && nfcMaybe(r) && (lastCCC < ccc || lastCCC == 0 && len(out)-1 == starter) {
			if c, ok := compose(out[starter], r); ok {
				out[starter] = c
				continue
			}
		}
		if ccc == 0 {
			starter = len(out)
			lastCCC = 0
		} else {
			lastCCC = ccc
		}
		out = append(out, r)
	}
	b := st.norm[:0]
	for _, r := range out {
		if r < 0 {
			b = append(b, byte(-1-r))
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	st.norm = b
	return string(b)
}

func appendDecomposed(rs []rune, r rune) []rune {
	if s := r - hangulSBase; 0 <= s && s < hangulSCount {
		rs = append(rs, hangulLBase+s/hangulNCount, hangulVBase+(s%hangulNCount)/hangulTCount)
		if t := s % hangulTCount; t != 0 {
			rs = append(rs, hangulTBase+t)
		}
		return rs
	}
	if d, ok := decompTable[r]; ok {
		return append(rs, d...)
	}
	return append(rs, r)
}

func compose(a, b rune) (rune, bool) {
	if l := a - hangulLBase; 0 <= l && l < hangulLCount {
		if v := b - hangulVBase; 0 <= v && v < hangulVCount {
			return hangulSBase + (l*hangulVCount+v)*hangulTCount, true
		}
	}
	if s := a - hangulSBase; 0 <= s && s < hangulSCount && s%hangulTCount == 0 {
		if t := b - hangulTBase; 0 < t && t < hangulTCount {
			return a + t, true
		}
	}
	c, ok := composeTable[uint64(a)<<21|uint64(b)]
	return c, ok
}
