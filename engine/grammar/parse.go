package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxRepeat bounds one repetition count ({m,n}); larger counts would
// expand into grammars too large to run.
const maxRepeat = 10000

// Grammar is a parsed and checked GBNF grammar, ready for NewMatcher. It is
// read-only and may be shared by any number of matchers.
type Grammar struct {
	rules []ruleDef // source-level rules, in definition order
	root  int       // index of the rule named root
	prog  program   // the byte-level program matchers run
}

// Parse reads a GBNF grammar as llama.cpp writes it (grammars/README.md):
// rules `name ::= …` separated by newlines, alternatives `|`, sequences,
// string literals, character classes, `.`, groups, the repetitions `* + ?
// {m} {m,} {m,n}`, `#` comments and rule references, with `root` as the
// start rule. It refuses token references (`<…>`, `!<…>`), duplicate
// definitions, left recursion and rules that can never finish; every error
// is one sentence with the line:column of the offending text.
func Parse(src string) (*Grammar, error) {
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, errAt(src, i, "the grammar is not valid UTF-8")
	}
	p := &parser{src: src}
	if err := p.parseGrammar(); err != nil {
		return nil, err
	}
	g := &Grammar{rules: p.rules}
	if err := g.resolve(src); err != nil {
		return nil, err
	}
	prog, err := compile(g, src)
	if err != nil {
		return nil, err
	}
	g.prog = prog
	return g, nil
}

// parser is a recursive-descent reader over the grammar text. It follows
// llama.cpp's layout rules: a newline ends a rule unless it follows `|`,
// `::=` or sits inside parentheses.
type parser struct {
	src   string
	i     int
	rules []ruleDef
	depth int // group nesting, bounded so hostile input cannot overflow the stack
}

// errAt formats an error at byte offset pos of src: "line L:C: msg".
func errAt(src string, pos int, format string, args ...any) error {
	return fmt.Errorf("grammar: line %s: %s", lineCol(src, pos), fmt.Sprintf(format, args...))
}

// lineCol renders byte offset pos of src as "line:column", both from 1,
// columns counted in characters.
func lineCol(src string, pos int) string {
	line, col := 1, 1
	for _, r := range src[:min(pos, len(src))] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// near quotes up to a dozen characters of the source at pos, or says the
// input ended, for error messages.
func near(src string, pos int) string {
	if pos >= len(src) {
		return "the end of the grammar"
	}
	s := src[pos:]
	n := 0
	for i := range s {
		if n == 12 {
			s = s[:i] + "…"
			break
		}
		n++
	}
	return strconv.Quote(s)
}

func (p *parser) errf(pos int, format string, args ...any) error {
	return errAt(p.src, pos, format, args...)
}

func (p *parser) eof() bool { return p.i >= len(p.src) }

func (p *parser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

// skipSpace skips blanks and comments, and newlines when newlineOK.
func (p *parser) skipSpace(newlineOK bool) {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t':
			p.i++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
				p.i++
			}
		case newlineOK && (c == '\n' || c == '\r'):
			p.i++
		default:
			return
		}
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func (p *parser) parseName() (string, error) {
	start := p.i
	for p.i < len(p.src) && isNameByte(p.src[p.i]) {
		p.i++
	}
	if p.i == start {
		return "", p.errf(start, "expected a rule name, found %s", near(p.src, start))
	}
	return p.src[start:p.i], nil
}

func (p *parser) parseGrammar() error {
	p.skipSpace(true)
	for !p.eof() {
		if err := p.parseRule(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) parseRule() error {
	start := p.i
	name, err := p.parseName()
	if err != nil {
		return err
	}
	p.skipSpace(false)
	if !strings.HasPrefix(p.src[p.i:], "::=") {
		return p.errf(p.i, "expected ::= after the rule name %q, found %s", name, near(p.src, p.i))
	}
	p.i += 3
	p.skipSpace(true)
	alts, err := p.parseAlternates(false)
	if err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(p.src[p.i:], "\r\n"):
		p.i += 2
	case p.peek() == '\n' || p.peek() == '\r':
		p.i++
	case !p.eof():
		return p.errf(p.i, "expected the end of the line after rule %q, found %s", name, near(p.src, p.i))
	}
	p.skipSpace(true)
	p.rules = append(p.rules, ruleDef{name: name, pos: start, alts: alts})
	return nil
}

func (p *parser) parseAlternates(nested bool) ([][]item, error) {
	seq, err := p.parseSequence(nested)
	if err != nil {
		return nil, err
	}
	alts := [][]item{seq}
	for p.peek() == '|' {
		p.i++
		p.skipSpace(true)
		seq, err := p.parseSequence(nested)
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
	}
	return alts, nil
}

func (p *parser) parseSequence(nested bool) ([]item, error) {
	var seq []item
	for !p.eof() {
		start := p.i
		c := p.peek()
		switch {
		case c == '"':
			it, err := p.parseLiteral()
			if err != nil {
				return nil, err
			}
			seq = append(seq, it)
		case c == '[':
			it, err := p.parseClass()
			if err != nil {
				return nil, err
			}
			seq = append(seq, it)
		case c == '.':
			p.i++
			seq = append(seq, item{kind: itemAny, pos: start})
		case isNameByte(c):
			name, _ := p.parseName()
			seq = append(seq, item{kind: itemRef, pos: start, name: name})
		case c == '(':
			if p.depth >= 200 {
				return nil, p.errf(start, "groups are nested more than 200 deep")
			}
			p.depth++
			p.i++
			p.skipSpace(true)
			alts, err := p.parseAlternates(true)
			p.depth--
			if err != nil {
				return nil, err
			}
			if p.peek() != ')' {
				return nil, p.errf(p.i, "expected ')' to close the group opened at %s, found %s", lineCol(p.src, start), near(p.src, p.i))
			}
			p.i++
			seq = append(seq, item{kind: itemGroup, pos: start, alts: alts})
		case c == '*' || c == '+' || c == '?' || c == '{':
			lo, hi := 0, -1
			p.i++
			switch c {
			case '+':
				lo = 1
			case '?':
				hi = 1
			case '{':
				var err error
				if lo, hi, err = p.parseBounds(start, nested); err != nil {
					return nil, err
				}
			}
			if len(seq) == 0 {
				return nil, p.errf(start, "%q has nothing before it to repeat", p.src[start:p.i])
			}
			last := seq[len(seq)-1]
			if depth := repeatDepth(&last); depth >= 8 {
				return nil, p.errf(start, "more than 8 repetition operators apply to one item")
			}
			seq[len(seq)-1] = item{kind: itemRepeat, pos: start, sub: &last, min: lo, max: hi}
		case c == '<' || c == '!':
			return nil, p.errf(start, "token references such as %s are not supported; write the text as a string literal", near(p.src, start))
		default:
			return seq, nil
		}
		p.skipSpace(nested)
	}
	return seq, nil
}

// parseBounds reads the rest of {m}, {m,} or {m,n}; start is the '{'.
func (p *parser) parseBounds(start int, nested bool) (int, int, error) {
	p.skipSpace(nested)
	readInt := func() (int, error) {
		s := p.i
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
		}
		if p.i == s {
			return 0, p.errf(s, "expected a number in the repetition opened at %s, found %s", lineCol(p.src, start), near(p.src, s))
		}
		v, err := strconv.Atoi(p.src[s:p.i])
		if err != nil || v > maxRepeat {
			return 0, p.errf(s, "the repetition count %s is larger than %d", p.src[s:p.i], maxRepeat)
		}
		return v, nil
	}
	lo, err := readInt()
	if err != nil {
		return 0, 0, err
	}
	p.skipSpace(nested)
	hi := lo
	if p.peek() == ',' {
		p.i++
		p.skipSpace(nested)
		hi = -1
		if c := p.peek(); c >= '0' && c <= '9' {
			if hi, err = readInt(); err != nil {
				return 0, 0, err
			}
			p.skipSpace(nested)
		}
	}
	if p.peek() != '}' {
		return 0, 0, p.errf(p.i, "expected '}' to close the repetition opened at %s, found %s", lineCol(p.src, start), near(p.src, p.i))
	}
	p.i++
	if hi != -1 && hi < lo {
		return 0, 0, p.errf(start, "the repetition %q has its maximum below its minimum", p.src[start:p.i])
	}
	return lo, hi, nil
}

func (p *parser) parseLiteral() (item, error) {
	start := p.i
	p.i++ // opening quote
	var runes []rune
	for {
		if p.eof() {
			return item{}, p.errf(start, "the string literal %s is never closed", near(p.src, start))
		}
		if p.peek() == '"' {
			p.i++
			return item{kind: itemLiteral, pos: start, runes: runes}, nil
		}
		r, err := p.parseChar()
		if err != nil {
			return item{}, err
		}
		if r >= 0xD800 && r <= 0xDFFF {
			return item{}, p.errf(start, "the string literal %s holds the surrogate U+%04X, which is not a character", near(p.src, start), r)
		}
		runes = append(runes, r)
	}
}

func (p *parser) parseClass() (item, error) {
	start := p.i
	p.i++ // '['
	it := item{kind: itemClass, pos: start}
	if p.peek() == '^' {
		it.negated = true
		p.i++
	}
	for {
		if p.eof() {
			return item{}, p.errf(start, "the character class %s is never closed", near(p.src, start))
		}
		if p.peek() == ']' {
			p.i++
			break
		}
		at := p.i
		lo, err := p.parseChar()
		if err != nil {
			return item{}, err
		}
		hi := lo
		if p.peek() == '-' && p.i+1 < len(p.src) && p.src[p.i+1] != ']' {
			p.i++
			if hi, err = p.parseChar(); err != nil {
				return item{}, err
			}
			if hi < lo {
				return item{}, p.errf(at, "the range %s in a character class runs backwards", strconv.Quote(p.src[at:p.i]))
			}
		}
		it.ranges = append(it.ranges, runeRange{lo, hi})
	}
	if len(it.ranges) == 0 {
		return item{}, p.errf(start, "the character class %s is empty", strconv.Quote(p.src[start:p.i]))
	}
	return it, nil
}

// parseChar reads one character or escape (\n \t \r \\ \" \[ \] \xHH
// \uHHHH \UHHHHHHHH) and returns its code point.
func (p *parser) parseChar() (rune, error) {
	start := p.i
	if p.peek() != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.i:])
		p.i += n
		return r, nil
	}
	if p.i+1 >= len(p.src) {
		return 0, p.errf(start, "the grammar ends inside an escape")
	}
	c := p.src[p.i+1]
	p.i += 2
	switch c {
	case 'n':
		return '\n', nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case '\\', '"', '[', ']':
		return rune(c), nil
	case 'x', 'u', 'U':
		n := 2
		switch c {
		case 'u':
			n = 4
		case 'U':
			n = 8
		}
		var v uint64
		for k := range n {
			d, ok := hexDigit(p.src, p.i+k)
			if !ok {
				return 0, p.errf(start, "the escape %s needs %d hex digits", near(p.src, start), n)
			}
			v = v<<4 | uint64(d)
		}
		p.i += n
		if v > utf8.MaxRune {
			return 0, p.errf(start, "the escape %s is beyond the last code point U+10FFFF", strconv.Quote(p.src[start:p.i]))
		}
		return rune(v), nil
	default:
		return 0, p.errf(start, "unknown escape %s", near(p.src, start))
	}
}

// resolve binds rule references to rule indices and finds root.
func (g *Grammar) resolve(src string) error {
	if len(g.rules) == 0 {
		return errors.New("grammar: the grammar is empty: it defines no rules")
	}
	index := make(map[string]int, len(g.rules))
	for i, r := range g.rules {
		if j, dup := index[r.name]; dup {
			return errAt(src, r.pos, "rule %q is defined a second time (first at %s)", r.name, lineCol(src, g.rules[j].pos))
		}
		index[r.name] = i
	}
	root, ok := index["root"]
	if !ok {
		return errors.New("grammar: the grammar has no rule named root, where matching starts")
	}
	g.root = root
	var bind func(seq []item) error
	bind = func(seq []item) error {
		for k := range seq {
			it := &seq[k]
			for it.kind == itemRepeat {
				it = it.sub
			}
			switch it.kind {
			case itemRef:
				j, ok := index[it.name]
				if !ok {
					return errAt(src, it.pos, "rule %q is used but never defined", it.name)
				}
				it.rule = j
			case itemGroup:
				for _, alt := range it.alts {
					if err := bind(alt); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	for _, r := range g.rules {
		for _, alt := range r.alts {
			if err := bind(alt); err != nil {
				return err
			}
		}
	}
	return nil
}

// hexDigit returns the value of the hex digit at src[i].
func hexDigit(src string, i int) (byte, bool) {
	if i >= len(src) {
		return 0, false
	}
	switch c := src[i]; {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// repeatDepth counts the repetitions stacked on an item, as in a*+?.
func repeatDepth(it *item) int {
	n := 0
	for ; it.kind == itemRepeat; it = it.sub {
		n++
	}
	return n
}
