package grammar

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestMatchJSON(t *testing.T) {
	g := mustParse(t, featureGrammars["json"])
	checkMatches(t, g, true,
		`{}`, `{"a":1}`, `{ "a": [1, 2.5e-3, true, null, "x\n\u00e9"] }`,
		`{"nested":{"deep":[[],[{}],{"k":"v"}]}}`, "{\n  \"a\": \"é😀\"}",
		`{"esc":"\"\\\/\b\f\n\r\t"}`, `{"n":-0.5E+7}`,
	)
	checkMatches(t, g, false,
		``, `{`, `[]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{'a':1}`,
		`{"a":01x}`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", `{"a":tru}`,
		"{\"a\":\"\xff\"}",         // invalid UTF-8
		"{\"a\":\"\xed\xa0\x80\"}", // an encoded surrogate
		"{\"a\":\"\xc0\xaf\"}",     // an overlong encoding
	)
}

func TestMatchArithmetic(t *testing.T) {
	g := mustParse(t, featureGrammars["arith"])
	checkMatches(t, g, true, "1=1\n", "(a+b)*c= 42\n", "x1_y/( 2 -3)=0\n1=1\n")
	checkMatches(t, g, false, "", "1=1", "(a+b=1\n", "+1=1\n", "A=1\n")
}

func TestMatchRepetitions(t *testing.T) {
	g := mustParse(t, `root ::= ("ab"{2,3} "-"){1,2} x{0,2} [0-9]{3} y*
x ::= "x"
y ::= ("y" | "z"+)`)
	checkMatches(t, g, true, "abab-123", "ababab-abab-xx123", "abab-x123yzzzy", "abab-123zz")
	checkMatches(t, g, false, "ab-123", "abababab-123", "abab-abab-abab-123", "abab-xxx123", "abab-12", "abab-1234")
}

func TestMatchClasses(t *testing.T) {
	g := mustParse(t, `root ::= [a-cx] [^a-z] . [ぁ-ゟ] [^\x00-\x7F] "é"`)
	checkMatches(t, g, true, "aZ!ぁ€é", "x1😀ゟßé", "b\n\nあ😀é")
	checkMatches(t, g, false, "dZ!ぁ€é", "aa!ぁ€é", "aZ!a€é", "aZ!ぁxé", "aZ!ぁ€e")
	// Any character is one code point, not one byte.
	g = mustParse(t, `root ::= . .`)
	checkMatches(t, g, true, "ab", "é😀", "\x00\n")
	checkMatches(t, g, false, "a", "abc", "😀", "\xff\xff")
}

func TestMatchEmptyAndNullable(t *testing.T) {
	g := mustParse(t, `root ::= | "a" root-b
root-b ::= "" | "b"`)
	checkMatches(t, g, true, "", "a", "ab")
	checkMatches(t, g, false, "b", "abb")
}

// TestSplitUTF8 feeds multi-byte characters through tokens that end and
// start in the middle of a character.
func TestSplitUTF8(t *testing.T) {
	g := mustParse(t, `root ::= "\"" [^"\\]* "\""`)
	toks := [][]byte{
		[]byte(`"`),        // 0
		{0xC3},             // 1: lead byte of é
		{0xA9, 'a'},        // 2: its continuation, then a
		{0xF0, 0x9F},       // 3: half of 😀
		{0x98, 0x80, '"'},  // 4: the other half, then the closing quote
		{0x80},             // 5: a lone continuation byte
		{0xE3, 0x81, 0x82}, // 6: あ whole
		{0xFF},             // 7: never in UTF-8
	}
	v, err := NewVocab(toks, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMatcher(g, v)
	mask := m.NewMask()
	expect := func(what string, allowed ...int32) {
		t.Helper()
		m.Allowed(mask)
		want := NewMask(v.Size())
		for _, id := range allowed {
			want.set(id)
		}
		for id := range int32(v.Size()) {
			if mask.Has(id) != want.Has(id) {
				t.Fatalf("%s: token %d (% x) allowed %v, want %v", what, id, toks[id], mask.Has(id), want.Has(id))
			}
		}
	}
	accept := func(id int32) {
		t.Helper()
		if err := m.Accept(id); err != nil {
			t.Fatal(err)
		}
	}
	expect("start", 0)
	accept(0)
	expect("in the string", 0, 1, 3, 6)
	accept(1)
	expect("after a lead byte", 2, 5) // C3 80 is À; C3 98 is Ø but 80 then strays
	accept(2)
	accept(3)
	expect("inside 😀", 4, 5) // F0 9F 80 still needs one more byte
	if m.Accept(7) == nil || m.Accept(2) == nil || m.Accept(0) == nil {
		t.Fatal("a token that cannot continue 😀 was accepted")
	}
	accept(4)
	expect("after the closing quote")
	if !m.Done() {
		t.Fatal("not done after the closing quote")
	}
}

func TestEOG(t *testing.T) {
	g := mustParse(t, `root ::= "a"+`)
	v := byteVocab(t)
	m := NewMatcher(g, v)
	mask := m.NewMask()
	m.Allowed(mask)
	if mask.Has(256) || !mask.Has('a') || mask.Count() != 1 {
		t.Fatalf("start: %d allowed, eog %v", mask.Count(), mask.Has(256))
	}
	if err := m.Accept(256); err == nil {
		t.Fatal("EOG accepted at the start")
	}
	if err := m.Accept('a'); err != nil {
		t.Fatal(err)
	}
	m.Allowed(mask)
	if !mask.Has(256) || !mask.Has('a') || mask.Count() != 2 {
		t.Fatalf("after a: %d allowed", mask.Count())
	}
	if !m.Done() || m.Accept(256) != nil || !m.Done() {
		t.Fatal("EOG refused where the root is complete")
	}
	m.Allowed(mask)
	if mask.Count() != 0 || m.Accept('a') == nil {
		t.Fatal("tokens allowed after EOG")
	}
	m.Reset()
	if m.Done() {
		t.Fatal("done after Reset")
	}
}

func TestMaskMatchesBruteForce(t *testing.T) {
	// A vocabulary of overlapping pieces; for each state on the way through
	// a document, the mask must equal "token bytes are accepted".
	pieces := []string{"{", "}", `"`, `":`, `","`, `{"`, `"}`, "a", "ab", "abc", "b", "1", "12", "-", "e", ".", " ", "\n", "true", "tr", "ue", "null", "[", "]", ",", `\`, `\u`, "00", "é", "\xc3", "\xa9", "😀", "\xf0\x9f", "\x98\x80", ""}
	toks := make([][]byte, len(pieces)+1)
	for i, p := range pieces {
		toks[i] = []byte(p)
	}
	eog := int32(len(pieces))
	v, err := NewVocab(toks, []int32{eog})
	if err != nil {
		t.Fatal(err)
	}
	g := mustParse(t, featureGrammars["json"])
	m := NewMatcher(g, v)
	mask := m.NewMask()
	doc := []string{`{"`, "ab", `":`, " ", "[", "12", ",", "tr", "ue", ",", `"`, "é", "\xf0\x9f", "\x98\x80", `\u`, "00", "1", "e", `"`, "]", `}`}
	for step := 0; ; step++ {
		m.Allowed(mask)
		for id := range toks {
			want := m.Allows(int32(id))
			if mask.Has(int32(id)) != want {
				t.Fatalf("step %d: token %q: mask %v, Allows %v", step, toks[id], mask.Has(int32(id)), want)
			}
			// Allows itself against a fresh walk on a byte vocabulary.
		}
		if step == len(doc) {
			break
		}
		id := -1
		for i, p := range pieces {
			if p == doc[step] {
				id = i
			}
		}
		if err := m.Accept(int32(id)); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if !m.Done() || !mask.Has(eog) {
		t.Fatal("document not complete")
	}
}

// TestCompact runs a matcher whose caches are far too small for a deeply
// nested document, so that it starts over from its current state again and
// again, and checks it agrees with a matcher that never does.
func TestCompact(t *testing.T) {
	g := mustParse(t, JSONObjectGrammar())
	v := byteVocab(t)
	doc := `{"a":` + strings.Repeat(`[{"k":"é😀","n":`, 40) + `1` + strings.Repeat(`}]`, 40) + `}`
	small, big := NewMatcher(g, v), NewMatcher(g, v)
	small.stateLimit, small.nodeLimit = 8, 64
	ms, mb := small.NewMask(), big.NewMask()
	for i := range len(doc) {
		small.Allowed(ms)
		big.Allowed(mb)
		if !slices.Equal(ms, mb) {
			t.Fatalf("byte %d: masks differ", i)
		}
		if err := small.Accept(int32(doc[i])); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		if err := big.Accept(int32(doc[i])); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	if !small.Done() || small.Accept(256) != nil {
		t.Fatal("not done")
	}
	if small.States() > 64 {
		t.Errorf("small matcher holds %d states", small.States())
	}
	small.Reset()
	if small.AcceptBytes([]byte(doc)) != nil || !small.Done() {
		t.Fatal("after compaction and Reset, the document is refused")
	}
}

// TestSharedConcurrently runs matchers on one Grammar and Vocab from
// several goroutines (run with -race).
func TestSharedConcurrently(t *testing.T) {
	g := mustParse(t, featureGrammars["json"])
	v := byteVocab(t)
	doc := []byte(`{"a": [1, 2.5, {"b": "é"}], "c": null}`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			m := NewMatcher(g, v)
			mask := m.NewMask()
			for range 20 {
				m.Reset()
				for _, b := range doc {
					m.Allowed(mask)
					if err := m.Accept(int32(b)); err != nil {
						t.Error(err)
						return
					}
				}
				if !m.Done() {
					t.Error("not done")
				}
			}
		})
	}
	wg.Wait()
}

// TestLazyConstraint: prose before the trigger is free; from the trigger
// on the grammar holds every token, end of generation included; a trigger
// followed by what the grammar refuses leaves the rest free; waiting
// allocates nothing.
func TestLazyConstraint(t *testing.T) {
	v := byteVocab(t)
	g := mustParse(t, `root ::= "<call>" [a-z]+ "</call>"`)
	feed := func(c *LazyConstraint, text string) {
		t.Helper()
		for i := range len(text) {
			if err := c.Accept(int32(text[i])); err != nil {
				t.Fatalf("byte %d of %q: %v", i, text, err)
			}
		}
	}
	allowed := func(c *LazyConstraint, b byte) bool {
		logits := make([]float32, 257)
		c.Mask(logits)
		return !math.IsInf(float64(logits[b]), -1)
	}
	c := NewLazyConstraint(NewMatcher(g, v), []string{"<call>"})
	feed(c, "Some prose, even < and <ca")
	if c.Active() || !allowed(c, 'Z') {
		t.Fatal("held before the trigger")
	}
	feed(c, "ll>ab")
	if !c.Active() || allowed(c, 'Z') || !allowed(c, 'c') || allowed(c, 0) {
		t.Fatal("not held after the trigger")
	}
	logits := make([]float32, 257)
	c.Mask(logits)
	if !math.IsInf(float64(logits[256]), -1) {
		t.Error("end of generation allowed inside the call")
	}
	feed(c, "c</call>")
	logits = make([]float32, 257)
	c.Mask(logits)
	if math.IsInf(float64(logits[256]), -1) {
		t.Error("end of generation refused after the call")
	}
	// A token that completes the trigger and carries what the grammar
	// refuses: free for good.
	toks := make([][]byte, 258)
	for b := range 256 {
		toks[b] = []byte{byte(b)}
	}
	toks[257] = []byte("l>9")
	v2, err := NewVocab(toks, []int32{256})
	if err != nil {
		t.Fatal(err)
	}
	d := NewLazyConstraint(NewMatcher(g, v2), []string{"<call>"})
	feed(d, "<cal")
	if err := d.Accept(257); err != nil {
		t.Fatal(err)
	}
	if d.Active() || !allowed(d, 'Z') {
		t.Error("a refused trigger left the reply held")
	}
	e := NewLazyConstraint(NewMatcher(g, v), []string{"<call>"})
	feed(e, "warm up the buffer well past the longest trigger")
	if n := testing.AllocsPerRun(100, func() { _ = e.Accept('x'); e.Mask(logits) }); n != 0 {
		t.Errorf("%v allocations per token while waiting", n)
	}
}
