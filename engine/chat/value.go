package chat

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Template values. The engine follows Python Jinja2's semantics (the ones
// transformers renders with), using these Go types:
//
//	undefined  an unknown name or missing key: falsy, prints as ""
//	nil        Python None
//	bool, int64, float64
//	str        a string, with the byte ranges that came from user content
//	[]any      a list (templates never mutate lists)
//	*dict      a mapping with insertion-ordered string keys; namespace() too
//	*loopInfo  the loop variable
//	callable   a global function, bound method or macro
type undefined struct{ name string }

// span is a byte range [a, b) of a string that came from user content.
type span struct{ a, b int }

// str is a string value; taint lists its user-content byte ranges, sorted
// and disjoint, so that the rendered prompt knows which bytes a user wrote.
type str struct {
	s     string
	taint []span
}

type dict struct {
	keys      []string
	m         map[string]any
	namespace bool
}

type callable func(c *ctx, args []any, kw map[string]any) (any, error)

func newDict() *dict { return &dict{m: map[string]any{}} }

func (d *dict) set(k string, v any) {
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
}

func plain(s string) str { return str{s: s} }

func userStr(s string) str {
	if s == "" {
		return str{}
	}
	return str{s: s, taint: []span{{0, len(s)}}}
}

// sub returns v.s[a:b] with its taint clipped.
func (v str) sub(a, b int) str {
	r := str{s: v.s[a:b]}
	for _, t := range v.taint {
		lo, hi := max(t.a, a), min(t.b, b)
		if lo < hi {
			r.taint = append(r.taint, span{lo - a, hi - a})
		}
	}
	return r
}

// concat joins strings, shifting their taint.
func concat(parts ...str) str {
	var sb strings.Builder
	var taint []span
	for _, p := range parts {
		off := sb.Len()
		for _, t := range p.taint {
			if n := len(taint); n > 0 && taint[n-1].b == t.a+off {
				taint[n-1].b = t.b + off
				continue
			}
			taint = append(taint, span{t.a + off, t.b + off})
		}
		sb.WriteString(p.s)
	}
	return str{s: sb.String(), taint: taint}
}

// wholeIf marks all of s as user content if any of the inputs was.
func wholeIf(s string, inputs ...any) str {
	for _, in := range inputs {
		if tainted(in) {
			return userStr(s)
		}
	}
	return plain(s)
}

// tainted reports whether a value holds user content anywhere.
func tainted(v any) bool {
	switch x := v.(type) {
	case str:
		return len(x.taint) > 0
	case []any:
		for _, e := range x {
			if tainted(e) {
				return true
			}
		}
	case *dict:
		for _, k := range x.keys {
			if tainted(x.m[k]) {
				return true
			}
		}
	}
	return false
}

// truthy is Python's bool().
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, undefined:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case str:
		return x.s != ""
	case []any:
		return len(x) > 0
	case *dict:
		return len(x.keys) > 0
	}
	return true
}

// toStr is Python's str() as Jinja2 prints values.
func toStr(v any) str {
	switch x := v.(type) {
	case str:
		return x
	case undefined:
		return str{}
	}
	return wholeIf(repr(v, false), v)
}

// repr renders a value as Python does; quote selects repr() over str() for
// strings.
func repr(v any, quote bool) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case undefined:
		return ""
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloat(x)
	case str:
		if quote {
			return pyQuote(x.s)
		}
		return x.s
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = repr(e, true)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *dict:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = pyQuote(k) + ": " + repr(x.m[k], true)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *loopInfo:
		return "<LoopContext>"
	case callable:
		return "<function>"
	}
	return fmt.Sprint(v)
}

func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a != 0 && (a >= 1e16 || a < 1e-4) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Python writes 1e+16 and 1e-05: at least two exponent digits.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return mant + "e" + string(sign) + exp
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// pyQuote is Python's repr() of a str.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// typeName names a value's Python type for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case undefined:
		return "Undefined"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case str:
		return "str"
	case []any:
		return "list"
	case *dict:
		return "dict"
	}
	return "object"
}

// equal is Python's ==.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case undefined:
		_, ok := b.(undefined)
		return ok
	case str:
		y, ok := b.(str)
		return ok && x.s == y.s
	case bool, int64, float64:
		fa, oka := number(a)
		fb, okb := number(b)
		return oka && okb && fa == fb
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *dict:
		y, ok := b.(*dict)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for _, k := range x.keys {
			w, ok := y.m[k]
			if !ok || !equal(x.m[k], w) {
				return false
			}
		}
		return true
	}
	return false
}

// number converts bool/int/float to float64, as Python's numeric tower.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// isPySpace is Python's str.isspace for one rune (the set str.strip() and
// |trim remove): Unicode White_Space plus U+001C..U+001F, not U+FEFF.
func isPySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

// strip implements str.strip/lstrip/rstrip with Python's semantics: chars
// nil strips whitespace, otherwise any rune of chars.
func strip(v str, chars *string, left, right bool) str {
	in := isPySpace
	if chars != nil {
		set := *chars
		in = func(r rune) bool { return strings.ContainsRune(set, r) }
	}
	a, b := 0, len(v.s)
	if left {
		for a < b {
			r, n := utf8.DecodeRuneInString(v.s[a:])
			if !in(r) {
				break
			}
			a += n
		}
	}
	if right {
		for b > a {
			r, n := utf8.DecodeLastRuneInString(v.s[a:b])
			if !in(r) {
				break
			}
			b -= n
		}
	}
	return v.sub(a, b)
}

// fromGo converts JSON-like Go values (as encoding/json produces, or
// json.RawMessage) to template values. user marks strings as user content.
func fromGo(v any, user bool) (any, error) {
	mk := plain
	if user {
		mk = userStr
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil // JSON numbers without a fraction are Python ints
		}
		return x, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		return f, err
	case string:
		return mk(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = fromGo(e, user); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := newDict()
		for _, k := range keys {
			e, err := fromGo(x[k], user)
			if err != nil {
				return nil, err
			}
			d.set(k, e)
		}
		return d, nil
	case json.RawMessage:
		return decodeJSON(x, user)
	}
	return nil, fmt.Errorf("chat: cannot pass a %T to a template", v)
}

// decodeJSON decodes JSON keeping object key order, as Python's json does.
func decodeJSON(data []byte, user bool) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	v, err := decodeJSONValue(dec, user)
	if err != nil {
		return nil, fmt.Errorf("chat: bad JSON value: %w", err)
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder, user bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '[':
			out := []any{}
			for dec.More() {
				e, err := decodeJSONValue(dec, user)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			d := newDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				e, err := decodeJSONValue(dec, user)
				if err != nil {
					return nil, err
				}
				d.set(k, e)
			}
			_, err := dec.Token()
			return d, err
		}
		return nil, fmt.Errorf("unexpected %v", x)
	default:
		return fromGo(x, user)
	}
}

// toJSON is transformers' tojson: json.dumps(ensure_ascii=False, indent).
func toJSON(v any, indent string, level int, sb *strings.Builder) error {
	nl := func(l int) {
		if indent != "" {
			sb.WriteByte('\n')
			for range l {
				sb.WriteString(indent)
			}
		}
	}
	itemSep := ", "
	if indent != "" {
		itemSep = ","
	}
	switch x := v.(type) {
	case nil, undefined:
		sb.WriteString("null")
	case bool:
		if x {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case int64, float64:
		sb.WriteString(repr(x, false))
	case str:
		writeJSONString(sb, x.s)
	case []any:
		if len(x) == 0 {
			sb.WriteString("[]")
			return nil
		}
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteString(itemSep)
			}
			nl(level + 1)
			if err := toJSON(e, indent, level+1, sb); err != nil {
				return err
			}
		}
		nl(level)
		sb.WriteByte(']')
	case *dict:
		if len(x.keys) == 0 {
			sb.WriteString("{}")
			return nil
		}
		sb.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				sb.WriteString(itemSep)
			}
			nl(level + 1)
			writeJSONString(sb, k)
			sb.WriteString(": ")
			if err := toJSON(x.m[k], indent, level+1, sb); err != nil {
				return err
			}
		}
		nl(level)
		sb.WriteByte('}')
	default:
		return fmt.Errorf("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func writeJSONString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(sb, `\u%04x`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}
