// Package kvtask generates the retrieval cases of `isagi eval kv`: RULER's
// needle-in-a-haystack tasks, in the exact text the retrieval fixture model
// (testdata/models/retrieval.gguf) was trained on.
//
// The texts below (needle, question, questionAll, passNeedle,
// passQuestion, filler, cons, vows) must match NEEDLE, QUESTION,
// QUESTION_ALL, PASS_NEEDLE, PASS_QUESTION, FILLER, CONS and VOWS of
// scripts/fixtures/retrieval/tasks.py byte for byte — the model answers
// only the questions it learnt — and TestTextsMatchTasksPy reads that file
// to check them. They keep Python's {key} and {value} fields verbatim.
// The generation (Generator.Cases) is a port of tasks.py's Gen.case,
// Gen.haystack, make_key, number, answer_text and eval_cases; the random
// draws are Go's own (math/rand/v2's PCG), so no case here is one the
// model saw in training.
//
// A context is built from pieces that each begin with a space, so that the
// tokens of the joined text are the concatenation of the pieces' tokens
// (the smollm pre-tokenizer never joins a leading space to what precedes
// it).
package kvtask

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The task texts, as in tasks.py.
const (
	needle       = " One of the special magic numbers for {key} is: {value}."
	question     = "\nWhat is the special magic number for {key}? The special magic number for {key} is:"
	questionAll  = "\nWhat are all the special magic numbers for {key}? The special magic numbers for {key} are:"
	passNeedle   = " The pass key is {value}. Remember it. {value} is the pass key."
	passQuestion = "\nWhat is the pass key? The pass key is:"
	cons         = "bdfgklmnprstvz"
	vows         = "aeiou"
)

var filler = []string{" The grass is green.", " The sky is blue.", " The sun is yellow.", " Here we go.",
	" There and back again."}

// format is Python's str.format for the texts' {key} and {value} fields.
func format(text, key, value string) string {
	return strings.NewReplacer("{key}", key, "{value}", value).Replace(text)
}

// Task names a task.
type Task string

// The tasks (tasks.py's TASKS).
const (
	Single     Task = "single"     // one needle among KJV verses
	MultiKey   Task = "multikey"   // three needles of three keys; one asked
	MultiValue Task = "multivalue" // one key with four numbers; all asked
	Passkey    Task = "passkey"    // a 5-digit key in repeated filler
)

// Tasks are every task.
func Tasks() []Task { return []Task{Single, MultiKey, MultiValue, Passkey} }

// ParseTasks reads "all" or a comma-separated list of task names (repeats
// dropped).
func ParseTasks(csv string) ([]Task, error) {
	if strings.TrimSpace(csv) == "all" {
		return Tasks(), nil
	}
	var out []Task
	for _, f := range strings.Split(csv, ",") {
		t := Task(strings.TrimSpace(f))
		if !slices.Contains(Tasks(), t) {
			return nil, fmt.Errorf("no task %q: want all, or a comma-separated list of single, multikey, multivalue and passkey", string(t))
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

// values are the strings Score looks for: c.Values, or else the answer
// trimmed of spaces and a final '.' (none when that leaves nothing).
func (c Case) values() []string {
	if len(c.Values) > 0 {
		return c.Values
	}
	a := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.Answer), "."))
	if a == "" {
		return nil
	}
	return []string{a}
}

// Score is RULER's string match: the share of the case's values found in
// reply, ignoring case (the answer, trimmed of spaces and a final '.',
// when it has no values). A case with nothing to find scores 0.
func (c Case) Score(reply string) float64 {
	vals := c.values()
	if len(vals) == 0 {
		return 0
	}
	reply = strings.ToLower(reply)
	hit := 0
	for _, v := range vals {
		if strings.Contains(reply, strings.ToLower(v)) {
			hit++
		}
	}
	return float64(hit) / float64(len(vals))
}

// Verses reads a haystack as tasks.py's load_verses does: one verse per
// line (lines end at "\n", "\r\n" or "\r", as Python's text files do),
// whitespace collapsed to single spaces, empty lines and lines with
// non-ASCII characters skipped, each verse returned as " "+verse.
func Verses(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the haystack: %w", err)
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	var out []string
	for line := range strings.FieldsFuncSeq(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.Join(strings.FieldsFunc(line, pySpace), " ")
		if line == "" || !ascii(line) {
			continue
		}
		out = append(out, " "+line)
	}
	if len(out) == 0 {
		return nil, errors.New("the haystack holds no verse: every line is empty or has non-ASCII characters")
	}
	return out, nil
}

// pySpace is Python's str.isspace, what str.split() splits at: Go's
// unicode.IsSpace and the separators U+001C–U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

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

// KeyPool is the keys (tasks.py's key_pool, less the haystack's words as
// Gen filters them): the made-up words a vocabulary holds as one token,
// " " + three consonant–vowel syllables, that are not words of the
// haystack — sorted.
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
	return slices.Compact(out)
}

// isKey reports whether w is three syllables of cons then vows.
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
// as tasks.py strips them (Gen.avoid).
func haystackWords(verses []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range verses {
		for _, w := range strings.FieldsFunc(v, pySpace) {
			out[strings.ToLower(strings.Trim(w, ".,;:?!()"))] = true
		}
	}
	return out
}

// Generator makes cases over a haystack of verses (Verses). Count returns
// the number of tokens of a piece of text (the caller passes its
// tokenizer's encoder). Keys, when set, is the pool the keys are drawn
// from (KeyPool: the keys the fixture model was trained on, one token
// each); when empty, each key is made up as tasks.py's make_key does.
// Either way a key is never a word of the haystack.
type Generator struct {
	Verses []string
	Keys   []string
	Count  func(string) int
}

// The eval's shapes (tasks.eval_cases's defaults of Gen.case).
const (
	nKeys   = 3 // multikey's keys
	nValues = 4 // multivalue's numbers
)

// gen is one run of Cases: the generator with its pieces counted.
type gen struct {
	verses, keys []string
	avoid        map[string]bool
	count        func(string) int
	vids, fids   []int // the tokens of each verse and filler piece
}

// Cases returns n cases per task and context length, deterministic for
// seed, each with one question (tasks.py's eval_cases): multikey has three
// keys, multivalue four numbers. Each task and length draws from its own
// stream, seeded from seed, the task's name and the length (as eval_cases
// seeds "seed/task/L"), so a case does not depend on what else is asked.
func (g *Generator) Cases(seed uint64, tasks []Task, lengths []int, n int) ([]Case, error) {
	if g.Count == nil {
		return nil, errors.New("the case generator has no token counter")
	}
	kjv := false
	for _, t := range tasks {
		if !slices.Contains(Tasks(), t) {
			return nil, fmt.Errorf("no task %q: want single, multikey, multivalue or passkey", string(t))
		}
		kjv = kjv || t != Passkey
	}
	s := &gen{verses: g.Verses, avoid: haystackWords(g.Verses), count: g.Count}
	for _, k := range g.Keys {
		if !s.avoid[k] && !slices.Contains(s.keys, k) {
			s.keys = append(s.keys, k)
		}
	}
	if kjv {
		if len(g.Verses) == 0 {
			return nil, errors.New("the case generator has no verses for its haystack")
		}
		need := 1
		if slices.Contains(tasks, MultiKey) {
			need = nKeys
		}
		if len(g.Keys) > 0 && len(s.keys) < need {
			return nil, fmt.Errorf("only %d of the key pool's words are not haystack words; the tasks need %d (is this the retrieval fixture's tokenizer?)", len(s.keys), need)
		}
		s.vids = counts(g.Count, g.Verses)
		if sum(s.vids) <= 0 {
			return nil, errors.New("the token counter gives no token for the whole haystack")
		}
	}
	s.fids = counts(g.Count, filler)
	if sum(s.fids) <= 0 {
		return nil, errors.New("the token counter gives no token for the pass-key filler")
	}
	var out []Case
	for _, t := range tasks {
		for _, L := range lengths {
			h := fnv.New64a()
			fmt.Fprintf(h, "%s/%d", t, L)
			r := rand.New(rand.NewPCG(seed, h.Sum64()))
			for range n {
				c := s.one(r, t, L)
				c.NCtx = L
				out = append(out, c)
			}
		}
	}
	return out, nil
}

func counts(count func(string) int, pieces []string) []int {
	out := make([]int, len(pieces))
	for i, p := range pieces {
		out[i] = count(p)
	}
	return out
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += max(x, 0)
	}
	return s
}

// makeKey is tasks.py's make_key: three syllables, a consonant then a
// vowel each, that are not a word of the haystack.
func makeKey(r *rand.Rand, avoid map[string]bool) string {
	for {
		b := make([]byte, 0, 6)
		for range 3 {
			b = append(b, cons[r.IntN(len(cons))], vows[r.IntN(len(vows))])
		}
		if k := string(b); !avoid[k] {
			return k
		}
	}
}

// key draws a key: from the pool (r.choice(self.keys)), or made up.
func (s *gen) key(r *rand.Rand) string {
	if len(s.keys) == 0 {
		return makeKey(r, s.avoid)
	}
	return s.keys[r.IntN(len(s.keys))]
}

// number is tasks.py's number: a uniform number of the given digits.
func number(r *rand.Rand, digits int) string {
	lo := 1
	for range digits - 1 {
		lo *= 10
	}
	return strconv.Itoa(lo + r.IntN(9*lo))
}

// answerText is tasks.py's answer_text: " v1, v2.".
func answerText(values []string) string {
	return " " + strings.Join(values, ", ") + "."
}

// one is tasks.py's Gen.case, keeping its first question.
func (s *gen) one(r *rand.Rand, t Task, nCtx int) Case {
	var needles []string
	type qa struct {
		q    string
		vals []string
	}
	var qs []qa
	switch t {
	case Passkey:
		v := number(r, 5)
		needles = append(needles, format(passNeedle, "", v))
		qs = append(qs, qa{passQuestion, []string{v}})
	case MultiValue:
		k := s.key(r)
		var vals []string
		for len(vals) < nValues {
			if v := number(r, 7); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		for _, v := range vals {
			needles = append(needles, format(needle, k, v))
		}
		qs = append(qs, qa{format(questionAll, k, ""), vals})
	default: // single, multikey
		nk := 1
		if t == MultiKey {
			nk = nKeys
		}
		var keys []string
		for len(keys) < nk {
			if k := s.key(r); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		vals := make([]string, len(keys))
		for i := range keys {
			vals[i] = number(r, 7)
		}
		for i, k := range keys {
			needles = append(needles, format(needle, k, vals[i]))
		}
		order := make([]int, nk)
		for i := range order {
			order[i] = i
		}
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, j := range order {
			qs = append(qs, qa{format(question, keys[j], ""), []string{vals[j]}})
		}
	}
	budget := nCtx
	for _, n := range needles {
		budget -= s.count(n)
	}
	pieces := s.haystack(r, max(16, budget), t == Passkey)
	// Needles go at random piece boundaries, in order (multivalue's values
	// appear in the order the answer lists them).
	slots := make([]int, len(needles))
	for i := range slots {
		slots[i] = r.IntN(len(pieces) + 1)
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
	q := qs[0] // the eval keeps the first question
	return Case{Task: t, Context: b.String(), Question: q.q, Answer: answerText(q.vals), Values: q.vals}
}

// haystack is tasks.py's Gen.haystack: consecutive pieces whose tokens
// fill n tokens (about) — the filler from its first piece, or the verses
// from a random one, wrapping around.
func (s *gen) haystack(r *rand.Rand, n int, passkey bool) []string {
	src, ids, i := filler, s.fids, 0
	if !passkey {
		src, ids, i = s.verses, s.vids, r.IntN(len(s.verses))
	}
	var pieces []string
	for got := 0; got < n; i++ {
		pieces = append(pieces, src[i%len(src)])
		got += ids[i%len(src)]
	}
	return pieces
}

// ReadCases reads a JSON array of cases — the `--cases FILE` input:
// context, question and answer are required; task, n_ctx and values are
// optional. Bad input gets one sentence naming the case and what is wrong.
func ReadCases(r io.Reader) ([]Case, error) {
	var cs []Case
	dec := json.NewDecoder(r)
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("the cases are not a JSON array of {\"context\", \"question\", \"answer\"} objects: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the cases file has more after its JSON array")
	}
	if len(cs) == 0 {
		return nil, errors.New("the cases file holds no case")
	}
	for i, c := range cs {
		switch {
		case strings.TrimSpace(c.Context) == "":
			return nil, fmt.Errorf("case %d has an empty context", i)
		case strings.TrimSpace(c.Question) == "":
			return nil, fmt.Errorf("case %d has an empty question", i)
		case strings.TrimSpace(c.Answer) == "" || len(c.values()) == 0:
			return nil, fmt.Errorf("case %d has an empty answer", i)
		case c.NCtx < 0:
			return nil, fmt.Errorf("case %d has a negative n_ctx %d", i, c.NCtx)
		}
		for j, v := range c.Values {
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("case %d: value %d is empty", i, j)
			}
		}
	}
	return cs, nil
}
