package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/session"
)

// buildingSaver builds compressions slowly (until cancelled, when slow),
// flooding progress, keeps session files and loads them slowly. It checks
// that nothing else touches it while a build or load runs: the race
// detector and the overlap counter both catch a save during a build.
type buildingSaver struct {
	*savingSession
	slow    bool
	inside  sync.Mutex // held while a build or load runs
	overlap int
	release chan struct{} // a load waits for it
}

func (b *buildingSaver) SetCtx(ctx context.Context, name, value string, progress func(done, total int)) error {
	b.inside.Lock()
	defer b.inside.Unlock()
	for i := range 1000 { // more progress than anyone reads
		progress(i, 1000)
	}
	if b.slow {
		<-ctx.Done()
		for i := range 1000 { // and more after the UI has gone
			progress(i, 1000)
		}
		return fmt.Errorf("model: %w", ctx.Err())
	}
	return b.Set(name, value)
}

func (b *buildingSaver) Save(ctx context.Context, path string, o session.SaveOptions) error {
	if !b.inside.TryLock() {
		b.mu.Lock()
		b.overlap++
		b.mu.Unlock()
		return nil
	}
	defer b.inside.Unlock()
	return b.savingSession.Save(ctx, path, o)
}

func (b *buildingSaver) Load(ctx context.Context, path string, o session.LoadOptions) ([]string, error) {
	b.inside.Lock()
	defer b.inside.Unlock()
	o.Progress(3, 30)
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.savingSession.Load(ctx, path, o)
}

func newBuildingSaver(slow bool) *buildingSaver {
	return &buildingSaver{savingSession: &savingSession{fakeSession: newFake()}, slow: slow, release: make(chan struct{})}
}

// ctrl+s, /save and a message during a compression build wait for it.
func TestSaveDuringBuildWaits(t *testing.T) {
	e := newBuildingSaver(true)
	tm := start(t, e, 120, 40)
	typeLine(tm, "/set rank 128")
	// The last of the build's flood of progress: a progress line read
	// after ctrl+s would take the status line before a frame shows the
	// refusal (seen on a loaded machine).
	waitFor(t, tm, "building the rank 128 compression: 999/1000 blocks")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	waitFor(t, tm, "saving must wait: building the rank 128 compression")
	typeLine(tm, "/save /tmp/x.miku")
	waitFor(t, tm, "/save must wait")
	typeLine(tm, "hello")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "cancelled — the compression did not change")
	m := finish(t, tm)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.overlap > 0 || len(e.saved) > 0 {
		t.Fatalf("%d saves during the build, %d in all: %v", e.overlap, len(e.saved), e.saved)
	}
	if sent, _, _, _ := e.snapshot(); len(sent) != 0 {
		t.Fatalf("a message reached the session during the build: %q", sent)
	}
	if m.input.value() != "hello" {
		t.Fatalf("the refused message left the input: %q", m.input.value())
	}
}

// Quitting mid-build cancels it and returns, however much progress the
// worker still reports.
func TestQuitMidBuildReturns(t *testing.T) {
	e := newBuildingSaver(true)
	tm := start(t, e, 120, 40)
	typeLine(tm, "/set rank 128")
	waitFor(t, tm, "building the rank 128 compression")
	done := make(chan struct{})
	go func() {
		finish(t, tm)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("quitting during a compression build hangs")
	}
}

// /load runs off the UI goroutine: the UI stays live and shows progress
// while the file's compression builds, other session actions wait, and esc
// cancels it.
func TestLoadRunsAsAJob(t *testing.T) {
	e := newBuildingSaver(false)
	tm := start(t, e, 120, 40)
	typeLine(tm, "/load /tmp/big.miku")
	waitFor(t, tm, "loading /tmp/big.miku: building its compression, 3/30 blocks")
	tm.Type("still typing")
	waitFor(t, tm, "still typing")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor(t, tm, "sending must wait: loading /tmp/big.miku")
	close(e.release)
	waitFor(t, tm, "loaded /tmp/big.miku", "hologram")
	m := finish(t, tm)
	if sent, _, _, _ := e.snapshot(); len(sent) != 0 {
		t.Fatalf("a message reached the session during the load: %q", sent)
	}
	if m.input.value() != "still typing" {
		t.Fatalf("input %q after the load", m.input.value())
	}

	// esc cancels a load, and the conversation stays as it was.
	e = newBuildingSaver(false)
	tm = start(t, e, 120, 40)
	typeLine(tm, "/load /tmp/big.miku")
	waitFor(t, tm, "3/30 blocks")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "load cancelled — the conversation did not change")
	finish(t, tm)
	if e.Path() != "" {
		t.Fatalf("a cancelled load opened %q", e.Path())
	}
}

// conflictSaver refuses saves as the session does: a file that is not its
// own (ErrExists) unless overwritten, its own file once someone else saved
// it (miku.ErrChanged).
type conflictSaver struct {
	*savingSession
	foreign string // this path exists and is not the session's
	changed bool   // the session's own file was saved elsewhere
	over    []string
}

func (c *conflictSaver) Save(ctx context.Context, path string, o session.SaveOptions) error {
	if o.Overwrite {
		c.mu.Lock()
		c.over = append(c.over, path)
		c.changed = false
		c.mu.Unlock()
		return c.savingSession.Save(ctx, path, o)
	}
	c.mu.Lock()
	own, changed := c.file, c.changed
	c.mu.Unlock()
	switch {
	case path == c.foreign:
		return fmt.Errorf("session: %s: %w", path, session.ErrExists)
	case path == own && changed:
		return fmt.Errorf("session: %w", miku.ErrChanged)
	}
	return c.savingSession.Save(ctx, path, o)
}

// /save over someone else's file asks first; a session file saved by
// another ISAGI is never overwritten by a save or an autosave.
func TestSaveNeverOverwritesOthers(t *testing.T) {
	e := &conflictSaver{savingSession: &savingSession{fakeSession: newFake()}, foreign: "/tmp/theirs.miku"}
	tm := start(t, e, 140, 40)
	typeLine(tm, "/save /tmp/theirs.miku")
	waitFor(t, tm, "exists and is not this session's file", "nothing was written")
	typeLine(tm, "/save /tmp/mine.miku")
	waitFor(t, tm, "saved to /tmp/mine.miku")
	e.mu.Lock()
	e.changed = true // another TUI saves over it now
	e.mu.Unlock()
	typeLine(tm, "hello")
	waitFor(t, tm, "was saved by another ISAGI since this session loaded it", "not overwritten")
	typeLine(tm, "/save! /tmp/theirs.miku")
	waitFor(t, tm, "saved to /tmp/theirs.miku")
	finish(t, tm)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.saved) != 2 || e.saved[0] != "/tmp/mine.miku" || e.saved[1] != "/tmp/theirs.miku" || len(e.over) != 1 {
		t.Fatalf("saves %v, overwrites %v: want mine, then theirs only through /save!", e.saved, e.over)
	}
}

// resumedCompletion is a completion-mode session resumed from a file.
type resumedCompletion struct{ *savingSession }

func (r *resumedCompletion) Transcript() []session.Message {
	return []session.Message{
		{Role: session.RolePrompt, Content: "The wise"},
		{Role: session.RoleContinuation, Content: " man built his house."},
		{Role: session.RolePrompt, Content: "In the beginning"},
		{Role: session.RoleContinuation, Content: " was the word."},
	}
}

// A resumed session looks like the live one: each turn under its label,
// and a line naming the file.
func TestResumedSessionShowsTurns(t *testing.T) {
	e := &resumedCompletion{&savingSession{fakeSession: newFake(), file: "/tmp/s.miku"}}
	e.info.Mode = session.ModeCompletion
	tm := start(t, e, 120, 40)
	waitFor(t, tm, "resumed /tmp/s.miku", "man built his house.", "was the word.")
	m := finish(t, tm)
	f := frame(m)
	if strings.Contains(f, "house.In the beginning") {
		t.Fatalf("turns run together:\n%s", f)
	}
	if n := strings.Count(f, "continuation"); n != 2 {
		t.Fatalf("%d continuation labels, want 2:\n%s", n, f)
	}
}

// A pane line wider than the pane ends in an ellipsis instead of being
// clipped at the border, where "306.04 K" would read as "306.0".
func TestPaneLinesCutVisibly(t *testing.T) {
	e := newFake()
	e.info.Name = "Qwen2.5-0.5B-Instruct-abliterated-uncensored-v2"
	tm := start(t, e, 120, 40)
	waitFor(t, tm, "Model")
	m := finish(t, tm)
	checkFrame(t, m, 120, 40, "│ Qwen2.5-0.5B-Instruct-ablite…  │")
}

// otherModelSaver loads a file only when forced, as the session refuses one
// saved with another model.
type otherModelSaver struct{ *savingSession }

func (o *otherModelSaver) Load(ctx context.Context, path string, opts session.LoadOptions) ([]string, error) {
	if !opts.Force {
		return nil, fmt.Errorf("%s: %w: pass --force-model to load the conversation anyway", path, session.ErrOtherModel)
	}
	return o.savingSession.Load(ctx, path, opts)
}

// TestLoadOtherModelOffersLoadBang: the TUI does not tell the user to pass
// a command-line flag it cannot take: it offers /load!, which loads.
func TestLoadOtherModelOffersLoadBang(t *testing.T) {
	e := &otherModelSaver{&savingSession{fakeSession: newFake()}}
	tm := start(t, e, 140, 40)
	typeLine(tm, "/load other.miku")
	waitFor(t, tm, "other.miku was saved with another model: /load! other.miku loads")
	typeLine(tm, "/load! other.miku")
	waitFor(t, tm, "loaded other.miku")
	m := finish(t, tm)
	if f := frame(m); strings.Contains(f, "--force-model") {
		t.Errorf("the TUI names a command-line flag:\n%s", f)
	}
	if e.Path() != "other.miku" {
		t.Errorf("file %q after /load!", e.Path())
	}
}
