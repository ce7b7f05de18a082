package tokenizer

import (
	"fmt"
	"slices"
	"strings"
)

// EncodeOptions controls Encode and EncodePrompt.
type EncodeOptions struct {
	// AddSpecial adds BOS and EOS where the model's metadata asks for them
	// (tokenizer.ggml.add_bos_token / add_eos_token), as llama.cpp's
	// tokenize(add_special=true).
	AddSpecial bool
}

// Span is the byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// Encode tokenises text as plain text: control-token text in it (such as
// "<|im_end|>" or "<s>") becomes ordinary tokens, never the control token.
// Use it for everything a user typed. Only USER_DEFINED added tokens (such
// as Qwen3's "<think>") are matched whole, as llama.cpp's
// parse_special=false does.
func (t *Tokenizer) Encode(text string, opts EncodeOptions) ([]int32, error) {
	return t.encode(text, nil, false, opts), nil
}

// EncodeMarkup tokenises trusted text, such as a chat template's own markup
// or a configured stop sequence, turning every control-token text in it
// into the control token (llama.cpp's parse_special=true). Never pass user
// input here; use EncodePrompt for a rendered conversation.
func (t *Tokenizer) EncodeMarkup(text string, opts EncodeOptions) ([]int32, error) {
	return t.encode(text, nil, true, opts), nil
}

// EncodePrompt tokenises a rendered prompt whose byte ranges in user came
// from users (message contents). Control-token text is matched only where
// it lies wholly outside those ranges, so a user who types "<|im_end|>"
// gets its plain-text tokens. Apart from that the result is what
// EncodeMarkup gives: text between control tokens is tokenised as one
// fragment, so user content and markup merge exactly as in the reference.
// The spans must lie within text; they may be unsorted or overlap.
func (t *Tokenizer) EncodePrompt(text string, user []Span, opts EncodeOptions) ([]int32, error) {
	spans := slices.Clone(user)
	for _, s := range spans {
		if s.Start < 0 || s.End < s.Start || s.End > len(text) {
			return nil, fmt.Errorf("tokenizer: user span [%d,%d) outside the %d-byte prompt", s.Start, s.End, len(text))
		}
	}
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	// Merge overlapping or touching spans so the check is one search.
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, s.End)
			continue
		}
		merged = append(merged, s)
	}
	return t.encode(text, merged, true, opts), nil
}

// encoder holds the scratch space of one encode call.
type encoder struct {
	spm spmState
	bpe bpeState
}

func (t *Tokenizer) encode(text string, user []Span, parseSpecial bool, opts EncodeOptions) []int32 {
	out := make([]int32, 0, len(text)/3+2)
	if opts.AddSpecial && t.AddBOS() {
		out = append(out, t.bos)
	}
	var e encoder
	prevSpecial := true // SentencePiece: the first fragment gets the dummy prefix
	raw := func(s string) {
		if s == "" {
			return
		}
		switch t.model {
		case ModelSPM:
			out = t.encodeSPM(&e.spm, s, prevSpecial, out)
		case ModelBPE:
			out = t.encodeBPE(&e.bpe, s, out)
		}
		prevSpecial = false
	}
	idx := &t.user
	if parseSpecial {
		idx = &t.all
	}
	last := 0
	for i := 0; i < len(text); i++ {
		cands := idx.first[text[i]]
		if len(cands) == 0 {
			continue
		}
		for _, id := range cands {
			tok := t.tokens[id]
			if !strings.HasPrefix(text[i:], tok) {
				continue
			}
			if t.types[id] != TypeUserDefined && overlaps(user, i, i+len(tok)) {
				continue
			}
			raw(text[last:i])
			out = append(out, id)
			prevSpecial = true
			i += len(tok) - 1
			last = i + 1
			break
		}
	}
	raw(text[last:])
	if opts.AddSpecial && t.AddEOS() {
		out = append(out, t.eos)
	}
	return out
}

// overlaps reports whether [start, end) intersects one of the sorted,
// disjoint spans.
func overlaps(spans []Span, start, end int) bool {
	if len(spans) == 0 {
		return false
	}
	// First span that ends after start.
	i, _ := slices.BinarySearchFunc(spans, start, func(s Span, x int) int {
		if s.End <= x {
			return -1
		}
		return 1
	})
	return i < len(spans) && spans[i].Start < end && spans[i].End > start
}

// specialIndex finds added tokens by their first byte, longest first.
type specialIndex struct {
	first [256][]int32
}

func (t *Tokenizer) initSpecials() {
	for id, ty := range t.types {
		s := t.tokens[id]
		if s == "" {
			continue
		}
		switch ty {
		case TypeControl, TypeUnknown:
			t.all.first[s[0]] = append(t.all.first[s[0]], int32(id))
		case TypeUserDefined:
			t.all.first[s[0]] = append(t.all.first[s[0]], int32(id))
			t.user.first[s[0]] = append(t.user.first[s[0]], int32(id))
		}
	}
	byLen := func(a, b int32) int {
		if d := len(t.tokens[b]) - len(t.tokens[a]); d != 0 {
			return d
		}
		return int(a - b)
	}
	for b := range 256 {
		slices.SortFunc(t.all.first[b], byLen)
		slices.SortFunc(t.user.first[b], byLen)
	}
}
