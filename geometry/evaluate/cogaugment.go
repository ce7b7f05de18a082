package evaluate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/ugt"
)

// AugmentItem is one near question of the AUGMENT measurement
// (COGAugment): a question about one fact, the fact word a correct
// reply contains, another wording of the same question asked before it
// (whose reply memory stores), and another entity's answer of the same
// relation for the control. testdata/cog-augment.jsonl holds the chat
// fixture's: its 40 held-out world questions (scripts/fixtures/chat
// heldout/benign.jsonl, task "world"), each with the first training
// wording of its relation as the paraphrase.
type AugmentItem struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Relation ("town", "job", …) and Entity (the person or town asked
	// about) describe the fact.
	Relation string `json:"relation"`
	Entity   string `json:"entity"`
	// Paraphrase asks for the same fact in other words.
	Paraphrase string `json:"paraphrase"`
	// Other is another entity's answer of the same relation, with another
	// fact word, OtherAnswer.
	Other       string `json:"other"`
	OtherAnswer string `json:"other_answer"`
}

// maxAugmentItems bounds an AUGMENT set (ReadAugmentItems).
const maxAugmentItems = 10000

// ReadAugmentItems reads an AUGMENT set: one AugmentItem per line of JSON
// (blank lines skipped; unknown fields refused so a misspelt one is not
// silently empty). Every field but Relation and Entity is required, and
// the fact words must differ.
func ReadAugmentItems(r io.Reader) ([]AugmentItem, error) {
	var items []AugmentItem
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		var it AugmentItem
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("geometry: augment set, line %d: %w", line, err)
		}
		switch {
		case it.Question == "" || it.Answer == "" || it.Paraphrase == "" || it.Other == "" || it.OtherAnswer == "":
			return nil, fmt.Errorf("geometry: augment set, line %d: question, answer, paraphrase, other and other_answer are required", line)
		case strings.EqualFold(it.Answer, it.OtherAnswer):
			return nil, fmt.Errorf("geometry: augment set, line %d: the other answer %q is the answer itself", line, it.OtherAnswer)
		case len(items) == maxAugmentItems:
			return nil, fmt.Errorf("geometry: augment set: more than %d items", maxAugmentItems)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("geometry: augment set: %w", err)
	}
	if len(items) == 0 {
		return nil, errors.New("geometry: augment set: no items")
	}
	return items, nil
}

// AugmentOptions parameterise COGAugment.
type AugmentOptions struct {
	// Prompt renders message as the first turn of a new conversation
	// with shown as the AUGMENT tier's earlier answer ("" for none): the
	// very tokens a session feeds for that turn
	// (session.Memory.AugmentedPrompt). Required.
	Prompt func(message, shown string) ([]int32, error)
	// MaxTokens is how many reply tokens are decoded greedily; 0 means
	// 24, enough for any of the fixture's one-sentence answers.
	MaxTokens int
}

// AugmentScore is one condition's accuracy: replies that contain the fact
// word, of N.
type AugmentScore struct {
	Correct  int     `json:"correct"`
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
}

func (s *AugmentScore) add(ok bool) {
	s.N++
	s.Correct += b2i(ok)
	s.Accuracy = ratio(s.Correct, s.N, 0)
}

// AugmentCase is one item's replies and what the memory made of it.
type AugmentCase struct {
	Question   string `json:"question"`
	Answer     string `json:"answer"`
	Paraphrase string `json:"paraphrase"`
	// Stored is the reply to the paraphrase: what memory keeps and AUGMENT
	// shows; StoredOK says whether it holds the fact.
	Stored   string `json:"stored"`
	StoredOK bool   `json:"stored_ok"`
	// Tier is the near question's tier against the stored paraphrase
	// alone, Distance its metric distance and Plain its plain distance
	// (the gate's); Decision is the gate's reason (never "served": they
	// are different requests); Shown says whether the session shows the
	// stored answer (RETRIEVE- or AUGMENT-close).
	Tier     string  `json:"tier"`
	Distance float64 `json:"distance"`
	Plain    float64 `json:"plain"`
	Decision string  `json:"decision"`
	Shown    bool    `json:"shown"`
	// The replies: memory off; memory on (the stored answer itself when
	// the gate serves it, the reply with it shown when Shown, else the
	// same as off); the stored answer shown whatever the tier; another
	// entity's answer shown (the control).
	Off    string `json:"off"`
	Memory string `json:"memory"`
	Forced string `json:"forced"`
	Wrong  string `json:"wrong"`
	// OK flags: each reply holds the fact word; Copied, the control's
	// reply holds the other entity's word instead.
	OffOK    bool `json:"off_ok"`
	MemoryOK bool `json:"memory_ok"`
	ForcedOK bool `json:"forced_ok"`
	WrongOK  bool `json:"wrong_ok"`
	Copied   bool `json:"copied"`
	// Shared is the same question looked up in a manifold holding every
	// item's paraphrase (as a session that asked them all would): its
	// tier, whether an answer is shown and whether it is this fact's, and
	// the memory-on reply's correctness there.
	SharedTier     string `json:"shared_tier"`
	SharedShown    bool   `json:"shared_shown"`
	SharedSameFact bool   `json:"shared_same_fact"`
	SharedOK       bool   `json:"shared_ok"`
}

// AugmentReport is `isagi eval cog --augment`: whether the AUGMENT tier
// answers near questions better (docs/geometry.md, "The AUGMENT tier").
type AugmentReport struct {
	Items int     `json:"items"`
	Tau   float64 `json:"tau"`
	// Tiers counts the near questions by their tier against the stored
	// paraphrase; Shown how many the session would show it for.
	Tiers map[string]int `json:"tiers"`
	Shown int            `json:"shown"`
	// The metric distance of the near questions to their paraphrases:
	// smallest, median and largest.
	DistanceMin    float64 `json:"distance_min"`
	DistanceMedian float64 `json:"distance_median"`
	DistanceMax    float64 `json:"distance_max"`
	// Stored: the paraphrases' own replies.
	Stored AugmentScore `json:"stored"`
	// Off: memory off; Memory: memory on, the session's behaviour;
	// Forced: the stored answer shown on every near question; Wrong:
	// another entity's answer shown (Copied: replies that took its word).
	Off    AugmentScore `json:"off"`
	Memory AugmentScore `json:"memory"`
	Forced AugmentScore `json:"forced"`
	Wrong  AugmentScore `json:"wrong_shown"`
	Copied int          `json:"copied"`
	// OffWhereShown and MemoryWhereShown are the two on the questions the
	// stored answer was shown for (the pairs where memory changed
	// anything). Helped and Hurt compare Forced with Off question by
	// question: wrong became right, right became wrong.
	OffWhereShown    AugmentScore `json:"off_where_shown"`
	MemoryWhereShown AugmentScore `json:"memory_where_shown"`
	Helped           int          `json:"helped"`
	Hurt             int          `json:"hurt"`
	// Shared: memory on with every paraphrase stored in one manifold;
	// SharedShown answers shown, SharedSameFact of them this fact's.
	Shared         AugmentScore  `json:"shared"`
	SharedShown    int           `json:"shared_shown"`
	SharedSameFact int           `json:"shared_same_fact"`
	Cases          []AugmentCase `json:"cases"`
}

// augmentKey is the one live state of the measurement.
const augmentKey = "augment"

// COGAugment measures the AUGMENT tier on near questions: for each
// item, the paraphrase is asked first in a new conversation and its reply
// stored in a fresh manifold as a session would store it, then the near
// question is asked at the start of another conversation, with memory off
// and with memory on — the stored reply shown to the model when the
// question's tier is AUGMENT (or RETRIEVE-close and not served), exactly
// as Session.Send shows it. A reply is correct when it contains the fact
// word (whole word, any case). It also decodes the question with the
// stored reply shown whatever the tier, and with another entity's answer
// shown, and looks every question up once more in one manifold holding
// all the paraphrases. Replies are greedy, so the report is a function of
// the model, the profile and the items.
func COGAugment(ctx context.Context, src geometry.Source, p *geometry.Profile, items []AugmentItem, o AugmentOptions, progress geometry.Progress) (*AugmentReport, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if o.Prompt == nil {
		return nil, errors.New("geometry: eval cog --augment: no prompt renderer")
	}
	if src.Decode == nil {
		return nil, errors.New("geometry: eval cog --augment: the source cannot decode replies")
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = 24
	}
	if o.MaxTokens < 1 {
		return nil, fmt.Errorf("geometry: eval cog --augment: %d reply tokens", o.MaxTokens)
	}
	if len(items) == 0 {
		return nil, errors.New("geometry: eval cog --augment: no items")
	}
	r, err := geometry.NewReader(src)
	if err != nil {
		return nil, err
	}
	// Embeddings as the session's Embedder reads queries.
	texts := make([]string, 0, 2*len(items))
	for _, it := range items {
		texts = append(texts, it.Paraphrase, it.Question)
	}
	done := 0
	H, _, err := r.States(ctx, texts, p.Layer, func() {
		done++
		progress("embedding", done, len(texts))
	})
	if err != nil {
		return nil, err
	}
	basis := &ugt.Basis{D: p.D, K: p.K, Mu: p.Mu, B: p.B}
	emb := make([][]float64, len(texts))
	for i := range texts {
		if emb[i], err = basis.Coords(H.RawRowView(i), nil); err != nil {
			return nil, fmt.Errorf("geometry: eval cog --augment: %w", err)
		}
	}
	gate := p.MemoryGate()
	opened := cog.Context{ID: "augment:opened", Portable: true}
	now := time.Unix(0, 0).UTC()
	answer := func(message, shown string) (string, error) {
		ids, err := o.Prompt(message, shown)
		if err != nil {
			return "", fmt.Errorf("geometry: eval cog --augment: %q: %w", message, err)
		}
		return r.ReplyIDs(ctx, ids, o.MaxTokens)
	}
	store := func(m *cog.Manifold, q []float64, prompt, answer string) error {
		match, err := m.Query(q)
		if err != nil {
			return err
		}
		_, err = m.RecordIn(q, prompt, answer, augmentKey, opened, match.Tier, now)
		return err
	}
	shared, err := cog.New(cog.Config{Dim: p.K})
	if err != nil {
		return nil, err
	}
	rep := &AugmentReport{Items: len(items), Tau: gate.Tau, Tiers: map[string]int{}}
	dists := make([]float64, 0, len(items))
	for i, it := range items {
		progress("near questions", i, len(items))
		c := AugmentCase{Question: it.Question, Answer: it.Answer, Paraphrase: it.Paraphrase}
		if c.Stored, err = answer(it.Paraphrase, ""); err != nil {
			return nil, err
		}
		c.StoredOK = holds(c.Stored, it.Answer)
		m, err := cog.New(cog.Config{Dim: p.K})
		if err != nil {
			return nil, err
		}
		qp, qq := emb[2*i], emb[2*i+1]
		if err := store(m, qp, it.Paraphrase, c.Stored); err != nil {
			return nil, err
		}
		if err := store(shared, qp, it.Paraphrase, c.Stored); err != nil {
			return nil, err
		}
		l, err := m.FindIn(qq, it.Question, opened.ID, nil)
		if err != nil {
			return nil, err
		}
		dec := gate.Decide(qq, l)
		c.Tier, c.Distance, c.Plain, c.Decision = l.Nearest.Tier.String(), l.Nearest.Distance, cog.PlainDistance(qq, qp), dec.Reason.String()
		c.Shown = !dec.Serve && shows(l)
		if c.Off, err = answer(it.Question, ""); err != nil {
			return nil, err
		}
		if c.Forced, err = answer(it.Question, c.Stored); err != nil {
			return nil, err
		}
		if c.Wrong, err = answer(it.Question, it.Other); err != nil {
			return nil, err
		}
		switch {
		case dec.Serve: // the same request: memory answers with it
			c.Memory = c.Stored
		case c.Shown:
			c.Memory = c.Forced
		default:
			c.Memory = c.Off
		}
		c.OffOK, c.MemoryOK, c.ForcedOK = holds(c.Off, it.Answer), holds(c.Memory, it.Answer), holds(c.Forced, it.Answer)
		c.WrongOK, c.Copied = holds(c.Wrong, it.Answer), holds(c.Wrong, it.OtherAnswer)

		rep.Tiers[c.Tier]++
		rep.Shown += b2i(c.Shown)
		dists = append(dists, c.Distance)
		rep.Stored.add(c.StoredOK)
		rep.Off.add(c.OffOK)
		rep.Memory.add(c.MemoryOK)
		rep.Forced.add(c.ForcedOK)
		rep.Wrong.add(c.WrongOK)
		rep.Copied += b2i(c.Copied)
		rep.Helped += b2i(!c.OffOK && c.ForcedOK)
		rep.Hurt += b2i(c.OffOK && !c.ForcedOK)
		if c.Shown {
			rep.OffWhereShown.add(c.OffOK)
			rep.MemoryWhereShown.add(c.MemoryOK)
		}
		rep.Cases = append(rep.Cases, c)
	}
	// The shared manifold, once it holds every paraphrase.
	for i, it := range items {
		progress("shared memory", i, len(items))
		c := &rep.Cases[i]
		qq := emb[2*i+1]
		l, err := shared.FindIn(qq, it.Question, opened.ID, nil)
		if err != nil {
			return nil, err
		}
		dec := gate.Decide(qq, l)
		c.SharedTier = l.Nearest.Tier.String()
		c.SharedShown = !dec.Serve && shows(l)
		got := c.Off
		if dec.Serve {
			got = dec.Candidate.Trajectory.Answer
		}
		if c.SharedShown {
			c.SharedSameFact = l.Near.Trajectory.Prompt == it.Paraphrase
			switch {
			case l.Near.Trajectory.Answer == c.Stored:
				got = c.Forced // the same prompt: the same greedy reply
			default:
				if got, err = answer(it.Question, l.Near.Trajectory.Answer); err != nil {
					return nil, err
				}
			}
		}
		c.SharedOK = holds(got, it.Answer)
		rep.Shared.add(c.SharedOK)
		rep.SharedShown += b2i(c.SharedShown)
		rep.SharedSameFact += b2i(c.SharedSameFact)
	}
	progress("shared memory", len(items), len(items))
	slices.Sort(dists)
	rep.DistanceMin, rep.DistanceMedian, rep.DistanceMax = dists[0], median(dists), dists[len(dists)-1]
	return rep, nil
}

// shows reports whether a session shows the lookup's Near answer to the
// model: the session's rule (memTurn.augmentWith) for a turn not served.
func shows(l cog.Lookup) bool { return l.Near.Found && l.Near.Tier <= cog.Augment }

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// holds reports whether reply contains word as a whole word, in any case.
func holds(reply, word string) bool {
	re, err := regexp.Compile(`(?i)(^|[^\pL\pN])` + regexp.QuoteMeta(word) + `($|[^\pL\pN])`)
	return err == nil && re.MatchString(reply)
}
