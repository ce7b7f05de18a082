package prompts

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCOGSetLoads(t *testing.T) {
	s, err := COG()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Repeats) < minCOGRepeats || len(s.NearMisses) < 3*minCOGNearMisses || len(s.Unrelated) < minCOGUnrelated {
		t.Fatalf("%d repeats, %d near-misses, %d unrelated", len(s.Repeats), len(s.NearMisses), len(s.Unrelated))
	}
	// The memory set is held out: none of its texts calibrates.
	cal := mustDefault(t)
	seen := map[string]bool{}
	for _, z := range cal.Zones {
		for _, x := range append(z.Train, z.Heldout...) {
			seen[normalise(x)] = true
		}
	}
	for _, c := range cal.Categories {
		for _, p := range append(c.Train, c.Heldout...) {
			seen[normalise(p.Harm)], seen[normalise(p.Benign)] = true, true
		}
	}
	var texts []string
	for _, r := range s.Repeats {
		texts = append(texts, r.Asks()...)
	}
	for _, n := range s.NearMisses {
		texts = append(texts, n.Stored, n.Asked)
	}
	for _, u := range s.Unrelated {
		texts = append(texts, u.Stored, u.Asked)
	}
	for _, x := range texts {
		if seen[normalise(x)] {
			t.Errorf("%q is also a calibration prompt", x)
		}
	}
}

func TestCOGSetValidateCatches(t *testing.T) {
	for name, c := range map[string]struct {
		modify func(*COGSet)
		want   string
	}{
		"few repeats":     {func(s *COGSet) { s.Repeats = s.Repeats[:3] }, "3 repeats"},
		"variant is self": {func(s *COGSet) { s.Repeats[0].Case = s.Repeats[0].Prompt }, "repeat 1: the case variant is the prompt itself"},
		"empty variant":   {func(s *COGSet) { s.Repeats[1].Whitespace = " " }, "repeat 2: empty whitespace variant"},
		"bad kind":        {func(s *COGSet) { s.NearMisses[0].Kind = "colour" }, `near-miss 1: kind "colour"`},
		"asks itself":     {func(s *COGSet) { s.NearMisses[2].Asked = strings.ToUpper(s.NearMisses[2].Stored) }, "near-miss 3: asks"},
		"stored twice":    {func(s *COGSet) { s.Unrelated[0].Stored = s.Repeats[0].Prompt }, "already stored by repeat 1"},
		"empty unrelated": {func(s *COGSet) { s.Unrelated[1].Asked = "" }, "unrelated 2: empty asked text"},
		"few unrelated":   {func(s *COGSet) { s.Unrelated = nil }, "0 unrelated pairs"},
		"few of one kind": {func(s *COGSet) { s.NearMisses = s.NearMisses[:20] }, "near-misses of kind number"},
	} {
		s, err := COG()
		if err != nil {
			t.Fatal(err)
		}
		c.modify(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	var nilSet *COGSet
	if nilSet.Validate() == nil {
		t.Error("nil set validated")
	}
}

func TestCOGDataFormatted(t *testing.T) {
	var compact, want bytes.Buffer
	if err := json.Compact(&compact, []byte(cogJSON)); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if cogJSON != want.String() {
		t.Errorf("%s is not 2-space indented JSON ending in a newline", cogPath)
	}
}

func TestRepeatVariants(t *testing.T) {
	got := RepeatVariants("And Moses said")
	want := []string{"and moses said", "And Moses said?", "And  Moses  said"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("variants %q, want %q", got, want)
	}
	got = RepeatVariants("why?")
	want = []string{"why"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("variants %q, want %q", got, want)
	}
}
