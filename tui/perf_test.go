package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// TestPerfPaneSpeculation: after a speculative reply the Perf pane names
// the drafter and shows α and γ, tokens per verifier step and the measured
// speed against plain decoding; when the controller switched drafting off
// it says so; without a drafter it adds nothing.
func TestPerfPaneSpeculation(t *testing.T) {
	var p perfPane
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90, TimeToFirst: time.Millisecond})
	plain := len(p.lines(30))
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 120, Spec: &session.SpecStats{
		Drafter: "rank 64 qkv", Steps: 10, Drafted: 40, Accepted: 30, SpecTokens: 40, Gamma: 4, Measured: 1.34,
	}})
	got := ansi.Strip(strings.Join(p.lines(30), "\n"))
	for _, want := range []string{"draft   rank 64 qkv", "α · γ   0.75 · 4", "step    4.00 tok", "speed   1.34× plain"} {
		if !strings.Contains(got, want) {
			t.Errorf("pane lacks %q:\n%s", want, got)
		}
	}
	if len(p.lines(30)) <= plain {
		t.Error("the speculative lines are missing")
	}
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90, Spec: &session.SpecStats{Drafter: "n-gram", Off: true, Alpha: 0.2, Plain: 39}})
	if got := ansi.Strip(strings.Join(p.lines(30), "\n")); !strings.Contains(got, "off: α 0.20, slower than plain") {
		t.Errorf("the pane does not say drafting is off:\n%s", got)
	}
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90})
	if len(p.lines(30)) != plain {
		t.Error("speculative lines stay after a plain reply")
	}
}

// fakeServing is a fake session that answers the inputs in serve from
// memory as the session does: one piece with no token (ID -1) and no
// speed, a turn with no decode that stops "retrieved", the manifold's
// decision marked Retrieved. Anything else is decoded by the fakeSession.
type fakeServing struct {
	*fakeSession
	serve map[string]string
}

func (f *fakeServing) Send(ctx context.Context, input string, emit func(session.Event)) (session.Turn, error) {
	ans, ok := f.serve[input]
	if !ok {
		return f.fakeSession.Send(ctx, input, emit)
	}
	f.mu.Lock()
	f.sent = append(f.sent, input)
	f.used += 12 // the exchange is in the conversation: it fills the window too
	used := f.used
	f.mu.Unlock()
	emit(session.Event{Piece: ans, Elapsed: 3 * time.Millisecond, ID: -1})
	return session.Turn{Text: ans, Stop: "retrieved", ContextUsed: used,
		COG: &session.COGTurn{Tier: "retrieve", Retrieved: true, Decision: "served", Why: "same request as a stored one, same live state", Tau: 0.0373}}, nil
}

// TestPerfPaneServedFromMemory (issue 27, item 11): after an answer served
// from memory the Perf pane says so where the speed was, keeps the last
// decoded speed, and shows no "– tok/s" that reads as a fault; the next
// decoded reply shows its speed again.
func TestPerfPaneServedFromMemory(t *testing.T) {
	e := &fakeServing{fakeSession: newFake(), serve: map[string]string{"again": "In the beginning."}}
	tm := start(t, e, 120, 40)
	typeLine(tm, "hello")
	waitFor(t, tm, "fake model", "42.5 tok/s decode")
	typeLine(tm, "again")
	waitFor(t, tm, "answered from memory", servedLabel)
	m := finish(t, tm)
	f := checkFrame(t, m, 120, 40, servedLabel, "last    42.5 tok/s decoded")
	if strings.Contains(f, "– tok/s") {
		t.Errorf("the Perf pane shows a dash for the speed after an answer served from memory:\n%s", f)
	}
	if sum := ansi.Strip(m.perf.summary()); !strings.HasPrefix(sum, servedLabel) || strings.Contains(sum, "– tok/s") {
		t.Errorf("the one-line summary after a served answer: %q", sum)
	}

	// The pane on its own: the next decoded reply shows its speed again,
	// and a served answer before any decode has no last speed to show.
	p := m.perf
	p.begin()
	p.finish(session.Turn{Tokens: 9, DecodeTokS: 30})
	if got := ansi.Strip(strings.Join(p.lines(30), "\n")); !strings.Contains(got, "30.0 tok/s decode") || strings.Contains(got, servedLabel) {
		t.Errorf("a decoded reply after a served one:\n%s", got)
	}
	var fresh perfPane
	fresh.begin()
	fresh.finish(session.Turn{Stop: "retrieved", COG: &session.COGTurn{Retrieved: true}})
	if got := ansi.Strip(strings.Join(fresh.lines(30), "\n")); !strings.Contains(got, servedLabel) || strings.Contains(got, "tok/s") {
		t.Errorf("a served answer before any decode:\n%s", got)
	}
}
