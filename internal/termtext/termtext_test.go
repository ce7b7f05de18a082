package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nand a\ttab", "plain text\nand a\ttab"},
		{"\x1b]0;TITLE\x07", "␛]0;TITLE␇"},
		{"\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"a\r\nb", "a\nb"},
		{"over\rwrite", "over␍write"},
		{"end\r", "end␍"},
		{"\u009b2J", "\uFFFD2J"},
		{"\x9b2J", "\uFFFD2J"},
		{"del\x7f", "del␡"},
		{"nul\x00", "nul␀"},
		{"héllo — 日本", "héllo — 日本"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if Safe(c.in) != (c.in == c.want) {
			t.Errorf("Safe(%q) = %v", c.in, Safe(c.in))
		}
	}
}

func TestCleanAllocatesNothingForSafeText(t *testing.T) {
	s := "a plain reply, with ünïcode and a\nnewline"
	if n := testing.AllocsPerRun(100, func() { _ = Clean(s) }); n != 0 {
		t.Errorf("Clean of safe text allocated %v times", n)
	}
}

// FuzzClean: whatever goes in, what comes out is safe, and safe text is
// unchanged.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07", "a\r\nb\rc", "\xc2\x9b", "\xff\xfe", "日本\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !Safe(out) {
			t.Fatalf("Clean(%q) = %q is not safe", s, out)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q is not UTF-8", s, out)
		}
		if Safe(s) && out != s {
			t.Fatalf("safe %q changed to %q", s, out)
		}
	})
}

func TestFrame(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1b[1;38;2;255;0;0mred\x1b[0m\nplain", "\x1b[1;38;2;255;0;0mred\x1b[0m\nplain"},
		{"\x1b[38:5:12mx\x1b[m", "\x1b[38:5:12mx\x1b[m"},
		{"\x1b[2J\x1b[31mx", "␛[2J\x1b[31mx"},
		{"\x1b]0;TITLE\x07\x1b[0m", "␛]0;TITLE␇\x1b[0m"},
		{"a\x1b", "a␛"},
		{"\x1b[31", "␛[31"},
		{"\x9b2J", "\uFFFD2J"},
	} {
		if got := Frame(c.in); got != c.want {
			t.Errorf("Frame(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzFrame: what Frame returns holds no ESC but an SGR sequence's, and no
// other control character but newline and tab.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{"\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07", "\x1b[2J", "\x1b[", "\x1b\x1b[m", "\xc2\x9b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Frame(s)
		if !FrameSafe(out) {
			t.Fatalf("Frame(%q) = %q is not safe", s, out)
		}
	})
}

// TestWriterAcrossWrites: a rune, a C1 control or a CRLF split between
// writes is cleaned as if written at once.
func TestWriterAcrossWrites(t *testing.T) {
	in := "a\r\nb\x1b]0;T\x07 é \u009b2J 日本\rz\r"
	want := Clean(in)
	for split := 0; split <= len(in); split++ {
		var b strings.Builder
		w := NewWriter(&b)
		for _, part := range []string{in[:split], in[split:]} {
			if _, err := w.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("split at %d: %q, want %q", split, b.String(), want)
		}
	}
	// Byte by byte.
	var b strings.Builder
	w := NewWriter(&b)
	for i := range len(in) {
		w.Write([]byte{in[i]})
	}
	w.Flush()
	if b.String() != want {
		t.Errorf("byte by byte: %q, want %q", b.String(), want)
	}
}
