package prompts

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// cogJSON is the held-out memory set, data/cog.json. A string, so that the
// embedded bytes cannot be changed.
//
//go:embed data/cog.json
var cogJSON string

// cogPath names the memory set in messages.
const cogPath = "data/cog.json"

// Repeat is a stored request and the ways a user may ask it again: the same
// text, and variants that differ only in case, white space or punctuation.
// All five are the same request.
type Repeat struct {
	Prompt      string `json:"prompt"`
	Case        string `json:"case"`
	Whitespace  string `json:"whitespace"`
	Punctuation string `json:"punctuation"`
}

// RepeatKinds names the ways a Repeat is asked again, in Asks's order. The
// slice is fresh on every call.
func RepeatKinds() []string { return []string{"exact", "case", "whitespace", "punctuation"} }

// Asks returns the texts that ask r again, in RepeatKinds's order: the
// prompt itself first.
func (r Repeat) Asks() []string { return []string{r.Prompt, r.Case, r.Whitespace, r.Punctuation} }

// NearMiss is a stored request and another one a single change away: a
// name, a number or a negation. Serving Stored's answer to Asked is a
// wrong answer.
type NearMiss struct {
	Kind   string `json:"kind"` // "name", "number" or "negation"
	Stored string `json:"stored"`
	Asked  string `json:"asked"`
}

// NearMissKinds are the kinds a NearMiss may have. The slice is fresh on
// every call.
func NearMissKinds() []string { return []string{"name", "number", "negation"} }

// Unrelated is a stored request and an unrelated one.
type Unrelated struct {
	Stored string `json:"stored"`
	Asked  string `json:"asked"`
}

// COGSet is the held-out set of `isagi eval cog`: how precisely the living
// manifold serves answers from memory. Calibration never reads it.
type COGSet struct {
	Repeats    []Repeat    `json:"repeats"`
	NearMisses []NearMiss  `json:"near_misses"`
	Unrelated  []Unrelated `json:"unrelated"`
}

// Minimum sizes COGSet.Validate enforces.
const (
	minCOGRepeats    = 30
	minCOGNearMisses = 15 // of each kind
	minCOGUnrelated  = 20
)

// COG parses the embedded memory set and validates it. Each call returns a
// newly decoded set.
func COG() (*COGSet, error) {
	var f struct {
		About string `json:"about"`
		COGSet
	}
	if err := decodeStrict([]byte(cogJSON), &f); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", cogPath, err)
	}
	s := f.COGSet
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate checks the set's shape: enough items of every kind, no empty
// text, every repeat variant different from its prompt, every near-miss
// different from its stored request, and no stored request twice. Whether
// the exact check agrees with these labels is tested where the check is
// used (package geometry's tests), not assumed here. It reports every
// problem, joined.
func (s *COGSet) Validate() error {
	if s == nil {
		return errors.New("prompts: nil memory set")
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("prompts: %s: "+format, append([]any{cogPath}, args...)...))
	}
	stored := map[string]string{}
	store := func(where, x string) {
		if strings.TrimSpace(x) == "" {
			fail("%s: empty text", where)
			return
		}
		k := normalise(x)
		if first, ok := stored[k]; ok {
			fail("%s: stored request %q already stored by %s", where, x, first)
		}
		stored[k] = where
	}
	if len(s.Repeats) < minCOGRepeats {
		fail("%d repeats, want at least %d", len(s.Repeats), minCOGRepeats)
	}
	kinds := RepeatKinds()
	for i, r := range s.Repeats {
		where := fmt.Sprintf("repeat %d", i+1)
		store(where, r.Prompt)
		for j, v := range r.Asks()[1:] {
			kind := kinds[j+1]
			switch {
			case strings.TrimSpace(v) == "":
				fail("%s: empty %s variant", where, kind)
			case v == r.Prompt:
				fail("%s: the %s variant is the prompt itself", where, kind)
			}
		}
	}
	count := map[string]int{}
	for i, n := range s.NearMisses {
		where := fmt.Sprintf("near-miss %d", i+1)
		store(where, n.Stored)
		count[n.Kind]++
		switch {
		case !slices.Contains(NearMissKinds(), n.Kind):
			fail("%s: kind %q, want one of %v", where, n.Kind, NearMissKinds())
		case strings.TrimSpace(n.Asked) == "":
			fail("%s: empty asked text", where)
		case strings.EqualFold(n.Asked, n.Stored):
			fail("%s: asks %q, the stored request itself", where, n.Asked)
		}
	}
	for _, k := range NearMissKinds() {
		if count[k] < minCOGNearMisses {
			fail("%d near-misses of kind %s, want at least %d", count[k], k, minCOGNearMisses)
		}
	}
	if len(s.Unrelated) < minCOGUnrelated {
		fail("%d unrelated pairs, want at least %d", len(s.Unrelated), minCOGUnrelated)
	}
	for i, u := range s.Unrelated {
		where := fmt.Sprintf("unrelated %d", i+1)
		store(where, u.Stored)
		if strings.TrimSpace(u.Asked) == "" {
			fail("%s: empty asked text", where)
		}
	}
	return errors.Join(errs...)
}

// RepeatVariants are texts that ask the same request as s: all lower case,
// the final punctuation mark added or taken away, the words spaced twice.
// Calibration reads them to learn how far a true repeat's embedding moves
// (docs/geometry.md). Variants equal to s are left out.
func RepeatVariants(s string) []string {
	t := strings.TrimSpace(s)
	var punct string
	if r, n := utf8.DecodeLastRuneInString(t); n > 0 && strings.ContainsRune(".?!", r) {
		punct = t[:len(t)-n]
	} else {
		punct = t + "?"
	}
	var out []string
	for _, v := range []string{strings.ToLower(s), punct, strings.Join(strings.Fields(s), "  ")} {
		if v != s && strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}
