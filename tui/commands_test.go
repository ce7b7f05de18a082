package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// lastEntry is the text of the chat's last entry of kind k.
func lastEntry(t *testing.T, m *Model, k entryKind) string {
	t.Helper()
	for i := len(m.chat.entries) - 1; i >= 0; i-- {
		if m.chat.entries[i].kind == k {
			return m.chat.entries[i].text
		}
	}
	t.Fatalf("no chat entry of kind %d", k)
	return ""
}

// TestSetUsageFromTable: /set alone lists every setting of session.Knobs
// with its values and help, in lines that fit an 80-column chat; /set with
// the wrong number of words says the same as an error.
func TestSetUsageFromTable(t *testing.T) {
	e := newFake()
	tm := start(t, e, 200, 60)
	typeLine(tm, "/set")
	var want []string
	for _, k := range session.Knobs() {
		want = append(want, k.Name, k.Values, k.Help)
	}
	waitFor(t, tm, want...)
	typeLine(tm, "/set temperature")
	waitFor(t, tm, "✗ usage: /set NAME VALUE")
	m := finish(t, tm)

	usage := lastEntry(t, m, entryInfo)
	if usage != lastEntry(t, m, entryError) {
		t.Errorf("/set and /set temperature print different usage:\n%s\n---\n%s", usage, lastEntry(t, m, entryError))
	}
	lines := strings.Split(usage, "\n")
	if len(lines) != 1+len(session.Knobs()) {
		t.Errorf("usage has %d lines for %d settings:\n%s", len(lines), len(session.Knobs()), usage)
	}
	for i, k := range session.Knobs() {
		if f := strings.Fields(lines[1+i]); len(f) < 3 || f[0] != k.Name || f[1] != k.Values {
			t.Errorf("usage line %q, want %s %s …", lines[1+i], k.Name, k.Values)
		}
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("usage line is %d columns: %q", w, l)
		}
	}
	if _, sets, _, _ := e.snapshot(); len(sets) != 0 {
		t.Errorf("usage reached the session: %q", sets)
	}
}

// TestShowListsEveryKnob: /show prints each setting of session.Knobs with
// its value as /set takes it back (the seed and the off switches too), the
// compression built and the model lines.
func TestShowListsEveryKnob(t *testing.T) {
	e := newFake()
	e.settings.Seed, e.settings.Snipe, e.settings.OGDAlpha = 18446744073709551615, "privacy", 0.2
	e.settings.Rank, e.settings.Slots = 64, "qkv,o"
	e.info.Rank, e.info.RankSpec, e.info.RankBytes = 64, "qkv,o uniform", 0.25
	tm := start(t, e, 200, 60)
	typeLine(tm, "/show")
	waitFor(t, tm, "ogd_alpha", "system")
	m := finish(t, tm)

	show := lastEntry(t, m, entryInfo)
	got := map[string]string{}
	for _, l := range strings.Split(show, "\n") {
		name, value, _ := strings.Cut(l, " ")
		got[name] = strings.TrimSpace(value)
	}
	for _, k := range session.Knobs() {
		want := k.Value(e.Settings(), e.Info())
		if v, ok := got[k.Name]; !ok || v != want {
			t.Errorf("/show %s = %q (listed %v), want %q:\n%s", k.Name, v, ok, want, show)
		}
	}
	for name, want := range map[string]string{
		"seed": "18446744073709551615", "num_ctx": "2048", "temperature": "0.8", "snipe": "privacy",
		"ogd_alpha": "0.2", "rank": "64", "slots": "qkv,o", "alloc": "uniform",
		"compression": "64 · 0.25× bytes, qkv,o uniform", "system": "(none)", "mode": "chat",
	} {
		if got[name] != want {
			t.Errorf("/show %s = %q, want %q:\n%s", name, got[name], want, show)
		}
	}
	if !strings.HasPrefix(got["model"], "SmolLM2 135M Instruct (llama") || got["file"] != e.info.Path {
		t.Errorf("/show model lines:\n%s", show)
	}
}

// ctxRecorder records which of Set and SetCtx each /set reached.
type ctxRecorder struct {
	*fakeSession
	mu  sync.Mutex
	ctx []string
}

func (r *ctxRecorder) SetCtx(_ context.Context, name, value string, progress func(done, total int)) error {
	progress(1, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx = append(r.ctx, name+" "+value)
	return nil
}

// TestSetBuildKnobsRunAsJobs: the knobs the table marks Build go through
// SetCtx (progress, esc cancels); the others, aliases included, through Set.
func TestSetBuildKnobsRunAsJobs(t *testing.T) {
	e := &ctxRecorder{fakeSession: newFake()}
	tm := start(t, e, 120, 40)
	var build []string
	for _, k := range session.Knobs() {
		if k.Build {
			build = append(build, k.Name+" "+k.Value(e.Settings(), e.Info()))
		}
	}
	for _, b := range build {
		typeLine(tm, "/set "+b)
		waitFor(t, tm, "set "+strings.Replace(b, " ", " = ", 1))
	}
	typeLine(tm, "/set temp 0.3")
	waitFor(t, tm, `unknown setting "temp"`) // the fake knows no aliases: it reached Set
	finish(t, tm)
	e.mu.Lock()
	defer e.mu.Unlock()
	if strings.Join(e.ctx, ";") != strings.Join(build, ";") {
		t.Errorf("SetCtx got %q, want %q", e.ctx, build)
	}
	if len(build) != 7 {
		t.Errorf("build knobs %q, want rank, slots, alloc, draft, gauge, sink_channels and sink_bypass", build)
	}
	if _, sets, _, _ := e.snapshot(); len(sets) != 1 || sets[0] != [2]string{"temp", "0.3"} {
		t.Errorf("Set got %q, want only temp 0.3", sets)
	}
}

// TestSystemInCompletionMode: a model without a chat template has no
// system prompt, so /system is refused in one sentence instead of being
// reported as set and doing nothing; in chat mode it is set.
func TestSystemInCompletionMode(t *testing.T) {
	e := newFake()
	e.info.Mode = session.ModeCompletion
	tm := start(t, e, 140, 40)
	typeLine(tm, "/system be brief")
	waitFor(t, tm, "no chat template, so it has no system prompt")
	finish(t, tm)
	if got := e.Settings().System; got != "" {
		t.Errorf("completion mode took a system prompt %q", got)
	}

	e = newFake()
	tm = start(t, e, 140, 40)
	typeLine(tm, "/system be brief")
	waitFor(t, tm, "system prompt set")
	finish(t, tm)
	if got := e.Settings().System; got != "be brief" {
		t.Errorf("chat mode: system prompt %q", got)
	}
}

// TestCommandTable: every command the features declare is found by its
// name and its alias, continuation lines are not commands, and two
// declarations of one name are caught rather than one shadowing the other.
func TestCommandTable(t *testing.T) {
	cmds := commands()
	table := newCommandTable(cmds)
	n := 0
	for _, c := range cmds {
		for _, name := range []string{c.name, c.alias} {
			if name == "" {
				continue
			}
			n++
			if got, ok := table[name]; !ok || got.name != c.name || got.run == nil {
				t.Errorf("%s: found %v, command %q", name, ok, got.name)
			}
		}
	}
	if len(table) != n {
		t.Errorf("the table has %d names, the commands %d", len(table), n)
	}
	defer func() {
		if recover() == nil {
			t.Error("two commands named /bye: no panic")
		}
	}()
	newCommandTable(append(cmds, quitCommands()...))
}
