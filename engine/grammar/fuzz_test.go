package grammar

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkOneLine fails when an error is not one line starting "grammar: ".
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "grammar: ") || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one grammar line: %q", msg)
	}
}

func FuzzParse(f *testing.F) {
	for _, src := range featureGrammars {
		f.Add(src)
	}
	for _, s := range []string{
		`root ::= "a" | [^b-d] .* ("x"{2,5})?`, `root ::= x+ x ::= "y"`, "root ::= (\n\"a\"\n)", `root ::= [\x00-\U0010FFFF]`,
		`root ::= "\u00e9" [ぁ-ゟ]{0,3}`, `root ::= a a ::= a`, "root ::= \"a\"*+?", `root ::= <[1000]>`, "root ::= \"a\" # c\r\n",
	} {
		f.Add(s)
	}
	v := byteVocab(f)
	f.Fuzz(func(t *testing.T, src string) {
		g, err := Parse(src)
		if err != nil {
			checkOneLine(t, err)
			return
		}
		printed := g.String()
		g2, err := Parse(printed)
		if err != nil {
			t.Fatalf("printed grammar does not parse: %v\n%s", err, printed)
		}
		if again := g2.String(); again != printed {
			t.Fatalf("printing is not a fixed point:\n%s\n%s", printed, again)
		}
		m := NewMatcher(g, v)
		mask := m.NewMask()
		for i := 0; i < len(src) && i < 64; i++ {
			m.Allowed(mask)
			if mask.Has(int32(src[i])) != m.Allows(int32(src[i])) {
				t.Fatalf("mask and walk disagree on byte %q", src[i])
			}
			if m.Accept(int32(src[i])) != nil {
				break
			}
		}
	})
}

func FuzzFromJSONSchema(f *testing.F) {
	for _, sc := range testSchemas {
		f.Add([]byte(sc.schema))
	}
	for _, s := range []string{
		`{}`, `true`, `{"type":"string","enum":["a\"b","\u0000"]}`, `{"type":["object","null"],"properties":{"a b":{"$ref":"#"}}}`,
		`{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`, `{"type":"array","items":{"type":"integer"},"minItems":2}`,
		`{"type":"object","additionalProperties":{"type":"boolean"},"properties":{"é":{"const":1.50}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		for _, conv := range []func([]byte) (string, error){FromJSONSchema, FromJSONSchemaStrict} {
			text, err := conv(schema)
			if err != nil {
				checkOneLine(t, err)
				continue
			}
			g, err := Parse(text)
			if err != nil {
				t.Fatalf("converted grammar does not parse: %v\n%s", err, text)
			}
			if _, err := Parse(g.String()); err != nil {
				t.Fatalf("printed grammar does not parse: %v", err)
			}
		}
	})
}

// toRegexp translates a grammar without recursion into an anchored Go
// regular expression, an independent reference for what it matches; ok is
// false for recursive or oversized grammars.
func toRegexp(g *Grammar) (string, bool) {
	var b strings.Builder
	active := make([]bool, len(g.rules))
	var rule func(r int) bool
	var seq func(items []item) bool
	var one func(it *item) bool
	alts := func(as [][]item) bool {
		b.WriteString("(?:")
		for i, s := range as {
			if i > 0 {
				b.WriteByte('|')
			}
			if !seq(s) {
				return false
			}
		}
		b.WriteString(")")
		return b.Len() < 20000
	}
	rule = func(r int) bool {
		if active[r] {
			return false
		}
		active[r] = true
		ok := alts(g.rules[r].alts)
		active[r] = false
		return ok
	}
	seq = func(items []item) bool {
		for k := range items {
			if !one(&items[k]) {
				return false
			}
		}
		return true
	}
	one = func(it *item) bool {
		switch it.kind {
		case itemLiteral:
			b.WriteString("(?:" + regexp.QuoteMeta(string(it.runes)) + ")")
		case itemAny:
			b.WriteString(`(?s:.)`)
		case itemClass:
			b.WriteByte('[')
			if it.negated {
				b.WriteByte('^')
			}
			for _, r := range it.ranges {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r.lo, r.hi)
			}
			b.WriteByte(']')
		case itemRef:
			return rule(it.rule)
		case itemGroup:
			return alts(it.alts)
		case itemRepeat:
			if it.max > 1000 || it.min > 1000 {
				return false
			}
			b.WriteString("(?:")
			if !one(it.sub) {
				return false
			}
			if it.max < 0 {
				fmt.Fprintf(&b, "){%d,}", it.min)
			} else {
				fmt.Fprintf(&b, "){%d,%d}", it.min, it.max)
			}
		}
		return b.Len() < 20000
	}
	if !rule(g.root) {
		return "", false
	}
	return "^" + b.String() + "$", true
}

// FuzzMatch compares the matcher with Go's regexp package on grammars
// without recursion, text by text: both must accept exactly the same
// valid-UTF-8 texts.
func FuzzMatch(f *testing.F) {
	for _, c := range [][2]string{
		{`root ::= [a-c]+ "é"? ([^a-z] | "xy"){1,3}`, "abcé1xy2"},
		{`root ::= x{2,4} y ::= "q" x ::= "ab" | [😀-😂]`, "ab😁ab"},
		{`root ::= (. [^\x00-\x7F])* "\n"?`, "aéé😀\n"},
		{`root ::= ("a" | "ab") ("c" | "bc")`, "abc"},
		{`root ::= [^"\\\x7F\x00-\x1F]* "\""`, `say "`},
		{`root ::= ("" | "a"){3} "b"{0,2}`, "aab"},
	} {
		f.Add(c[0], c[1])
	}
	v := byteVocab(f)
	f.Fuzz(func(t *testing.T, src, text string) {
		if !utf8.ValidString(text) {
			return
		}
		g, err := Parse(src)
		if err != nil {
			return
		}
		expr, ok := toRegexp(g)
		if !ok {
			return
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return // beyond regexp's own limits
		}
		if got, want := matches(g, v, text), re.MatchString(text); got != want {
			t.Fatalf("grammar %q on %q: matcher %v, regexp %v (%s)", src, text, got, want, expr)
		}
	})
}
