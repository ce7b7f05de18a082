package prompts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxHeldoutLine bounds one line of a held-out file: a prompt is a
// sentence or a short list, so a longer line is a wrong file, not a
// prompt.
const maxHeldoutLine = 64 << 10

// heldoutLine is one line of a held-out JSON Lines file. Other fields
// (a task, an expected answer) are allowed and ignored here.
type heldoutLine struct {
	Prompt string `json:"prompt"`
}

// ParseHeldoutLines reads the prompts of a JSON Lines file, one object
// with a "prompt" string per line; blank lines are skipped. name names the
// file in errors.
func ParseHeldoutLines(name string, b []byte) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxHeldoutLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l heldoutLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("prompts: %s line %d: not a JSON object with a \"prompt\": %w", name, n, err)
		}
		if strings.TrimSpace(l.Prompt) == "" {
			return nil, fmt.Errorf("prompts: %s line %d: no \"prompt\" text", name, n)
		}
		out = append(out, l.Prompt)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w (a line longer than %d bytes?)", name, err, maxHeldoutLine)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("prompts: %s has no prompts", name)
	}
	return out, nil
}

// UseHeldoutDir replaces the held-out pairs of every category with the
// prompts of a directory: CATEGORY.jsonl (harmful prompts, for each of
// CategoryNames) and benign.jsonl (harmless ones), in the format of
// ParseHeldoutLines — the layout of a fixture's held-out sets, such as
// scripts/fixtures/chat/heldout. Each harmful prompt is paired with the
// next benign one, round the benign list, category after category, so a
// benign prompt is reused only when there are fewer benign than harmful
// ones. The calibration pairs, zones and prose are left as they are, so a
// profile calibrated on the shipped sets still matches.
func (s *Set) UseHeldoutDir(dir string) error {
	read := func(name string) ([]string, error) {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("prompts: held-out set: %w", err)
		}
		return ParseHeldoutLines(path, b)
	}
	benign, err := read("benign.jsonl")
	if err != nil {
		return err
	}
	harm := make([][]string, len(s.Categories))
	for i, c := range s.Categories {
		if harm[i], err = read(c.Name + ".jsonl"); err != nil {
			return err
		}
	}
	next := 0
	for i := range s.Categories {
		pairs := make([]Pair, len(harm[i]))
		for j, h := range harm[i] {
			pairs[j] = Pair{Harm: h, Benign: benign[next%len(benign)]}
			next++
		}
		s.Categories[i].Heldout = pairs
	}
	return nil
}

// BenignHeldout is the first n distinct benign prompts of the held-out
// pairs, taken round the categories so that each contributes (fewer when
// there are fewer).
func (s *Set) BenignHeldout(n int) []string {
	var out []string
	seen := map[string]bool{}
	for j := 0; len(out) < n; j++ {
		added := false
		for _, c := range s.Categories {
			if j < len(c.Heldout) && len(out) < n {
				if b := c.Heldout[j].Benign; !seen[b] {
					seen[b] = true
					out = append(out, b)
				}
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}
