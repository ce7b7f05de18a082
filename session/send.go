package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// ErrTooLong is returned when one message cannot fit the context window
// even with every earlier turn dropped.
var ErrTooLong = errors.New("message does not fit the context window")

// Send adds input to the conversation — a user message in chat mode, text
// to continue in completion mode — and streams the reply: emit gets every
// decoded piece with running statistics. Only the tokens that differ from
// what the KV cache already holds are computed. When the conversation no
// longer fits, the oldest turns are dropped first (Turn.Dropped says how
// many). Cancelling ctx ends the reply early; what was generated is kept.
//
// With a geometry profile attached, the living manifold (docs/mechanisms.md §9)
// looks the message up first: a near-duplicate of an earlier one
// (RETRIEVE) is answered from memory at once (Turn.Stop "retrieved";
// Regenerate forces a fresh answer), a close one (AUGMENT) is generated
// with the earlier answer in the context, and the rest (EXPAND, EXPLORE)
// are generated and bend the manifold's metric. Turn.COG says which.
func (s *Session) Send(ctx context.Context, input string, emit func(Event)) (Turn, error) {
	return s.send(ctx, input, sendNormal, emit)
}

// sendMode says how a turn uses the living manifold.
type sendMode int

const (
	sendNormal   sendMode = iota
	sendForce             // generate even when the manifold would retrieve
	sendNoMemory          // neither look up nor record (exploration chains)
)

func (s *Session) send(ctx context.Context, input string, mode sendMode, emit func(Event)) (Turn, error) {
	start := time.Now()
	s.lastInput, s.lastServed = input, nil
	force := mode == sendForce
	var (
		q     []float64
		match cog.Match
		cogOn bool
		err   error
	)
	if mode != sendNoMemory {
		if q, match, cogOn, err = s.cogQuery(ctx, input); err != nil {
			return Turn{}, err
		}
	}
	tier := match.Tier
	if cogOn && tier == cog.Retrieve && !force {
		return s.serveRetrieved(input, match, start, emit)
	}
	augment := ""
	if cogOn && tier == cog.Augment && s.tmpl != nil {
		augment = match.Trajectory.Answer
	}
	if cogOn && s.explore != nil && s.ogdDir == nil {
		// The manifold's top eigenvector moves as it grows: aim the step
		// at where it points now.
		if err := s.useOGD(s.set.OGDAlpha); err != nil {
			return Turn{}, err
		}
	}
	reserve := min(s.set.MaxTokens, s.st.Cap()/2)
	var (
		ids              []int32
		dropped, trimmed int
	)
	if s.tmpl == nil {
		ids, trimmed, err = s.completionPrompt(input, reserve)
	} else {
		ids, dropped, err = s.chatPrompt(input, augment, reserve)
	}
	if err != nil {
		return Turn{}, err
	}

	// Reuse the cached prefix: rewind to where the new prompt departs from
	// what the model has seen, then feed only the rest.
	hist := s.gen.History()
	common := 0
	for common < len(hist) && common < len(ids) && hist[common] == ids[common] {
		common++
	}
	if common == len(ids) { // the prompt is entirely cached: recompute its last token for fresh logits
		common--
	}
	s.gen.Truncate(common)
	feed := ids[common:]

	dec := s.tok.NewDecoder(tokenizer.DecodeOptions{Continuation: s.tmpl == nil})
	var reply strings.Builder
	n := 0
	var decodeStart time.Time
	if s.geo != nil {
		s.geo.BeginTurn()
	}
	stats, err := s.gen.Generate(ctx, feed, generate.Options{MaxTokens: s.set.MaxTokens, Stop: s.stops}, func(id int32) error {
		n++
		if n == 1 {
			decodeStart = time.Now()
		}
		piece := ""
		if !isStop(id, s.stops) {
			piece = string(dec.Write(id))
		}
		reply.WriteString(piece)
		ev := Event{Piece: piece, Tokens: n, Elapsed: time.Since(start)}
		if n > 1 {
			ev.TokPerSec = float64(n-1) / time.Since(decodeStart).Seconds()
		}
		if s.geo != nil {
			ev.Gauge, ev.Gauged = s.geo.Last(), true
			if n == 1 {
				s.geo.BeginReply()
			}
		}
		emit(ev)
		return nil
	})
	if tail := string(dec.Flush()); tail != "" {
		reply.WriteString(tail)
		emit(Event{Piece: tail, Tokens: n, Elapsed: time.Since(start)})
	}
	turn := Turn{
		Text: reply.String(), Tokens: stats.Generated, PromptTok: len(feed),
		TimeToFirst: stats.TimeToFirst, PrefillTokS: stats.PrefillTokPerSec(), DecodeTokS: stats.DecodeTokPerSec(),
		Stop: stats.Reason.String(), Dropped: dropped, Trimmed: trimmed,
	}
	if s.geo != nil {
		sum := s.geo.Summary()
		turn.Geometry = &sum
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		err = nil
	case errors.Is(err, model.ErrContextFull):
		err = nil // the reply ran to the end of the window; the next turn drops old ones
	}
	// A reply may hold bytes that are not UTF-8 (a model can emit a lone
	// byte token); the conversation keeps valid text, so that a saved
	// session reads back and saves again byte for byte.
	kept := strings.ToValidUTF8(turn.Text, "\uFFFD")
	if s.tmpl == nil {
		s.text += kept
		if kept != "" {
			s.parts = append(s.parts, chat.Message{Role: RoleContinuation, Content: kept})
		}
	} else {
		s.msgs = append(s.msgs, chat.Message{Role: "assistant", Content: strings.TrimSpace(kept)})
	}
	turn.ContextUsed, _ = s.ContextUsed()
	// A reply cut short by the user is not an answer to serve again.
	if cogOn && err == nil && turn.Stop != "cancelled" {
		answer := kept
		if s.tmpl != nil {
			answer = strings.TrimSpace(kept)
		}
		// A forced regeneration records as RETRIEVE, which replaces the
		// stored answer it matched.
		if _, rerr := s.cog.Record(q, input, answer, tier, time.Now()); rerr != nil {
			return turn, rerr
		}
		turn.COG = s.cogTurn(match, false)
	}
	return turn, err
}

func isStop(id int32, stops []int32) bool {
	for _, s := range stops {
		if s == id {
			return true
		}
	}
	return false
}

// chatPrompt appends the user message and renders the conversation, dropping
// the oldest turns until the prompt and a reply of reserve tokens fit.
//
// augment, when set, is an earlier answer the model is shown for this turn
// only (COG's AUGMENT tier): the stored conversation keeps the message as
// the user wrote it.
func (s *Session) chatPrompt(input, augment string, reserve int) ([]int32, int, error) {
	// Work on a copy: a message that cannot fit even alone must leave the
	// conversation as it was, not stripped of the turns dropped while
	// trying.
	msgs := append(slices.Clip(s.msgs), chat.Message{Role: "user", Content: input})
	dropped := 0
	for {
		shown := msgs
		if augment != "" {
			shown = slices.Clone(msgs)
			shown[len(shown)-1].Content = "An earlier answer to a similar question, for reference:\n" + augment + "\n\n" + input
		}
		p, err := s.tmpl.Render(shown, chat.Options{AddGenerationPrompt: true})
		if err != nil {
			return nil, 0, err
		}
		ids, err := s.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
		if err != nil {
			return nil, 0, err
		}
		if len(ids)+reserve <= s.st.Cap() {
			s.msgs = msgs
			return ids, dropped, nil
		}
		// Drop the oldest non-system turn: a user message and the replies
		// that follow it.
		first := 0
		if len(msgs) > 0 && msgs[0].Role == "system" {
			first = 1
		}
		if first >= len(msgs)-1 { // only the new message is left
			return nil, 0, fmt.Errorf("session: %w: it is %d tokens and the window holds %d, %d of them kept for the reply",
				ErrTooLong, len(ids), s.st.Cap(), reserve)
		}
		end := first + 1
		for end < len(msgs)-1 && msgs[end].Role != "user" {
			end++
		}
		msgs = append(msgs[:first:first], msgs[end:]...)
		dropped++
	}
}

// completionPrompt appends input to the running text and tokenises it,
// keeping only the most recent tokens that leave room for a reply; trimmed
// is how many earlier tokens the model does not see.
func (s *Session) completionPrompt(input string, reserve int) (ids []int32, trimmed int, err error) {
	text := s.text + input
	ids, err = s.tok.Encode(text, tokenizer.EncodeOptions{AddSpecial: true})
	if err != nil {
		return nil, 0, err
	}
	if len(ids) == 0 && s.tok.BOS() >= 0 {
		ids = []int32{s.tok.BOS()}
	}
	if max := s.st.Cap() - reserve; len(ids) > max {
		trimmed = len(ids) - max
		ids = ids[trimmed:]
	}
	if len(ids) == 0 {
		return nil, 0, fmt.Errorf("session: nothing to continue")
	}
	s.text = text
	if input != "" {
		s.parts = append(s.parts, chat.Message{Role: RolePrompt, Content: input})
	}
	return ids, trimmed, nil
}
