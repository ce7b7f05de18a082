package archgen

// The vocabulary is the one of shared/fixtures/archs (README there): 256
// GPT-2 byte tokens in encoder.json order, 72 merged tokens (id 256 + merge
// rank, each the concatenation of its merge pair) and 3 control tokens at
// 328–330 whose text depends on the architecture. Only the merges are
// literals: they were read once out of shared/fixtures/archs/gemma2.gguf
// (tokenizer.ggml.merges) so that a test can compare this vocabulary with
// the older fixtures' token for token. Byte tokens are computed.

// merges are the 72 BPE merges in rank order, GPT-2 byte-level spelling
// (Ġ is a space, Ċ a newline).
var merges = [...]string{
	"h e", "Ġ t", "Ġt he", "Ġ i", "Ġ a", "2 0", "n d", "T he", "o r", "Ġ f",
	"Ġ s", "Ġ w", "Ġa nd", "20 0", "l l", "r e", "Ġ The", "Ġ o", "Ġi s", "Ġthe n",
	"1 0", "20 2", "a t", "e ll", "e r", "h o", "o w", "ow n", "Ġi n", ". .",
	"10 0", "H ell", "Hell o", "d o", "do g", "e s", "h at", "he r", "l d", "l e",
	"n i", "o x", "p e", "p s", "u m", "u n", "v er", "Ġ Hello", "Ġ I", "Ġ W",
	"Ġ b", "Ġ c", "Ġ dog", "Ġ ho", "Ġ n", "Ġ r", "Ġa t", "Ġf i", "Ġf ox", "Ġi t",
	"Ġt own", "Ġw e", "\" ;", "' re", "' s", "- -", ". Ċ", ".. .", ".Ċ Ċ", "? !",
	"a d", "a i",
}

const (
	nByteTokens = 256
	nVocab      = nByteTokens + len(merges) + 3
	// firstSpecial is the id of the first of the three control tokens.
	firstSpecial = nByteTokens + len(merges)
)

// Token types as llama.cpp numbers them.
const (
	tokenNormal  = 1
	tokenControl = 3
)

// tokenBytes[id] is the byte of byte token id; tokenRunes[id] its spelling.
var tokenBytes, tokenRunes = byteOrder()

// byteOrder returns the 256 bytes in GPT-2 encoder.json order (the id of
// each byte token) and, for each, the printable rune GPT-2 spells it with.
// Bytes that print as themselves come first, then the rest, mapped to
// U+0100 onwards (bytes_to_unicode).
func byteOrder() (bytes [nByteTokens]byte, runes [nByteTokens]rune) {
	n := 0
	self := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	for b := range nByteTokens {
		if self(b) {
			bytes[n], runes[n] = byte(b), rune(b)
			n++
		}
	}
	extra := rune(0x100)
	for b := range nByteTokens {
		if !self(b) {
			bytes[n], runes[n] = byte(b), extra
			n++
			extra++
		}
	}
	return bytes, runes
}

// vocab returns the token texts and types for the given control tokens.
func vocab(specials [3]string) (tokens []string, types []int32) {
	tokens = make([]string, 0, nVocab)
	types = make([]int32, 0, nVocab)
	for _, r := range tokenRunes {
		tokens = append(tokens, string(r))
		types = append(types, tokenNormal)
	}
	for _, m := range merges {
		tokens = append(tokens, mergedText(m))
		types = append(types, tokenNormal)
	}
	for _, s := range specials {
		tokens = append(tokens, s)
		types = append(types, tokenControl)
	}
	return tokens, types
}

// mergedText is the token a merge "a b" produces: "ab".
func mergedText(m string) string {
	for i := range len(m) {
		if m[i] == ' ' {
			return m[:i] + m[i+1:]
		}
	}
	return m
}

// rareToken reports whether a token's rows of token_embd and output get a
// tiny scale, so that it (almost) never wins the argmax: the control tokens
// (no EOS handling needed to reproduce a greedy run) and the byte tokens
// that are not printable ASCII, newline or space. A generated lone byte
// ≥ 0x80 is not valid UTF-8, and llama.node takes prompts as text only, so
// a greedy prefix containing one cannot be fed back to llama.cpp to read
// its distribution at later steps; keeping such bytes out of the greedy
// runs lets the reference harness measure the top-2 margin at more steps.
func rareToken(id int) bool {
	if id >= firstSpecial {
		return true
	}
	if id >= nByteTokens {
		return false // merged tokens are ASCII
	}
	b := tokenBytes[id]
	return !(b == '\n' || (b >= ' ' && b <= '~'))
}
