package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxSchemaRepeat bounds minItems, maxItems, minLength and maxLength: each
// unit of a bounded count is one grammar rule.
const maxSchemaRepeat = 1000

// The primitive rules a schema grammar may use, in the order they are
// written after the schema's own rules. Whitespace is bounded (at most two
// newlines and twenty blanks between tokens, as llama.cpp's converter
// allows) so that a model cannot loop on whitespace; numbers have at most
// 16 digits in each part for the same reason.
var primitiveRules = []struct{ name, body string }{
	{"value", `object | array | string | number | boolean | null`},
	{"object", `"{" space ( string space ":" space value ( "," space string space ":" space value )* )? space "}"`},
	{"array", `"[" space ( value ( "," space value )* )? space "]"`},
	{"string", `"\"" char* "\""`},
	{"char", `[^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`},
	{"number", `"-"? integral-part ("." decimal-part)? ([eE] [-+]? integral-part)?`},
	{"integer", `"-"? integral-part`},
	{"integral-part", `[0] | [1-9] [0-9]{0,15}`},
	{"decimal-part", `[0-9]{1,16}`},
	{"boolean", `"true" | "false"`},
	{"null", `"null"`},
	{"date", `[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )`},
	{"time", `( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{1,6} )? ( "Z" | [+-] ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`},
	{"date-time", `date "T" time`},
	{"uuid", `[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12}`},
	{"space", `| " " | "\n"{1,2} [ \t]{0,20}`},
}

// primitiveDeps lists the primitives each primitive refers to.
var primitiveDeps = map[string][]string{
	"value":     {"object", "array", "string", "number", "boolean", "null"},
	"object":    {"string", "value", "space"},
	"array":     {"value", "space"},
	"string":    {"char"},
	"number":    {"integral-part", "decimal-part"},
	"integer":   {"integral-part"},
	"date-time": {"date", "time"},
}

// unsupportedKeywords are validation keywords a grammar cannot (or does not
// yet) enforce; a schema using one is refused rather than half-honoured.
var unsupportedKeywords = map[string]string{
	"pattern":               "regular-expression patterns cannot be enforced",
	"patternProperties":     "regular-expression patterns cannot be enforced",
	"propertyNames":         "property-name schemas are not supported",
	"minimum":               "numeric bounds are not supported",
	"maximum":               "numeric bounds are not supported",
	"exclusiveMinimum":      "numeric bounds are not supported",
	"exclusiveMaximum":      "numeric bounds are not supported",
	"multipleOf":            "numeric constraints are not supported",
	"minProperties":         "property counts are not supported",
	"maxProperties":         "property counts are not supported",
	"dependentRequired":     "conditional schemas are not supported",
	"dependentSchemas":      "conditional schemas are not supported",
	"dependencies":          "conditional schemas are not supported",
	"if":                    "conditional schemas are not supported",
	"then":                  "conditional schemas are not supported",
	"else":                  "conditional schemas are not supported",
	"not":                   "negated schemas are not supported",
	"allOf":                 "allOf is not supported; merge the schemas into one",
	"contains":              "array containment is not supported",
	"minContains":           "array containment is not supported",
	"maxContains":           "array containment is not supported",
	"uniqueItems":           "unique items cannot be enforced",
	"prefixItems":           "tuple schemas are not supported",
	"unevaluatedProperties": "unevaluated properties are not supported",
	"unevaluatedItems":      "unevaluated items are not supported",
	"contentEncoding":       "encoded content is not supported",
	"contentMediaType":      "encoded content is not supported",
	"contentSchema":         "encoded content is not supported",
	"$dynamicRef":           "dynamic references are not supported",
	"$recursiveRef":         "dynamic references are not supported",
}

// stringFormats maps the supported string formats to their rules.
var stringFormats = map[string]string{
	"date": "date", "time": "time", "date-time": "date-time", "uuid": "uuid",
}

// FromJSONSchema converts a JSON Schema into GBNF text for Parse, in the
// subset OpenAI's structured outputs accept and the way llama.cpp's
// converter writes it: objects (properties in declared order, required ones
// first, then each optional one in order), arrays (items, minItems,
// maxItems), strings (enum, const, minLength, maxLength, the formats date,
// time, date-time and uuid), number, integer, boolean, null, type arrays
// such as ["string","null"], anyOf (oneOf is read as anyOf), nullable, and
// $ref into $defs or definitions, recursion included. Annotations
// (description, title, default, examples…) are ignored.
//
// An object with properties allows only them unless additionalProperties
// is true (extra members with any JSON value) or a schema (extra members
// with values of that schema); extra members come after the declared ones,
// and their keys may be neither a declared name nor hold escapes (which
// could spell one). An object with neither properties nor
// additionalProperties allows any members, as in llama.cpp's converter
// (JSON Schema would allow extra members beside properties too). An
// unsupported keyword (pattern, minimum, allOf, an unknown format…) is
// refused with its JSON path, e.g. "$.properties.age.minimum".
func FromJSONSchema(schema []byte) (string, error) {
	return fromSchema(schema, false)
}

// FromJSONSchemaStrict is FromJSONSchema with the rules of OpenAI's strict
// mode: the root must be an object, and every object must set
// additionalProperties to false and list every property in required. A
// schema breaking them is refused with the path of the offending object.
func FromJSONSchemaStrict(schema []byte) (string, error) {
	return fromSchema(schema, true)
}

// JSONObjectGrammar returns GBNF text matching any JSON object, for
// response_format {"type": "json_object"}.
func JSONObjectGrammar() string {
	c := newSchemaConv(nil, false)
	c.define("root", c.prim("object"))
	return c.text()
}

func fromSchema(schema []byte, strict bool) (string, error) {
	root, err := parseJSON(schema)
	if err != nil {
		return "", fmt.Errorf("grammar: json schema: %v", err)
	}
	c := newSchemaConv(root, strict)
	if strict && (root.kind != jObject || !typeIs(root.get("type"), "object")) {
		return "", errors.New(`grammar: json schema: $: strict mode needs the root to be an object ("type": "object")`)
	}
	if err := c.visitInto(root, "$", "root"); err != nil {
		return "", err
	}
	text := c.text()
	if _, err := Parse(text); err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "left-recursive"):
			return "", errors.New("grammar: json schema: the schema refers to itself through $ref or anyOf without any JSON in between, so it describes no document")
		case strings.Contains(msg, "never finish"):
			return "", errors.New("grammar: json schema: the schema can never be satisfied by a finite document: a required property or item refers back to the schema holding it")
		}
		return "", fmt.Errorf("grammar: json schema: the generated grammar does not parse (%v)", err)
	}
	return text, nil
}

// schemaConv accumulates the rules of one schema's grammar.
type schemaConv struct {
	root   *jvalue
	strict bool
	// rootName is the rule of the schema being converted, which "#"
	// refers to ("root" but in a SchemaSet).
	rootName string
	// compact writes space as at most one blank (SchemaSet.Compact).
	compact bool
	order   []string          // rule names in definition order, root first
	bodies  map[string]string // rule name → body
	used    map[string]bool   // names taken, the primitives' included
	prims   map[string]bool   // primitives referred to
	refs    map[string]string // JSON pointer → rule name
}

func newSchemaConv(root *jvalue, strict bool) *schemaConv {
	c := &schemaConv{
		root: root, strict: strict, rootName: "root",
		bodies: map[string]string{}, used: map[string]bool{},
		prims: map[string]bool{}, refs: map[string]string{},
	}
	for _, p := range primitiveRules {
		c.used[p.name] = true
	}
	c.used["root"] = true
	return c
}

// prim marks a primitive (and what it needs) as used and returns its name.
func (c *schemaConv) prim(name string) string {
	if !c.prims[name] {
		c.prims[name] = true
		for _, d := range primitiveDeps[name] {
			c.prim(d)
		}
	}
	return name
}

// newName returns an unused rule name built from hint.
func (c *schemaConv) newName(hint string) string {
	var b strings.Builder
	dash := false
	for _, r := range hint {
		if r < 0x80 && isNameByte(byte(r)) && r != '_' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.Trim(b.String(), "-")
	if base == "" {
		base = "item"
	}
	if len(base) > 60 {
		base = strings.TrimRight(base[:60], "-")
	}
	name := base
	for i := 1; c.used[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	c.used[name] = true
	return name
}

func (c *schemaConv) define(name, body string) {
	if _, ok := c.bodies[name]; !ok {
		c.order = append(c.order, name)
	}
	c.bodies[name] = body
}

func (c *schemaConv) text() string {
	var b strings.Builder
	for _, n := range c.order {
		b.WriteString(n + " ::= " + c.bodies[n] + "\n")
	}
	for _, p := range primitiveRules {
		if c.prims[p.name] {
			body := p.body
			if p.name == "space" && c.compact {
				body = `" "?`
			}
			b.WriteString(p.name + " ::= " + body + "\n")
		}
	}
	return b.String()
}

// child extends a JSON path by a key: $.a.b, or $["odd key"].
func child(path, key string) string {
	ok := key != ""
	for i := 0; i < len(key); i++ {
		if ch := key[i]; !(ch == '_' || ch == '$' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			ok = false
			break
		}
	}
	if ok {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func schemaErr(path, format string, args ...any) error {
	return fmt.Errorf("grammar: json schema: %s: %s", path, fmt.Sprintf(format, args...))
}

// gbnfLiteral quotes text as a GBNF string literal.
func gbnfLiteral(text string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range text {
		writeChar(&b, r, false)
	}
	b.WriteByte('"')
	return b.String()
}

// constant returns the literal matching v exactly, as compact JSON.
func constant(v *jvalue) string {
	var b strings.Builder
	v.compact(&b)
	return gbnfLiteral(b.String())
}

// constraintKeys are the keywords besides type that shape a primitive.
var constraintKeys = []string{"$ref", "anyOf", "oneOf", "enum", "const", "nullable", "format", "minLength", "maxLength"}

// hasAny reports whether object s has any of keys, or an unsupported one.
func hasAny(s *jvalue, keys []string) bool {
	for _, m := range s.obj {
		if _, bad := unsupportedKeywords[m.key]; bad {
			return true
		}
	}
	for _, k := range keys {
		if s.get(k) != nil {
			return true
		}
	}
	return false
}

// typeIs reports whether a "type" value is the single type t.
func typeIs(v *jvalue, t string) bool { return v != nil && v.kind == jString && v.str == t }

// visit returns a grammar expression for schema s at path: a primitive's
// name or a new rule named from hint.
func (c *schemaConv) visit(s *jvalue, path, hint string) (string, error) {
	if s != nil && s.kind == jObject && !hasAny(s, constraintKeys) {
		if t := s.get("type"); t != nil && t.kind == jString {
			switch t.str {
			case "string", "number", "integer", "boolean", "null":
				// A bare primitive needs no rule of its own.
				return c.prim(t.str), nil
			}
		}
	}
	if s != nil && s.kind == jBool && s.b {
		return c.prim("value"), nil
	}
	if r := s.get("$ref"); r != nil && !hasAny(s, []string{"type", "properties", "items", "anyOf", "oneOf", "enum", "const", "nullable"}) {
		// A bare reference is the referenced rule itself.
		return c.ref(r, child(path, "$ref"))
	}
	name := c.newName(hint)
	return name, c.visitInto(s, path, name)
}

// visitInto defines rule name as schema s at path. The name takes its place
// in the rule order before the rules its body needs, so the grammar reads
// from the root down.
func (c *schemaConv) visitInto(s *jvalue, path, name string) error {
	c.define(name, "")
	body, err := c.body(s, path, name)
	if err != nil {
		return err
	}
	c.define(name, body)
	return nil
}

// body returns the grammar body for schema s.
func (c *schemaConv) body(s *jvalue, path, name string) (string, error) {
	switch {
	case s.kind == jBool && s.b:
		return c.prim("value"), nil
	case s.kind == jBool:
		return "", schemaErr(path, "the schema false matches nothing")
	case s.kind != jObject:
		return "", schemaErr(path, "a schema must be an object or a boolean")
	}
	for _, m := range s.obj {
		if why, bad := unsupportedKeywords[m.key]; bad {
			return "", schemaErr(child(path, m.key), "the keyword %q is not supported: %s", m.key, why)
		}
	}
	nullable := false
	if n := s.get("nullable"); n != nil {
		if n.kind != jBool {
			return "", schemaErr(child(path, "nullable"), "must be true or false")
		}
		nullable = n.b
	}
	body, err := c.nonNull(s, path, name)
	if err != nil {
		return "", err
	}
	if nullable {
		body = "( " + body + " ) | " + c.prim("null")
	}
	return body, nil
}

func (c *schemaConv) nonNull(s *jvalue, path, name string) (string, error) {
	if ref := s.get("$ref"); ref != nil {
		for _, k := range []string{"type", "properties", "items", "anyOf", "oneOf", "enum", "const"} {
			if s.get(k) != nil {
				return "", schemaErr(child(path, k), "a schema with $ref cannot also have %q; put it in the referenced schema", k)
			}
		}
		return c.ref(ref, child(path, "$ref"))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts := s.get(k)
		if alts == nil {
			continue
		}
		p := child(path, k)
		if alts.kind != jArray || len(alts.arr) == 0 {
			return "", schemaErr(p, "must be a non-empty array of schemas")
		}
		for _, other := range []string{"type", "properties", "items", "enum", "const", "anyOf"} {
			if other != k && s.get(other) != nil {
				return "", schemaErr(child(path, other), "a schema with %s cannot also have %q; put it inside each alternative", k, other)
			}
		}
		var parts []string
		for i, a := range alts.arr {
			e, err := c.visit(a, index(p, i), name+"-"+strconv.Itoa(i))
			if err != nil {
				return "", err
			}
			parts = append(parts, e)
		}
		return strings.Join(parts, " | "), nil
	}
	if v := s.get("const"); v != nil {
		return constant(v), nil
	}
	if e := s.get("enum"); e != nil {
		if e.kind != jArray || len(e.arr) == 0 {
			return "", schemaErr(child(path, "enum"), "must be a non-empty array")
		}
		var parts []string
		seen := map[string]bool{}
		for _, v := range e.arr {
			lit := constant(v)
			if !seen[lit] {
				seen[lit] = true
				parts = append(parts, lit)
			}
		}
		return strings.Join(parts, " | "), nil
	}
	t := s.get("type")
	switch {
	case t == nil:
		switch {
		case s.get("properties") != nil || s.get("additionalProperties") != nil || s.get("required") != nil:
			return c.object(s, path, name)
		case s.get("items") != nil || s.get("minItems") != nil || s.get("maxItems") != nil:
			return c.array(s, path, name)
		}
		return c.prim("value"), nil
	case t.kind == jString:
		return c.typed(s, t.str, child(path, "type"), path, name)
	case t.kind == jArray && len(t.arr) > 0:
		var parts []string
		seen := map[string]bool{}
		for i, tt := range t.arr {
			if tt.kind != jString {
				return "", schemaErr(index(child(path, "type"), i), "must be a type name")
			}
			if seen[tt.str] {
				continue
			}
			seen[tt.str] = true
			e, err := c.typed(s, tt.str, index(child(path, "type"), i), path, name+"-"+tt.str)
			if err != nil {
				return "", err
			}
			parts = append(parts, e)
		}
		return strings.Join(parts, " | "), nil
	}
	return "", schemaErr(child(path, "type"), "must be a type name or a non-empty array of them")
}

// typed returns the body for s read as the single type t.
func (c *schemaConv) typed(s *jvalue, t, tpath, path, name string) (string, error) {
	switch t {
	case "object":
		return c.object(s, path, name)
	case "array":
		return c.array(s, path, name)
	case "string":
		return c.str(s, path)
	case "number", "integer", "boolean", "null":
		return c.prim(t), nil
	}
	return "", schemaErr(tpath, "%q is not a JSON Schema type", t)
}

func (c *schemaConv) str(s *jvalue, path string) (string, error) {
	if f := s.get("format"); f != nil {
		rule, ok := "", false
		if f.kind == jString {
			rule, ok = stringFormats[f.str]
		}
		if !ok {
			var b strings.Builder
			f.compact(&b)
			return "", schemaErr(child(path, "format"), "the format %s is not supported (only date, time, date-time and uuid are)", b.String())
		}
		return `"\"" ` + c.prim(rule) + ` "\""`, nil
	}
	lo, hi, err := bounds(s, path, "minLength", "maxLength")
	if err != nil {
		return "", err
	}
	if lo == 0 && hi < 0 {
		return c.prim("string"), nil
	}
	return `"\"" ` + repeat(c.prim("char"), lo, hi) + ` "\""`, nil
}

// bounds reads a pair of count keywords (minItems/maxItems or
// minLength/maxLength); hi is -1 when absent.
func bounds(s *jvalue, path, minKey, maxKey string) (lo, hi int, err error) {
	read := func(key string, def int) (int, error) {
		v := s.get(key)
		if v == nil {
			return def, nil
		}
		n, perr := strconv.Atoi(v.num)
		if v.kind != jNumber || perr != nil || n < 0 {
			return 0, schemaErr(child(path, key), "must be a non-negative integer")
		}
		if n > maxSchemaRepeat {
			return 0, schemaErr(child(path, key), "%d is more than the %d a grammar can count", n, maxSchemaRepeat)
		}
		return n, nil
	}
	if lo, err = read(minKey, 0); err != nil {
		return 0, 0, err
	}
	if hi, err = read(maxKey, -1); err != nil {
		return 0, 0, err
	}
	if hi >= 0 && hi < lo {
		return 0, 0, schemaErr(child(path, maxKey), "%d is below %s %d", hi, minKey, lo)
	}
	return lo, hi, nil
}

// repeat writes item{lo,hi} (hi -1: unbounded) in its shortest GBNF form.
func repeat(item string, lo, hi int) string {
	switch {
	case hi == 0:
		return ""
	case lo == 0 && hi == 1:
		return item + "?"
	case lo == 0 && hi < 0:
		return item + "*"
	case lo == 1 && hi < 0:
		return item + "+"
	case hi < 0:
		return item + "{" + strconv.Itoa(lo) + ",}"
	case lo == hi:
		if lo == 1 {
			return item
		}
		return item + "{" + strconv.Itoa(lo) + "}"
	}
	return item + "{" + strconv.Itoa(lo) + "," + strconv.Itoa(hi) + "}"
}

func (c *schemaConv) array(s *jvalue, path, name string) (string, error) {
	if it := s.get("items"); it != nil && it.kind == jArray {
		return "", schemaErr(child(path, "items"), "tuple schemas (items as an array) are not supported")
	}
	var item string
	if it := s.get("items"); it != nil {
		var err error
		if item, err = c.visit(it, child(path, "items"), name+"-item"); err != nil {
			return "", err
		}
	} else {
		item = c.prim("value")
	}
	lo, hi, err := bounds(s, path, "minItems", "maxItems")
	if err != nil {
		return "", err
	}
	sp := c.prim("space")
	var list string
	switch {
	case hi == 0:
		list = ""
	case lo == 0:
		list = "( " + item + " " + repeat(`( "," `+sp+" "+item+" )", 0, dec(hi)) + " )?"
	default:
		list = item + " " + repeat(`( "," `+sp+" "+item+" )", lo-1, dec(hi))
	}
	return `"[" ` + sp + " " + list + " " + sp + ` "]"`, nil
}

// dec is hi-1 for a bound, keeping -1 (unbounded) as is.
func dec(hi int) int {
	if hi < 0 {
		return -1
	}
	return hi - 1
}

func (c *schemaConv) object(s *jvalue, path, name string) (string, error) {
	props := s.get("properties")
	if props != nil && props.kind != jObject {
		return "", schemaErr(child(path, "properties"), "must be an object")
	}
	addl := s.get("additionalProperties")
	if addl != nil && addl.kind != jBool && addl.kind != jObject {
		return "", schemaErr(child(path, "additionalProperties"), "must be a boolean or a schema")
	}
	closed := addl != nil && addl.kind == jBool && !addl.b
	if c.strict && !closed {
		return "", schemaErr(path, `strict mode needs "additionalProperties": false on every object`)
	}
	required := map[string]bool{}
	if r := s.get("required"); r != nil {
		if r.kind != jArray {
			return "", schemaErr(child(path, "required"), "must be an array of property names")
		}
		for i, e := range r.arr {
			if e.kind != jString {
				return "", schemaErr(index(child(path, "required"), i), "must be a property name")
			}
			if props.get(e.str) == nil && (closed || addl == nil) {
				return "", schemaErr(index(child(path, "required"), i), "%q is required but is not among the properties", e.str)
			}
			required[e.str] = true
		}
	}
	if props == nil && !closed {
		if addl == nil || addl.kind == jBool {
			return c.prim("object"), nil
		}
	}
	sp := c.prim("space")
	var req, opt []string // kv rule names
	if props != nil {
		for _, m := range props.obj {
			p := child(child(path, "properties"), m.key)
			if c.strict && !required[m.key] {
				return "", schemaErr(p, "strict mode needs every property listed in required, and %q is not", m.key)
			}
			val, err := c.visit(m.val, p, name+"-"+m.key)
			if err != nil {
				return "", err
			}
			kv := c.newName(name + "-" + m.key + "-kv")
			var key strings.Builder
			writeJSONString(&key, m.key)
			c.define(kv, gbnfLiteral(key.String())+" "+sp+` ":" `+sp+" "+val)
			if required[m.key] {
				req = append(req, kv)
			} else {
				opt = append(opt, kv)
			}
		}
	}
	extra := "" // the rule for additional members, if allowed
	if addl != nil && !closed {
		var val string
		if addl.kind == jObject {
			var err error
			if val, err = c.visit(addl, child(path, "additionalProperties"), name+"-additional"); err != nil {
				return "", err
			}
		} else {
			val = c.prim("value")
		}
		key := c.prim("string")
		if props != nil && len(props.obj) > 0 {
			var names []string
			for _, m := range props.obj {
				names = append(names, m.key)
			}
			key = c.otherKey(name+"-additional-key", names)
		}
		extra = c.newName(name + "-additional-kv")
		c.define(extra, key+" "+sp+` ":" `+sp+" "+val)
	}
	var b strings.Builder
	b.WriteString(`"{" ` + sp)
	for i, kv := range req {
		if i > 0 {
			b.WriteString(` "," ` + sp)
		}
		b.WriteString(" " + kv)
	}
	if len(opt) > 0 || extra != "" {
		// rest[i]: the optional members from i on, each after a comma; the
		// first optional member present is one alternative of first.
		n := len(opt)
		rest := make([]string, n+1)
		if extra != "" {
			rest[n] = `( "," ` + sp + " " + extra + " )*"
		}
		for i := n - 1; i >= 1; i-- {
			body := `( "," ` + sp + " " + opt[i] + " )?"
			if rest[i+1] != "" {
				body += " " + rest[i+1]
			}
			if i < n-1 || extra != "" {
				r := c.newName(name + "-rest")
				c.define(r, body)
				body = r
			}
			rest[i] = body
		}
		var firsts []string
		for i := range opt {
			f := opt[i]
			if rest[i+1] != "" {
				f += " " + rest[i+1]
			}
			firsts = append(firsts, f)
		}
		if extra != "" {
			firsts = append(firsts, extra+" "+rest[n])
		}
		alts := strings.Join(firsts, " | ")
		if len(req) > 0 {
			b.WriteString(` ( "," ` + sp + " ( " + alts + " ) )?")
		} else {
			b.WriteString(" ( " + alts + " )?")
		}
	}
	b.WriteString(" " + sp + ` "}"`)
	return b.String(), nil
}

// ref returns the rule for a $ref, defining it on first use. Only local
// references ("#" and "#/…" JSON pointers) are followed.
func (c *schemaConv) ref(ref *jvalue, path string) (string, error) {
	if ref.kind != jString {
		return "", schemaErr(path, "must be a string")
	}
	ptr := ref.str
	if name, ok := c.refs[ptr]; ok {
		return name, nil
	}
	if ptr != "#" && !strings.HasPrefix(ptr, "#/") {
		return "", schemaErr(path, "the reference %q is not local; only references into this schema (#/…) are supported", ptr)
	}
	target := c.root
	tpath := "$"
	hint := "ref"
	if ptr != "#" {
		for _, tok := range strings.Split(ptr[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch {
			case target.kind == jObject:
				target = target.get(tok)
				tpath = child(tpath, tok)
			case target.kind == jArray:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(target.arr) {
					target = nil
				} else {
					target = target.arr[i]
				}
				tpath = index(tpath, i)
			default:
				target = nil
			}
			if target == nil {
				return "", schemaErr(path, "the reference %q points at nothing", ptr)
			}
			hint = tok
		}
	}
	if ptr == "#" {
		c.refs[ptr] = c.rootName
		return c.rootName, nil
	}
	name := c.newName(hint)
	c.refs[ptr] = name
	return name, c.visitInto(target, tpath, name)
}

// otherKey defines a rule matching a JSON string that is none of names, so
// that an extra member cannot repeat a declared property with a value of
// another type. It walks the trie of the names: at each node the key may
// continue along a name, turn off every name with another character (and
// then go on freely), or end where no name ends. Escapes are not allowed in
// such keys: one could spell a declared name in disguise ("\u0061").
func (c *schemaConv) otherKey(hint string, names []string) string {
	type node struct {
		kids  map[rune]*node
		order []rune
		end   bool
	}
	root := &node{kids: map[rune]*node{}}
	for _, n := range names {
		at := root
		for _, r := range n {
			next, ok := at.kids[r]
			if !ok {
				next = &node{kids: map[rune]*node{}}
				at.kids[r] = next
				at.order = append(at.order, r)
			}
			at = next
		}
		at.end = true
	}
	free := c.newName(hint + "-char")
	c.define(free, `[^"\\\x7F\x00-\x1F]`)
	var walk func(n *node) string
	walk = func(n *node) string {
		name := c.newName(hint)
		c.define(name, "")
		var alts []string
		var other strings.Builder
		other.WriteString(`[^"\\\x7F\x00-\x1F`)
		for _, r := range n.order {
			alts = append(alts, gbnfLiteral(string(r))+" "+walk(n.kids[r]))
			writeChar(&other, r, true)
		}
		other.WriteString("]")
		alts = append(alts, other.String()+" "+free+`* "\""`)
		if !n.end {
			alts = append(alts, `"\""`)
		}
		c.define(name, strings.Join(alts, " | "))
		return name
	}
	start := walk(root)
	return `"\"" ` + start
}
