package kvtask

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pyLiteral matches one Python string literal on one line.
var pyLiteral = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`)

// pyUnquote is a Python string literal's value (the escapes tasks.py may
// use; Python keeps an unknown escape as it is).
func pyUnquote(lit string) string {
	s := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pyStrings are the string literals of tasks.py's `NAME = ...` (one
// literal, several that Python joins, or a list, over one or more lines).
func pyStrings(t *testing.T, src, name string) []string {
	t.Helper()
	loc := regexp.MustCompile(`(?m)^` + name + `\s*=\s*`).FindStringIndex(src)
	if loc == nil {
		t.Fatalf("tasks.py has no %s", name)
	}
	var out []string
	depth := 0
	for i := loc[1]; i < len(src); {
		switch c := src[i]; {
		case c == '"' || c == '\'':
			lit := pyLiteral.FindString(src[i:])
			if lit == "" {
				t.Fatalf("%s: an unterminated string", name)
			}
			out = append(out, pyUnquote(lit))
			i += len(lit)
			continue
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case c == '\n' && depth <= 0:
			return out
		case c == ' ' || c == '\t' || c == ',' || c == '\n':
		default:
			t.Fatalf("%s: %q in the value is not a string literal", name, c)
		}
		i++
	}
	return out
}

// pyFormat is Python's str.format for the fields the texts use.
func pyFormat(t *testing.T, name, tmpl, key, value string) string {
	t.Helper()
	rest := strings.NewReplacer("{key}", "", "{value}", "", "{{", "", "}}", "").Replace(tmpl)
	if strings.ContainsAny(rest, "{}") {
		t.Fatalf("%s has a format field other than {key} and {value}: %q", name, tmpl)
	}
	return strings.NewReplacer("{key}", key, "{value}", value, "{{", "{", "}}", "}").Replace(tmpl)
}

// TestTextsMatchTasksPy: the texts are tasks.py's, byte for byte, and
// filling them in gives what Python's format gives.
func TestTextsMatchTasksPy(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fixtures/retrieval/tasks.py")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, c := range []struct{ name, got string }{
		{"NEEDLE", needle}, {"QUESTION", question}, {"QUESTION_ALL", questionAll},
		{"PASS_NEEDLE", passNeedle}, {"PASS_QUESTION", passQuestion}, {"CONS", cons}, {"VOWS", vows},
	} {
		want := strings.Join(pyStrings(t, src, c.name), "")
		if c.got != want {
			t.Errorf("%s: Go %q, tasks.py %q", c.name, c.got, want)
		}
		if g, p := format(c.got, "bakese", "1234567"), pyFormat(t, c.name, want, "bakese", "1234567"); g != p {
			t.Errorf("%s filled in: Go %q, Python %q", c.name, g, p)
		}
	}
	if py := pyStrings(t, src, "FILLER"); !slices.Equal(py, filler) {
		t.Errorf("FILLER: Go %q, tasks.py %q", filler, py)
	}
	var tasks []string
	for _, x := range Tasks() {
		tasks = append(tasks, string(x))
	}
	if py := pyStrings(t, src, "TASKS"); !slices.Equal(py, tasks) {
		t.Errorf("TASKS: Go %q, tasks.py %q", tasks, py)
	}
	// The texts as the model reads them.
	if got, want := format(needle, "bakese", "1234567"), " One of the special magic numbers for bakese is: 1234567."; got != want {
		t.Errorf("needle %q, want %q", got, want)
	}
	if got, want := format(passNeedle, "", "12345"), " The pass key is 12345. Remember it. 12345 is the pass key."; got != want {
		t.Errorf("pass needle %q, want %q", got, want)
	}
}

// TestPyParse: the small parser of tasks.py reads what tasks.py may write.
func TestPyParse(t *testing.T) {
	src := "A = \"x\\ny\" \nB = 'it\\'s'\nC = (\"a \"\n     \"b\")\nD = [\" p.\", ' q.',\n     \" r.\"]\nE = 1\n"
	for name, want := range map[string][]string{"A": {"x\ny"}, "B": {"it's"}, "C": {"a ", "b"}, "D": {" p.", " q.", " r."}} {
		if got := pyStrings(t, src, name); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

var testVerses = []string{
	" In the beginning God created the heaven and the earth.",
	" And the earth was without form, and void; and darkness was upon the face of the deep.",
	" And God said, Let there be light: and there was light.",
	" And God saw the light, that it was good: and God divided the light from the darkness.",
	" And God called the light Day, and the darkness he called Night.",
	" And the evening and the morning were the first day.",
}

// words counts a text's space-separated words: a stand-in tokenizer whose
// counts add up over pieces that begin with a space.
func words(s string) int { return len(strings.Fields(s)) }

func testGen() *Generator { return &Generator{Verses: testVerses, Count: words} }

var needleRE = regexp.MustCompile(` One of the special magic numbers for ([a-z]+) is: ([0-9]+)\.`)

func TestCasesDeterministic(t *testing.T) {
	g := testGen()
	lengths := []int{60, 200}
	a, err := g.Cases(1, Tasks(), lengths, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := g.Cases(1, Tasks(), lengths, 3)
	c, _ := g.Cases(2, Tasks(), lengths, 3)
	if len(a) != 4*2*3 {
		t.Fatalf("%d cases, want 24", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave other cases")
	}
	for i := range a {
		if reflect.DeepEqual(a[i], c[i]) {
			t.Errorf("case %d: another seed gave the same case", i)
		}
	}
	for i, cs := range a {
		if cs.Task != Tasks()[i/6] || cs.NCtx != lengths[(i/3)%2] {
			t.Fatalf("case %d is %s/%d, want %s/%d", i, cs.Task, cs.NCtx, Tasks()[i/6], lengths[(i/3)%2])
		}
	}
	// A task and length draw from their own stream: asking for fewer does
	// not change them (as eval_cases seeds "seed/task/L").
	d, _ := g.Cases(1, []Task{Passkey, Single}, []int{200}, 3)
	if !reflect.DeepEqual(d[:3], a[21:24]) || !reflect.DeepEqual(d[3:], a[3:6]) {
		t.Error("the cases of a task and length depend on the other tasks or lengths asked")
	}
	// Keys from a pool are deterministic too.
	g.Keys = []string{"bakese", "dimolu", "fazeko", "gurita", "kelamo"}
	e, _ := g.Cases(1, Tasks(), lengths, 3)
	f, _ := g.Cases(1, Tasks(), lengths, 3)
	if !reflect.DeepEqual(e, f) {
		t.Fatal("the same seed gave other cases with a key pool")
	}
}

// stripNeedles is the context less its needles, and the needles' keys
// and values in order.
func stripNeedles(ctx string) (rest string, keys, vals []string) {
	for _, m := range needleRE.FindAllStringSubmatch(ctx, -1) {
		keys, vals = append(keys, m[1]), append(vals, m[2])
	}
	return needleRE.ReplaceAllString(ctx, ""), keys, vals
}

// cycle reports whether s is src's pieces from start, wrapping around.
func cycle(s string, src []string, start int) bool {
	for i := start; s != ""; i++ {
		p := src[i%len(src)]
		if !strings.HasPrefix(s, p) {
			return false
		}
		s = s[len(p):]
	}
	return true
}

func TestCaseShapes(t *testing.T) {
	g := testGen()
	longest := 0
	for _, v := range testVerses {
		longest = max(longest, words(v))
	}
	answerRE := regexp.MustCompile(`^ [0-9]+(, [0-9]+)*\.$`)
	asked := map[int]int{} // the multikey needle asked: 0, 1 or 2
	for _, L := range []int{20, 300, 1000} {
		cs, err := g.Cases(5, Tasks(), []int{L}, 12)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			rest, keys, vals := stripNeedles(c.Context)
			nn := words(c.Context) - words(rest) // the needles' tokens
			if c.Task == Passkey {
				nn = words(format(passNeedle, "", "12345"))
			}
			if n := words(c.Context); n < max(L, nn+16) || n > max(L, nn+16)+longest {
				t.Errorf("%s/%d: %d tokens, want %d to %d", c.Task, L, n, max(L, nn+16), max(L, nn+16)+longest)
			}
			if !answerRE.MatchString(c.Answer) || c.Answer != " "+strings.Join(c.Values, ", ")+"." {
				t.Errorf("%s: answer %q for values %q", c.Task, c.Answer, c.Values)
			}
			if !strings.HasPrefix(c.Context, " ") {
				t.Errorf("%s: the context does not begin with a space: %.40q", c.Task, c.Context)
			}
			qk := regexp.MustCompile(`for ([a-z]+)\?`).FindStringSubmatch(c.Question)
			switch c.Task {
			case Single, MultiKey:
				want := 1
				if c.Task == MultiKey {
					want = 3
				}
				if len(keys) != want || len(slices.Compact(slices.Sorted(slices.Values(keys)))) != want {
					t.Errorf("%s: keys %q, want %d distinct", c.Task, keys, want)
				}
				if len(c.Values) != 1 || len(c.Values[0]) != 7 || qk == nil {
					t.Fatalf("%s: values %q, question %q", c.Task, c.Values, c.Question)
				}
				if c.Question != format(question, qk[1], "") {
					t.Errorf("%s: question %q", c.Task, c.Question)
				}
				j := slices.Index(keys, qk[1])
				if j < 0 || !strings.Contains(c.Context, format(needle, qk[1], c.Values[0])) {
					t.Errorf("%s: the needle of %s=%s is not in the context", c.Task, qk[1], c.Values[0])
				}
				if c.Task == MultiKey {
					asked[j]++
				}
			case MultiValue:
				if qk == nil || c.Question != format(questionAll, qk[1], "") {
					t.Fatalf("multivalue: question %q", c.Question)
				}
				if !slices.Equal(keys, []string{qk[1], qk[1], qk[1], qk[1]}) || !slices.Equal(vals, c.Values) {
					t.Errorf("multivalue: needles %q %q, values %q (in order)", keys, vals, c.Values)
				}
				for _, v := range c.Values {
					if len(v) != 7 || strings.Count(c.Context, v) != 1 {
						t.Errorf("multivalue: value %q", v)
					}
				}
			case Passkey:
				if c.Question != passQuestion || len(c.Values) != 1 || len(c.Values[0]) != 5 {
					t.Fatalf("passkey: %q %q", c.Question, c.Values)
				}
				pn := format(passNeedle, "", c.Values[0])
				if strings.Count(c.Context, pn) != 1 || !strings.Contains(c.Context, "The pass key is") || !strings.Contains(c.Context, filler[0]) {
					t.Errorf("passkey context: %.120q", c.Context)
				}
				if !cycle(strings.Replace(c.Context, pn, "", 1), filler, 0) {
					t.Errorf("passkey: the haystack is not the filler from its start: %.120q", c.Context)
				}
			}
			if c.Task != Passkey {
				ok := false
				for s := range testVerses {
					ok = ok || cycle(rest, testVerses, s)
				}
				if !ok {
					t.Errorf("%s: the haystack is not consecutive verses: %.120q", c.Task, rest)
				}
			}
			if c.Score(c.Answer) != 1 {
				t.Errorf("%s: the answer scores %v", c.Task, c.Score(c.Answer))
			}
		}
	}
	if len(asked) != 3 {
		t.Errorf("multikey asks only for the needles %v of 3", asked)
	}
}

// TestStartsWrap: the KJV haystack starts at every verse and wraps around.
func TestStartsWrap(t *testing.T) {
	cs, err := testGen().Cases(9, []Task{Single}, []int{200}, 40)
	if err != nil {
		t.Fatal(err)
	}
	starts := map[string]bool{}
	for _, c := range cs {
		rest, _, _ := stripNeedles(c.Context)
		for _, v := range testVerses {
			if strings.HasPrefix(rest, v) {
				starts[v] = true
			}
		}
	}
	if len(starts) != len(testVerses) {
		t.Errorf("the haystacks start at %d of %d verses", len(starts), len(testVerses))
	}
}

// keyHaystack is testVerses and one verse of every made-up key whose first
// syllable is one of 14 of the 70 (a fifth of all keys), some written with
// a capital and punctuation.
func keyHaystack() []string {
	var b strings.Builder
	for _, c1 := range cons[:7] {
		for _, v1 := range vows[:2] {
			for _, c2 := range cons {
				for _, v2 := range vows {
					for _, c3 := range cons {
						for _, v3 := range vows {
							w := string([]rune{c1, v1, c2, v2, c3, v3})
							if v3 == 'a' {
								w = strings.ToUpper(w[:1]) + w[1:] + ","
							}
							b.WriteString(" " + w)
						}
					}
				}
			}
		}
	}
	return append(slices.Clone(testVerses), b.String()+".")
}

// TestKeysNotHaystackWords: made-up keys, and a pool's keys, are never a
// word of the haystack (here a fifth of all made-up words are).
func TestKeysNotHaystackWords(t *testing.T) {
	verses := keyHaystack()
	hay := map[string]bool{}
	for _, v := range verses {
		for _, w := range strings.Fields(v) {
			hay[strings.ToLower(strings.Trim(w, ".,;:?!()"))] = true
		}
	}
	check := func(cs []Case) int {
		n := 0
		for _, c := range cs {
			for _, m := range needleRE.FindAllStringSubmatch(c.Context, -1) {
				k := m[1]
				n++
				if hay[k] || !isKey(k) {
					t.Errorf("%s: key %q is a haystack word or not three syllables", c.Task, k)
				}
			}
		}
		return n
	}
	g := &Generator{Verses: verses, Count: func(s string) int { return len(s) / 8 }}
	cs, err := g.Cases(3, []Task{Single, MultiKey, MultiValue}, []int{64}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if n := check(cs); n < 100 {
		t.Fatalf("only %d keys checked", n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		if k := makeKey(r, hay); hay[k] || !isKey(k) {
			t.Fatalf("makeKey gave %q", k)
		}
	}
	// A pool with haystack words in it: only the others are drawn.
	g.Keys = []string{"bakese", "demolu", "zuzuzu", "zerapo", "light", "vobena"}
	cs, err = g.Cases(3, []Task{Single, MultiKey, MultiValue}, []int{64}, 20)
	if err != nil {
		t.Fatal(err)
	}
	check(cs)
	g.Keys = []string{"bakese", "demolu", "zuzuzu", "zuzuzu"}
	if _, err := g.Cases(3, []Task{MultiKey}, []int{64}, 1); err == nil || !strings.Contains(err.Error(), "only 1 ") {
		t.Errorf("multikey with one usable key: %v", err)
	}
}

// TestKeyPool: one-token made-up words, never a haystack word.
func TestKeyPool(t *testing.T) {
	v := fakeVocab{" bakese", " light", " dimolu", "bakese", " darkne", " called", " gurita1", " fazeko", " bakese"}
	got := KeyPool(v, append(slices.Clone(testVerses), " Fazeko!"))
	if want := []string{"bakese", "dimolu"}; !slices.Equal(got, want) {
		t.Fatalf("KeyPool = %v, want %v", got, want)
	}
}

type fakeVocab []string

func (f fakeVocab) VocabSize() int             { return len(f) }
func (f fakeVocab) TokenBytes(id int32) []byte { return []byte(f[id]) }

func TestCasesErrors(t *testing.T) {
	for _, c := range []struct {
		g     Generator
		tasks []Task
		want  string
	}{
		{Generator{Verses: testVerses}, Tasks(), "token counter"},
		{Generator{Count: words}, []Task{Single}, "no verses"},
		{Generator{Verses: testVerses, Count: words}, []Task{"niah"}, `"niah"`},
		{Generator{Verses: testVerses, Count: func(string) int { return 0 }}, []Task{Single}, "no token"},
	} {
		if _, err := c.g.Cases(1, c.tasks, []int{64}, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error about %s", c.tasks, err, c.want)
		}
	}
	// The pass key needs no verses.
	if cs, err := (&Generator{Count: words}).Cases(1, []Task{Passkey}, []int{64}, 2); err != nil || len(cs) != 2 {
		t.Errorf("passkey without verses: %v %v", len(cs), err)
	}
}

func TestScore(t *testing.T) {
	c := Case{Answer: " 1111, 2222, 3333, 4444.", Values: []string{"1111", "2222", "3333", "4444"}}
	for reply, want := range map[string]float64{
		" 1111, 2222, 3333, 4444.": 1, " 1111, 9999, 3333": 0.5, " 4444": 0.25, "": 0, " 5555.": 0,
	} {
		if s := c.Score(reply); s != want {
			t.Errorf("Score(%q) = %v, want %v", reply, s, want)
		}
	}
	a := Case{Answer: " 1234567."}
	if s := a.Score("the number is 1234567"); s != 1 {
		t.Errorf("answer without values: %v", s)
	}
	if s := a.Score("7654321"); s != 0 {
		t.Errorf("wrong answer: %v", s)
	}
	if s := (Case{Answer: " Blue Whale ."}).Score("IT IS THE BLUE WHALE"); s != 1 {
		t.Errorf("RULER's match ignores case: %v", s)
	}
	if s := (Case{Answer: " ."}).Score(" ."); s != 0 {
		t.Errorf("nothing to find: %v", s)
	}
}

func TestReadCases(t *testing.T) {
	cs, err := ReadCases(strings.NewReader(`[{"context":"a b","question":"q?","answer":" 12."},
		{"task":"multivalue","n_ctx":64,"context":"c","question":"q","answer":" 1, 2.","values":["1","2"]}]` + "\n"))
	if err != nil || len(cs) != 2 || cs[0].Score("12") != 1 || cs[1].Task != MultiValue || cs[1].NCtx != 64 || cs[1].Score("2") != 0.5 {
		t.Fatalf("%+v %v", cs, err)
	}
	// Generated cases read back as they were.
	gen, _ := testGen().Cases(4, Tasks(), []int{40}, 2)
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(gen)
	if back, err := ReadCases(&buf); err != nil || !reflect.DeepEqual(back, gen) {
		t.Errorf("generated cases read back: %v", err)
	}
	ok := `{"context":"c","question":"q","answer":" 1."},`
	for _, bad := range []struct{ in, want string }{
		{``, "not a JSON array"},
		{`{}`, "not a JSON array"},
		{`[1]`, "not a JSON array"},
		{`[]`, "no case"},
		{`null`, "no case"},
		{`[` + ok + `{"context":"c","question":"q","answer":" 1."}] x`, "more after"},
		{`[` + ok + ok + `{"question":"q","answer":"1"}]`, "case 2 has an empty context"},
		{`[` + ok + ok + `{"context":" \n","question":"q","answer":"1"}]`, "case 2 has an empty context"},
		{`[` + ok + ok + `{"context":"c","answer":"1"}]`, "case 2 has an empty question"},
		{`[` + ok + ok + `{"context":"c","question":"q"}]`, "case 2 has an empty answer"},
		{`[` + ok + ok + `{"context":"c","question":"q","answer":" ."}]`, "case 2 has an empty answer"},
		{`[` + ok + ok + `{"context":"c","question":"q","answer":"","values":["1"]}]`, "case 2 has an empty answer"},
		{`[` + ok + ok + `{"context":"c","question":"q","answer":"1","values":["1",""]}]`, "case 2: value 1 is empty"},
		{`[` + ok + ok + `{"context":"c","question":"q","answer":"1","n_ctx":-3}]`, "case 2 has a negative n_ctx"},
		{`[` + ok + ok + `{"context":"c","question":"q","answer":"1","n_ctx":"x"}]`, "not a JSON array"},
	} {
		if _, err := ReadCases(strings.NewReader(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want an error with %q", bad.in, err, bad.want)
		}
	}
}

func FuzzReadCases(f *testing.F) {
	f.Add(`[{"context":"a","question":"b","answer":"c"}]`)
	f.Add(`[{"context":"a","question":"b","answer":"","values":["1",""]}]`)
	f.Add(`[{"task":"single","n_ctx":9,"context":"a","question":"b","answer":" 1.","values":["1"]}] `)
	f.Add(`[null, {"context":" "}]`)
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ReadCases(strings.NewReader(s))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if len(cs) == 0 {
			t.Fatal("no case and no error")
		}
		for _, c := range cs {
			if strings.TrimSpace(c.Context) == "" || strings.TrimSpace(c.Question) == "" || strings.TrimSpace(c.Answer) == "" {
				t.Fatalf("accepted %+v", c)
			}
			if s := c.Score(c.Answer + " " + strings.Join(c.Values, " ")); s != 1 {
				t.Fatalf("%+v: its own answer scores %v", c, s)
			}
		}
	})
}

func TestVerses(t *testing.T) {
	in := "  In the   beginning\t\n\nCafé au lait\r\nGod said\rLet there\u00a0be light\x1f!\n \t \nthe end"
	v, err := Verses(strings.NewReader(in))
	want := []string{" In the beginning", " God said", " Let there be light !", " the end"}
	if err != nil || !slices.Equal(v, want) {
		t.Fatalf("%q %v, want %q", v, err, want)
	}
	long := strings.Repeat("word ", 1<<19) // a line past bufio's default limits
	if v, err := Verses(strings.NewReader(long)); err != nil || len(v) != 1 || len(v[0]) != len(long) {
		t.Errorf("a long line: %d verses, %v", len(v), err)
	}
	for _, in := range []string{"", "\n é\n", " \t\r\n"} {
		if _, err := Verses(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "no verse") {
			t.Errorf("%q: %v, want an error", in, err)
		}
	}
}

func TestParseTasks(t *testing.T) {
	if ts, err := ParseTasks(" all "); err != nil || !slices.Equal(ts, Tasks()) {
		t.Fatal(ts, err)
	}
	if ts, err := ParseTasks("single, passkey,single"); err != nil || !slices.Equal(ts, []Task{Single, Passkey}) {
		t.Fatal(ts, err)
	}
	for _, bad := range []string{"niah", "", "single,,passkey", "Single"} {
		if _, err := ParseTasks(bad); err == nil || !strings.Contains(err.Error(), "no task") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
