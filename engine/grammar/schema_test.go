package grammar

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// testSchemas cover the subset: nested objects, optional properties,
// arrays of objects with bounds, enums, nullable types, $defs with
// recursion, anyOf, const, formats, string lengths and additional
// properties. The strict ones follow OpenAI's strict-mode rules.
var testSchemas = []struct {
	name   string
	strict bool
	schema string
}{
	{"person", false, `{
		"type": "object",
		"properties": {
			"name": {"type": "string", "description": "full name"},
			"age": {"type": "integer"},
			"email": {"type": "string"},
			"tags": {"type": "array", "items": {"type": "string", "enum": ["red", "green", "blue \"quoted\""]}, "maxItems": 3},
			"address": {
				"type": "object",
				"properties": {"street": {"type": "string"}, "city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
				"required": ["city", "street"],
				"additionalProperties": false
			},
			"score": {"type": "number"},
			"active": {"type": "boolean"},
			"nick": {"type": "string", "nullable": true}
		},
		"required": ["name", "age"],
		"additionalProperties": false
	}`},
	{"orders", true, `{
		"type": "object",
		"properties": {
			"orders": {
				"type": "array", "minItems": 1, "maxItems": 4,
				"items": {
					"type": "object",
					"properties": {
						"id": {"type": "integer"},
						"label": {"type": "string", "minLength": 1, "maxLength": 6},
						"status": {"type": "string", "enum": ["open", "closed"]},
						"when": {"type": "string", "format": "date-time"}
					},
					"required": ["id", "label", "status", "when"],
					"additionalProperties": false
				}
			},
			"total": {"type": ["number", "null"]}
		},
		"required": ["orders", "total"],
		"additionalProperties": false
	}`},
	{"tree", true, `{
		"type": "object",
		"properties": {"root": {"$ref": "#/$defs/node"}},
		"required": ["root"],
		"additionalProperties": false,
		"$defs": {
			"node": {
				"type": "object",
				"properties": {
					"value": {"type": "integer"},
					"children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3}
				},
				"required": ["value", "children"],
				"additionalProperties": false
			}
		}
	}`},
	{"tool-call", true, `{
		"type": "object",
		"properties": {
			"name": {"const": "get_weather"},
			"arguments": {
				"type": "object",
				"properties": {
					"location": {"type": "string", "description": "city and country"},
					"unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null]},
					"days": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
				},
				"required": ["location", "unit", "days"],
				"additionalProperties": false
			}
		},
		"required": ["name", "arguments"],
		"additionalProperties": false
	}`},
	{"shapes", false, `{
		"type": "object",
		"properties": {
			"shapes": {"type": "array", "items": {"anyOf": [
				{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"], "additionalProperties": false},
				{"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"type": "number"}, "h": {"type": "number"}}, "required": ["kind", "w", "h"], "additionalProperties": false},
				{"$ref": "#/definitions/tag"}
			]}},
			"meta": {"type": "object", "additionalProperties": {"type": "integer"}},
			"id": {"type": "string", "format": "uuid"},
			"day": {"type": "string", "format": "date"},
			"anything": {}
		},
		"required": ["shapes"],
		"definitions": {"tag": {"type": "string", "enum": ["x", "y"]}}
	}`},
	{"open", false, `{
		"type": "object",
		"properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}},
		"additionalProperties": true
	}`},
	{"recursive-root", false, `{
		"type": "object",
		"properties": {"name": {"type": "string"}, "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
		"required": ["name", "next"],
		"additionalProperties": false
	}`},
}

func schemaGrammar(t testing.TB, strict bool, schema string) *Grammar {
	t.Helper()
	conv := FromJSONSchema
	if strict {
		conv = FromJSONSchemaStrict
	}
	text, err := conv([]byte(schema))
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	return mustParse(t, text)
}

// TestSchemaDocuments generates random valid documents for each schema and
// checks the grammar accepts them, then mutates them and checks that every
// mutation the validator refuses the grammar refuses too.
func TestSchemaDocuments(t *testing.T) {
	v := byteVocab(t)
	for _, sc := range testSchemas {
		t.Run(sc.name, func(t *testing.T) {
			g := schemaGrammar(t, sc.strict, sc.schema)
			m := NewMatcher(g, v)
			root := decodeSchema(sc.schema)
			r := rand.New(rand.NewPCG(1, uint64(len(sc.name))))
			rejected := 0
			for i := range 300 {
				gen := &docGen{r: r, root: root}
				gen.value(root, sc.schema, nil, 0)
				doc := gen.b.String()
				dv, err := decodeDoc([]byte(doc))
				if err != nil || !valid(root, root, dv) {
					t.Fatalf("generator wrote an invalid document (%v): %s", err, doc)
				}
				m.Reset()
				if err := m.AcceptBytes([]byte(doc)); err != nil || !m.Done() {
					t.Fatalf("document %d refused (%v, done %v):\n%s", i, err, m.Done(), doc)
				}
				for range 10 {
					mut := mutate(r, doc)
					if dv, err := decodeDoc([]byte(mut)); err == nil && valid(root, root, dv) {
						continue // still valid; the grammar may take it or not
					}
					rejected++
					m.Reset()
					if m.AcceptBytes([]byte(mut)) == nil && m.Done() {
						t.Fatalf("invalid document accepted:\n%s\n(mutated from)\n%s", mut, doc)
					}
				}
			}
			if rejected < 1000 {
				t.Errorf("only %d invalid mutations tried", rejected)
			}
		})
	}
}

// mutate changes a document a little: a byte dropped, inserted, replaced
// or duplicated, a cut, or a value swapped for one of another type.
func mutate(r *rand.Rand, doc string) string {
	pos := r.IntN(len(doc))
	pieces := []string{`"`, `,`, `:`, `{`, `}`, `[`, `]`, `0`, `-`, `.`, `e`, `x`, ` `, `\`, "\x01", `null`, `true`, `"k":1`, `,"extra":1`, `1.5`, `"s"`, `[]`, `{}`}
	switch r.IntN(6) {
	case 0:
		return doc[:pos] + doc[pos+1:]
	case 1:
		return doc[:pos] + pieces[r.IntN(len(pieces))] + doc[pos:]
	case 2:
		return doc[:pos] + pieces[r.IntN(len(pieces))] + doc[pos+1:]
	case 3:
		return doc[:pos]
	case 4:
		// Replace a value after a colon.
		i := strings.Index(doc[pos:], ":")
		if i < 0 {
			return doc[:pos]
		}
		at := pos + i + 1
		end := at
		for end < len(doc) && !strings.ContainsRune(",}]", rune(doc[end])) {
			end++
		}
		return doc[:at] + pieces[15+r.IntN(len(pieces)-15)] + doc[end:]
	default:
		// Drop one member: from a key's quote to its following comma.
		i := strings.Index(doc[pos:], `":`)
		if i < 0 {
			return doc + " "
		}
		start := strings.LastIndex(doc[:pos+i], `"`)
		end := strings.IndexAny(doc[pos+i:], ",}")
		if start < 0 || end < 0 {
			return doc[:pos]
		}
		return doc[:start] + doc[pos+i+end+1:]
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, c := range []struct {
		strict       bool
		schema, want string
	}{
		{false, `{"type":"object","properties":{"age":{"type":"integer","minimum":0}}}`, `$.properties.age.minimum: the keyword "minimum" is not supported`},
		{false, `{"type":"object","properties":{"name":{"type":"string","pattern":"^a"}}}`, `$.properties.name.pattern: the keyword "pattern" is not supported`},
		{false, `{"type":"string","format":"email"}`, `$.format: the format "email" is not supported`},
		{false, `{"allOf":[{"type":"string"}]}`, `$.allOf: the keyword "allOf" is not supported`},
		{false, `{"type":"array","items":[{"type":"string"}]}`, `$.items: tuple schemas`},
		{false, `{"type":"strung"}`, `$.type: "strung" is not a JSON Schema type`},
		{false, `{"type":["string",3]}`, `$.type[1]: must be a type name`},
		{false, `{"$ref":"http://example.com/s.json"}`, `$.$ref: the reference "http://example.com/s.json" is not local`},
		{false, `{"$ref":"#/$defs/missing"}`, `$.$ref: the reference "#/$defs/missing" points at nothing`},
		{false, `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, `$.required[0]: "b" is required but is not among the properties`},
		{false, `{"type":"array","minItems":3,"maxItems":2}`, `$.maxItems: 2 is below minItems 3`},
		{false, `{"type":"string","maxLength":100000}`, `$.maxLength: 100000 is more than the 1000`},
		{false, `{"type":"string","minLength":-1}`, `$.minLength: must be a non-negative integer`},
		{false, `{"anyOf":[]}`, `$.anyOf: must be a non-empty array`},
		{false, `{"enum":[]}`, `$.enum: must be a non-empty array`},
		{false, `{"type":"object","properties":{"x":false}}`, `$.properties.x: the schema false matches nothing`},
		{false, `{"type":"object","properties":{"odd key":{"not":{}}}}`, `$.properties["odd key"].not: the keyword "not" is not supported`},
		{false, `{"anyOf":[{"$ref":"#"}]}`, `refers to itself through $ref or anyOf`},
		{false, `{"type":"object","properties":{"self":{"$ref":"#"}},"required":["self"],"additionalProperties":false}`, `can never be satisfied by a finite document`},
		{false, `{"type":"object"`, `not valid JSON`},
		{false, `{"a":1,"a":2}`, `repeats the key "a"`},
		{false, `{} {}`, `more after the schema`},
		{false, ``, `the schema is empty`},
		{true, `{"type":"string"}`, `$: strict mode needs the root to be an object`},
		{true, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `$: strict mode needs "additionalProperties": false`},
		{true, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`, `$.properties.b: strict mode needs every property listed in required, and "b" is not`},
		{true, `{"type":"object","properties":{"in":{"type":"object","properties":{}}},"required":["in"],"additionalProperties":false}`, `$.properties.in: strict mode needs "additionalProperties": false`},
	} {
		conv := FromJSONSchema
		if c.strict {
			conv = FromJSONSchemaStrict
		}
		_, err := conv([]byte(c.schema))
		if err == nil {
			t.Errorf("%s: no error, want %q", c.schema, c.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n\r") {
			t.Errorf("%s:\n got %q\nwant %q", c.schema, msg, c.want)
		}
	}
}

func TestSchemaShapes(t *testing.T) {
	// Small schemas checked against exact texts.
	for _, c := range []struct {
		schema   string
		accept   []string
		reject   []string
		strictOK bool
	}{
		{`{"type":"object","properties":{},"additionalProperties":false}`, []string{`{}`, `{ }`}, []string{`{"a":1}`}, true},
		{`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}`,
			[]string{`{}`, `{"a":1}`, `{"b":1}`, `{"a":1,"c":3}`, `{"a":1,"b":2,"c":3}`, `{"c":3}`},
			[]string{`{"b":1,"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"d":1}`, `{"a":1,"a":1}`}, false},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":{"type":"string"}}`,
			[]string{`{"a":1}`, `{"a":1,"x":"y"}`, `{"a":1,"x":"y","z":""}`}, []string{`{"x":"y","a":1}`, `{"a":1,"x":2}`}, false},
		{`{"type":"object","properties":{"ab":{"type":"integer"},"ac":{"type":"boolean"}},"additionalProperties":true}`,
			[]string{`{"ab":1}`, `{"a":"x"}`, `{"abc":"x"}`, `{"ab":1,"ad":[]}`, `{"":1}`, `{"ab":1,"a":1}`},
			[]string{`{"ab":"x"}`, `{"x":1,"ab":1}`, `{"ac":1}`, `{"ab":1,"ab":2}`, `{"\u0061b":"x"}`}, false},
		{`{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3}`, []string{`[1,2]`, `[1, 2, 3]`}, []string{`[]`, `[1]`, `[1,2,3,4]`, `[1,]`}, false},
		{`{"type":"array","maxItems":0}`, []string{`[]`, `[ ]`}, []string{`[1]`}, false},
		{`{"type":"string","minLength":2,"maxLength":3}`, []string{`"ab"`, `"a\nb"`, `"é😀"`}, []string{`"a"`, `"abcd"`}, false},
		{`{"enum":["a",1,null,{"k":[true]}]}`, []string{`"a"`, `1`, `null`, `{"k":[true]}`}, []string{`"b"`, `{"k": [true]}`, `2`}, false},
		{`{"type":["integer","null"]}`, []string{`1`, `-20`, `null`}, []string{`1.5`, `"1"`, `01`}, false},
		{`{"type":"number"}`, []string{`0`, `-0.5`, `1e5`, `2.25E-3`, `1234567890123456`}, []string{`01`, `.5`, `1.`, `+1`, `12345678901234567`, `1e`}, false},
		{`{"type":"object","properties":{"s":{"type":"string"}},"required":["s"],"additionalProperties":false}`,
			[]string{`{"s":""}`, "{\n  \"s\" : \"x\"\n}", `{"s":"\u00e9\"\\"}`}, []string{`{"s":"` + "\x7f" + `"}`, `{"s":"\x"}`, "{" + strings.Repeat(" ", 30) + `"s":""}`}, true},
		{`{"type":"string","format":"date-time"}`, []string{`"2024-01-31T23:59:59Z"`, `"2024-01-31T23:59:59.123+05:30"`}, []string{`"2024-13-01T00:00:00Z"`, `"2024-01-31 23:59:59Z"`}, false},
		{`true`, []string{`1`, `"x"`, `{"a":[null]}`}, []string{`{`}, false},
	} {
		text, err := FromJSONSchema([]byte(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		g := mustParse(t, text)
		checkMatches(t, g, true, c.accept...)
		checkMatches(t, g, false, c.reject...)
		if _, err := FromJSONSchemaStrict([]byte(c.schema)); (err == nil) != c.strictOK {
			t.Errorf("%s: strict error %v, want ok=%v", c.schema, err, c.strictOK)
		}
	}
}

func TestJSONObjectGrammar(t *testing.T) {
	g := mustParse(t, JSONObjectGrammar())
	checkMatches(t, g, true, `{}`, `{"a":{"b":[1,2,{"c":null}]},"d":"é"}`, "{\n  \"x\": true\n}")
	checkMatches(t, g, false, `[]`, `"s"`, `1`, `{"a"}`, ` {}`)
}

// TestSchemaSet: several schemas in one grammar, each with its own "#"
// and $defs, and Compact's one blank.
func TestSchemaSet(t *testing.T) {
	set := NewSchemaSet()
	set.Compact = true
	a, err := set.Add([]byte(`{"type": "object", "properties": {"next": {"$ref": "#"}, "n": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}`), "a", false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := set.Add([]byte(`{"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}, "required": ["n"], "$defs": {"n": {"type": "boolean"}}}`), "b", false)
	if err != nil {
		t.Fatal(err)
	}
	src, err := set.Grammar(Literal("A") + " " + a + " | " + Literal("B") + " " + b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		`A{"next": {"n": 1}, "n": 2}`: true,
		`A{"n": true}`:                false, // a's n is an integer
		`B{"n": true}`:                true,
		`B{"n": 1}`:                   false, // b's n is a boolean
		`B{"n":  true}`:               false, // two blanks
		"B{\"n\":\ntrue}":             false,
	} {
		if got := matches(g, byteVocab(t), text); got != want {
			t.Errorf("%s: %v, want %v\n%s", text, got, want, src)
		}
	}
	if _, err := set.Add([]byte(`{"type": "string", "pattern": "x"}`), "c", false); err == nil || !strings.Contains(err.Error(), "$.pattern") {
		t.Errorf("a pattern: %v", err)
	}
}
