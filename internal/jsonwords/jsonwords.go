// Package jsonwords says what is wrong with a JSON file in its reader's
// words: encoding/json's errors name Go's types and struct fields ("json:
// cannot unmarshal number into Go struct field Case.context of type
// string"), which a person who wrote the file never saw.
package jsonwords

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Explain says in words what err, from decoding JSON, found wrong: a
// value of the wrong kind ("the JSON field "context" holds a number where
// text belongs") or JSON that does not parse ("not valid JSON at byte
// 7"). ok is false when err is neither.
func Explain(err error) (words string, ok bool) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got := kind(te.Value)
		want := "another kind of value"
		if te.Type != nil {
			want = goKind(te.Type)
		}
		if te.Field == "" {
			return fmt.Sprintf("the JSON holds %s where %s belongs", got, want), true
		}
		return fmt.Sprintf("the JSON field %q holds %s where %s belongs", te.Field, got, want), true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d", se.Offset), true
	}
	return "", false
}

// Rewrite is msg, a message that holds err's text, with the decoder's
// words for a value of the wrong kind replaced by Explain's; other
// messages are returned as they are.
func Rewrite(err error, msg string) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return msg
	}
	words, _ := Explain(te)
	return strings.Replace(msg, te.Error(), words, 1)
}

// String is Explain's words for err, or err's own text.
func String(err error) string {
	if words, ok := Explain(err); ok {
		return words
	}
	return err.Error()
}

// kind is a JSON value's kind as encoding/json names it ("number",
// "number 1e999", "string", "array", "object", "bool"), in words.
func kind(v string) string {
	switch first, _, _ := strings.Cut(v, " "); first {
	case "number":
		return "a number"
	case "string":
		return "text"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	return v
}

// goKind is what a Go type takes in JSON, in words.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
