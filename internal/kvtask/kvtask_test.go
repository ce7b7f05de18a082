package kvtask

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pyConst reads NAME = "..." from tasks.py, Python escapes and {key} /
// {value} fields turned into the Go constants' form.
func pyConst(t *testing.T, src, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` = ("(?:[^"\\]|\\.)*")$`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("tasks.py has no %s", name)
	}
	s, err := strconv.Unquote(m[1])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return strings.NewReplacer("{key}", "%[1]s", "{value}", "%[2]s").Replace(s)
}

// TestTextsMatchTasksPy: the texts are tasks.py's, byte for byte.
func TestTextsMatchTasksPy(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fixtures/retrieval/tasks.py")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, c := range []struct{ name, got string }{
		{"NEEDLE", needle}, {"QUESTION", question}, {"QUESTION_ALL", questionAll},
		{"PASS_QUESTION", passQuestion}, {"CONS", cons}, {"VOWS", vows},
	} {
		if want := pyConst(t, src, c.name); c.got != want {
			t.Errorf("%s: Go %q, tasks.py %q", c.name, c.got, want)
		}
	}
	// The pass-key needle has only a value: tasks.py's {value} is %[1]s here.
	if want := strings.ReplaceAll(pyConst(t, src, "PASS_NEEDLE"), "%[2]s", "%[1]s"); passNeedle != want {
		t.Errorf("PASS_NEEDLE: Go %q, tasks.py %q", passNeedle, want)
	}
	m := regexp.MustCompile(`(?s)FILLER = \[(.*?)\]`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("tasks.py has no FILLER")
	}
	var py []string
	for _, q := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(m[1], -1) {
		s, _ := strconv.Unquote(q)
		py = append(py, s)
	}
	if !slices.Equal(py, filler) {
		t.Errorf("FILLER: Go %q, tasks.py %q", filler, py)
	}
}

var testVerses = []string{
	" In the beginning God created the heaven and the earth.",
	" And the earth was without form, and void; and darkness was upon the face of the deep.",
	" And God said, Let there be light: and there was light.",
	" And God saw the light, that it was good: and God divided the light from the darkness.",
	" And God called the light Day, and the darkness he called Night.",
}

// words counts a text's space-separated words: a stand-in tokenizer.
func words(s string) int { return len(strings.Fields(s)) }

func testGen() *Generator {
	return &Generator{Verses: testVerses, Keys: []string{"bakese", "dimolu", "fazeko", "gurita", "kelamo"}, Count: words}
}

func TestCasesDeterministic(t *testing.T) {
	g := testGen()
	a, err := g.Cases(1, Tasks(), []int{60, 200}, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := g.Cases(1, Tasks(), []int{60, 200}, 3)
	c, _ := g.Cases(2, Tasks(), []int{60, 200}, 3)
	if len(a) != 4*2*3 {
		t.Fatalf("%d cases, want 24", len(a))
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("the same seed gave other cases")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("another seed gave the same cases")
	}
	for i, cs := range a {
		if cs.Task != Tasks()[i/6] || cs.NCtx != []int{60, 200}[(i/3)%2] {
			t.Fatalf("case %d is %s/%d", i, cs.Task, cs.NCtx)
		}
	}
}

func TestCaseShapes(t *testing.T) {
	g := testGen()
	cs, err := g.Cases(5, Tasks(), []int{300}, 4)
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, v := range testVerses {
		longest = max(longest, words(v))
	}
	for _, c := range cs {
		n := words(c.Context)
		if n < 300-2*words(fmt.Sprintf(needle, "x", "1")) || n > 300+longest {
			t.Errorf("%s: %d words for a target of 300", c.Task, n)
		}
		needles := strings.Count(c.Context, "One of the special magic numbers for ")
		switch c.Task {
		case Single:
			if needles != 1 || len(c.Values) != 1 || len(c.Values[0]) != 7 {
				t.Errorf("single: %d needles, values %v", needles, c.Values)
			}
		case MultiKey:
			if needles != 3 {
				t.Errorf("multikey: %d needles", needles)
			}
		case MultiValue:
			if needles != 4 || len(c.Values) != 4 {
				t.Errorf("multivalue: %d needles, values %v", needles, c.Values)
			}
			last := -1
			for _, v := range c.Values {
				i := strings.Index(c.Context, v)
				if i < last {
					t.Errorf("multivalue: values out of the answer's order")
				}
				last = i
			}
		case Passkey:
			if !strings.Contains(c.Context, "The pass key is "+c.Values[0]) || !strings.HasPrefix(c.Context, " The grass is green.") && !strings.HasPrefix(c.Context, " The pass key") {
				t.Errorf("passkey context: %.80q", c.Context)
			}
		}
		for _, v := range c.Values {
			if !strings.Contains(c.Context, v) {
				t.Errorf("%s: value %s not in the context", c.Task, v)
			}
		}
		if c.Score(c.Answer) != 1 {
			t.Errorf("%s: the answer scores %v", c.Task, c.Score(c.Answer))
		}
	}
}

// TestKeyPool: one-token made-up words, never a haystack word.
func TestKeyPool(t *testing.T) {
	v := fakeVocab{" bakese", " light", " dimolu", "bakese", " darkne", " called", " gurita1", " fazeko"}
	got := KeyPool(v, append(testVerses, " fazeko"))
	if want := []string{"bakese", "dimolu"}; !slices.Equal(got, want) {
		t.Fatalf("KeyPool = %v, want %v", got, want)
	}
}

type fakeVocab []string

func (f fakeVocab) VocabSize() int             { return len(f) }
func (f fakeVocab) TokenBytes(id int32) []byte { return []byte(f[id]) }

func TestScore(t *testing.T) {
	c := Case{Answer: " 1, 2, 3, 4.", Values: []string{"1111", "2222", "3333", "4444"}}
	if s := c.Score(" 1111, 9999, 3333"); s != 0.5 {
		t.Errorf("two of four: %v", s)
	}
	if s := (Case{Answer: " 1234567."}).Score("the number is 1234567"); s != 1 {
		t.Errorf("answer without values: %v", s)
	}
	if s := (Case{Answer: " 1234567."}).Score("7654321"); s != 0 {
		t.Errorf("wrong answer: %v", s)
	}
}

func TestReadCases(t *testing.T) {
	cs, err := ReadCases(strings.NewReader(`[{"context":"a b","question":"q?","answer":" 12."}]`))
	if err != nil || len(cs) != 1 || cs[0].Score("12") != 1 {
		t.Fatalf("%v %v", cs, err)
	}
	for _, bad := range []string{
		``, `{}`, `[]`, `[{"question":"q","answer":"1"}]`, `[{"context":"c","answer":"1"}]`,
		`[{"context":"c","question":"q"}]`, `[{"context":"c","question":"q","answer":" ."}]`,
		`[{"context":"c","question":"q","answer":"1"},{"context":" ","question":"q","answer":"1"}]`,
	} {
		if _, err := ReadCases(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read", bad)
		} else if strings.Contains(bad, "},{") && !strings.Contains(err.Error(), "case 1") {
			t.Errorf("%q: %v does not name case 1", bad, err)
		}
	}
}

func FuzzReadCases(f *testing.F) {
	f.Add(`[{"context":"a","question":"b","answer":"c"}]`)
	f.Add(`[{"context":"a","question":"b","answer":"","values":["1",""]}]`)
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ReadCases(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range cs {
			if strings.TrimSpace(c.Context) == "" || strings.TrimSpace(c.Question) == "" {
				t.Fatalf("accepted %+v", c)
			}
			_ = c.Score("x")
		}
	})
}

func TestVerses(t *testing.T) {
	v, err := Verses(strings.NewReader("  In the   beginning\n\nCafé au lait\nGod said\n"))
	if err != nil || !slices.Equal(v, []string{" In the beginning", " God said"}) {
		t.Fatalf("%q %v", v, err)
	}
	if _, err := Verses(strings.NewReader("\n é\n")); err == nil {
		t.Fatal("no ASCII line read without an error")
	}
}

func TestParseTasks(t *testing.T) {
	if ts, err := ParseTasks("all"); err != nil || len(ts) != 4 {
		t.Fatal(ts, err)
	}
	if ts, err := ParseTasks("single, passkey,single"); err != nil || !slices.Equal(ts, []Task{Single, Passkey}) {
		t.Fatal(ts, err)
	}
	if _, err := ParseTasks("niah"); err == nil {
		t.Fatal("niah parsed")
	}
}
