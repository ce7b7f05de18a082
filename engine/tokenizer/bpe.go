package tokenizer

import (
	"golang.org/x/text/unicode/norm"

	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/isagi-lab/isagi/engine/gguf"
)

// byteChar is GPT-2's bytes_to_unicode: the printable rune that stands for
// each byte in a byte-level vocabulary. Bytes that are printable Latin-1
// map to themselves; the other 68 map to U+0100 onwards, in byte order.
var byteChar = func() (m [256]rune) {
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			m[b] = rune(b)
		} else {
			m[b] = 256 + n
			n++
		}
	}
	return m
}()

// charByte inverts byteChar for runes below 0x144; -1 marks a rune that is
// no byte.
var charByte = func() (m [0x144]int16) {
	for i := range m {
		m[i] = -1
	}
	for b, r := range byteChar {
		m[r] = int16(b)
	}
	return m
}()

func (t *Tokenizer) initBPE(f *gguf.File) error {
	pre := "default"
	if _, ok := f.Lookup(keyPre); ok {
		var err error
		if pre, err = f.String(keyPre); err != nil {
			return err
		}
	}
	p, ok := preTokenizers[pre]
	if !ok {
		return fmt.Errorf("%w: pre-tokenizer %s = %q is not implemented (known: llama-bpe, qwen2, gpt-4o, smollm, gpt2, default)", ErrUnsupported, keyPre, pre)
	}
	t.pre, t.preTag, t.ignoreMerges, t.nfc = p.pre, pre, p.ignore, p.nfc

	var buf [4]byte
	for b := range 256 {
		n := utf8.EncodeRune(buf[:], byteChar[b])
		t.byteIDs[b] = NoToken
		if id, ok := t.ids[string(buf[:n])]; ok {
			t.byteIDs[b] = id
		}
	}

	merges, err := f.Strings(keyMerges)
	if err != nil {
		return err
	}
	t.merges = make(map[uint64]merge, len(merges))
	for rank, m := range merges {
		sp := -1
		if len(m) > 1 {
			if k := strings.IndexByte(m[1:], ' '); k >= 0 {
				sp = k + 1
			}
		}
		if sp < 0 {
			return fmt.Errorf("%s[%d] = %q is not \"left right\"", keyMerges, rank, m)
		}
		l, okl := t.ids[m[:sp]]
		r, okr := t.ids[m[sp+1:]]
		res, okres := t.ids[m[:sp]+m[sp+1:]]
		if !okl || !okr || !okres {
			continue // llama.cpp ignores merges whose parts are not tokens
		}
		key := uint64(uint32(l))<<32 | uint64(uint32(r))
		if _, dup := t.merges[key]; !dup {
			t.merges[key] = merge{rank: int32(rank), result: res}
		}
	}
	return nil
}

// bpeBigram is a merge candidate: the symbol at left (with id lid) and its
// successor (id rid) merge with the given rank.
type bpeBigram struct {
	rank, left, lid, rid int32
}

func (a bpeBigram) less(b bpeBigram) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.left < b.left
}

// bpeState is the scratch space of one byte-level encode.
type bpeState struct {
	mapped []byte
	ids    []int32
	next   []int32
	prev   []int32
	heap   []bpeBigram
}

// encodeBPE appends the ids of one raw-text fragment.
func (t *Tokenizer) encodeBPE(st *bpeState, text string, out []int32) []int32 {
	if t.nfc {
		text = norm.NFC.String(text)
	}
	t.pre.split(text, func(w string) { out = t.bpeWord(st, w, out) })
	return out
}

// bpeWord appends the ids of one pre-token.
func (t *Tokenizer) bpeWord(st *bpeState, w string, out []int32) []int32 {
	if t.ignoreMerges || len(w) == 1 {
		m := st.mapped[:0]
		for i := 0; i < len(w); i++ {
			m = utf8.AppendRune(m, byteChar[w[i]])
		}
		st.mapped = m
		if id, ok := t.ids[string(m)]; ok {
			return append(out, id)
		}
	}
	n := len(w)
	ids, next, prev := st.ids[:0], st.next[:0], st.prev[:0]
	for i := 0; i < n; i++ {
		ids = append(ids, t.byteIDs[w[i]])
		next = append(next, int32(i+1))
		prev = append(prev, int32(i-1))
	}
	next[n-1] = -1
	st.ids, st.next, st.prev = ids, next, prev
	st.heap = st.heap[:0]
	for i := 0; i+1 < n; i++ {
		t.bpeTryPair(st, int32(i), int32(i+1))
	}
	for len(st.heap) > 0 {
		bg := st.popBigram()
		l := bg.left
		r := next[l]
		if ids[l] != bg.lid || r < 0 || ids[r] != bg.rid {
			continue // stale
		}
		ids[l] = t.merges[uint64(uint32(bg.lid))<<32|uint64(uint32(bg.rid))].result
		ids[r] = -2 // dead
		next[l] = next[r]
		if next[r] >= 0 {
			prev[next[r]] = l
		}
		if prev[l] >= 0 {
			t.bpeTryPair(st, prev[l], l)
		}
		if next[l] >= 0 {
			t.bpeTryPair(st, l, next[l])
		}
	}
	for i := int32(0); i >= 0; i = next[i] {
		switch {
		case ids[i] >= 0:
			out = append(out, ids[i])
		case t.unk >= 0:
			out = append(out, t.unk) // a byte the vocabulary lacks
		}
	}
	return out
}

func (t *Tokenizer) bpeTryPair(st *bpeState, l, r int32) {
	a, b := st.ids[l], st.ids[r]
	if a < 0 || b < 0 {
		return
	}
	m, ok := t.merges[uint64(uint32(a))<<32|uint64(uint32(b))]
	if !ok {
		return
	}
	st.pushBigram(bpeBigram{rank: m.rank, left: l, lid: a, rid: b})
}

func (st *bpeState) pushBigram(b bpeBigram) { st.heap = heapPush(st.heap, b) }

func (st *bpeState) popBigram() bpeBigram {
	top, h := heapPop(st.heap)
	st.heap = h
	return top
}
