package grammar

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Vocab is a tokenizer vocabulary prepared for matching: every token's
// bytes in a byte trie laid out in depth-first preorder, so that a mask walk
// is one pass over flat arrays that skips a whole subtree with one jump. It
// is read-only after NewVocab and may be shared by any number of matchers.
type Vocab struct {
	n     int
	isEOG []bool
	eog   []int32

	text []byte  // all tokens' bytes
	off  []int32 // token id's bytes are text[off[id]:off[id+1]]

	// The trie, node 0 being the root (the empty prefix). Node i adds byte
	// nodeByte[i] to its parent, at depth nodeDepth[i]; its subtree is
	// nodes i..nodeEnd[i]-1; the tokens spelled exactly by it are
	// nodeToks[tokStart[i]:tokStart[i+1]].
	nodeByte  []byte
	nodeDepth []uint16
	nodeEnd   []int32
	tokStart  []int32
	nodeToks  []int32
	// nodeSub[i] is the set of ASCII bytes in node i's subtree, its own
	// byte included; nodeUni[i] says what else is there: uniNone (nothing),
	// uniValid (multi-byte UTF-8, each token's bytes from node i on being
	// whole characters, the last possibly cut short) or uniInvalid. They let
	// a walk take a whole subtree at once.
	nodeSub [][2]uint64
	nodeUni []uint8
	// textMask holds every token in the trie: the mask a walk starts from
	// when most tokens turn out allowed.
	textMask Mask
	maxDepth int
}

// nodeUni values.
const (
	uniNone uint8 = iota
	uniValid
	uniInvalid
)

// maxTokenLen bounds one token's length; trie depths are uint16.
const maxTokenLen = 1 << 15

// NewVocab prepares a vocabulary: tokens[id] is the bytes token id decodes
// to, and eog lists the end-of-generation ids, which are matched by where
// the grammar may end rather than by their bytes. Tokens that must never be
// produced as text (control tokens, unused slots) should be given as nil or
// empty: an empty token is never allowed.
func NewVocab(tokens [][]byte, eog []int32) (*Vocab, error) {
	v := &Vocab{n: len(tokens), isEOG: make([]bool, len(tokens))}
	for _, id := range eog {
		if id < 0 || int(id) >= len(tokens) {
			return nil, fmt.Errorf("grammar: end-of-generation token %d is outside the vocabulary of %d tokens", id, len(tokens))
		}
		if !v.isEOG[id] {
			v.isEOG[id] = true
			v.eog = append(v.eog, id)
		}
	}
	v.off = make([]int32, len(tokens)+1)
	total := 0
	for id, t := range tokens {
		if len(t) > maxTokenLen {
			return nil, fmt.Errorf("grammar: token %d is %d bytes long, more than the %d a vocabulary may hold", id, len(t), maxTokenLen)
		}
		total += len(t)
		if total > 1<<31-1 {
			return nil, fmt.Errorf("grammar: the vocabulary holds more than 2 GiB of token text")
		}
	}
	v.text = make([]byte, 0, total)
	for id, t := range tokens {
		v.text = append(v.text, t...)
		v.off[id+1] = int32(len(v.text))
	}

	// Sort the text tokens; equal prefixes become shared trie paths.
	ids := make([]int32, 0, len(tokens))
	for id, t := range tokens {
		if len(t) > 0 && !v.isEOG[id] {
			ids = append(ids, int32(id))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int {
		if c := bytes.Compare(v.token(a), v.token(b)); c != 0 {
			return c
		}
		return int(a - b)
	})

	v.nodeByte = append(v.nodeByte, 0)
	v.nodeDepth = append(v.nodeDepth, 0)
	v.nodeEnd = append(v.nodeEnd, 0)
	v.tokStart = append(v.tokStart, 0)
	path := []int32{0}    // path[d] is the node at depth d on the current branch
	parent := []int32{-1} // build-time only
	bad := []bool{false}  // build-time: a token through the node is not UTF-8 from it on
	var prev []byte
	for _, id := range ids {
		t := v.token(id)
		lcp := 0
		for lcp < len(t) && lcp < len(prev) && t[lcp] == prev[lcp] {
			lcp++
		}
		// Close the nodes of the previous branch below the shared prefix.
		for d := len(path) - 1; d > lcp; d-- {
			v.nodeEnd[path[d]] = int32(len(v.nodeByte))
		}
		path = path[:lcp+1]
		for d := lcp; d < len(t); d++ {
			i := int32(len(v.nodeByte))
			v.nodeByte = append(v.nodeByte, t[d])
			v.nodeDepth = append(v.nodeDepth, uint16(d+1))
			v.nodeEnd = append(v.nodeEnd, 0)
			v.tokStart = append(v.tokStart, int32(len(v.nodeToks)))
			parent = append(parent, path[d])
			bad = append(bad, false)
			path = append(path, i)
		}
		// Tokens are added in node order, so the node's token run is the
		// tail of nodeToks; tokStart[i+1] is fixed when the next node opens.
		for k := 1; k <= len(t); k++ {
			if !validUTF8Prefix(t[k-1:]) {
				bad[path[k]] = true
			}
		}
		v.nodeToks = append(v.nodeToks, id)
		v.maxDepth = max(v.maxDepth, len(t))
		prev = t
	}
	for d := len(path) - 1; d >= 0; d-- {
		v.nodeEnd[path[d]] = int32(len(v.nodeByte))
	}
	v.tokStart = append(v.tokStart, int32(len(v.nodeToks)))
	v.textMask = NewMask(v.n)
	for _, id := range v.nodeToks {
		v.textMask.set(id)
	}
	// Subtree byte sets: in preorder every node comes after its parent, so
	// one backward pass folds each node into its parent.
	// Validity is not folded: bad[i] already covers every token through i,
	// read from i on, and a token cut mid-character below i may well be
	// whole characters from i.
	v.nodeSub = make([][2]uint64, len(v.nodeByte))
	v.nodeUni = make([]uint8, len(v.nodeByte))
	for i := len(v.nodeByte) - 1; i > 0; i-- {
		if b := v.nodeByte[i]; b < 0x80 {
			v.nodeSub[i][b>>6] |= 1 << (b & 63)
		} else {
			v.nodeUni[i] = uniValid
		}
		p := parent[i]
		v.nodeSub[p][0] |= v.nodeSub[i][0]
		v.nodeSub[p][1] |= v.nodeSub[i][1]
		if v.nodeUni[i] != uniNone {
			v.nodeUni[p] = uniValid
		}
	}
	for i := range v.nodeUni {
		if bad[i] {
			v.nodeUni[i] = uniInvalid
		}
	}
	return v, nil
}

// token returns id's bytes, shared.
func (v *Vocab) token(id int32) []byte { return v.text[v.off[id]:v.off[id+1]:v.off[id+1]] }

// Size returns the number of tokens.
func (v *Vocab) Size() int { return v.n }

// Nodes returns the number of trie nodes, the root included.
func (v *Vocab) Nodes() int { return len(v.nodeByte) }

// validUTF8Prefix reports whether b is whole UTF-8 characters followed by at
// most one character cut short: what a token may hold if the grammar allows
// any character.
func validUTF8Prefix(b []byte) bool {
	for len(b) > 0 {
		if r, n := utf8.DecodeRune(b); r != utf8.RuneError || n > 1 {
			b = b[n:]
			continue
		}
		if utf8.FullRune(b) {
			return false // invalid, not merely short
		}
		// A short tail: check the bytes it has against UTF-8's ranges.
		lo, hi := byte(0x80), byte(0xBF)
		switch b[0] {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F
		case 0xF0:
			lo = 0x90
		case 0xF4:
			hi = 0x8F
		}
		if b[0] < 0xC2 || b[0] > 0xF4 {
			return false
		}
		for i, c := range b[1:] {
			if i > 0 {
				lo, hi = 0x80, 0xBF
			}
			if c < lo || c > hi {
				return false
			}
		}
		return true
	}
	return true
}
