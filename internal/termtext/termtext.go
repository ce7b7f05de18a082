// Package termtext makes text from outside the program safe to put on a
// terminal. A session file, a model's output, a GGUF's metadata or a
// server's reply may hold control characters: ESC starts sequences that
// retitle the terminal, clear it, move the cursor or (in some terminals)
// write to the clipboard, and the C1 controls (U+0080–U+009F) are the
// same sequences in one character. Such text is shown, not obeyed.
package termtext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Clean returns s with every control character other than newline and tab
// replaced by a visible stand-in: the C0 controls and DEL by their Unicode
// control pictures (ESC shows as ␛, BEL as ␇), the C1 controls by U+FFFD,
// as are bytes that are not UTF-8 (some terminals read a lone 0x9B byte as
// a CSI). A carriage return before a newline is dropped (a CRLF line end),
// any other shows as ␍: alone it moves the cursor back over what was
// written. Text without any of these is returned as it is, unallocated.
func Clean(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// a CRLF line end: the newline alone
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Safe reports whether s can go to a terminal as it is: valid UTF-8 with
// no control character but newline and tab.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || (r >= 0x80 && r <= 0x9f) {
			return false
		}
		i += size
	}
	return true
}

// Frame cleans a screen that a TUI drew: it keeps the SGR sequences
// (ESC [ params m: colours and emphasis, what lipgloss styles with) and
// cleans everything else as Clean does. It is the last guard before the
// terminal for text that reached a pane without passing through Clean:
// no sequence that moves the cursor, clears the screen or retitles the
// window gets through. A frame without a control character but those
// sequences and newlines is returned as it is, unallocated.
func Frame(s string) string {
	if FrameSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		if n := sgrLen(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != 0x1b {
			j++
		}
		b.WriteString(Clean(s[i:j]))
		i = j
	}
	return b.String()
}

// FrameSafe reports whether s holds no control character but newline,
// tab and the ESC of an SGR sequence, and is UTF-8.
func FrameSafe(s string) bool {
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			n := sgrLen(s[i:])
			if n == 0 {
				return false
			}
			i += n
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != 0x1b {
			j++
		}
		if !Safe(s[i:j]) {
			return false
		}
		i = j
	}
	return true
}

// sgrLen is the length of the SGR sequence s starts with, or 0: ESC [,
// digits, ';' and ':' (true-colour parameters), then 'm'.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// Writer cleans text on its way to a terminal, as Clean does, across
// writes: a rune split between two writes, or a CRLF, is held back until
// the write that completes it. Flush writes what is held back (a lone CR,
// an incomplete rune), cleaned, at the end of the output.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p (with what an earlier write held back) and writes it. It
// reports p as written whole once the cleaned text is.
func (c *Writer) Write(p []byte) (int, error) {
	data := append(c.pending, p...)
	cut := len(data)
	if cut > 0 && data[cut-1] == '\r' {
		cut-- // a CRLF's CR: the next write says which
	} else {
		// An incomplete rune at the end waits for its other bytes.
		for back := 1; back <= utf8.UTFMax && back <= cut; back++ {
			if utf8.RuneStart(data[cut-back]) {
				if !utf8.FullRune(data[cut-back:]) {
					cut -= back
				}
				break
			}
		}
	}
	out := Clean(string(data[:cut]))
	c.pending = append(c.pending[:0:0], data[cut:]...)
	if _, err := io.WriteString(c.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what Write held back.
func (c *Writer) Flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	out := Clean(string(c.pending))
	c.pending = nil
	_, err := io.WriteString(c.w, out)
	return err
}
