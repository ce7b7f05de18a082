package steercmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/isagi-lab/isagi/geometry"
)

// readJSONL reads contrast pairs from path: one JSON object a line,
// {"positive": "...", "negative": "..."} (other fields are ignored, so
// that a line may carry an id or a label); empty lines are skipped. A bad
// line is named by its number.
func readJSONL(path string) ([]geometry.SteerPair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pairs []geometry.SteerPair
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var p struct {
			Positive *string `json:"positive"`
			Negative *string `json:"negative"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("%s line %d is not a JSON object with \"positive\" and \"negative\" prompts: %w", path, i+1, err)
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"positive", p.Positive}, {"negative", p.Negative}} {
			if f.v == nil || strings.TrimSpace(*f.v) == "" {
				return nil, fmt.Errorf("%s line %d has no %q prompt", path, i+1, f.name)
			}
		}
		pairs = append(pairs, geometry.SteerPair{Positive: *p.Positive, Negative: *p.Negative})
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s has no pairs: want one JSON object a line, {\"positive\": \"...\", \"negative\": \"...\"}", path)
	}
	return pairs, nil
}

// readPrompts reads one prompt a line, as llama-cvector-generator reads
// its positive and negative files: empty lines skipped, and the escapes
// \n, \t, \r, \\, \' and \" in a line made the characters they stand for
// (so that a prompt can span lines).
func readPrompts(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, unescape(line))
	}
	return out, nil
}

// readPromptFiles pairs the lines of two prompt files, positive and
// negative, in order.
func readPromptFiles(posPath, negPath string) ([]geometry.SteerPair, error) {
	pos, err := readPrompts(posPath)
	if err != nil {
		return nil, err
	}
	neg, err := readPrompts(negPath)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) == 0:
		return nil, fmt.Errorf("%s has no prompts: want one a line", posPath)
	case len(neg) == 0:
		return nil, fmt.Errorf("%s has no prompts: want one a line", negPath)
	case len(pos) != len(neg):
		return nil, fmt.Errorf("%s has %d prompts and %s %d: they pair line by line, so the counts must be equal", posPath, len(pos), negPath, len(neg))
	}
	pairs := make([]geometry.SteerPair, len(pos))
	for i := range pos {
		pairs[i] = geometry.SteerPair{Positive: pos[i], Negative: neg[i]}
	}
	return pairs, nil
}

// unescape makes the escapes a prompt line may hold the characters they
// stand for; any other backslash stays as it is.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(s[i+1])
		default:
			b.WriteByte('\\')
			continue
		}
		i++
	}
	return b.String()
}
