package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File arguments of /save, /load and /export, read as a shell reads them,
// since that is how people type paths: ~ is the home directory, and a path
// with spaces goes in double or single quotes. There is no shell under
// the TUI, so a quoted ~/ is the home directory too (a file or folder
// named "~" in the working directory is ./~).

// splitArgs splits a command's arguments into words at spaces. Text in
// double or single quotes is one word with its spaces; inside double
// quotes, and outside quotes, a backslash takes the next character as it
// is. A word that begins ~/ (or is ~) begins with the home directory.
func splitArgs(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	in := false // a word has begun (an empty "" is a word)
	home := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'' && r != '\'':
			b.WriteRune(r)
		case quote == '\'':
			quote = 0
		case r == '\\' && i+1 < len(rs) && (quote == 0 || rs[i+1] == '"' || rs[i+1] == '\\'):
			i++
			b.WriteRune(rs[i])
			in = true
		case quote == '"' && r != '"':
			b.WriteRune(r)
		case quote == '"':
			quote = 0
		case r == '"' || r == '\'':
			if !in && len(rs) > i+1 && rs[i+1] == '~' {
				home = true
			}
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				w, err := wordOf(b.String(), home)
				if err != nil {
					return nil, err
				}
				words = append(words, w)
			}
			b.Reset()
			in, home = false, false
		default:
			if !in && r == '~' {
				home = true
			}
			b.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("no closing %c in %s", quote, s)
	}
	if in {
		w, err := wordOf(b.String(), home)
		if err != nil {
			return nil, err
		}
		words = append(words, w)
	}
	return words, nil
}

// wordOf is a word with ~ expanded when it began with one.
func wordOf(w string, tilde bool) (string, error) {
	if !tilde || (w != "~" && !strings.HasPrefix(w, "~/")) {
		return w, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for ~: %w", err)
	}
	return filepath.Join(home, w[1:]), nil
}

// pathArg is the one path a command takes (/save [FILE], /load FILE):
// quoted, or with ~; unquoted, the whole text is the path, spaces and all,
// as it always was. "" stays "".
func pathArg(arg string) (string, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return "", nil
	}
	if !strings.ContainsAny(arg[:1], `"'~`) {
		return arg, nil
	}
	words, err := splitArgs(arg)
	if err != nil {
		return "", err
	}
	if len(words) != 1 {
		return "", errors.New("one file only: put a path with spaces in quotes")
	}
	return words[0], nil
}
