package grammar

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Bounds on what a matcher caches before it starts over from its current
// state; both are far above what a JSON-schema grammar reaches.
const (
	maxStates   = 1 << 14
	maxNodes    = 1 << 20
	maskSlots   = 64 // cached masks; 16 KiB each at a 128k vocabulary
	unknown     = -2 // transition not computed yet
	dead        = -1 // transition to the empty set of stacks
	acceptStack = 0  // the empty stack: the root rule is complete
)

// stackNode is one frame of a pushdown stack: a position in the program
// and the frame below it (0: none). Frames are interned, so stacks share
// their tails and two stacks are equal exactly when their top ids are.
type stackNode struct {
	pos, parent int32
}

// Matcher tracks where generation stands in a grammar and says which tokens
// may come next. Internally it runs the grammar as a pushdown automaton
// over bytes, determinised lazily: a state is an interned set of stacks, and
// each (state, byte class) transition is computed once and cached. Masks are
// computed by walking the vocabulary trie with those transitions and cached
// per state. A Matcher is not safe for concurrent use; the Grammar and Vocab
// it reads are.
type Matcher struct {
	p *program
	v *Vocab

	nodes   []stackNode // node 0 is the empty stack
	nodeIdx map[uint64]int32

	stOff    []int32 // state s's stacks are stData[stOff[s]:stOff[s+1]], sorted
	stData   []int32
	stIdx    map[string]int32
	stAccept []bool  // state holds the empty stack
	trans    []int32 // trans[s*nc+class]: next state, or unknown or dead
	nc       int
	// loop[s] is the set of ASCII bytes that lead from s back to s, and
	// uni[s] whether every multi-byte character does too; both are computed
	// on first use (loopKnown). A trie subtree spelled only with such bytes
	// and characters is allowed whole: the common case inside a string.
	loop      [][2]uint64
	uni       []bool
	loopKnown []bool

	maskOf    []int32 // per state: the mask cache slot holding its mask, or -1
	slots     []Mask
	slotState []int32
	nextSlot  int

	start, cur int32
	ended      bool // an end-of-generation token was accepted

	// limits of the caches, maxStates and maxNodes but for tests
	stateLimit, nodeLimit int

	// scratch, reused so that steps do not allocate
	work  []stackNode
	seen  map[uint64]struct{}
	out   []int32
	key   []byte
	depth []int32
	chain []int32
	runs  []tokenRun
}

// tokenRun is a stretch nodeToks[start:end] of the vocabulary's tokens in
// trie order that a mask walk found all allowed or all refused.
type tokenRun struct {
	start, end int32
	allowed    bool
}

// NewMatcher returns a matcher at the start of g, for the tokens of v.
func NewMatcher(g *Grammar, v *Vocab) *Matcher {
	m := &Matcher{
		p:       &g.prog,
		v:       v,
		nc:      g.prog.nClasses,
		nodeIdx: map[uint64]int32{},
		stIdx:   map[string]int32{},
		seen:    map[uint64]struct{}{},
		depth:   make([]int32, v.maxDepth+1),

		stateLimit: maxStates,
		nodeLimit:  maxNodes,
	}
	m.clearTables()
	m.start = m.initial()
	m.cur = m.start
	return m
}

func (m *Matcher) clearTables() {
	m.nodes = append(m.nodes[:0], stackNode{})
	clear(m.nodeIdx)
	m.stOff = append(m.stOff[:0], 0)
	m.stData = m.stData[:0]
	clear(m.stIdx)
	m.stAccept = m.stAccept[:0]
	m.trans = m.trans[:0]
	m.maskOf = m.maskOf[:0]
	m.loop = m.loop[:0]
	m.uni = m.uni[:0]
	m.loopKnown = m.loopKnown[:0]
	for i := range m.slotState {
		m.slotState[i] = -1
	}
}

// initial computes the start state: the root rule's alternatives, expanded.
func (m *Matcher) initial() int32 {
	m.out = m.out[:0]
	clear(m.seen)
	m.work = m.work[:0]
	r := m.p.root
	for _, a := range m.p.altPos[m.p.altOff[r]:m.p.altOff[r+1]] {
		m.work = append(m.work, stackNode{a, 0})
	}
	m.closure()
	return m.intern()
}

// Reset returns the matcher to the start of the grammar. Its caches stay.
func (m *Matcher) Reset() {
	m.cur = m.start
	m.ended = false
}

// Done reports whether the text so far is a complete match of the root rule
// (generation may stop here, though the grammar may also allow more).
func (m *Matcher) Done() bool { return m.ended || m.stAccept[m.cur] }

// internNode returns the id of frame (pos, parent).
func (m *Matcher) internNode(pos, parent int32) int32 {
	k := uint64(uint32(pos))<<32 | uint64(uint32(parent))
	if id, ok := m.nodeIdx[k]; ok {
		return id
	}
	m.nodes = append(m.nodes, stackNode{pos, parent})
	id := int32(len(m.nodes) - 1)
	m.nodeIdx[k] = id
	return id
}

// closure expands the configurations in m.work, each "at position pos with
// frame parent below", into stacks whose top is a byte element, appending
// their ids to m.out: a rule reference pushes its continuation (unless the
// reference ends its alternative: a tail call) and branches into the rule's
// alternatives; the end of an alternative pops to the frame below, or, with
// none below, yields the empty stack. Left recursion is refused at parse
// time, so this terminates; m.seen stops configurations reached twice.
func (m *Matcher) closure() {
	p := m.p
	for len(m.work) > 0 {
		c := m.work[len(m.work)-1]
		m.work = m.work[:len(m.work)-1]
		for {
			k := uint64(uint32(c.pos))<<32 | uint64(uint32(c.parent))
			if _, ok := m.seen[k]; ok {
				break
			}
			m.seen[k] = struct{}{}
			e := p.elems[c.pos]
			if e.kind == elemBytes {
				m.out = append(m.out, m.internNode(c.pos, c.parent))
				break
			}
			if e.kind == elemEnd {
				if c.parent == 0 {
					m.out = append(m.out, acceptStack)
					break
				}
				c = m.nodes[c.parent]
				continue
			}
			below := c.parent
			if p.elems[c.pos+1].kind != elemEnd {
				below = m.internNode(c.pos+1, c.parent)
			}
			for _, a := range p.altPos[p.altOff[e.arg]:p.altOff[e.arg+1]] {
				m.work = append(m.work, stackNode{a, below})
			}
			break
		}
	}
}

// intern turns m.out into a state id: sorted, deduplicated, and looked up
// or added. An empty set is dead.
func (m *Matcher) intern() int32 {
	if len(m.out) == 0 {
		return dead
	}
	slices.Sort(m.out)
	m.out = slices.Compact(m.out)
	m.key = m.key[:0]
	for _, id := range m.out {
		m.key = binary.LittleEndian.AppendUint32(m.key, uint32(id))
	}
	if s, ok := m.stIdx[string(m.key)]; ok {
		return s
	}
	s := int32(len(m.stOff) - 1)
	m.stData = append(m.stData, m.out...)
	m.stOff = append(m.stOff, int32(len(m.stData)))
	m.stIdx[string(m.key)] = s
	m.stAccept = append(m.stAccept, m.out[0] == acceptStack)
	for range m.nc {
		m.trans = append(m.trans, unknown)
	}
	m.maskOf = append(m.maskOf, -1)
	m.loop = append(m.loop, [2]uint64{})
	m.uni = append(m.uni, false)
	m.loopKnown = append(m.loopKnown, false)
	return s
}

// utf8Shapes are the byte ranges of UTF-8's well-formed sequences of two
// to four bytes (the Unicode standard's table 3-7).
var utf8Shapes = [...][]byteRange{
	{{0xC2, 0xDF}, {0x80, 0xBF}},
	{{0xE0, 0xE0}, {0xA0, 0xBF}, {0x80, 0xBF}},
	{{0xE1, 0xEC}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xED, 0xED}, {0x80, 0x9F}, {0x80, 0xBF}},
	{{0xEE, 0xEF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF0, 0xF0}, {0x90, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF1, 0xF3}, {0x80, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}},
	{{0xF4, 0xF4}, {0x80, 0x8F}, {0x80, 0xBF}, {0x80, 0xBF}},
}

// selfLoop computes loop[s] and uni[s].
func (m *Matcher) selfLoop(s int32) {
	var l [2]uint64
	for b := range 0x80 {
		if m.next(s, byte(b)) == s {
			l[b>>6] |= 1 << (b & 63)
		}
	}
	m.loop[s] = l
	uni := true
	for _, shape := range utf8Shapes {
		if !m.allReturn(s, s, shape) {
			uni = false
			break
		}
	}
	m.uni[s] = uni
	m.loopKnown[s] = true
}

// allReturn reports whether every byte sequence drawn from ranges leads
// from state at to home without dying. Transitions depend only on a byte's
// class, so one byte per class present in a range stands for the rest.
func (m *Matcher) allReturn(home, at int32, ranges []byteRange) bool {
	if len(ranges) == 0 {
		return at == home
	}
	var tried bitset256
	for b := int(ranges[0].lo); b <= int(ranges[0].hi); b++ {
		c := int(m.p.classOf[b])
		if tried.has(c) {
			continue
		}
		tried.add(c)
		t := m.next(at, byte(b))
		if t == dead || !m.allReturn(home, t, ranges[1:]) {
			return false
		}
	}
	return true
}

// step computes and caches the transition of state s on byte class c.
func (m *Matcher) step(s int32, c int) int32 {
	p := m.p
	m.out = m.out[:0]
	m.work = m.work[:0]
	clear(m.seen)
	for _, id := range m.stData[m.stOff[s]:m.stOff[s+1]] {
		if id == acceptStack {
			continue
		}
		n := m.nodes[id]
		if p.sets[p.elems[n.pos].arg].has(c) {
			m.work = append(m.work, stackNode{n.pos + 1, n.parent})
		}
	}
	m.closure()
	t := m.intern()
	m.trans[int(s)*m.nc+c] = t
	return t
}

// next returns the state after byte b from state s (dead if none).
func (m *Matcher) next(s int32, b byte) int32 {
	c := int(m.p.classOf[b])
	t := m.trans[int(s)*m.nc+c]
	if t == unknown {
		t = m.step(s, c)
	}
	return t
}

// walk feeds bytes from state s and returns the state reached, or dead.
func (m *Matcher) walk(s int32, text []byte) int32 {
	for _, b := range text {
		if s = m.next(s, b); s == dead {
			return dead
		}
	}
	return s
}

// Allows reports whether token id may come next, without a mask.
func (m *Matcher) Allows(id int32) bool {
	m.maybeCompact()
	if m.ended || id < 0 || int(id) >= m.v.n {
		return false
	}
	if m.v.isEOG[id] {
		return m.stAccept[m.cur]
	}
	t := m.v.token(id)
	return len(t) > 0 && m.walk(m.cur, t) != dead
}

// Accept advances past token id, or returns an error (and stays put) if
// the grammar does not allow it here. An end-of-generation token is
// accepted where the root is complete, and ends the match.
func (m *Matcher) Accept(id int32) error {
	m.maybeCompact()
	if m.ended {
		return fmt.Errorf("grammar: token %d comes after the end of generation", id)
	}
	if id < 0 || int(id) >= m.v.n {
		return fmt.Errorf("grammar: token %d is outside the vocabulary of %d tokens", id, m.v.n)
	}
	if m.v.isEOG[id] {
		if !m.stAccept[m.cur] {
			return fmt.Errorf("grammar: end-of-generation token %d comes before the grammar is complete", id)
		}
		m.ended = true
		return nil
	}
	t := m.v.token(id)
	if len(t) == 0 {
		return fmt.Errorf("grammar: token %d has no text and is never allowed", id)
	}
	s := m.walk(m.cur, t)
	if s == dead {
		return fmt.Errorf("grammar: token %d (%q) is not allowed here", id, t)
	}
	m.cur = s
	return nil
}

// AcceptBytes advances past text as if it had been generated, or returns
// an error (and stays put) if the grammar does not allow it. It is how a
// caller forces a prefix, and how tests feed documents.
func (m *Matcher) AcceptBytes(text []byte) error {
	m.maybeCompact()
	if m.ended {
		return fmt.Errorf("grammar: text %q comes after the end of generation", text)
	}
	s := m.cur
	for i, b := range text {
		if s = m.next(s, b); s == dead {
			return fmt.Errorf("grammar: byte %d of %q is not allowed here", i, text)
		}
	}
	m.cur = s
	return nil
}

// NewMask returns a mask sized for the matcher's vocabulary.
func (m *Matcher) NewMask() Mask { return NewMask(m.v.n) }

// Allowed sets dst to the tokens that may come next: text tokens whose
// bytes the grammar can continue with, and the end-of-generation tokens
// where the root is complete. dst must come from Matcher.NewMask or NewMask
// with the vocabulary's size (a shorter one panics). The mask of a state is
// computed once, by a depth-first walk of the vocabulary trie that drops a
// subtree at the first byte no stack accepts, and kept in a small cache.
func (m *Matcher) Allowed(dst Mask) {
	m.maybeCompact()
	if m.ended {
		clear(dst)
		return
	}
	s := m.cur
	if slot := m.maskOf[s]; slot >= 0 {
		copy(dst, m.slots[slot])
		return
	}
	m.fill(dst, s)
	// Keep it: slots are filled once and then reused round-robin.
	var slot int
	if len(m.slots) < maskSlots {
		m.slots = append(m.slots, slices.Clone(dst))
		m.slotState = append(m.slotState, s)
		slot = len(m.slots) - 1
	} else {
		slot = m.nextSlot
		m.nextSlot = (m.nextSlot + 1) % maskSlots
		if old := m.slotState[slot]; old >= 0 && int(old) < len(m.maskOf) {
			m.maskOf[old] = -1
		}
		copy(m.slots[slot], dst)
		m.slotState[slot] = s
	}
	m.maskOf[s] = int32(slot)
}

// fill computes the mask of state s by walking the trie. The walk visits
// the trie in preorder, so the token runs it settles (a node's own tokens,
// a subtree taken whole, a dead subtree skipped) tile the trie's token list
// in order; it records them as alternating allowed and refused runs and
// then writes whichever side is smaller: the allowed tokens into an empty
// mask, or the refused ones out of the mask of all text tokens.
func (m *Matcher) fill(dst Mask, s int32) {
	v := m.v
	classOf := &m.p.classOf
	nc := m.nc
	trans := m.trans
	st := m.depth
	st[0] = s
	m.runs = append(m.runs[:0], tokenRun{})
	run := &m.runs[0]
	nAllowed := int32(0)
	// settle records that the tokens from run.end up to end share a fate.
	settle := func(end int32, allowed bool) {
		if end == run.end {
			return
		}
		if allowed != run.allowed {
			m.runs = append(m.runs, tokenRun{start: run.end, end: run.end, allowed: allowed})
			run = &m.runs[len(m.runs)-1]
		}
		if allowed {
			nAllowed += end - run.end
		}
		run.end = end
	}
	n := int32(len(v.nodeByte))
	for i := int32(1); i < n; {
		d := v.nodeDepth[i]
		ps := st[d-1]
		if !m.loopKnown[ps] {
			m.selfLoop(ps)
			trans = m.trans
		}
		if l, sub := &m.loop[ps], &v.nodeSub[i]; sub[0]&^l[0] == 0 && sub[1]&^l[1] == 0 &&
			(v.nodeUni[i] == uniNone || v.nodeUni[i] == uniValid && m.uni[ps]) {
			// Every byte and character below comes back to ps (a token cut
			// mid-character is a live prefix): the whole subtree is allowed.
			end := v.nodeEnd[i]
			settle(v.tokStart[end], true)
			i = end
			continue
		}
		c := int(classOf[v.nodeByte[i]])
		t := trans[int(ps)*nc+c]
		if t == unknown {
			t = m.step(ps, c)
			trans = m.trans // step may have grown the table
		}
		if t == dead {
			end := v.nodeEnd[i]
			settle(v.tokStart[end], false)
			i = end
			continue
		}
		st[d] = t
		settle(v.tokStart[i+1], true)
		i++
	}
	if int(nAllowed) <= len(v.nodeToks)/2 {
		clear(dst)
		for _, r := range m.runs {
			if r.allowed {
				for _, id := range v.nodeToks[r.start:r.end] {
					dst[id>>6] |= 1 << (id & 63)
				}
			}
		}
	} else {
		copy(dst, v.textMask)
		for _, r := range m.runs {
			if !r.allowed {
				for _, id := range v.nodeToks[r.start:r.end] {
					dst[id>>6] &^= 1 << (id & 63)
				}
			}
		}
	}
	if m.stAccept[s] {
		for _, id := range v.eog {
			dst.set(id)
		}
	}
}

// maybeCompact starts the caches over, keeping only the current state, when
// they have grown past their bounds; a generation that nests deeper and
// deeper keeps creating new stacks, and this bounds the memory it holds.
// It runs between steps, never inside a mask walk.
func (m *Matcher) maybeCompact() {
	if len(m.stOff)-1 < m.stateLimit && len(m.nodes) < m.nodeLimit {
		return
	}
	// Save the current stacks as chains of positions, bottom last.
	type saved struct{ from, to int }
	var stacks []saved
	m.chain = m.chain[:0]
	for _, id := range m.stData[m.stOff[m.cur]:m.stOff[m.cur+1]] {
		from := len(m.chain)
		for ; id != 0; id = m.nodes[id].parent {
			m.chain = append(m.chain, m.nodes[id].pos)
		}
		stacks = append(stacks, saved{from, len(m.chain)})
	}
	m.clearTables()
	m.out = m.out[:0]
	for _, sv := range stacks {
		id := int32(0)
		for i := sv.to - 1; i >= sv.from; i-- {
			id = m.internNode(m.chain[i], id)
		}
		m.out = append(m.out, id)
	}
	m.cur = m.intern()
	m.start = m.initial()
}

// States returns how many states the matcher has built, a measure of how
// much of the grammar it has explored.
func (m *Matcher) States() int { return len(m.stOff) - 1 }
