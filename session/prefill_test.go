package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
)

// smallSteps is the CPU backend taking batches of rows rows, so that a
// test's short prompt is prefilled in several steps.
type smallSteps struct {
	backend.Backend
	rows int
}

func (b smallSteps) BatchSize() int { return b.rows }

func smallStepOptions() Options {
	return Options{Settings: greedy(), Backend: func(threads int) (backend.Backend, error) {
		return smallSteps{cpu.New(nil), 16}, nil
	}}
}

// prefillSend sends text with a prefill function and returns the turn and
// every progress it was told.
func prefillSend(t *testing.T, s *Session, ctx context.Context, text string) (Turn, []Prefill) {
	t.Helper()
	var seen []Prefill
	tokens := 0
	ctx = WithPrefill(ctx, func(p Prefill) {
		if tokens > 0 {
			t.Errorf("prefill progress %+v after the first token", p)
		}
		seen = append(seen, p)
	})
	turn, err := s.Send(ctx, text, func(e Event) {
		if e.ID >= 0 {
			tokens++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return turn, seen
}

// checkProgress: the progress starts at 0 and climbs a step at a time to
// the turn's prompt tokens, with a speed once a step is done.
func checkProgress(t *testing.T, turn Turn, seen []Prefill, step int) {
	t.Helper()
	want := 1 + (turn.PromptTok+step-1)/step
	if len(seen) != want {
		t.Fatalf("%d progress reports for a prompt of %d tokens in steps of %d, want %d: %+v", len(seen), turn.PromptTok, step, want, seen)
	}
	for i, p := range seen {
		if p.Total != turn.PromptTok || p.Done != min(i*step, p.Total) {
			t.Fatalf("report %d: %+v (prompt %d tokens, steps of %d)", i, p, turn.PromptTok, step)
		}
		if (p.Done > 0) != (p.TokPerSec > 0) {
			t.Fatalf("report %d: %d done at %v tok/s", i, p.Done, p.TokPerSec)
		}
	}
}

// TestPrefillProgress: a turn sent with WithPrefill tells its prefill's
// progress step by step before its first token — and so does the first
// turn of a session resumed from a file, which recomputes the whole
// conversation; a turn without it answers the same.
func TestPrefillProgress(t *testing.T) {
	path := chatModel(t)
	a := open(t, path, smallStepOptions())
	long := strings.Repeat("In the beginning God created the heaven and the earth. ", 4)
	turn, seen := prefillSend(t, a, context.Background(), long)
	if turn.PromptTok <= 2*16 {
		t.Fatalf("a prompt of %d tokens: too short for this test", turn.PromptTok)
	}
	checkProgress(t, turn, seen, 16)
	plain := open(t, path, smallStepOptions())
	if p := send(t, plain, long); p.Text != turn.Text {
		t.Fatalf("with progress %q, without %q", turn.Text, p.Text)
	}

	file := filepath.Join(t.TempDir(), "a.miku")
	if err := a.Files().Save(context.Background(), file, SaveOptions{AppVersion: "test", Now: clock}); err != nil {
		t.Fatal(err)
	}
	b := open(t, path, smallStepOptions())
	if _, err := b.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	cont, seen := prefillSend(t, b, context.Background(), "Thanks")
	again, _ := prefillSend(t, a, context.Background(), "Thanks")
	if cont.Text != again.Text {
		t.Fatalf("the resumed session answers %q, the original %q", cont.Text, again.Text)
	}
	if cont.PromptTok <= turn.PromptTok || again.PromptTok >= cont.PromptTok {
		t.Fatalf("the resumed session fed %d tokens, the first turn %d, the original's second %d: the replay is not in the prefill", cont.PromptTok, turn.PromptTok, again.PromptTok)
	}
	checkProgress(t, cont, seen, 16)
}

// TestPrefillCancelled: cancelling a turn during its prefill stops it
// before the next step: no token, the turn "cancelled", no error.
func TestPrefillCancelled(t *testing.T) {
	s := open(t, chatModel(t), smallStepOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Prefill
	ctx = WithPrefill(ctx, func(p Prefill) {
		seen = append(seen, p)
		if p.Done == 32 {
			cancel()
		}
	})
	tokens := 0
	turn, err := s.Send(ctx, strings.Repeat("And God said, Let there be light: and there was light. ", 4), func(e Event) {
		if e.ID >= 0 {
			tokens++
		}
	})
	if err != nil || turn.Stop != "cancelled" || tokens != 0 {
		t.Fatalf("err %v, stop %q, %d tokens; want cancelled before any", err, turn.Stop, tokens)
	}
	if last := seen[len(seen)-1]; last.Done != 32 || last.Total <= 32 {
		t.Fatalf("the prefill went on after the cancel: %+v", seen)
	}
}
