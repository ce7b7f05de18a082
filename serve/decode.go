package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Turning a request body into a request, and what the client is told when
// that fails: one sentence naming the field and the value it sent, never
// the decoder's own wording (which speaks of Go types).

// decodeBody reads a JSON request body of at most limit bytes into v.
// Unknown fields are ignored, as OpenAI's clients send fields the server
// may not know; a known field of the wrong type, a body that is not one
// JSON object, one over the limit, or one that has not arrived within
// timeout (the read deadline the caller set) is an error in one sentence.
func decodeBody(r io.Reader, limit int64, timeout time.Duration, v any) *apiError {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return &apiError{Status: http.StatusRequestTimeout, Type: "invalid_request_error",
				Message: fmt.Sprintf("the request body did not arrive within the server's limit of %v", timeout)}
		}
		return badRequest("", "the request body was cut off before its end")
	}
	if int64(len(data)) > limit {
		return &apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
			Message: fmt.Sprintf("the request body is over the server's limit of %d bytes", limit)}
	}
	return decodeJSON(data, v)
}

// decodeJSON is decodeBody's parser, apart for the fuzzer.
func decodeJSON(data []byte, v any) *apiError {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return decodeError(data, err)
	}
	if rest := bytes.Trim(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return badRequest("", "the request body must be one JSON object with nothing after it, but more follows at byte %d", len(data)-len(rest))
	}
	return nil
}

// decodeError is a decoding error as the client's mistake, in one
// sentence: which field holds what, or where the JSON breaks.
func decodeError(data []byte, err error) *apiError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var shape shapeError
	switch {
	case errors.As(err, &shape):
		return badRequest(shape.param, "%s", shape.msg)
	case errors.As(err, &te):
		return typeError(data, te)
	case errors.As(err, &se):
		if se.Offset < 1 || se.Offset > int64(len(data)) {
			return badRequest("", "the request body is not valid JSON")
		}
		at := se.Offset - 1
		r, _ := utf8.DecodeRune(data[at:])
		return badRequest("", "the request body is not valid JSON: unexpected %s at byte %d", quoteRune(r), at)
	case errors.Is(err, io.EOF):
		return badRequest("", "the request body is empty: it must be a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "the request body is not valid JSON: it ends in the middle of a value")
	}
	// Nothing else comes out of the decoder for a body already in memory;
	// should it, the client still gets a sentence, without Go's words.
	return badRequest("", "the request body is not a valid request")
}

// quoteRune shows one character of the body: printable ones as they are,
// others by their code.
func quoteRune(r rune) string {
	if r == utf8.RuneError {
		return "a byte that is not UTF-8"
	}
	if strconv.IsPrint(r) {
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("character U+%04X", r)
}

// typeError is a value of the wrong type: `"temperature" must be a
// number, got "abc"`. The decoder names the field without array indices
// and not the value, so both are found again in the body at the error's
// offset.
func typeError(data []byte, te *json.UnmarshalTypeError) *apiError {
	path, raw, found := locate(data, te.Offset)
	if !found {
		path, raw = te.Field, nil
	}
	got := showJSON(raw)
	if raw == nil {
		got = "a JSON " + strings.Fields(te.Value + " value")[0]
	}
	if path == "" {
		return badRequest("", "the request body must be a JSON object, got %s", got)
	}
	kind := reflect.Invalid
	if te.Type != nil {
		kind = te.Type.Kind()
	}
	if strings.HasPrefix(te.Value, "number") && isNumberKind(kind) {
		f, err := strconv.ParseFloat(string(raw), 64)
		switch {
		case kind > reflect.Uint64:
			// A float field fails only on a number beyond float64.
			return badRequest(path, "%q is out of range, got %s", path, got)
		case raw == nil || (err == nil && f != math.Trunc(f)):
			return badRequest(path, "%q must be an integer, got %s", path, got)
		case err == nil && math.Abs(f) < 1<<63:
			// 5.0 or 1e3: whole, but the decoder takes integers only
			// as digits.
			return badRequest(path, "%q must be an integer written without a decimal point or exponent, got %s", path, got)
		}
		return badRequest(path, "%q is out of range, got %s", path, got)
	}
	return badRequest(path, "%q must be %s, got %s", path, jsonKind(kind), got)
}

func isNumberKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// jsonKind names a Go kind as the JSON a client should send.
func jsonKind(k reflect.Kind) string {
	switch {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.Slice || k == reflect.Array:
		return "an array"
	case k == reflect.Struct || k == reflect.Map:
		return "an object"
	case k >= reflect.Int && k <= reflect.Uint64:
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	}
	return "of another type"
}

// locate finds the value of the body that a type error at offset is
// about: a literal that ends there, or an object or array that opens just
// before it. It returns the value's path (messages[1].role) and its JSON.
// The body's first value is valid JSON (the decoder checked it before
// decoding), but locate assumes nothing: on any surprise it reports
// nothing found.
func locate(data []byte, offset int64) (path string, raw []byte, found bool) {
	type frame struct {
		object    bool
		key       string
		index     int
		expectKey bool
		start     int64 // where the container opens
		target    bool  // the value asked for
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	pathOf := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return b.String()
	}
	// advance moves the enclosing container past the value just read.
	advance := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expectKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	end := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", nil, false
		}
		start := end
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[start]) >= 0 {
			start++
		}
		end = dec.InputOffset()
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].expectKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			here := pathOf()
			stack = append(stack, frame{object: tok == json.Delim('{'), expectKey: true, start: start, target: start+1 == offset})
			if stack[len(stack)-1].target {
				path = here
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			if len(stack) == 0 {
				return "", nil, false
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.target {
				return path, data[f.start:end], true
			}
			advance()
			if len(stack) == 0 {
				return "", nil, false
			}
			continue
		}
		if end == offset {
			return pathOf(), data[start:end], true
		}
		advance()
		if len(stack) == 0 {
			return "", nil, false
		}
	}
}

// showJSON is a value the client sent, short enough for a message: a
// string (cut after 32 characters), a number or literal as sent, a small
// array or object in compact form, a large one by its kind.
func showJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "a string"
		}
		cut := ""
		if utf8.RuneCountInString(s) > 32 {
			s, cut = string([]rune(s)[:32]), "…"
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(s) != nil {
			return "a string"
		}
		q := strings.TrimSuffix(b.String(), "\n")
		if cut != "" {
			q = q[:len(q)-1] + cut + `"`
		}
		return q
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil && b.Len() <= 40 {
			return b.String()
		}
		if raw[0] == '{' {
			return "an object"
		}
		return "an array"
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}
