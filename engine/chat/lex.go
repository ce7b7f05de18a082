package chat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// segment is a piece of template source: literal text, or the inside of a
// {{ … }} (kind 'v') or {% … %} (kind 'b') tag.
type segment struct {
	kind byte // 't' text, 'v' variable, 'b' block
	text string
	line int
}

// lexTemplate splits src into segments, applying whitespace control the way
// transformers configures Jinja2: trim_blocks (drop the first newline after
// a block or comment tag), lstrip_blocks (drop spaces and tabs before a
// block or comment tag that starts its line), and the explicit '-' / '+'
// markers.
func lexTemplate(src string) ([]segment, error) {
	var segs []segment
	pos := 0
	lineStart := true  // the text at pos starts a line
	stripNext := false // a '-' marker asked to strip leading whitespace
	lineOf := func(i int) int { return strings.Count(src[:i], "\n") + 1 }
	for pos <= len(src) {
		i := nextTag(src, pos)
		text := src[pos:i]
		if stripNext {
			text = strings.TrimLeft(text, " \t\n\r\f\v")
			stripNext = false
		}
		if i == len(src) {
			if text != "" {
				segs = append(segs, segment{'t', text, lineOf(pos)})
			}
			break
		}
		open := src[i : i+2]
		mod := byte(0)
		if i+2 < len(src) {
			mod = src[i+2]
		}
		if mod == '-' {
			text = strings.TrimRight(text, " \t\n\r\f\v")
		} else if open != "{{" && mod != '+' {
			l := strings.LastIndexByte(text, '\n') + 1
			if (l > 0 || lineStart) && strings.Trim(text[l:], " \t") == "" {
				text = text[:l]
			}
		}
		if text != "" {
			segs = append(segs, segment{'t', text, lineOf(pos)})
		}
		start := i + 2
		if mod == '-' || mod == '+' {
			start++
		}
		var end int
		var err error
		switch open {
		case "{#":
			k := strings.Index(src[start:], "#}")
			if k < 0 {
				return nil, fmt.Errorf("line %d: unclosed comment", lineOf(i))
			}
			end = start + k
		case "{{":
			end, err = findClose(src, start, "}}")
		default:
			end, err = findClose(src, start, "%}")
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineOf(i), err)
		}
		inner := src[start:end]
		if strings.HasSuffix(inner, "-") {
			inner = inner[:len(inner)-1]
			stripNext = true
		}
		pos = end + 2
		lineStart = false
		switch open {
		case "{{":
			segs = append(segs, segment{'v', inner, lineOf(i)})
		case "{%":
			if name := firstWord(inner); name == "raw" {
				// {% raw %}…{% endraw %}: the body is literal text.
				k := strings.Index(src[pos:], "endraw")
				if k < 0 {
					return nil, fmt.Errorf("line %d: unclosed raw block", lineOf(i))
				}
				open := strings.LastIndex(src[pos:pos+k], "{%")
				if open < 0 {
					return nil, fmt.Errorf("line %d: bad endraw", lineOf(i))
				}
				body := src[pos : pos+open]
				if strings.HasPrefix(src[pos+open:], "{%-") {
					body = strings.TrimRight(body, " \t\n\r\f\v")
				}
				segs = append(segs, segment{'t', body, lineOf(pos)})
				closeEnd := strings.Index(src[pos+k:], "%}")
				if closeEnd < 0 {
					return nil, fmt.Errorf("line %d: bad endraw", lineOf(i))
				}
				pos = pos + k + closeEnd + 2
				if src[pos-3] == '-' {
					stripNext = true
				}
			} else {
				segs = append(segs, segment{'b', inner, lineOf(i)})
			}
		}
		if open != "{{" && !stripNext {
			if strings.HasPrefix(src[pos:], "\n") {
				pos++
				lineStart = true
			} else if strings.HasPrefix(src[pos:], "\r\n") {
				pos += 2
				lineStart = true
			}
		}
	}
	return segs, nil
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t\n\r")
	if i < 0 {
		return s
	}
	return s[:i]
}

// nextTag returns the index of the next "{{", "{%" or "{#" at or after pos,
// or len(src).
func nextTag(src string, pos int) int {
	for i := pos; i+1 < len(src); i++ {
		if src[i] == '{' && (src[i+1] == '{' || src[i+1] == '%' || src[i+1] == '#') {
			return i
		}
	}
	return len(src)
}

// findClose finds the closing delimiter of a tag, skipping string literals.
func findClose(src string, pos int, close string) (int, error) {
	for i := pos; i < len(src); i++ {
		switch c := src[i]; c {
		case '\'', '"':
			for i++; i < len(src) && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		default:
			if strings.HasPrefix(src[i:], close) {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("tag not closed with %q", close)
}

// Expression tokens.
type tokKind byte

const (
	tEOF tokKind = iota
	tName
	tString
	tInt
	tFloat
	tOp
)

type token struct {
	kind tokKind
	s    string // name, operator, or decoded string literal
	i    int64
	f    float64
}

var operators = []string{"//", "**", "==", "!=", ">=", "<=", "+", "-", "*", "/", "%", "~",
	"(", ")", "[", "]", "{", "}", ",", ":", ".", "|", "=", "<", ">"}

// lexExpr tokenises the inside of a tag.
func lexExpr(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{kind: tName, s: s[i:j]})
			i = j
		case '0' <= c && c <= '9':
			j := i
			for j < len(s) && ('0' <= s[j] && s[j] <= '9' || s[j] == '_') {
				j++
			}
			isFloat := false
			if j+1 < len(s) && s[j] == '.' && '0' <= s[j+1] && s[j+1] <= '9' {
				isFloat = true
				j++
				for j < len(s) && '0' <= s[j] && s[j] <= '9' {
					j++
				}
			}
			lit := strings.ReplaceAll(s[i:j], "_", "")
			if isFloat {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil {
					return nil, err
				}
				toks = append(toks, token{kind: tFloat, f: f})
			} else {
				n, err := strconv.ParseInt(lit, 10, 64)
				if err != nil {
					return nil, err
				}
				toks = append(toks, token{kind: tInt, i: n})
			}
			i = j
		case c == '\'' || c == '"':
			var sb strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] != '\\' || j+1 >= len(s) {
					sb.WriteByte(s[j])
					continue
				}
				j++
				switch e := s[j]; e {
				case 'n':
					sb.WriteByte('\n')
				case 't':
					sb.WriteByte('\t')
				case 'r':
					sb.WriteByte('\r')
				case '0':
					sb.WriteByte(0)
				case 'u', 'x', 'U':
					n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
					if j+n < len(s) {
						if v, err := strconv.ParseUint(s[j+1:j+1+n], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
							sb.WriteRune(rune(v))
							j += n
							continue
						}
					}
					sb.WriteByte('\\')
					sb.WriteByte(e)
				case '\\', '\'', '"':
					sb.WriteByte(e)
				case '\n':
				default:
					sb.WriteByte('\\')
					sb.WriteByte(e)
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string literal")
			}
			toks = append(toks, token{kind: tString, s: sb.String()})
			i = j + 1
		default:
			matched := false
			for _, op := range operators {
				if strings.HasPrefix(s[i:], op) {
					toks = append(toks, token{kind: tOp, s: op})
					i += len(op)
					matched = true
					break
				}
			}
			if !matched {
				return nil, fmt.Errorf("unexpected character %q", c)
			}
		}
	}
	return append(toks, token{kind: tEOF}), nil
}
