package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/conversation"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// ErrTooLong is returned when one message cannot fit the context window
// even with every earlier turn dropped.
var ErrTooLong = conversation.ErrTooLong

// Send adds input to the conversation — a user message in chat mode, text
// to continue in completion mode — and streams the reply: emit gets every
// decoded piece with running statistics. Only the tokens that differ from
// what the KV cache already holds are computed. When the conversation no
// longer fits, the oldest turns are dropped first (Turn.Dropped says how
// many). Cancelling ctx ends the reply early; what was generated is kept.
//
// With a geometry profile attached, the living manifold (docs/mechanisms.md §9)
// looks the message up first. The same request asked again under the same
// live state, close enough for the profile's calibrated gate, is answered
// from memory at once (Turn.Stop "retrieved"; Regenerate forces a fresh
// answer; the "memory" setting off never serves). Anything else is
// generated: a close one (AUGMENT, or a RETRIEVE-close near-miss) with the
// nearest answer of the same live state in the context, and novel ones
// (EXPAND, EXPLORE) bend the manifold's metric. Turn.COG says what was
// decided and why (docs/geometry.md).
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
	if err := s.BackendErr(); err != nil {
		return Turn{}, fmt.Errorf("session: %w", err)
	}
	turn, err := s.sendOn(ctx, input, mode, emit)
	s.batchIdle()
	return turn, s.checkBackend(err)
}

// sendOn is send on a backend not known to have failed.
func (s *Session) sendOn(ctx context.Context, input string, mode sendMode, emit func(Event)) (Turn, error) {
	start := time.Now()
	s.cv.sending(input)
	s.mem.forgetLast()
	var (
		mem   memTurn
		cogOn bool
		err   error
	)
	constraint := s.constraint
	if constraint == nil && s.format != nil {
		// The format setting: each reply matched from the grammar's start.
		if constraint, err = s.format.constraint(s); err != nil {
			return Turn{}, err
		}
	}
	if mode != sendNoMemory && constraint == nil {
		// (A reply held to a form is always generated: a stored answer
		// knows nothing of the form.)
		if mem, cogOn, err = s.mem.lookup(ctx, input); err != nil {
			return Turn{}, err
		}
	}
	if cogOn {
		s.mem.decide(&mem, mode == sendForce)
		if mem.dec.Serve {
			return s.mem.serveRetrieved(input, &mem, start, emit)
		}
	}
	augment := ""
	if cogOn && s.cv.chat() && mode != sendForce {
		// A regeneration asks for a fresh answer: the one it replaces is
		// not shown to the model.
		augment = mem.augmentWith(s.set.MemoryOff)
	}
	if cogOn {
		if err := s.gm.reaim(); err != nil {
			return Turn{}, err
		}
	}
	reserve := min(s.set.MaxTokens, s.st.MaxPos()/2)
	prompt, err := s.cv.add(input, augment, s.st.MaxPos(), reserve)
	if err != nil {
		return Turn{}, fmt.Errorf("session: %w", err)
	}
	// Reuse the cached prefix: feed only what the KV cache does not hold.
	feed := conversation.Reuse(s.gen, prompt.IDs)

	// A harmony reply (gpt-oss) comes in channels whose markers are
	// control tokens: decode them as text so that the answer (the final
	// channel) can be told from the chain of thought (analysis), which is
	// kept out of the reply and the conversation.
	var hr *chat.HarmonyReply
	if tmpl := s.cv.template(); tmpl != nil && tmpl.Harmony() {
		// With tools offered, a message to a function comes out as a
		// call for the ToolReader.
		hr = &chat.HarmonyReply{Calls: s.cv.offersTools()}
	}
	dec := s.tok.NewDecoder(tokenizer.DecodeOptions{Continuation: !s.cv.chat(), Special: hr != nil || s.toolSpecial})
	var reply strings.Builder
	n := 0
	var decodeStart time.Time
	gauged := s.gm.beginTurn()
	// Each reply draws from a stream of its own, from a seed it records.
	seed := s.seed
	s.gen.Reseed(seed)
	s.seed = nextSeed(seed)
	stats, err := s.gen.Generate(ctx, feed, generate.Options{MaxTokens: s.set.MaxTokens, Stop: s.stops, Constraint: constraint, Progress: prefillProgress(ctx)}, func(id int32) error {
		n++
		if n == 1 {
			decodeStart = time.Now()
		}
		// The position whose logits chose this token: the history ends
		// with the token itself.
		pos, end := len(s.gen.History())-2, isStop(id, s.stops)
		piece, thinking, hidden := "", "", false
		if !end {
			piece = string(dec.Write(id))
			if hr != nil {
				piece, thinking, hidden = readHarmony(hr, piece)
			} else {
				hidden = s.tok.IsControl(id)
			}
		}
		reply.WriteString(piece)
		ev := Event{Piece: piece, Thinking: thinking, Tokens: n, Elapsed: time.Since(start), ID: id, Pos: pos, End: end, Hidden: hidden}
		if n > 1 {
			ev.TokPerSec = float64(n-1) / time.Since(decodeStart).Seconds()
		}
		if gauged {
			ev.Gauge, ev.Gauged = s.gm.reading(pos, n == 1), true
		}
		emit(ev)
		return nil
	})
	tail, thinking := string(dec.Flush()), ""
	if hr != nil {
		r1, t1 := hr.Write(tail)
		r2, t2 := hr.Flush()
		tail, thinking = r1+r2, t1+t2
	}
	if tail != "" || thinking != "" {
		reply.WriteString(tail)
		emit(Event{Piece: tail, Thinking: thinking, Tokens: n, Elapsed: time.Since(start), ID: -1})
	}
	turn := Turn{
		Text: reply.String(), Tokens: stats.Generated, PromptTok: len(feed),
		TimeToFirst: stats.TimeToFirst, PrefillTokS: stats.PrefillTokPerSec(), DecodeTokS: stats.DecodeTokPerSec(),
		Stop: stats.Reason.String(), Dropped: prompt.Dropped, Trimmed: prompt.Trimmed, Seed: seed,
	}
	if hr != nil {
		turn.Thinking = hr.Thinking()
	}
	if stats.Spec.Drafter != "" {
		sp := stats.Spec
		turn.Spec = &sp
	}
	turn.Geometry = s.gm.turnSummary()
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
	s.cv.addReply(kept)
	// The cache now holds the conversation as this turn fitted it (old
	// turns dropped, the text trimmed): its length is the figure, and a
	// count made before the turn must not add to it.
	s.cv.holds()
	turn.ContextUsed, _ = s.cv.ContextUsed()
	// A reply cut short by the user is not an answer to serve again.
	if cogOn && err == nil && turn.Stop != "cancelled" {
		answer := kept
		if s.cv.chat() {
			answer = strings.TrimSpace(kept)
		}
		// A regeneration replaces the stored answer it supersedes.
		length := lengthClass(turn.Stop, turn.Tokens, s.set.MaxTokens)
		if rerr := s.mem.record(&mem, input, answer, length, time.Now()); rerr != nil {
			return turn, rerr
		}
		turn.COG = s.mem.turn(&mem, false)
	}
	if mode != sendNoMemory {
		s.cv.record(input, &turn)
	}
	return turn, err
}

// readHarmony passes one token's text through the harmony reader and
// returns what it adds to the answer and the chain of thought, and whether
// the token is hidden: it added nothing to the answer, and is not text the
// reader holds back inside the answer (the start of a possible marker).
func readHarmony(hr *chat.HarmonyReply, piece string) (reply, thinking string, hidden bool) {
	was := hr.Showing()
	reply, thinking = hr.Write(piece)
	return reply, thinking, reply == "" && !(was && hr.Showing())
}

func isStop(id int32, stops []int32) bool {
	for _, s := range stops {
		if s == id {
			return true
		}
	}
	return false
}
