package chat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// strftime formats t as Python's datetime.strftime(format) does for a
// naive datetime (transformers' strftime_now calls datetime.now(), which
// carries no zone: %z and %Z are empty). It knows the C89 directives,
// the glibc padding flags "-" (none), "_" (spaces) and "0" (zeros), and
// %e, %F, %T, %D; any other directive is an error rather than a guess, so
// a template never renders a date it did not ask for.
func strftime(t time.Time, format string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", errors.New("strftime: format ends with a lone '%'")
		}
		flag := byte(0)
		if f := format[i]; f == '-' || f == '_' || f == '0' {
			flag = f
			i++
			if i >= len(format) {
				return "", errors.New("strftime: format ends inside a directive")
			}
		}
		// num writes n padded to width with pad, as the flag allows.
		num := func(n, width int, pad byte) {
			switch flag {
			case '-':
				width = 0
			case '_':
				pad = ' '
			case '0':
				pad = '0'
			}
			s := strconv.Itoa(n)
			for k := len(s); k < width; k++ {
				b.WriteByte(pad)
			}
			b.WriteString(s)
		}
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch d := format[i]; d {
		case '%':
			b.WriteByte('%')
		case 'Y':
			num(t.Year(), 4, '0')
		case 'y':
			num(t.Year()%100, 2, '0')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'e':
			num(t.Day(), 2, ' ')
		case 'j':
			num(t.YearDay(), 3, '0')
		case 'H':
			num(t.Hour(), 2, '0')
		case 'I':
			num(hour12, 2, '0')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'S':
			num(t.Second(), 2, '0')
		case 'f':
			num(t.Nanosecond()/1000, 6, '0')
		case 'w':
			num(int(t.Weekday()), 1, '0')
		case 'u':
			num((int(t.Weekday())+6)%7+1, 1, '0')
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'F':
			fmt.Fprintf(&b, "%04d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
		case 'T':
			fmt.Fprintf(&b, "%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		case 'D':
			fmt.Fprintf(&b, "%02d/%02d/%02d", int(t.Month()), t.Day(), t.Year()%100)
		case 'c':
			// C locale: "Tue Aug  5 14:03:09 2025".
			fmt.Fprintf(&b, "%s %s %2d %02d:%02d:%02d %d", t.Weekday().String()[:3], t.Month().String()[:3],
				t.Day(), t.Hour(), t.Minute(), t.Second(), t.Year())
		case 'x':
			fmt.Fprintf(&b, "%02d/%02d/%02d", int(t.Month()), t.Day(), t.Year()%100)
		case 'X':
			fmt.Fprintf(&b, "%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		case 'z', 'Z':
			// A naive datetime has no zone.
		default:
			return "", fmt.Errorf("strftime: unsupported directive %%%c", d)
		}
	}
	return b.String(), nil
}
