package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/engine/generate"
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
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 120, Spec: &generate.SpecStats{
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
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90, Spec: &generate.SpecStats{Drafter: "n-gram", Off: true, Alpha: 0.2, Plain: 39}})
	if got := ansi.Strip(strings.Join(p.lines(30), "\n")); !strings.Contains(got, "off: α 0.20, slower than plain") {
		t.Errorf("the pane does not say drafting is off:\n%s", got)
	}
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90})
	if len(p.lines(30)) != plain {
		t.Error("speculative lines stay after a plain reply")
	}
}
