package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// fakeSession streams scripted pieces with small sleeps and records what the
// TUI asked of it.
type fakeSession struct {
	info   session.Info
	pieces []string      // the reply, piece by piece
	delay  time.Duration // between pieces
	tokS   float64
	drop   int // Turn.Dropped to report
	trim   int // Turn.Trimmed to report
	limit  int // inputs longer than this (bytes) are refused with ErrTooLong; 0: none
	// gauge, when set, makes every event carry a TEH reading (token i reads
	// gauge(i)) and the turn a geometry summary.
	gauge func(i int) geometry.Reading
	// cog, when set, is every turn's manifold decision.
	cog *session.COGTurn

	mu        sync.Mutex
	settings  session.Settings
	sent      []string
	sets      [][2]string
	cleared   int
	cancelled bool
	used      int
}

func newFake() *fakeSession {
	return &fakeSession{
		info: session.Info{
			Name: "SmolLM2 135M Instruct", Path: "/models/smollm2-135m-instruct-q8_0.gguf",
			Arch: "llama", Params: 134_515_008, FileBytes: 144_806_400, WeightType: "Q8_0",
			ContextSize: 2048, Mode: session.ModeChat, Kernels: "avx2", Threads: 2,
		},
		settings: session.Settings{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, Seed: 42, MaxTokens: 512},
		pieces:   strings.SplitAfter("Hello! I am **ISAGI's** fake model.\n\n- one\n- two", " "),
		delay:    2 * time.Millisecond,
		tokS:     42.5,
	}
}

func (f *fakeSession) Info() session.Info { return f.info }

func (f *fakeSession) Settings() session.Settings {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settings
}

func (f *fakeSession) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets = append(f.sets, [2]string{name, value})
	switch name {
	case "temperature":
		var v float32
		if _, err := fmt.Sscan(value, &v); err != nil {
			return fmt.Errorf("temperature: %q is not a number", value)
		}
		f.settings.Temperature = v
		return nil
	case "rank":
		var v int
		if _, err := fmt.Sscan(value, &v); err != nil {
			return fmt.Errorf("rank: %q is not a number", value)
		}
		f.settings.Rank = v
		return nil
	}
	return fmt.Errorf("unknown setting %q", name)
}

func (f *fakeSession) SetSystem(text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settings.System = text
}

func (f *fakeSession) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleared++
	f.used = 0
}

func (f *fakeSession) ContextUsed() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.used, f.info.ContextSize
}

func (f *fakeSession) Send(ctx context.Context, input string, emit func(session.Event)) (session.Turn, error) {
	f.mu.Lock()
	f.sent = append(f.sent, input)
	f.mu.Unlock()
	if f.limit > 0 && len(input) > f.limit {
		return session.Turn{}, fmt.Errorf("session: %w: it is %d tokens and the window holds %d, 64 of them kept for the reply", session.ErrTooLong, len(input), f.limit)
	}
	start := time.Now()
	var b strings.Builder
	for i, p := range f.pieces {
		select {
		case <-ctx.Done():
			f.mu.Lock()
			f.cancelled = true
			f.mu.Unlock()
			return session.Turn{Text: b.String(), Tokens: i, Stop: "cancelled"}, ctx.Err()
		case <-time.After(f.delay):
		}
		b.WriteString(p)
		tokS := f.tokS * (0.6 + 0.1*float64(i%5)) // a little jitter for the sparkline
		ev := session.Event{Piece: p, Tokens: i + 1, TokPerSec: tokS, Elapsed: time.Since(start)}
		if f.gauge != nil {
			ev.Gauge, ev.Gauged = f.gauge(i), true
		}
		emit(ev)
	}
	f.mu.Lock()
	f.used += 10 + len(f.pieces)
	used := f.used
	f.mu.Unlock()
	turn := session.Turn{
		Text: b.String(), Tokens: len(f.pieces) + 1, PromptTok: 10,
		TimeToFirst: 120 * time.Millisecond, PrefillTokS: 310, DecodeTokS: f.tokS,
		Stop: "stop token", Dropped: f.drop, Trimmed: f.trim, ContextUsed: used,
	}
	turn.COG = f.cog
	if f.gauge != nil {
		last := f.gauge(len(f.pieces) - 1)
		turn.Geometry = &geometry.TurnSummary{Prompt: last, Reply: last, PromptTokens: 10, ReplyTokens: len(f.pieces), Peak: last.Overall}
		for i := range last.N {
			if last.Cat[i] >= 10 { // the fake profile's τ
				turn.Geometry.Flagged = append(turn.Geometry.Flagged, fakeCategories[i])
			}
		}
	}
	return turn, nil
}

func (f *fakeSession) snapshot() (sent []string, sets [][2]string, cleared int, cancelled bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...), append([][2]string(nil), f.sets...), f.cleared, f.cancelled
}
