package evaluate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/internal/testkit/quickprofile"
	"github.com/isagi-lab/isagi/session"
)

// A set line as testdata/cog-augment.jsonl writes it.
const augmentLine = `{"question": "Tell me which animal Eskel keeps.", "answer": "cat", "relation": "pet", "entity": "Eskel", "paraphrase": "What pet does Eskel have?", "other": "Arlo has a goat.", "other_answer": "goat"}`

// ReadAugmentItems reads the set's JSON lines and refuses what would
// measure nothing or something else.
func TestReadAugmentItems(t *testing.T) {
	items, err := evaluate.ReadAugmentItems(strings.NewReader(augmentLine + "\n\n" + augmentLine + "\n"))
	if err != nil || len(items) != 2 || items[1].Paraphrase != "What pet does Eskel have?" || items[0].OtherAnswer != "goat" {
		t.Fatalf("%+v, %v", items, err)
	}
	for name, in := range map[string]string{
		"empty":            "\n",
		"not JSON":         "{",
		"unknown field":    `{"question": "q", "answer": "a", "paraphrase": "p", "other": "o", "other_answer": "b", "answr": "x"}`,
		"no paraphrase":    `{"question": "q", "answer": "a", "other": "o", "other_answer": "b"}`,
		"other is answer":  `{"question": "q", "answer": "Cat", "paraphrase": "p", "other": "o", "other_answer": "cat"}`,
		"second line is 1": augmentLine + "\n" + `{"question": 1}`,
	} {
		if _, err := evaluate.ReadAugmentItems(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// COGAugment on a chat model end to end (the random ChatML
// fixture: the replies mean nothing, the bookkeeping must hold): every
// condition is scored on every item, memory on answers as memory off
// wherever nothing is shown and as the stored reply shown where it is,
// and the prompts are the session's own AUGMENT prompts.
func TestCOGAugment(t *testing.T) {
	path := fixtures.Rebuilt(t, "archs/qwen2.gguf", t.TempDir(), "qwen2-chat.gguf", fixtures.Change{ChatTemplate: fixtures.ChatML})
	s, err := session.Open(path, session.Options{Threads: 2, Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := quickprofile.Calibrate(t, s.Geometry().CalibrationSource())
	items, err := evaluate.ReadAugmentItems(strings.NewReader(augmentLine + "\n" +
		`{"question": "In which town does Arlo live?", "answer": "Tolvo", "paraphrase": "Where does Arlo live?", "other": "Bexa lives in Brask.", "other_answer": "Brask"}` + "\n" +
		`{"question": "In which town does Arlo live?", "answer": "Tolvo", "paraphrase": "In which town does Arlo live?", "other": "Bexa lives in Brask.", "other_answer": "Brask"}`))
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	o := evaluate.AugmentOptions{MaxTokens: 4, Prompt: func(message, shown string) ([]int32, error) {
		prompts = append(prompts, message+"|"+shown)
		return s.Memory().AugmentedPrompt(message, shown)
	}}
	rep, err := evaluate.COGAugment(context.Background(), s.Geometry().CalibrationSource(), p, items, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 3 || len(rep.Cases) != 3 || rep.Off.N != 3 || rep.Memory.N != 3 || rep.Forced.N != 3 || rep.Wrong.N != 3 || rep.Shared.N != 3 || rep.Stored.N != 3 {
		t.Fatalf("report %+v", rep)
	}
	tiers := 0
	for _, n := range rep.Tiers {
		tiers += n
	}
	if tiers != 3 || rep.Shown > 3 || rep.OffWhereShown.N != rep.Shown || rep.DistanceMin > rep.DistanceMedian || rep.DistanceMedian > rep.DistanceMax {
		t.Fatalf("tiers %v, shown %d, distances %v %v %v", rep.Tiers, rep.Shown, rep.DistanceMin, rep.DistanceMedian, rep.DistanceMax)
	}
	for i, c := range rep.Cases {
		want := c.Off
		switch {
		case c.Decision == "served":
			want = c.Stored
		case c.Shown:
			want = c.Forced
		}
		if c.Memory != want {
			t.Errorf("case %d: memory on answered %q, want %q (shown %v)", i, c.Memory, want, c.Shown)
		}
	}
	// The third item asks its own paraphrase again, word for word: the
	// memory serves it, and AUGMENT shows nothing.
	if c := rep.Cases[2]; c.Decision != "served" || c.Shown || c.Tier != "retrieve" {
		t.Errorf("a word-for-word question: %+v", c)
	}
	// The earlier answer and the control's reach the model.
	if !strings.Contains(strings.Join(prompts, "\n"), "Tell me which animal Eskel keeps.|Arlo has a goat.") {
		t.Errorf("the control's prompt was never rendered: %q", prompts)
	}
	ids, err := s.Memory().AugmentedPrompt("Where does Arlo live?", "Arlo lives in Tolvo.")
	if err != nil {
		t.Fatal(err)
	}
	if text := s.Geometry().CalibrationSource().Decode(ids); !strings.Contains(text, "An earlier answer to a similar question, for reference:\nArlo lives in Tolvo.\n\nWhere does Arlo live?") {
		t.Errorf("the AUGMENT prompt is not the session's:\n%s", text)
	}
}
