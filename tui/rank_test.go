package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/session"
)

// rankFake builds compressions block by block, reporting progress, and
// can be made to wait for cancellation.
type rankFake struct {
	*fakeSession
	slow bool
}

func (f *rankFake) SetCtx(ctx context.Context, name, value string, progress func(done, total int)) error {
	for i := range 4 {
		progress(i+1, 30)
		time.Sleep(2 * time.Millisecond)
	}
	if f.slow {
		<-ctx.Done()
		return fmt.Errorf("model: %w", ctx.Err())
	}
	if err := f.Set(name, value); err != nil {
		return err
	}
	f.mu.Lock()
	f.info.Rank, f.info.RankSpec, f.info.RankBytes = 128, "qkv,o,ffn gp", 0.61
	f.info.RankSlots = []grc.SlotSummary{
		{Slot: grc.SlotQ, MinK: 128, MaxK: 160, MeanEnergy: 0.971},
		{Slot: grc.SlotDown, MinK: 128, MaxK: 128, MeanEnergy: 0.642},
	}
	f.mu.Unlock()
	return nil
}

func (f *rankFake) Info() session.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.info
}

func TestRankBuildShowsProgressAndSlots(t *testing.T) {
	e := &rankFake{fakeSession: newFake()}
	tm := start(t, e, 120, 50)
	typeLine(tm, "/set rank 128")
	waitFor(t, tm, "set rank = 128", "128 · 0.61× bytes", "qkv,o,ffn gp", "k128–160  97.1%", "64.2%")
	finish(t, tm)
}

func TestRankBuildCancels(t *testing.T) {
	e := &rankFake{fakeSession: newFake(), slow: true}
	tm := start(t, e, 120, 50)
	typeLine(tm, "/set rank 128")
	waitFor(t, tm, "blocks — esc cancels")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "cancelled — the compression did not change")
	m := finish(t, tm)
	if m.gate.busyWith() != "" || e.Info().Rank != 0 {
		t.Fatalf("busy %q, rank %d after cancelling", m.gate.busyWith(), e.Info().Rank)
	}
}
