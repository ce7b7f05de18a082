package grammar

import "unicode/utf8"

// byteRange is an inclusive range of byte values.
type byteRange struct{ lo, hi byte }

// utf8Sequences appends to out sequences of byte ranges whose
// concatenations are exactly the UTF-8 encodings of the code points lo..hi
// (which must hold no surrogate). A range is split until, within each
// piece, every byte position varies independently over one range: first at
// the boundaries between encoding lengths, then wherever the low 6·i bits
// do not span a whole block of i continuation bytes.
func utf8Sequences(lo, hi rune, out [][]byteRange) [][]byteRange {
	for _, b := range [...]rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= b && b < hi {
			out = utf8Sequences(lo, b, out)
			return utf8Sequences(b+1, hi, out)
		}
	}
	if hi < utf8.RuneSelf {
		return append(out, []byteRange{{byte(lo), byte(hi)}})
	}
	n := utf8.RuneLen(lo)
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m == hi&^m {
			continue
		}
		if lo&m != 0 {
			out = utf8Sequences(lo, lo|m, out)
			return utf8Sequences((lo|m)+1, hi, out)
		}
		if hi&m != m {
			out = utf8Sequences(lo, (hi&^m)-1, out)
			return utf8Sequences(hi&^m, hi, out)
		}
	}
	var a, b [utf8.UTFMax]byte
	utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	seq := make([]byteRange, n)
	for k := range n {
		seq[k] = byteRange{a[k], b[k]}
	}
	return append(out, seq)
}
