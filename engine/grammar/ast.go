package grammar

import (
	"fmt"
	"strings"
	"unicode"
)

// itemKind is the kind of one source-level grammar item.
type itemKind uint8

const (
	itemLiteral itemKind = iota // "text": a sequence of code points
	itemClass                   // [a-z] or [^…]: one code point from ranges
	itemAny                     // .: any code point
	itemRef                     // a rule name
	itemGroup                   // ( alt | alt )
	itemRepeat                  // item*, item+, item?, item{m,n}
)

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

// item is one element of a source-level sequence. The AST keeps the text's
// structure (code points, groups, repetitions) so that String can print it
// back; compile lowers it to the byte-level program the matcher runs.
type item struct {
	kind    itemKind
	pos     int         // byte offset in the source, for error messages
	runes   []rune      // itemLiteral
	ranges  []runeRange // itemClass, as written
	negated bool        // itemClass
	name    string      // itemRef
	rule    int         // itemRef, resolved rule index
	alts    [][]item    // itemGroup
	sub     *item       // itemRepeat
	min     int         // itemRepeat
	max     int         // itemRepeat; -1 is unbounded
}

// ruleDef is one `name ::= alternatives` definition.
type ruleDef struct {
	name string
	pos  int
	alts [][]item
}

// String prints the grammar as GBNF, one rule a line in definition order.
// Parsing the output gives back the same grammar.
func (g *Grammar) String() string {
	var b strings.Builder
	for _, r := range g.rules {
		b.WriteString(r.name)
		b.WriteString(" ::= ")
		writeAlts(&b, r.alts)
		b.WriteByte('\n')
	}
	return b.String()
}

func writeAlts(b *strings.Builder, alts [][]item) {
	for i, seq := range alts {
		if i > 0 {
			b.WriteString(" | ")
		}
		for j := range seq {
			if j > 0 {
				b.WriteByte(' ')
			}
			writeItem(b, &seq[j])
		}
	}
}

func writeItem(b *strings.Builder, it *item) {
	switch it.kind {
	case itemLiteral:
		b.WriteByte('"')
		for _, r := range it.runes {
			writeChar(b, r, false)
		}
		b.WriteByte('"')
	case itemClass:
		b.WriteByte('[')
		if it.negated {
			b.WriteByte('^')
		}
		for _, rg := range it.ranges {
			writeChar(b, rg.lo, true)
			if rg.hi != rg.lo {
				b.WriteByte('-')
				writeChar(b, rg.hi, true)
			}
		}
		b.WriteByte(']')
	case itemAny:
		b.WriteByte('.')
	case itemRef:
		b.WriteString(it.name)
	case itemGroup:
		b.WriteString("(")
		writeAlts(b, it.alts)
		b.WriteString(")")
	case itemRepeat:
		writeItem(b, it.sub)
		switch {
		case it.min == 0 && it.max == -1:
			b.WriteByte('*')
		case it.min == 1 && it.max == -1:
			b.WriteByte('+')
		case it.min == 0 && it.max == 1:
			b.WriteByte('?')
		case it.max == -1:
			fmt.Fprintf(b, "{%d,}", it.min)
		case it.min == it.max:
			fmt.Fprintf(b, "{%d}", it.min)
		default:
			fmt.Fprintf(b, "{%d,%d}", it.min, it.max)
		}
	}
}

// writeChar writes one code point as it may appear inside a literal
// (inClass false) or a character class, escaping what the parser would
// otherwise read as syntax and everything that is not a printable graphic.
func writeChar(b *strings.Builder, r rune, inClass bool) {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\\':
		b.WriteString(`\\`)
	case r == '"':
		b.WriteString(`\"`)
	case inClass && r == ']':
		b.WriteString(`\]`)
	case inClass && (r == '-' || r == '^' || r == '['):
		fmt.Fprintf(b, `\x%02X`, r)
	case r < 0x80 && (r < 0x20 || r == 0x7F):
		fmt.Fprintf(b, `\x%02X`, r)
	case r >= 0x80 && !unicode.IsGraphic(r):
		if r <= 0xFFFF {
			fmt.Fprintf(b, `\u%04X`, r)
		} else {
			fmt.Fprintf(b, `\U%08X`, r)
		}
	default:
		b.WriteRune(r)
	}
}
