package grammar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxElems bounds the compiled program, so that repetitions of repetitions
// cannot expand past what a matcher should hold.
const maxElems = 1 << 22

// Element kinds of the compiled program.
const (
	elemEnd   uint8 = iota // end of an alternative
	elemBytes              // one byte from set arg
	elemRef                // rule arg
)

// elem is one element of the compiled program. A position (an index into
// program.elems) is what the matcher's stacks hold.
type elem struct {
	kind uint8
	arg  int32
}

// program is a grammar lowered to bytes: every terminal is one byte drawn
// from a set, and a code point range that needs several bytes in UTF-8 is a
// rule whose alternatives spell its encodings. Rule r's alternatives start
// at the positions altPos[altOff[r]:altOff[r+1]]; each ends with elemEnd.
type program struct {
	elems  []elem
	altOff []int32
	altPos []int32
	// sets are the byte sets, over byte classes: bytes that no set tells
	// apart share a class, so the matcher's transition rows are nClasses
	// wide rather than 256.
	sets     []bitset256
	classOf  [256]uint8
	nClasses int
	root     int32
}

// bitset256 is a set of bytes, or of byte classes.
type bitset256 [4]uint64

func (s *bitset256) has(b int) bool { return s[b>>6]>>(b&63)&1 != 0 }
func (s *bitset256) add(b int)      { s[b>>6] |= 1 << (b & 63) }

// sym is a compiled element before flattening: a byte set or a rule.
type sym struct {
	ref bool
	arg int32
}

// crule is one rule of the program being compiled. Rules 0..n-1 are the
// source rules; the rest are synthesized for groups, repetitions and
// multi-byte classes, and remember where in the source they came from.
type crule struct {
	alts   [][]sym
	origin int    // byte offset of the source construct
	what   string // "rule", "group", "repetition", "class"
	name   string // source rules only
}

type compiler struct {
	src        string
	rules      []crule
	sets       []bitset256 // byte-level
	setIdx     map[bitset256]int32
	classRules map[string]int32
	nElems     int
}

func compile(g *Grammar, src string) (program, error) {
	c := &compiler{src: src, setIdx: map[bitset256]int32{}, classRules: map[string]int32{}}
	c.rules = make([]crule, len(g.rules))
	for i, r := range g.rules {
		c.rules[i] = crule{origin: r.pos, what: "rule", name: r.name}
	}
	for i, r := range g.rules {
		alts := make([][]sym, 0, len(r.alts))
		for _, seq := range r.alts {
			s, err := c.seq(seq)
			if err != nil {
				return program{}, err
			}
			alts = append(alts, s)
		}
		c.rules[i].alts = alts
	}
	if err := c.check(); err != nil {
		return program{}, err
	}
	return c.flatten(int32(g.root)), nil
}

func (c *compiler) grow(n int) error {
	c.nElems += n
	if c.nElems > maxElems {
		return fmt.Errorf("grammar: the grammar expands to more than %d elements once its repetitions are unrolled; use smaller repetition counts", maxElems)
	}
	return nil
}

func (c *compiler) newRule(origin int, what string) int32 {
	c.rules = append(c.rules, crule{origin: origin, what: what})
	return int32(len(c.rules) - 1)
}

func (c *compiler) set(s bitset256) sym {
	if i, ok := c.setIdx[s]; ok {
		return sym{arg: i}
	}
	c.sets = append(c.sets, s)
	i := int32(len(c.sets) - 1)
	c.setIdx[s] = i
	return sym{arg: i}
}

func (c *compiler) byteSym(lo, hi byte) sym {
	var s bitset256
	for b := int(lo); b <= int(hi); b++ {
		s.add(b)
	}
	return c.set(s)
}

func (c *compiler) seq(items []item) ([]sym, error) {
	var out []sym
	for k := range items {
		s, err := c.item(&items[k])
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, c.grow(len(out) + 1)
}

func (c *compiler) item(it *item) ([]sym, error) {
	switch it.kind {
	case itemLiteral:
		var out []sym
		var buf [utf8.UTFMax]byte
		for _, r := range it.runes {
			n := utf8.EncodeRune(buf[:], r)
			for _, b := range buf[:n] {
				out = append(out, c.byteSym(b, b))
			}
		}
		return out, nil
	case itemClass, itemAny:
		ranges := classRanges(it)
		if len(ranges) == 0 {
			return nil, errAt(c.src, it.pos, "the character class %s matches no character", near(c.src, it.pos))
		}
		return []sym{c.class(ranges, it.pos)}, nil
	case itemRef:
		return []sym{{ref: true, arg: int32(it.rule)}}, nil
	case itemGroup:
		if len(it.alts) == 1 {
			return c.seq(it.alts[0])
		}
		r := c.newRule(it.pos, "group")
		alts := make([][]sym, 0, len(it.alts))
		for _, seq := range it.alts {
			s, err := c.seq(seq)
			if err != nil {
				return nil, err
			}
			alts = append(alts, s)
		}
		c.rules[r].alts = alts
		return []sym{{ref: true, arg: r}}, nil
	case itemRepeat:
		return c.repeat(it)
	}
	return nil, fmt.Errorf("grammar: internal error: unknown item kind %d", it.kind)
}

// repeat lowers S{m,n} the way llama.cpp does: S copied m times, then a
// chain of optional rules R(k) ::= S R(k-1) | ε for the n-m optional copies,
// or R ::= S R | ε when there is no maximum. Every recursion is in tail
// position, so the matcher's stacks do not grow with the count.
func (c *compiler) repeat(it *item) ([]sym, error) {
	s, err := c.item(it.sub)
	if err != nil {
		return nil, err
	}
	copies := it.min + max(it.max-it.min, 1)
	if len(s) > 1 && len(s)*copies > 64 {
		// A long body copied many times: share it as one rule.
		w := c.newRule(it.pos, "repetition")
		c.rules[w].alts = [][]sym{s}
		s = []sym{{ref: true, arg: w}}
	}
	var out []sym
	for range it.min {
		out = append(out, s...)
	}
	if err := c.grow(len(out)); err != nil {
		return nil, err
	}
	if it.max == -1 {
		r := c.newRule(it.pos, "repetition")
		body := append(slices.Clone(s), sym{ref: true, arg: r})
		c.rules[r].alts = [][]sym{body, nil}
		return append(out, sym{ref: true, arg: r}), c.grow(len(body) + 2)
	}
	prev := int32(-1)
	for range it.max - it.min {
		r := c.newRule(it.pos, "repetition")
		body := slices.Clone(s)
		if prev >= 0 {
			body = append(body, sym{ref: true, arg: prev})
		}
		c.rules[r].alts = [][]sym{body, nil}
		if err := c.grow(len(body) + 2); err != nil {
			return nil, err
		}
		prev = r
	}
	if prev >= 0 {
		out = append(out, sym{ref: true, arg: prev})
	}
	return out, nil
}

// classRanges returns the code points an itemClass or itemAny matches, as
// sorted, disjoint ranges of Unicode scalar values (surrogates excluded:
// they have no UTF-8 encoding).
func classRanges(it *item) []runeRange {
	var rs []runeRange
	if it.kind == itemAny {
		rs = []runeRange{{0, utf8.MaxRune}}
	} else {
		rs = slices.Clone(it.ranges)
		slices.SortFunc(rs, func(a, b runeRange) int { return int(a.lo - b.lo) })
		merged := rs[:0]
		for _, r := range rs {
			if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
				merged[n-1].hi = max(merged[n-1].hi, r.hi)
			} else {
				merged = append(merged, r)
			}
		}
		rs = merged
		if it.negated {
			var neg []runeRange
			next := rune(0)
			for _, r := range rs {
				if r.lo > next {
					neg = append(neg, runeRange{next, r.lo - 1})
				}
				next = r.hi + 1
			}
			if next <= utf8.MaxRune {
				neg = append(neg, runeRange{next, utf8.MaxRune})
			}
			rs = neg
		}
	}
	var out []runeRange
	for _, r := range rs {
		if r.hi < 0xD800 || r.lo > 0xDFFF {
			out = append(out, r)
			continue
		}
		if r.lo < 0xD800 {
			out = append(out, runeRange{r.lo, 0xD7FF})
		}
		if r.hi > 0xDFFF {
			out = append(out, runeRange{0xE000, r.hi})
		}
	}
	return out
}

// class returns the symbol matching one code point from ranges: a byte set
// when all are ASCII, else a rule whose alternatives are the UTF-8 byte
// sequences, shared between identical classes.
func (c *compiler) class(ranges []runeRange, pos int) sym {
	if ranges[len(ranges)-1].hi < utf8.RuneSelf {
		var s bitset256
		for _, r := range ranges {
			for b := r.lo; b <= r.hi; b++ {
				s.add(int(b))
			}
		}
		return c.set(s)
	}
	var key strings.Builder
	for _, r := range ranges {
		key.WriteString(strconv.Itoa(int(r.lo)) + "-" + strconv.Itoa(int(r.hi)) + ",")
	}
	if r, ok := c.classRules[key.String()]; ok {
		return sym{ref: true, arg: r}
	}
	var seqs [][]byteRange
	for _, r := range ranges {
		seqs = utf8Sequences(r.lo, r.hi, seqs)
	}
	// Sequences of one length with the same continuation ranges differ only
	// in their lead byte: merge them into one alternative with a lead set.
	type group struct {
		lead bitset256
		tail []byteRange
	}
	var groups []group
	for _, s := range seqs {
		found := false
		for gi := range groups {
			if slices.Equal(groups[gi].tail, s[1:]) {
				for b := int(s[0].lo); b <= int(s[0].hi); b++ {
					groups[gi].lead.add(b)
				}
				found = true
				break
			}
		}
		if !found {
			g := group{tail: s[1:]}
			for b := int(s[0].lo); b <= int(s[0].hi); b++ {
				g.lead.add(b)
			}
			groups = append(groups, g)
		}
	}
	r := c.newRule(pos, "class")
	alts := make([][]sym, 0, len(groups))
	for _, g := range groups {
		alt := []sym{c.set(g.lead)}
		for _, t := range g.tail {
			alt = append(alt, c.byteSym(t.lo, t.hi))
		}
		alts = append(alts, alt)
	}
	c.rules[r].alts = alts
	c.classRules[key.String()] = r
	return sym{ref: true, arg: r}
}

// check refuses what a pushdown matcher cannot run: rules that can never
// finish (no alternative avoids needing the rule itself) and left
// recursion, where a rule reaches itself without consuming a byte.
func (c *compiler) check() error {
	n := len(c.rules)
	nullable := make([]bool, n)
	productive := make([]bool, n)
	for changed := true; changed; {
		changed = false
		for r := range c.rules {
			for _, alt := range c.rules[r].alts {
				null, prod := true, true
				for _, s := range alt {
					if !s.ref {
						null = false
						continue
					}
					null = null && nullable[s.arg]
					prod = prod && productive[s.arg]
				}
				if null && !nullable[r] {
					nullable[r], changed = true, true
				}
				if prod && !productive[r] {
					productive[r], changed = true, true
				}
			}
		}
	}
	// Left edges: r -> q when q can come first in r, after nullable rules.
	left := make([][]int32, n)
	for r := range c.rules {
		for _, alt := range c.rules[r].alts {
			for _, s := range alt {
				if !s.ref {
					break
				}
				left[r] = append(left[r], s.arg)
				if !nullable[s.arg] {
					break
				}
			}
		}
	}
	// Iterative DFS; a grey node met again closes a cycle.
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	type frame struct{ r, next int32 }
	for start := range n {
		if color[start] != white {
			continue
		}
		stack := []frame{{int32(start), 0}}
		color[start] = grey
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if int(f.next) == len(left[f.r]) {
				color[f.r] = black
				stack = stack[:len(stack)-1]
				continue
			}
			q := left[f.r][f.next]
			f.next++
			switch color[q] {
			case grey:
				// The cycle is q … top of stack; name a source rule on it
				// if there is one.
				culprit := q
				for i := len(stack) - 1; i >= 0; i-- {
					if c.rules[stack[i].r].what == "rule" {
						culprit = stack[i].r
					}
					if stack[i].r == q {
						break
					}
				}
				return c.leftErr(culprit)
			case white:
				color[q] = grey
				stack = append(stack, frame{q, 0})
			}
		}
	}
	for r := range c.rules {
		if !productive[r] {
			return c.ruleErr(r, "can never finish: every alternative needs itself again")
		}
	}
	return nil
}

func (c *compiler) ruleErr(r int, msg string) error {
	cr := c.rules[r]
	if cr.what == "rule" {
		return errAt(c.src, cr.origin, "rule %q %s", cr.name, msg)
	}
	return errAt(c.src, cr.origin, "the %s %s %s", cr.what, near(c.src, cr.origin), msg)
}

func (c *compiler) leftErr(r int32) error {
	cr := c.rules[r]
	switch cr.what {
	case "rule":
		return errAt(c.src, cr.origin, "rule %q is left-recursive: it can reach itself without reading a character, which this matcher cannot run", cr.name)
	case "repetition":
		return errAt(c.src, cr.origin, "the repetition %s repeats something that can match the empty string, so it could loop without reading a character", near(c.src, cr.origin))
	}
	return errAt(c.src, cr.origin, "the %s %s is left-recursive: it can reach itself without reading a character", cr.what, near(c.src, cr.origin))
}

// flatten lays the rules out as one element array and maps the byte sets
// onto byte classes.
func (c *compiler) flatten(root int32) program {
	p := program{root: root}
	// Byte classes: refine one class by every set.
	var classOf [256]int
	nClasses := 1
	var remap [512]int
	for _, s := range c.sets {
		for i := range remap {
			remap[i] = -1
		}
		next := 0
		for b := range 256 {
			k := classOf[b] * 2
			if s.has(b) {
				k++
			}
			if remap[k] < 0 {
				remap[k] = next
				next++
			}
			classOf[b] = remap[k]
		}
		nClasses = next
	}
	for b := range 256 {
		p.classOf[b] = uint8(classOf[b])
	}
	p.nClasses = nClasses
	p.sets = make([]bitset256, len(c.sets))
	for i, s := range c.sets {
		for b := range 256 {
			if s.has(b) {
				p.sets[i].add(classOf[b])
			}
		}
	}
	p.altOff = make([]int32, len(c.rules)+1)
	p.elems = make([]elem, 0, c.nElems)
	for r, cr := range c.rules {
		p.altOff[r] = int32(len(p.altPos))
		for _, alt := range cr.alts {
			p.altPos = append(p.altPos, int32(len(p.elems)))
			for _, s := range alt {
				if s.ref {
					p.elems = append(p.elems, elem{kind: elemRef, arg: s.arg})
				} else {
					p.elems = append(p.elems, elem{kind: elemBytes, arg: s.arg})
				}
			}
			p.elems = append(p.elems, elem{kind: elemEnd})
		}
	}
	p.altOff[len(c.rules)] = int32(len(p.altPos))
	return p
}
