package grammar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds test-side helpers written independently of the
// converter: a validator for the schema subset, with the converter's one
// deliberate narrowing (an object with properties and no
// additionalProperties takes no other keys), and a generator of random
// valid documents in the grammar's layout.

// decodeDoc decodes a JSON document keeping numbers as text.
func decodeDoc(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// decodeSchema decodes a schema into plain Go values.
func decodeSchema(s string) any {
	v, err := decodeDoc([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// resolve follows a local JSON pointer.
func resolvePtr(root any, ptr string) any {
	if ptr == "#" {
		return root
	}
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		cur = cur.(map[string]any)[tok]
	}
	return cur
}

func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var (
	dateRE     = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`)
	timeRE     = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	integerRE  = regexp.MustCompile(`^-?[0-9]+$`)
	validators = map[string]func(string) bool{
		"date": dateRE.MatchString,
		"time": timeRE.MatchString,
		"date-time": func(s string) bool {
			d, t, ok := strings.Cut(s, "T")
			return ok && dateRE.MatchString(d) && timeRE.MatchString(t)
		},
		"uuid": uuidRE.MatchString,
	}
)

// valid reports whether v satisfies schema s (within document root).
func valid(root, s, v any) bool {
	switch s := s.(type) {
	case bool:
		return s
	case map[string]any:
		if ref, ok := s["$ref"].(string); ok {
			return valid(root, resolvePtr(root, ref), v)
		}
		if v == nil && s["nullable"] == true {
			return true
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			if alts, ok := s[k].([]any); ok {
				for _, a := range alts {
					if valid(root, a, v) {
						return true
					}
				}
				return false
			}
		}
		if c, ok := s["const"]; ok {
			return canon(c) == canon(v)
		}
		if e, ok := s["enum"].([]any); ok {
			for _, x := range e {
				if canon(x) == canon(v) {
					return true
				}
			}
			return false
		}
		var types []string
		switch t := s["type"].(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if len(types) == 0 {
			return true
		}
		for _, t := range types {
			if validTyped(root, s, t, v) {
				return true
			}
		}
		return false
	}
	panic("bad schema")
}

func num(s map[string]any, k string) (int, bool) {
	n, ok := s[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n.String())
	return i, err == nil
}

func validTyped(root any, s map[string]any, t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && integerRE.MatchString(n.String())
	case "string":
		str, ok := v.(string)
		if !ok {
			return false
		}
		if f, ok := s["format"].(string); ok {
			return validators[f](str)
		}
		n := utf8.RuneCountInString(str)
		if lo, ok := num(s, "minLength"); ok && n < lo {
			return false
		}
		if hi, ok := num(s, "maxLength"); ok && n > hi {
			return false
		}
		return true
	case "array":
		a, ok := v.([]any)
		if !ok {
			return false
		}
		if lo, ok := num(s, "minItems"); ok && len(a) < lo {
			return false
		}
		if hi, ok := num(s, "maxItems"); ok && len(a) > hi {
			return false
		}
		if it, ok := s["items"]; ok {
			for _, e := range a {
				if !valid(root, it, e) {
					return false
				}
			}
		}
		return true
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return false
		}
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, k := range req {
				if _, ok := o[k.(string)]; !ok {
					return false
				}
			}
		}
		addl, hasAddl := s["additionalProperties"]
		for k, x := range o {
			if ps, ok := props[k]; ok {
				if !valid(root, ps, x) {
					return false
				}
				continue
			}
			switch {
			case !hasAddl && props != nil, addl == false:
				return false
			case hasAddl && addl != true:
				if !valid(root, addl, x) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// docGen writes random valid documents for a schema, laid out the way the
// grammar allows: required properties first in declared order, then the
// optional ones present in declared order, then extra members; bounded
// whitespace after { [ , : and before } ] :.
type docGen struct {
	r    *rand.Rand
	root any
	b    strings.Builder
}

// rawAt returns the value at path in the raw schema, decoded with the
// converter's order-keeping decoder.
func rawAt(raw string, path []string) *jvalue {
	v, err := parseJSON([]byte(raw))
	if err != nil {
		panic(err)
	}
	for _, p := range path {
		if v.kind == jArray {
			i, _ := strconv.Atoi(p)
			v = v.arr[i]
		} else {
			v = v.get(p)
		}
	}
	return v
}

// orderedProps returns the keys of the object at path in declared order.
func orderedProps(raw string, path []string) []string {
	var keys []string
	for _, m := range rawAt(raw, path).obj {
		keys = append(keys, m.key)
	}
	return keys
}

func (g *docGen) ws() {
	switch g.r.IntN(4) {
	case 1:
		g.b.WriteByte(' ')
	case 2:
		g.b.WriteString(strings.Repeat("\n", 1+g.r.IntN(2)))
		for range g.r.IntN(5) {
			g.b.WriteByte(" \t"[g.r.IntN(2)])
		}
	}
}

var genRunes = []rune("abcXYZ019 _-.,:;!?é😀\u4e2d\u00a0")
var genEscapes = []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u0041`}

func (g *docGen) str(lo, hi int) {
	n := lo + g.r.IntN(max(hi-lo, 0)+1)
	g.b.WriteByte('"')
	for range n {
		if g.r.IntN(6) == 0 {
			g.b.WriteString(genEscapes[g.r.IntN(len(genEscapes))])
		} else {
			g.b.WriteRune(genRunes[g.r.IntN(len(genRunes))])
		}
	}
	g.b.WriteByte('"')
}

func (g *docGen) digits(n int, first bool) {
	for i := range n {
		d := g.r.IntN(10)
		if i == 0 && first && n > 1 {
			d = 1 + g.r.IntN(9)
		}
		g.b.WriteByte(byte('0' + d))
	}
}

func (g *docGen) number(integer bool) {
	if g.r.IntN(3) == 0 {
		g.b.WriteByte('-')
	}
	g.digits(1+g.r.IntN(6), true)
	if integer {
		return
	}
	if g.r.IntN(2) == 0 {
		g.b.WriteByte('.')
		g.digits(1+g.r.IntN(6), false)
	}
	if g.r.IntN(4) == 0 {
		g.b.WriteString([]string{"e", "E", "e-", "E+"}[g.r.IntN(4)])
		g.digits(1+g.r.IntN(2), true)
	}
}

// anyValue writes a random JSON value of nesting depth at most d.
func (g *docGen) anyValue(d int) {
	k := g.r.IntN(6)
	if d == 0 {
		k = 2 + g.r.IntN(4)
	}
	switch k {
	case 0:
		g.b.WriteByte('{')
		g.ws()
		for i := range g.r.IntN(3) {
			if i > 0 {
				g.b.WriteByte(',')
				g.ws()
			}
			g.str(0, 4)
			g.ws()
			g.b.WriteByte(':')
			g.ws()
			g.anyValue(d - 1)
		}
		g.ws()
		g.b.WriteByte('}')
	case 1:
		g.b.WriteByte('[')
		g.ws()
		for i := range g.r.IntN(3) {
			if i > 0 {
				g.b.WriteByte(',')
				g.ws()
			}
			g.anyValue(d - 1)
		}
		g.ws()
		g.b.WriteByte(']')
	case 2:
		g.str(0, 5)
	case 3:
		g.number(false)
	case 4:
		g.b.WriteString([]string{"true", "false"}[g.r.IntN(2)])
	case 5:
		g.b.WriteString("null")
	}
}

// value writes a random document valid for schema s; raw and path locate
// s in the schema text, for property order.
func (g *docGen) value(s any, raw string, path []string, depth int) {
	m, ok := s.(map[string]any)
	if !ok { // true
		g.anyValue(2)
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		var p []string
		if ref != "#" {
			p = strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		}
		g.value(resolvePtr(g.root, ref), raw, p, depth+1)
		return
	}
	if m["nullable"] == true && g.r.IntN(3) == 0 {
		g.b.WriteString("null")
		return
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			i := g.r.IntN(len(alts))
			g.value(alts[i], raw, append(slices.Clone(path), k, strconv.Itoa(i)), depth)
			return
		}
	}
	if c, ok := m["const"]; ok {
		g.b.WriteString(canonOrdered(raw, append(slices.Clone(path), "const")))
		_ = c
		return
	}
	if e, ok := m["enum"].([]any); ok {
		i := g.r.IntN(len(e))
		g.b.WriteString(canonOrdered(raw, append(slices.Clone(path), "enum", strconv.Itoa(i))))
		return
	}
	var t string
	switch tt := m["type"].(type) {
	case string:
		t = tt
	case []any:
		t = tt[g.r.IntN(len(tt))].(string)
	default:
		g.anyValue(2)
		return
	}
	switch t {
	case "null":
		g.b.WriteString("null")
	case "boolean":
		g.b.WriteString([]string{"true", "false"}[g.r.IntN(2)])
	case "integer", "number":
		g.number(t == "integer")
	case "string":
		switch m["format"] {
		case "date":
			fmt.Fprintf(&g.b, `"%04d-%02d-%02d"`, g.r.IntN(10000), 1+g.r.IntN(12), 1+g.r.IntN(28))
		case "time":
			fmt.Fprintf(&g.b, `"%02d:%02d:%02dZ"`, g.r.IntN(24), g.r.IntN(60), g.r.IntN(60))
		case "date-time":
			fmt.Fprintf(&g.b, `"%04d-%02d-%02dT%02d:%02d:%02d.%03d+02:00"`, g.r.IntN(10000), 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), g.r.IntN(1000))
		case "uuid":
			fmt.Fprintf(&g.b, `"%08x-%04x-%04x-%04x-%012x"`, g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<16), g.r.IntN(1<<16), g.r.Uint64()&(1<<48-1))
		default:
			lo, _ := num(m, "minLength")
			hi, ok := num(m, "maxLength")
			if !ok {
				hi = lo + 8
			}
			g.str(lo, hi) // an escape is one character, as in the grammar

		}
	case "array":
		lo, _ := num(m, "minItems")
		hi, ok := num(m, "maxItems")
		if !ok {
			hi = lo + 3
		}
		if depth > 3 {
			hi = lo
		}
		n := lo + g.r.IntN(hi-lo+1)
		g.b.WriteByte('[')
		g.ws()
		for i := range n {
			if i > 0 {
				g.b.WriteByte(',')
				g.ws()
			}
			if it, ok := m["items"]; ok {
				g.value(it, raw, append(slices.Clone(path), "items"), depth+1)
			} else {
				g.anyValue(1)
			}
		}
		g.ws()
		g.b.WriteByte(']')
	case "object":
		props, _ := m["properties"].(map[string]any)
		req := map[string]bool{}
		if r, ok := m["required"].([]any); ok {
			for _, k := range r {
				req[k.(string)] = true
			}
		}
		var order []string
		if props != nil {
			order = orderedProps(raw, append(slices.Clone(path), "properties"))
		}
		var keys []string
		for _, k := range order {
			if req[k] {
				keys = append(keys, k)
			}
		}
		for _, k := range order {
			if !req[k] && g.r.IntN(2) == 0 && depth < 4 {
				keys = append(keys, k)
			}
		}
		addl, hasAddl := m["additionalProperties"]
		extra := 0
		if props == nil && !hasAddl || hasAddl && addl != false {
			extra = g.r.IntN(3)
		}
		g.b.WriteByte('{')
		g.ws()
		first := true
		member := func(key string) {
			if !first {
				g.b.WriteByte(',')
				g.ws()
			}
			first = false
			writeKey(&g.b, key)
			g.ws()
			g.b.WriteByte(':')
			g.ws()
		}
		for _, k := range keys {
			member(k)
			g.value(props[k], raw, append(slices.Clone(path), "properties", k), depth+1)
		}
		for i := range extra {
			member("extra" + strconv.Itoa(i) + "_" + strconv.Itoa(g.r.IntN(1000)))
			if as, ok := addl.(map[string]any); ok {
				g.value(as, raw, append(slices.Clone(path), "additionalProperties"), depth+1)
			} else {
				g.anyValue(1)
			}
		}
		g.ws()
		g.b.WriteByte('}')
	}
}

func writeKey(b *strings.Builder, k string) {
	var s strings.Builder
	writeJSONString(&s, k)
	b.WriteString(s.String())
}

// canonOrdered is the compact JSON of the value at path in the raw schema,
// members in their written order.
func canonOrdered(raw string, path []string) string {
	var b strings.Builder
	rawAt(raw, path).compact(&b)
	return b.String()
}
