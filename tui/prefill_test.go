package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// fakePrefill is a fake session whose replies first read a long prompt:
// it tells the prefill's progress as a session does (session.WithPrefill),
// then holds until release is closed (or the reply is stopped), then
// decodes as the fakeSession does.
type fakePrefill struct {
	*fakeSession
	release chan struct{}
}

func (f *fakePrefill) Send(ctx context.Context, input string, emit func(session.Event)) (session.Turn, error) {
	session.ReportPrefill(ctx, session.Prefill{Total: 4096})
	session.ReportPrefill(ctx, session.Prefill{Done: 1024, Total: 4096, Elapsed: 443 * time.Millisecond, TokPerSec: 2310.4})
	select {
	case <-f.release:
	case <-ctx.Done():
		return session.Turn{Stop: "cancelled"}, ctx.Err()
	}
	return f.fakeSession.Send(ctx, input, emit)
}

// TestPrefillProgressShown (issue 55, item 4): while a reply's prompt is
// read, the status line says how far and how fast ("prefill 1,024/4,096 ·
// 2,310 tok/s — esc stops"), and so do the Perf pane on a wide terminal
// and the one-line summary on a narrow one; the progress is gone once the
// reply decodes, and every line fits the terminal.
func TestPrefillProgressShown(t *testing.T) {
	const status = "prefill 1,024/4,096 · 2,310 tok/s — esc stops"
	for _, c := range []struct {
		w, h int
		want string // where the pane or its summary shows it
	}{
		{120, 40, "prefill 1,024/4,096 25%"},
		{80, 24, "prefill 1,024/4,096 · 2,310 tok/s · ctx 0 / 2048"},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			e := &fakePrefill{fakeSession: newFake(), release: make(chan struct{})}
			tm := start(t, e, c.w, c.h)
			typeLine(tm, "a long document")
			waitFor(t, tm, status, c.want)
			close(e.release)
			waitFor(t, tm, "fake model", "42.5 tok/s")
			m := finish(t, tm)
			f := checkFrame(t, m, c.w, c.h)
			if strings.Contains(f, "1,024/4,096") {
				t.Errorf("the prefill's progress stays after the reply:\n%s", f)
			}
		})
	}
}

// TestPrefillPaneFits: the Perf pane's lines and summary while a prompt
// is read, with the widest figures a window of 128K tokens gives, fit the
// side column; before the first step there is no speed to show; the
// progress goes with the first token and with the reply's end.
func TestPrefillPaneFits(t *testing.T) {
	var p perfPane
	p.begin()
	p.Update(streamMsg{prefill: session.Prefill{Total: 131072}})
	if got := ansi.Strip(p.summary()); !strings.HasPrefix(got, "prefill 0/131,072 · ctx") {
		t.Errorf("before the first step: %q", got)
	}
	p.Update(streamMsg{prefill: session.Prefill{Done: 130048, Total: 131072, TokPerSec: 12345.6}})
	w := sideWidth - 4
	for _, l := range p.lines(w) {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("a line of %d columns in a pane of %d: %q", lw, w, ansi.Strip(l))
		}
	}
	got := ansi.Strip(strings.Join(p.lines(w), "\n"))
	for _, want := range []string{"prefill 130,048/131,072 99%", "prefill 12,346 tok/s"} {
		if !strings.Contains(got, want) {
			t.Errorf("pane lacks %q:\n%s", want, got)
		}
	}
	if got := ansi.Strip(p.summary()); !strings.HasPrefix(got, "prefill 130,048/131,072 · 12,346 tok/s · ctx") {
		t.Errorf("summary %q", got)
	}
	// The first token: the generation sends no progress any more.
	p.Update(streamMsg{fresh: true, ev: session.Event{Piece: "In", Tokens: 1, ID: 5}})
	if p.prefilling() || strings.Contains(ansi.Strip(p.summary()), "prefill") {
		t.Errorf("progress shown while decoding: %q", ansi.Strip(p.summary()))
	}
	// A reply that ends during its prefill (stopped) leaves none either.
	p.begin()
	p.Update(streamMsg{prefill: session.Prefill{Done: 256, Total: 4096}})
	p.Update(streamMsg{done: true, prefill: session.Prefill{Done: 256, Total: 4096}, turn: session.Turn{Stop: "cancelled"}})
	if p.prefilling() {
		t.Error("progress shown after the reply ended")
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 4096: "4,096", 131072: "131,072", 1234567: "1,234,567", -4096: "-4,096"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestGenerationPrefillEndsWithFirstToken: a generation passes the
// prefill's progress on until its first decoded token, and none after —
// not even progress told late.
func TestGenerationPrefillEndsWithFirstToken(t *testing.T) {
	g := &generation{notify: make(chan struct{}, 1)}
	g.onPrefill(session.Prefill{Done: 256, Total: 512, TokPerSec: 900})
	if msg := g.wait()().(streamMsg); msg.prefill.Done != 256 || msg.prefill.Total != 512 {
		t.Fatalf("while reading the prompt: %+v", msg.prefill)
	}
	g.emit(session.Event{Piece: "In", Tokens: 1, ID: 5})
	if msg := g.wait()().(streamMsg); msg.prefill.Total != 0 {
		t.Fatalf("after the first token: %+v", msg.prefill)
	}
	g.onPrefill(session.Prefill{Done: 512, Total: 512})
	if msg := g.wait()().(streamMsg); msg.prefill.Total != 0 {
		t.Fatalf("progress told after the first token came through: %+v", msg.prefill)
	}
}
