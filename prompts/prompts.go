package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// data holds the embedded JSON sets. An embed.FS is read-only, so this is no
// mutable package state: every Default call decodes fresh values from it.
//
//go:embed data/zones.json data/categories.json data/benign.json
var data embed.FS

// Paths of the embedded sets inside data.
const (
	zonesPath      = "data/zones.json"
	categoriesPath = "data/categories.json"
	benignPath     = "data/benign.json"
)

// Minimum sizes that Validate enforces.
const (
	minZoneTrain     = 24
	minZoneHeldout   = 8
	minPairTrain     = 16
	minPairHeldout   = 8
	minBenignTrain   = 24
	minBenignHeldout = 8
)

// Split is a set of texts divided into a calibration part and a held-out part.
type Split struct {
	// Train holds the texts used to calibrate.
	Train []string `json:"train"`
	// Heldout holds the texts kept back to measure how the calibration
	// generalises; none of them appears in Train.
	Heldout []string `json:"heldout"`
}

// Zone is one UGT calibration zone: a named group of prompts of one kind
// (syntax, factual, reasoning or creative).
type Zone struct {
	// Name is the zone's name, one of ZoneNames.
	Name string `json:"name"`
	Split
}

// Pair is a harm-eliciting prompt and a matched benign prompt of the same
// form and topic area.
type Pair struct {
	// Harm is a short, non-operational request that a model should refuse.
	Harm string `json:"harm"`
	// Benign is the matched request with benign intent.
	Benign string `json:"benign"`
}

// Category is one behaviour category of harm/benign pairs, divided into
// calibration pairs and held-out pairs.
type Category struct {
	// Name is the category's name, one of CategoryNames.
	Name string `json:"name"`
	// Train holds the pairs used to calibrate.
	Train []Pair `json:"train"`
	// Heldout holds the pairs kept back to measure generalisation.
	Heldout []Pair `json:"heldout"`
}

// Set is the whole calibration data: UGT zones, behaviour categories and a
// benign prose set.
type Set struct {
	Zones      []Zone     `json:"zones"`      // syntax, factual, reasoning, creative, in that order
	Categories []Category `json:"categories"` // the eight of CategoryNames, in that order
	Benign     Split      `json:"benign"`     // prose passages for collateral measurement
}

// ZoneNames returns the UGT zone names in the order of Set.Zones. The slice
// is fresh on every call.
func ZoneNames() []string {
	return []string{"syntax", "factual", "reasoning", "creative"}
}

// CategoryNames returns the behaviour category names in the order of
// Set.Categories. The slice is fresh on every call.
func CategoryNames() []string {
	return []string{
		"privacy", "illegal_advice", "phishing", "sycophancy",
		"jailbreak", "toxicity", "misinformation", "self_harm",
	}
}

// Default parses the embedded sets and validates them. Each call returns a
// newly decoded Set that the caller may modify freely.
func Default() (*Set, error) {
	read := func(path string) ([]byte, error) {
		b, err := data.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("prompts: %w", err)
		}
		return b, nil
	}
	z, err := read(zonesPath)
	if err != nil {
		return nil, err
	}
	c, err := read(categoriesPath)
	if err != nil {
		return nil, err
	}
	b, err := read(benignPath)
	if err != nil {
		return nil, err
	}
	s, err := parse(z, c, b)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Category returns the category with the given name. The pointer refers to
// the element of s.Categories, so changes through it change s.
func (s *Set) Category(name string) (*Category, bool) {
	if s == nil {
		return nil, false
	}
	for i := range s.Categories {
		if s.Categories[i].Name == name {
			return &s.Categories[i], true
		}
	}
	return nil, false
}

// The on-disk layout of each embedded file. "about" is a note for people
// reading the JSON and is not kept.
type (
	zonesFile struct {
		About string `json:"about"`
		Zones []Zone `json:"zones"`
	}
	categoriesFile struct {
		About      string     `json:"about"`
		Categories []Category `json:"categories"`
	}
	benignFile struct {
		About string `json:"about"`
		Split
	}
)

// parse decodes the three files into a Set without validating it.
func parse(zones, categories, benign []byte) (*Set, error) {
	var zf zonesFile
	if err := decodeStrict(zones, &zf); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", zonesPath, err)
	}
	var cf categoriesFile
	if err := decodeStrict(categories, &cf); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", categoriesPath, err)
	}
	var bf benignFile
	if err := decodeStrict(benign, &bf); err != nil {
		return nil, fmt.Errorf("prompts: %s: %w", benignPath, err)
	}
	return &Set{Zones: zf.Zones, Categories: cf.Categories, Benign: bf.Split}, nil
}

// decodeStrict decodes exactly one JSON value into v, rejecting unknown
// fields and trailing data.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		if err == nil {
			return errors.New("trailing data after the JSON value")
		}
		return fmt.Errorf("trailing data after the JSON value: %w", err)
	}
	return nil
}

// validator collects every problem found in a Set.
type validator struct {
	errs []error
	seen map[string]string // normalised text -> where it first appeared
}

func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("prompts: "+format, args...))
}

// text checks one text: not empty and not seen before anywhere in the set.
// where locates the item ("category privacy: held-out pair 3") and what
// names the text within it ("benign prompt", or "text" for a lone text).
func (v *validator) text(where, what, s string) {
	key := normalise(s)
	if key == "" {
		v.fail("%s: empty %s", where, what)
		return
	}
	loc := where
	if what != "text" {
		loc += ", " + what
	}
	if first, ok := v.seen[key]; ok {
		v.fail("%s: %s duplicates %s", where, what, first)
		return
	}
	v.seen[key] = strings.ReplaceAll(loc, ": ", ", ")
}

// name checks the name of item i (0-based) against the expected list and
// returns a label for messages.
func (v *validator) name(kind string, i int, got string, want []string) string {
	switch {
	case i >= len(want):
		v.fail("%s %d: unexpected %s %q", kind, i+1, kind, got)
	case got == want[i]:
	case slices.Contains(want, got):
		v.fail("%s %d: misplaced name %q, want %q", kind, i+1, got, want[i])
	default:
		v.fail("%s %d: unknown name %q, want %q", kind, i+1, got, want[i])
	}
	if strings.TrimSpace(got) == "" {
		return fmt.Sprintf("%s #%d", kind, i+1)
	}
	return kind + " " + got
}

// normalise folds case and collapses white space, so that texts differing
// only in those count as duplicates.
func normalise(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Validate checks the set: the expected zone and category names in order,
// the minimum number of texts in every part, no empty or white-space-only
// text, a harm prompt different from its benign prompt, and no text repeated
// anywhere in the set (so train and held-out parts are disjoint). Texts that
// differ only in case or white space count as repeats. It reports every
// problem found, joined with errors.Join, or nil.
func (s *Set) Validate() error {
	if s == nil {
		return errors.New("prompts: nil set")
	}
	v := &validator{seen: make(map[string]string)}

	zoneNames := ZoneNames()
	if len(s.Zones) != len(zoneNames) {
		v.fail("%d zones, want %d (%s)", len(s.Zones), len(zoneNames), strings.Join(zoneNames, ", "))
	}
	for i, z := range s.Zones {
		label := v.name("zone", i, z.Name, zoneNames)
		v.split(label, "prompt", z.Split, minZoneTrain, minZoneHeldout)
	}

	catNames := CategoryNames()
	if len(s.Categories) != len(catNames) {
		v.fail("%d categories, want %d (%s)", len(s.Categories), len(catNames), strings.Join(catNames, ", "))
	}
	for i, c := range s.Categories {
		label := v.name("category", i, c.Name, catNames)
		v.pairs(label, "train", c.Train, minPairTrain)
		v.pairs(label, "held-out", c.Heldout, minPairHeldout)
	}

	v.split("benign", "passage", s.Benign, minBenignTrain, minBenignHeldout)
	return errors.Join(v.errs...)
}

// split checks both parts of a Split.
func (v *validator) split(where, item string, sp Split, minTrain, minHeldout int) {
	for _, part := range []struct {
		name  string
		texts []string
		min   int
	}{
		{"train", sp.Train, minTrain},
		{"held-out", sp.Heldout, minHeldout},
	} {
		if len(part.texts) < part.min {
			v.fail("%s: %d %s %ss, want at least %d", where, len(part.texts), part.name, item, part.min)
		}
		for i, t := range part.texts {
			v.text(fmt.Sprintf("%s: %s %s %d", where, part.name, item, i+1), "text", t)
		}
	}
}

// pairs checks one part of a Category.
func (v *validator) pairs(where, part string, ps []Pair, minPairs int) {
	if len(ps) < minPairs {
		v.fail("%s: %d %s pairs, want at least %d", where, len(ps), part, minPairs)
	}
	for i, p := range ps {
		at := fmt.Sprintf("%s: %s pair %d", where, part, i+1)
		v.text(at, "harm prompt", p.Harm)
		if h := normalise(p.Harm); h != "" && h == normalise(p.Benign) {
			// Reported once, not also as a duplicate of its own harm side.
			v.fail("%s: harm prompt equals benign prompt", at)
			continue
		}
		v.text(at, "benign prompt", p.Benign)
	}
}
