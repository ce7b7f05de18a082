package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// initPieces precomputes the bytes every token decodes to, so decoding
// never allocates.
func (t *Tokenizer) initPieces() {
	t.offs = make([]uint32, len(t.tokens)+1)
	t.hidden = make([]bool, len(t.tokens))
	var buf []byte
	for id, s := range t.tokens {
		switch ty := t.types[id]; {
		case ty == TypeControl:
			t.hidden[id] = true
			buf = append(buf, s...)
		case ty == TypeByte:
			if b, ok := parseByteToken(s); ok {
				buf = append(buf, b)
			} else {
				buf = append(buf, s...)
			}
		case ty == TypeUnknown && t.model == ModelSPM:
			buf = append(buf, " \u2047 "...) // sentencepiece's unk surface " ⁇ "
		case ty == TypeUserDefined || ty == TypeUnknown:
			buf = append(buf, s...) // added tokens decode to their content
		case t.model == ModelSPM:
			buf = append(buf, strings.ReplaceAll(s, spaceSym, " ")...)
		default: // byte-level BPE
			for _, r := range s {
				if r < rune(len(charByte)) && charByte[r] >= 0 {
					buf = append(buf, byte(charByte[r]))
				} else {
					buf = utf8.AppendRune(buf, r)
				}
			}
		}
		t.offs[id+1] = uint32(len(buf))
	}
	t.pieces = buf
}

// parseByteToken parses "<0xNN>".
func parseByteToken(s string) (byte, bool) {
	if len(s) != 6 || !strings.HasPrefix(s, "<0x") || s[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(s[3:5], 16, 8)
	return byte(v), err == nil
}

// TokenBytes returns the bytes id decodes to on its own: a byte token's
// byte, a SentencePiece piece with U+2581 as ' ', a byte-level piece's raw
// bytes, a control token's text. It is nil for an id out of range. The
// slice is shared and must not be modified.
func (t *Tokenizer) TokenBytes(id int32) []byte {
	if id < 0 || int(id) >= len(t.tokens) {
		return nil
	}
	return t.pieces[t.offs[id]:t.offs[id+1]:t.offs[id+1]]
}

// DecodeOptions controls decoding.
type DecodeOptions struct {
	// Special renders control tokens as their text ("<|im_end|>", "<s>");
	// by default they are dropped, as sentencepiece's decode does.
	Special bool
	// Continuation says the ids continue text that was already shown (a
	// reply after its prompt), so SentencePiece's leading space is kept.
	// Without it the first piece loses the space the dummy prefix put
	// there, as the reference decoders do at the start of a text.
	Continuation bool
}

// Decode returns the text of ids. Bytes that do not form valid UTF-8 are
// kept as they are.
func (t *Tokenizer) Decode(ids []int32, opts DecodeOptions) string {
	d := t.NewDecoder(opts)
	var out []byte
	for _, id := range ids {
		out = append(out, d.Write(id)...)
	}
	out = append(out, d.Flush()...)
	return string(out)
}

// Decoder turns a stream of ids into text as they are generated. It holds
// back the bytes of a UTF-8 sequence split across tokens until the sequence
// is complete, so every chunk it returns ends on a character boundary
// (bytes that can never complete a character are passed through as they
// are). After the first token it does not allocate.
type Decoder struct {
	t       *Tokenizer
	opts    DecodeOptions
	atStart bool
	pend    [utf8.UTFMax]byte
	npend   int
	out     []byte
}

// NewDecoder returns a streaming decoder.
func (t *Tokenizer) NewDecoder(opts DecodeOptions) *Decoder {
	return &Decoder{t: t, opts: opts, atStart: !opts.Continuation, out: make([]byte, 0, 64)}
}

// Reset returns the decoder to its initial state.
func (d *Decoder) Reset() {
	d.atStart = !d.opts.Continuation
	d.npend = 0
}

// Write adds one token and returns the text that is now complete. The slice
// is valid until the next call on d. Out-of-range ids produce nothing.
func (d *Decoder) Write(id int32) []byte {
	t := d.t
	piece := t.TokenBytes(id)
	if piece == nil {
		return nil
	}
	if t.hidden[id] {
		if !d.opts.Special {
			return nil
		}
	} else {
		if d.atStart && t.model == ModelSPM && t.spacePrefix && t.types[id] != TypeByte &&
			strings.HasPrefix(t.tokens[id], spaceSym) {
			piece = piece[1:]
		}
		d.atStart = false
	}
	buf := append(d.out[:0], d.pend[:d.npend]...)
	buf = append(buf, piece...)
	d.out = buf
	hold := incompleteTail(buf)
	d.npend = copy(d.pend[:], buf[len(buf)-hold:])
	return buf[:len(buf)-hold]
}

// Flush returns the bytes still held (an unfinished UTF-8 sequence) and
// forgets them.
func (d *Decoder) Flush() []byte {
	buf := append(d.out[:0], d.pend[:d.npend]...)
	d.out = buf
	d.npend = 0
	return buf
}

// incompleteTail returns how many bytes at the end of b are the beginning
// of a valid UTF-8 sequence that more bytes could complete.
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		c := b[i]
		if c < utf8.RuneSelf {
			return 0
		}
		if c&0xC0 == 0x80 {
			continue // continuation byte: look further back for the lead
		}
		if !utf8.FullRune(b[i:]) {
			return len(b) - i
		}
		return 0
	}
	return 0
}
