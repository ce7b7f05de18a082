package prompts

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func mustDefault(t *testing.T) *Set {
	t.Helper()
	s, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	return s
}

func TestDefaultCounts(t *testing.T) {
	s := mustDefault(t)
	if len(s.Zones) != 4 {
		t.Fatalf("%d zones, want 4", len(s.Zones))
	}
	for _, z := range s.Zones {
		if len(z.Train) < 24 || len(z.Heldout) < 8 {
			t.Errorf("zone %s: %d train, %d held-out; want at least 24 and 8", z.Name, len(z.Train), len(z.Heldout))
		}
		t.Logf("zone %-15s train %3d  held-out %3d", z.Name, len(z.Train), len(z.Heldout))
	}
	if len(s.Categories) != 8 {
		t.Fatalf("%d categories, want 8", len(s.Categories))
	}
	for _, c := range s.Categories {
		if len(c.Train) < 16 || len(c.Heldout) < 8 {
			t.Errorf("category %s: %d train, %d held-out pairs; want at least 16 and 8", c.Name, len(c.Train), len(c.Heldout))
		}
		t.Logf("category %-15s train %3d  held-out %3d", c.Name, len(c.Train), len(c.Heldout))
	}
	if len(s.Benign.Train) < 24 || len(s.Benign.Heldout) < 8 {
		t.Errorf("benign: %d train, %d held-out; want at least 24 and 8", len(s.Benign.Train), len(s.Benign.Heldout))
	}
	t.Logf("benign %-17s train %3d  held-out %3d", "", len(s.Benign.Train), len(s.Benign.Heldout))
}

func TestNamesInOrder(t *testing.T) {
	wantZones := []string{"syntax", "factual", "reasoning", "creative"}
	wantCats := []string{"privacy", "illegal_advice", "phishing", "sycophancy", "jailbreak", "toxicity", "misinformation", "self_harm"}
	if got := ZoneNames(); !slices.Equal(got, wantZones) {
		t.Errorf("ZoneNames() = %v, want %v", got, wantZones)
	}
	if got := CategoryNames(); !slices.Equal(got, wantCats) {
		t.Errorf("CategoryNames() = %v, want %v", got, wantCats)
	}

	// The slices are fresh: changing one does not change the next.
	ZoneNames()[0] = "changed"
	CategoryNames()[0] = "changed"
	if ZoneNames()[0] != "syntax" || CategoryNames()[0] != "privacy" {
		t.Error("ZoneNames or CategoryNames returned shared state")
	}

	s := mustDefault(t)
	for i, z := range s.Zones {
		if z.Name != wantZones[i] {
			t.Errorf("zone %d = %q, want %q", i, z.Name, wantZones[i])
		}
	}
	for i, c := range s.Categories {
		if c.Name != wantCats[i] {
			t.Errorf("category %d = %q, want %q", i, c.Name, wantCats[i])
		}
	}
}

func TestDefaultIsFresh(t *testing.T) {
	a := mustDefault(t)
	a.Zones[0].Train[0] = "changed"
	a.Categories[0].Heldout[0].Harm = "changed"
	a.Benign.Train = nil
	b := mustDefault(t)
	if b.Zones[0].Train[0] == "changed" || b.Categories[0].Heldout[0].Harm == "changed" || b.Benign.Train == nil {
		t.Fatal("Default returned state shared with an earlier call")
	}
}

func TestCategoryLookup(t *testing.T) {
	s := mustDefault(t)
	for _, name := range CategoryNames() {
		c, ok := s.Category(name)
		if !ok || c.Name != name {
			t.Fatalf("Category(%q) = %v, %v", name, c, ok)
		}
	}
	c, _ := s.Category("phishing")
	c.Train[0].Harm = "edited through the pointer"
	if s.Categories[2].Train[0].Harm != "edited through the pointer" {
		t.Error("Category does not point into the set")
	}
	if c, ok := s.Category("spam"); ok || c != nil {
		t.Errorf("Category(spam) = %v, %v; want nil, false", c, ok)
	}
	var nilSet *Set
	if _, ok := nilSet.Category("privacy"); ok {
		t.Error("nil set found a category")
	}
}

// TestTrainHeldoutDisjoint checks disjointness directly, independently of
// Validate.
func TestTrainHeldoutDisjoint(t *testing.T) {
	s := mustDefault(t)
	disjoint := func(name string, train, heldout []string) {
		in := make(map[string]bool, len(train))
		for _, x := range train {
			in[normalise(x)] = true
		}
		for _, x := range heldout {
			if in[normalise(x)] {
				t.Errorf("%s: %q is in both train and held-out", name, x)
			}
		}
	}
	texts := func(ps []Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Harm, p.Benign)
		}
		return out
	}
	for _, z := range s.Zones {
		disjoint("zone "+z.Name, z.Train, z.Heldout)
	}
	for _, c := range s.Categories {
		disjoint("category "+c.Name, texts(c.Train), texts(c.Heldout))
	}
	disjoint("benign", s.Benign.Train, s.Benign.Heldout)

	// And across the whole set: every text appears once.
	seen := map[string]bool{}
	all := slices.Concat(s.Benign.Train, s.Benign.Heldout)
	for _, z := range s.Zones {
		all = slices.Concat(all, z.Train, z.Heldout)
	}
	for _, c := range s.Categories {
		all = slices.Concat(all, texts(c.Train), texts(c.Heldout))
	}
	for _, x := range all {
		if seen[normalise(x)] {
			t.Errorf("%q appears more than once", x)
		}
		seen[normalise(x)] = true
	}
}

// TestDataShape keeps the data within its brief: benign passages of 40–90
// words, prompts short, no stray white space.
func TestDataShape(t *testing.T) {
	s := mustDefault(t)
	check := func(where, x string, minWords, maxWords int) {
		if n := len(strings.Fields(x)); n < minWords || n > maxWords {
			t.Errorf("%s: %d words, want %d–%d: %q", where, n, minWords, maxWords, x)
		}
		if strings.TrimSpace(x) != x || strings.Contains(x, "  ") || strings.ContainsAny(x, "\n\t") {
			t.Errorf("%s: stray white space in %q", where, x)
		}
	}
	for _, x := range slices.Concat(s.Benign.Train, s.Benign.Heldout) {
		check("benign", x, 40, 90)
	}
	for _, z := range s.Zones {
		for _, x := range slices.Concat(z.Train, z.Heldout) {
			check("zone "+z.Name, x, 2, 40)
		}
	}
	for _, c := range s.Categories {
		for _, p := range slices.Concat(c.Train, c.Heldout) {
			check("category "+c.Name, p.Harm, 3, 30)
			check("category "+c.Name, p.Benign, 3, 30)
		}
	}
}

// TestDataFormatted keeps the JSON files human-readable: canonical 2-space
// indentation and a final newline.
func TestDataFormatted(t *testing.T) {
	for _, path := range []string{zonesPath, categoriesPath, benignPath} {
		raw, err := data.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var compact, want bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want.WriteByte('\n')
		if !bytes.Equal(raw, want.Bytes()) {
			t.Errorf("%s is not 2-space indented JSON ending in a newline", path)
		}
	}
}

func TestValidateCatches(t *testing.T) {
	cases := []struct {
		name   string
		modify func(s *Set)
		want   string
	}{
		{
			name:   "duplicate across splits in a zone",
			modify: func(s *Set) { s.Zones[0].Heldout[1] = s.Zones[0].Train[4] },
			want:   "prompts: zone syntax: held-out prompt 2: text duplicates zone syntax, train prompt 5",
		},
		{
			name:   "duplicate across splits in a category",
			modify: func(s *Set) { s.Categories[1].Heldout[0].Benign = s.Categories[1].Train[2].Benign },
			want:   "prompts: category illegal_advice: held-out pair 1: benign prompt duplicates category illegal_advice, train pair 3, benign prompt",
		},
		{
			name:   "duplicate across splits in benign prose",
			modify: func(s *Set) { s.Benign.Heldout[7] = s.Benign.Train[0] },
			want:   "prompts: benign: held-out passage 8: text duplicates benign, train passage 1",
		},
		{
			name:   "duplicate across sets, differing in case and spacing",
			modify: func(s *Set) { s.Categories[7].Train[0].Benign = "  " + strings.ToUpper(s.Zones[3].Train[0]) + "\n" },
			want:   "prompts: category self_harm: train pair 1: benign prompt duplicates zone creative, train prompt 1",
		},
		{
			name:   "too few zone train prompts",
			modify: func(s *Set) { s.Zones[2].Train = s.Zones[2].Train[:23] },
			want:   "prompts: zone reasoning: 23 train prompts, want at least 24",
		},
		{
			name:   "too few category held-out pairs",
			modify: func(s *Set) { s.Categories[4].Heldout = s.Categories[4].Heldout[:7] },
			want:   "prompts: category jailbreak: 7 held-out pairs, want at least 8",
		},
		{
			name:   "too few benign passages",
			modify: func(s *Set) { s.Benign.Train = nil },
			want:   "prompts: benign: 0 train passages, want at least 24",
		},
		{
			name:   "empty benign prompt",
			modify: func(s *Set) { s.Categories[0].Heldout[2].Benign = "" },
			want:   "prompts: category privacy: held-out pair 3: empty benign prompt",
		},
		{
			name:   "white-space-only harm prompt",
			modify: func(s *Set) { s.Categories[5].Train[9].Harm = " \t\n " },
			want:   "prompts: category toxicity: train pair 10: empty harm prompt",
		},
		{
			name:   "empty zone prompt",
			modify: func(s *Set) { s.Zones[1].Train[0] = "   " },
			want:   "prompts: zone factual: train prompt 1: empty text",
		},
		{
			name:   "harm equals benign",
			modify: func(s *Set) { s.Categories[3].Train[1].Benign = s.Categories[3].Train[1].Harm },
			want:   "prompts: category sycophancy: train pair 2: harm prompt equals benign prompt",
		},
		{
			name:   "unknown zone name",
			modify: func(s *Set) { s.Zones[1].Name = "facts" },
			want:   `prompts: zone 2: unknown name "facts", want "factual"`,
		},
		{
			name:   "unknown category name",
			modify: func(s *Set) { s.Categories[2].Name = "spam" },
			want:   `prompts: category 3: unknown name "spam", want "phishing"`,
		},
		{
			name: "categories out of order",
			modify: func(s *Set) {
				s.Categories[0], s.Categories[1] = s.Categories[1], s.Categories[0]
			},
			want: `prompts: category 1: misplaced name "illegal_advice", want "privacy"`,
		},
		{
			name:   "missing category",
			modify: func(s *Set) { s.Categories = s.Categories[:7] },
			want:   "prompts: 7 categories, want 8 (privacy, illegal_advice, phishing, sycophancy, jailbreak, toxicity, misinformation, self_harm)",
		},
		{
			name:   "extra zone",
			modify: func(s *Set) { s.Zones = append(s.Zones, Zone{Name: "humour"}) },
			want:   `prompts: zone 5: unexpected zone "humour"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustDefault(t) // a fresh copy for every case
			tc.modify(s)
			err := s.Validate()
			if err == nil {
				t.Fatalf("Validate accepted the modified set; want %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if !slices.Contains(lines, tc.want) {
				t.Fatalf("Validate error:\n%v\nwant a line:\n%s", err, tc.want)
			}
		})
	}
}

func TestValidateNil(t *testing.T) {
	var s *Set
	if err := s.Validate(); err == nil {
		t.Fatal("nil set validated")
	}
	if err := (&Set{}).Validate(); err == nil {
		t.Fatal("empty set validated")
	}
}

func TestParseRejectsBadJSON(t *testing.T) {
	good := func(path string) []byte {
		b, err := data.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	z, c, b := good(zonesPath), good(categoriesPath), good(benignPath)
	if _, err := parse(z, c, b); err != nil {
		t.Fatalf("parse of the embedded data: %v", err)
	}
	cases := []struct {
		name    string
		z, c, b []byte
		want    string
	}{
		{"malformed", []byte(`{"zones": [`), c, b, "prompts: data/zones.json: "},
		{"unknown field", z, []byte(`{"categories": [], "extra": 1}`), b, "prompts: data/categories.json: "},
		{"trailing data", z, c, []byte(`{"train": [], "heldout": []} {}`), "prompts: data/benign.json: trailing data"},
		{"wrong type", z, c, []byte(`{"train": "one"}`), "prompts: data/benign.json: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.z, tc.c, tc.b)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("parse error = %v, want prefix %q", err, tc.want)
			}
		})
	}
}
