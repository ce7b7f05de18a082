package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxJSONDepth bounds the nesting of a schema document.
const maxJSONDepth = 200

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is a decoded JSON value that keeps object members in document
// order: a schema's property order is the order the grammar writes them.
type jvalue struct {
	kind jkind
	b    bool
	num  string // the number's text as written
	str  string
	arr  []*jvalue
	obj  []jmember
}

type jmember struct {
	key string
	val *jvalue
}

// get returns the member key of an object, or nil.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parseJSON decodes one JSON document, refusing duplicate object keys and
// trailing data.
func parseJSON(data []byte) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("there is more after the schema's JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (*jvalue, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("the schema nests deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("the schema is empty")
		}
		return nil, fmt.Errorf("the schema is not valid JSON (%s)", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	switch t := tok.(type) {
	case nil:
		return &jvalue{kind: jNull}, nil
	case bool:
		return &jvalue{kind: jBool, b: t}, nil
	case json.Number:
		return &jvalue{kind: jNumber, num: t.String()}, nil
	case string:
		return &jvalue{kind: jString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &jvalue{kind: jArray}
			for dec.More() {
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("the schema is not valid JSON (%v)", err)
			}
			return v, nil
		case '{':
			v := &jvalue{kind: jObject}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("the schema is not valid JSON (%v)", err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errors.New("the schema is not valid JSON (an object key is not a string)")
				}
				if seen[key] {
					return nil, fmt.Errorf("the schema repeats the key %q in one object", key)
				}
				seen[key] = true
				e, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, jmember{key, e})
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("the schema is not valid JSON (%v)", err)
			}
			return v, nil
		}
	}
	return nil, fmt.Errorf("the schema is not valid JSON (unexpected %v)", tok)
}

// compact writes v as compact JSON, without HTML escaping: the exact text
// a const or enum value must be generated as.
func (v *jvalue) compact(b *strings.Builder) {
	switch v.kind {
	case jNull:
		b.WriteString("null")
	case jBool:
		b.WriteString(strconv.FormatBool(v.b))
	case jNumber:
		b.WriteString(v.num)
	case jString:
		writeJSONString(b, v.str)
	case jArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.compact(b)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.key)
			b.WriteByte(':')
			m.val.compact(b)
		}
		b.WriteByte('}')
	}
}

// writeJSONString writes s as a JSON string, escaping only what JSON
// requires.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
