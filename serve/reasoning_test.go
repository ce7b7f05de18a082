package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/session"
)

// replay answers a request from a scripted turn instead of the model: the
// events a session's Send would stream, then the turn. It returns the
// response body.
func replay(t *testing.T, srv *Server, p *plan, input string, events []session.Event) string {
	t.Helper()
	rec := httptest.NewRecorder()
	o := &output{s: srv, conv: srv.root, p: p, input: input, offset: len(input), w: rec, cancel: func() {}, stop: newStopper(p.stops)}
	if p.logprobs {
		o.lp = newLogprobs(p.top, srv.root.Probe().TokenBytes)
	}
	o.begin()
	for _, ev := range events {
		if o.lp != nil && ev.ID >= 0 {
			logits := make([]float32, 256)
			logits[ev.ID] = 2
			o.lp.Logits(ev.Pos, logits)
		}
		o.event(ev)
	}
	o.answer(context.Background(), session.Turn{Stop: "stop token"}, nil)
	return rec.Body.String()
}

// harmonyEvents is a gpt-oss reply as the session streams it: the
// markers and headers hidden, the analysis channel in Thinking, the
// answer in Piece. Answer tokens are ids whose text is their piece, so
// that logprob tokens can be checked against the content.
func harmonyEvents(tb func(int32) []byte) []session.Event {
	return []session.Event{
		{ID: 10, Pos: 0, Hidden: true}, // <|channel|>
		{ID: 11, Pos: 1, Hidden: true}, // analysis
		{ID: 12, Pos: 2, Hidden: true}, // <|message|>
		{ID: 13, Pos: 3, Hidden: true, Thinking: "Two and"},
		{ID: 14, Pos: 4, Hidden: true, Thinking: " two"},
		{ID: 15, Pos: 5, Hidden: true}, // <|end|>, the final header, <|message|>
		{ID: 66, Pos: 6, Piece: string(tb(66))},
		{ID: 70, Pos: 7, Piece: string(tb(70))},
		{ID: 20, Pos: 8, End: true}, // <|return|>
	}
}

// TestReasoningContent: a harmony model's chain of thought is answered as
// reasoning_content, streamed and whole; the content is the answer alone,
// and the logprobs list the answer's tokens only.
func TestReasoningContent(t *testing.T) {
	srv, _ := start(t, chatSession(t), Config{})
	tb := srv.root.Probe().TokenBytes
	answer := string(tb(66)) + string(tb(70))
	evs := harmonyEvents(tb)

	var whole map[string]any
	if err := json.Unmarshal([]byte(replay(t, srv, &plan{chat: true, logprobs: true}, "", evs)), &whole); err != nil {
		t.Fatal(err)
	}
	msg := path(whole, "choices", 0, "message").(map[string]any)
	if msg["content"] != answer || msg["reasoning_content"] != "Two and two" {
		t.Errorf("message %v, want content %q and reasoning_content %q", msg, answer, "Two and two")
	}
	var joined strings.Builder
	for _, e := range path(whole, "choices", 0, "logprobs", "content").([]any) {
		joined.WriteString(e.(map[string]any)["token"].(string))
	}
	if joined.String() != answer {
		t.Errorf("logprob tokens %q, content %q", joined.String(), answer)
	}

	var content, reasoning strings.Builder
	entries := 0
	sc := bufio.NewScanner(strings.NewReader(replay(t, srv, &plan{chat: true, stream: true, logprobs: true}, "", evs)))
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatal(err)
		}
		delta, _ := path(c, "choices", 0, "delta").(map[string]any)
		if s, ok := delta["content"].(string); ok {
			content.WriteString(s)
		}
		if s, ok := delta["reasoning_content"].(string); ok {
			if delta["content"] != nil {
				t.Errorf("chunk %s: an empty content beside the reasoning", d)
			}
			reasoning.WriteString(s)
		}
		if lp, ok := path(c, "choices", 0, "logprobs", "content").([]any); ok {
			entries += len(lp)
		}
	}
	if content.String() != answer || reasoning.String() != "Two and two" || entries != 2 {
		t.Errorf("streamed content %q, reasoning %q, %d logprob entries; want %q, %q, 2", content.String(), reasoning.String(), entries, answer, "Two and two")
	}

	// A model without a harmony template streams no reasoning.
	var plain map[string]any
	if err := json.Unmarshal([]byte(replay(t, srv, &plan{chat: true}, "", evs[6:])), &plain); err != nil {
		t.Fatal(err)
	}
	if m := path(plain, "choices", 0, "message").(map[string]any); m["content"] != answer || m["reasoning_content"] != nil {
		t.Errorf("plain reply %v", m)
	}
}

// TestHiddenTokensMoveNoOffset: a completion's text_offset counts only
// the text answered; a control token the decoder drops has no entry and
// moves no offset.
func TestHiddenTokensMoveNoOffset(t *testing.T) {
	srv, _ := start(t, chatSession(t), Config{})
	tb := srv.root.Probe().TokenBytes
	const prompt = "abc"
	evs := []session.Event{
		{ID: 66, Pos: 0, Piece: string(tb(66))},
		{ID: 12, Pos: 1, Hidden: true},
		{ID: 70, Pos: 2, Piece: string(tb(70))},
		{ID: 71, Pos: 3, Piece: string(tb(71))},
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(replay(t, srv, &plan{logprobs: true}, prompt, evs)), &out); err != nil {
		t.Fatal(err)
	}
	var offs []int
	for _, o := range path(out, "choices", 0, "logprobs", "text_offset").([]any) {
		offs = append(offs, int(o.(float64)))
	}
	a, b := len(tb(66)), len(tb(70))
	want := []int{len(prompt), len(prompt) + a, len(prompt) + a + b}
	if len(offs) != len(want) || offs[0] != want[0] || offs[1] != want[1] || offs[2] != want[2] {
		t.Errorf("text_offset %v, want %v", offs, want)
	}
	if n := path(out, "usage", "completion_tokens"); n != float64(4) {
		t.Errorf("completion_tokens %v, want 4 (a hidden token is still generated)", n)
	}
}
