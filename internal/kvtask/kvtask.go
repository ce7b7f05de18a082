// Package kvtask generates the retrieval cases of `isagi eval kv`: RULER's
// needle-in-a-haystack tasks, in the exact text the retrieval fixture model
// (testdata/models/retrieval.gguf) was trained on.
//
// The texts below must match scripts/fixtures/retrieval/tasks.py byte for
// byte — the model answers only the questions it learnt — and a test reads
// that file to check them. The random draws are Go's own, so no case here
// is one the model saw in training.
//
// A context is built from pieces that each begin with a space, so that the
// tokens of the joined text are the concatenation of the pieces' tokens
// (the smollm pre-tokenizer never joins a leading space to what precedes
// it).
package kvtask

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
)

// The task texts (tasks.py's NEEDLE, QUESTION, QUESTION_ALL, PASS_NEEDLE,
// PASS_QUESTION and FILLER), with {key} and {value} as %[1]s and %[2]s.
const (
	needle       = " One of the special magic numbers for %[1]s is: %[2]s."
	question     = "\nWhat is the special magic number for %[1]s? The special magic number for %[1]s is:"
	questionAll  = "\nWhat are all the special magic numbers for %[1]s? The special magic numbers for %[1]s are:"
	passNeedle   = " The pass key is %[1]s. Remember it. %[1]s is the pass key."
	passQuestion = "\nWhat is the pass key? The pass key is:"
	cons         = "bdfgklmnprstvz"
	vows         = "aeiou"
)

var filler = []string{" The grass is green.", " The sky is blue.", " The sun is yellow.", " Here we go.", " There and back again."}

// Task names a task.
type Task string

// The tasks.
const (
	Single     Task = "single"     // one needle among KJV verses
	MultiKey   Task = "multikey"   // three needles of three keys; one asked
	MultiValue Task = "multivalue" // one key with four numbers; all asked
	Passkey    Task = "passkey"    // a 5-digit key in repeated filler
)

// Tasks are every task.
func Tasks() []Task { return []Task{Single, MultiKey, MultiValue, Passkey} }

// ParseTasks reads "all" or a comma-separated list of task names.
func ParseTasks(csv string) ([]Task, error) {
	if strings.TrimSpace(csv) == "all" {
		return Tasks(), nil
	}
	var out []Task
	for _, f := range strings.Split(csv, ",") {
		t := Task(strings.TrimSpace(f))
		if !slices.Contains(Tasks(), t) {
			return nil, fmt.Errorf("no task %q: want all or any of single, multikey, multivalue, passkey", f)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Case is one retrieval case: a context, then one question whose answer
// is in it.
type Case struct {
	Task     Task     `json:"task,omitempty"`
	NCtx     int      `json:"n_ctx,omitempty"` // the target context length in tokens
	Context  string   `json:"context"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`           // " 1234567." or " 1, 2, 3, 4."
	Values   []string `json:"values,omitempty"` // the numbers to find (empty: the answer)
}

// Score is RULER's string match: the share of the case's values found in
// reply (the answer, trimmed of spaces and a final '.', when it has none).
func (c Case) Score(reply string) float64 {
	vals := c.Values
	if len(vals) == 0 {
		a := strings.TrimSuffix(strings.TrimSpace(c.Answer), ".")
		if a == "" {
			return 0
		}
		vals = []string{a}
	}
	hit := 0
	for _, v := range vals {
		if strings.Contains(reply, v) {
			hit++
		}
	}
	return float64(hit) / float64(len(vals))
}

// Verses reads a haystack: one verse per line, whitespace collapsed,
// lines with non-ASCII characters skipped, each as " "+verse.
func Verses(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.Join(strings.Fields(sc.Text()), " ")
		if line == "" || !ascii(line) {
			continue
		}
		out = append(out, " "+line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the haystack: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("the haystack has no line of ASCII text")
	}
	return out, nil
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Vocab is what KeyPool reads of a tokenizer.
type Vocab interface {
	VocabSize() int
	TokenBytes(id int32) []byte
}

// KeyPool is the keys (tasks.py's key_pool): the made-up words a
// vocabulary holds as one token, " " + three consonant–vowel syllables,
// that are not words of the haystack — sorted.
func KeyPool(v Vocab, verses []string) []string {
	words := haystackWords(verses)
	var out []string
	for id := range v.VocabSize() {
		b := v.TokenBytes(int32(id))
		if len(b) != 7 || b[0] != ' ' {
			continue
		}
		w := string(b[1:])
		if isKey(w) && !words[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

func isKey(w string) bool {
	if len(w) != 6 {
		return false
	}
	for i := range len(w) {
		set := cons
		if i%2 == 1 {
			set = vows
		}
		if !strings.ContainsRune(set, rune(w[i])) {
			return false
		}
	}
	return true
}

// haystackWords are the verses' words, lower case, stripped of .,;:?!()
// as tasks.py strips them.
func haystackWords(verses []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range verses {
		for _, w := range strings.Fields(v) {
			out[strings.ToLower(strings.Trim(w, ".,;:?!()"))] = true
		}
	}
	return out
}

// Generator makes cases over a haystack. Count returns the tokens of a
// piece of text (the model's tokenizer); Keys is the key pool (KeyPool).
type Generator struct {
	Verses []string
	Keys   []string
	Count  func(string) int
}

// Cases returns n cases per task and context length, deterministic for
// seed, each with one question: multikey has three keys, multivalue four
// numbers (tasks.eval_cases's defaults).
func (g *Generator) Cases(seed uint64, tasks []Task, lengths []int, n int) ([]Case, error) {
	if len(g.Verses) == 0 || g.Count == nil {
		return nil, errors.New("kvtask: a generator needs verses and a token counter")
	}
	if len(g.Keys) < 3 {
		return nil, fmt.Errorf("kvtask: %d keys in the pool; the tasks need at least 3 (is this the retrieval fixture's tokenizer?)", len(g.Keys))
	}
	var out []Case
	vids := make([]int, len(g.Verses))
	for i, v := range g.Verses {
		vids[i] = g.Count(v)
	}
	fids := make([]int, len(filler))
	for i, f := range filler {
		fids[i] = g.Count(f)
	}
	for ti, t := range tasks {
		for li, L := range lengths {
			r := rand.New(rand.NewPCG(seed, uint64(ti)<<32|uint64(li)))
			for range n {
				out = append(out, g.one(r, t, L, vids, fids))
			}
		}
	}
	return out, nil
}

func number(r *rand.Rand, digits int) string {
	lo := 1
	for range digits - 1 {
		lo *= 10
	}
	return fmt.Sprint(lo + r.IntN(9*lo))
}

// one is tasks.Gen.case with its first question.
func (g *Generator) one(r *rand.Rand, t Task, nCtx int, vids, fids []int) Case {
	var needles []string
	var q string
	var vals []string
	switch t {
	case Passkey:
		v := number(r, 5)
		needles = []string{fmt.Sprintf(passNeedle, v)}
		q, vals = passQuestion, []string{v}
	case MultiValue:
		k := g.Keys[r.IntN(len(g.Keys))]
		for len(vals) < 4 {
			if v := number(r, 7); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		for _, v := range vals {
			needles = append(needles, fmt.Sprintf(needle, k, v))
		}
		q = fmt.Sprintf(questionAll, k)
	default:
		nk := 1
		if t == MultiKey {
			nk = 3
		}
		var keys []string
		for len(keys) < nk {
			if k := g.Keys[r.IntN(len(g.Keys))]; !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			v := number(r, 7)
			vals = append(vals, v)
			needles = append(needles, fmt.Sprintf(needle, k, v))
		}
		j := r.IntN(nk) // the key asked
		q, vals = fmt.Sprintf(question, keys[j]), []string{vals[j]}
	}
	budget := nCtx
	for _, n := range needles {
		budget -= g.Count(n)
	}
	budget = max(16, budget)
	// The haystack: filler from its start, or verses from a random one,
	// wrapping around, until the budget is filled.
	src, ids, i := g.Verses, vids, r.IntN(len(g.Verses))
	if t == Passkey {
		src, ids, i = filler, fids, 0
	}
	var pieces []string
	for n := 0; n < budget; i++ {
		pieces = append(pieces, src[i%len(src)])
		n += ids[i%len(src)]
	}
	slots := make([]int, len(needles))
	for k := range slots {
		slots[k] = r.IntN(len(pieces) + 1)
	}
	slices.Sort(slots)
	var b strings.Builder
	ni := 0
	for pi := 0; pi <= len(pieces); pi++ {
		for ni < len(needles) && slots[ni] == pi {
			b.WriteString(needles[ni])
			ni++
		}
		if pi < len(pieces) {
			b.WriteString(pieces[pi])
		}
	}
	return Case{Task: t, NCtx: nCtx, Context: b.String(), Question: q, Answer: " " + strings.Join(vals, ", ") + ".", Values: vals}
}

// ReadCases reads a JSON list of cases: context, question and answer are
// required; task, n_ctx and values are optional.
func ReadCases(r io.Reader) ([]Case, error) {
	var cs []Case
	dec := json.NewDecoder(r)
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("the cases are not a JSON list of {\"context\", \"question\", \"answer\"}: %w", err)
	}
	if len(cs) == 0 {
		return nil, errors.New("the cases file holds no case")
	}
	for i, c := range cs {
		switch {
		case strings.TrimSpace(c.Context) == "":
			return nil, fmt.Errorf("case %d has no context", i)
		case strings.TrimSpace(c.Question) == "":
			return nil, fmt.Errorf("case %d has no question", i)
		case strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.Answer), ".")) == "" && len(c.Values) == 0:
			return nil, fmt.Errorf("case %d has no answer", i)
		}
		for j, v := range c.Values {
			if v == "" {
				return nil, fmt.Errorf("case %d: value %d is empty", i, j)
			}
		}
	}
	return cs, nil
}
