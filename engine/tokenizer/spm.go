package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// spaceSym is SentencePiece's visible space, U+2581 "▁".
const spaceSym = "\u2581"

func (t *Tokenizer) initSPM(f *gguf.File) error {
	scores, err := f.Float32s(keyScores)
	if err != nil {
		return err
	}
	if len(scores) != len(t.tokens) {
		return fmt.Errorf("%s has %d entries for %d tokens", keyScores, len(scores), len(t.tokens))
	}
	t.scores = scores
	if t.spacePrefix, err = optionalBool(f, keySpacePrefix, true); err != nil {
		return err
	}
	// Chunking is safe when no mergeable piece has U+2581 after another
	// character (true of vocabularies trained with split_by_whitespace).
	t.spmSplit = true
	for id, p := range t.tokens {
		if ty := t.types[id]; ty != TypeNormal && ty != TypeUserDefined && ty != TypeUndefined {
			continue
		}
		if k := strings.Index(strings.TrimLeft(p, spaceSym), spaceSym); k >= 0 {
			t.spmSplit = false
			break
		}
	}
	for b := range 256 {
		t.byteIDs[b] = NoToken
		if id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
			t.byteIDs[b] = id
		}
	}
	return nil
}

// spmPiece looks up a piece the merge loop may produce: normal and
// user-defined pieces only, as sentencepiece's BPE.
func (t *Tokenizer) spmPiece(s []byte) (int32, bool) {
	id, ok := t.ids[string(s)] // no allocation: the compiler special-cases m[string(b)]
	if !ok {
		return 0, false
	}
	switch t.types[id] {
	case TypeNormal, TypeUserDefined, TypeUndefined:
		return id, true
	}
	return 0, false
}

// spmSymbol is one node of the doubly linked list of merged pieces; its
// text is norm[start:end].
type spmSymbol struct {
	start, end int32
	prev, next int32
}

// spmBigram is a merge candidate: symbols left and its successor, whose
// concatenation has length size and the piece score score.
type spmBigram struct {
	score float32
	left  int32
	size  int32
}

// less orders the heap: higher score first, then the leftmost pair.
func (a spmBigram) less(b spmBigram) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.left < b.left
}

// spmState is the scratch space of one SentencePiece encode.
type spmState struct {
	norm  []byte
	chunk []byte // the part of norm being merged
	syms  []spmSymbol
	heap  []spmBigram
}

// encodeSPM appends the ids of one raw-text fragment. prefix adds the
// dummy-prefix space (the fragment starts the text or follows a special
// token).
func (t *Tokenizer) encodeSPM(st *spmState, text string, prefix bool, out []int32) []int32 {
	if text == "" {
		return out
	}
	norm := st.norm[:0]
	if prefix && t.spacePrefix {
		norm = append(norm, spaceSym...)
	}
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' {
			norm = append(norm, spaceSym...)
		} else {
			norm = append(norm, text[i])
		}
	}
	st.norm = norm

	if !t.spmSplit {
		return t.spmChunk(st, norm, out)
	}
	// No piece has "▁" after another character, so no merge crosses the
	// point before a "▁" that follows a non-"▁": encode such chunks
	// separately (same result, a smaller heap).
	start := 0
	for i := 1; i+len(spaceSym) <= len(norm); i++ {
		if string(norm[i:i+len(spaceSym)]) == spaceSym && !(i >= len(spaceSym) && string(norm[i-len(spaceSym):i]) == spaceSym) {
			out = t.spmChunk(st, norm[start:i], out)
			start = i
		}
	}
	return t.spmChunk(st, norm[start:], out)
}

// spmChunk runs the merges over norm and appends the resulting ids.
func (t *Tokenizer) spmChunk(st *spmState, norm []byte, out []int32) []int32 {
	st.chunk = norm
	syms := st.syms[:0]
	for i := 0; i < len(norm); {
		_, n := utf8.DecodeRune(norm[i:])
		syms = append(syms, spmSymbol{start: int32(i), end: int32(i + n), prev: int32(len(syms) - 1), next: int32(len(syms) + 1)})
		i += n
	}
	syms[len(syms)-1].next = -1
	st.syms = syms

	st.heap = st.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		t.spmTryPair(st, int32(i), int32(i+1))
	}
	for len(st.heap) > 0 {
		bg := st.popBigram()
		l := &syms[bg.left]
		if l.end == l.start || l.next < 0 {
			continue
		}
		r := &syms[l.next]
		if r.end == r.start || (l.end-l.start)+(r.end-r.start) != bg.size {
			continue // stale: one side has merged since
		}
		l.end = r.end
		r.end = r.start // mark empty
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		if l.prev >= 0 {
			t.spmTryPair(st, l.prev, bg.left)
		}
		if l.next >= 0 {
			t.spmTryPair(st, bg.left, l.next)
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		s := syms[i]
		piece := norm[s.start:s.end]
		if id, ok := t.spmPiece(piece); ok {
			out = append(out, id)
			continue
		}
		for _, b := range piece {
			if id := t.byteIDs[b]; id >= 0 {
				out = append(out, id)
			} else if t.unk >= 0 {
				out = append(out, t.unk)
			}
		}
	}
	return out
}

func (t *Tokenizer) spmTryPair(st *spmState, left, right int32) {
	l, r := st.syms[left], st.syms[right]
	id, ok := t.spmPiece(st.chunk[l.start:r.end])
	if !ok {
		return
	}
	st.pushBigram(spmBigram{score: t.scores[id], left: left, size: r.end - l.start})
}

func (st *spmState) pushBigram(b spmBigram) { st.heap = heapPush(st.heap, b) }

func (st *spmState) popBigram() spmBigram {
	top, h := heapPop(st.heap)
	st.heap = h
	return top
}
