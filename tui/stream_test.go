package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/session"
)

// burstSession emits n pieces as fast as it can.
type burstSession struct {
	*fakeSession
	n int
}

func (b *burstSession) Send(ctx context.Context, _ string, emit func(session.Event)) (session.Turn, error) {
	for i := 0; i < b.n; i++ {
		emit(session.Event{Piece: "x", Tokens: i + 1, TokPerSec: 1000})
	}
	return session.Turn{Text: strings.Repeat("x", b.n), Tokens: b.n, Stop: "token limit"}, nil
}

// The decoder must never wait for the screen: with the UI not reading at
// all, a long reply still runs to the end.
func TestStreamNeverBlocksDecoder(t *testing.T) {
	var wg sync.WaitGroup
	e := &burstSession{fakeSession: newFake(), n: 200_000}
	startGeneration(context.Background(), &wg, sendOf(e, "go"), 1, nil) // nobody runs the wait command
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Send blocked on an idle UI")
	}
}

// Pieces are coalesced into at most ~one message per frame, and none are lost.
func TestStreamCoalesces(t *testing.T) {
	var wg sync.WaitGroup
	e := &slowBurst{n: 400, every: 100 * time.Microsecond}
	began := time.Now()
	g, cmd := startGeneration(context.Background(), &wg, sendOf(e, "go"), 7, nil)
	var text strings.Builder
	msgs := 0
	for {
		msg := cmd().(streamMsg)
		msgs++
		if msg.id != 7 {
			t.Fatalf("message for generation %d", msg.id)
		}
		text.WriteString(msg.text)
		if msg.done {
			break
		}
		cmd = g.wait()
	}
	wg.Wait()
	elapsed := time.Since(began)
	if got := text.String(); got != strings.Repeat("y", e.n) {
		t.Fatalf("got %d bytes, want %d", len(got), e.n)
	}
	if limit := int(elapsed/frameInterval) + 3; msgs > limit {
		t.Errorf("%d messages in %v: more than one per %v", msgs, elapsed, frameInterval)
	}
	if msgs >= e.n/4 {
		t.Errorf("%d messages for %d pieces: not coalesced", msgs, e.n)
	}
}

type slowBurst struct {
	n     int
	every time.Duration
}

func (s *slowBurst) Info() session.Info         { return session.Info{} }
func (s *slowBurst) Settings() session.Settings { return session.Settings{} }
func (s *slowBurst) Set(string, string) error   { return nil }
func (s *slowBurst) SetSystem(string)           {}
func (s *slowBurst) Clear()                     {}
func (s *slowBurst) ContextUsed() (int, int)    { return 0, 0 }
func (s *slowBurst) Send(ctx context.Context, _ string, emit func(session.Event)) (session.Turn, error) {
	for i := 0; i < s.n; i++ {
		time.Sleep(s.every)
		emit(session.Event{Piece: "y", Tokens: i + 1})
	}
	return session.Turn{Stop: "stop token"}, nil
}
