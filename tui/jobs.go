package tui

import (
	"context"
	"fmt"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// The TUI runs all session work through one gate. At most one thing touches
// the session at a time: a streaming reply (generation) or one job (a
// compression build, a calibration, a session load or save, a /set). Every
// action that needs the session asks the gate first and is refused with the
// reason while something else runs, except a line entered during the
// autosave after a turn, which is held until the save ends (the user did
// not start that save, and it takes a moment); long jobs report progress in the
// status line and stop with esc. A job's worker never blocks on the UI:
// progress overwrites a one-slot mailbox and the result goes to a buffered
// channel, so quitting (which cancels the jobs and waits for the session to
// be free) cannot hang on a send nobody reads.

// job is one piece of session work running off the UI goroutine.
type job struct {
	id       int
	label    string             // what the status line says, e.g. "building the rank 128 compression"
	cancel   context.CancelFunc // nil: it cannot be stopped
	progress chan string        // the newest progress line (one slot, overwritten)
	done     chan tea.Msg       // the result, sent once (buffered)
	// autosave: the save that follows a turn. The user did not ask for
	// it, so what they enter meanwhile waits for it instead of being
	// refused (Model.submit).
	autosave bool
}

// jobProgressMsg and jobDoneMsg come from the job with the given id.
type jobProgressMsg struct {
	id   int
	text string
}

type jobDoneMsg struct {
	id     int
	result tea.Msg
}

// sessionGate is the gate: it holds the reply streaming now and the job
// running now, starts them, and refuses what would touch the session while
// either runs. Refusals and a job's progress go to the root's status line,
// which it is given, as the user reads them there.
type sessionGate struct {
	ctx    context.Context // cancelled on quit; parent of every generation and job
	cancel context.CancelFunc
	wg     *sync.WaitGroup // generations and jobs in flight: Close waits for them
	gen    *generation     // the reply streaming now, or nil
	genID  int
	job    *job // the session work running now that is not a reply, or nil
	jobID  int
	status *string // the root's status line
}

// newSessionGate is a free gate that reports to status.
func newSessionGate(status *string) sessionGate {
	ctx, cancel := context.WithCancel(context.Background())
	return sessionGate{ctx: ctx, cancel: cancel, wg: &sync.WaitGroup{}, status: status}
}

// busyWith is what holds the session now, or "" when it is free.
func (g *sessionGate) busyWith() string {
	switch {
	case g.gen != nil:
		return "a reply is streaming"
	case g.job != nil:
		return g.job.label
	}
	return ""
}

// free reports whether the session is free for what; when it is not, it
// says in the status line what what waits for.
func (g *sessionGate) free(what string) bool {
	b := g.busyWith()
	if b == "" {
		return true
	}
	hint := ""
	if g.gen != nil || g.job.cancel != nil {
		hint = " (esc stops it)"
	}
	*g.status = fmt.Sprintf("%s must wait: %s%s", what, b, hint)
	return false
}

// startReply streams a reply from send (the session's Send or Regenerate),
// sampled by meter when not nil. The caller has checked the gate.
func (g *sessionGate) startReply(send func(context.Context, func(session.Event)) (session.Turn, error), meter *gpu.Meter) tea.Cmd {
	g.genID++
	var cmd tea.Cmd
	g.gen, cmd = startGeneration(g.ctx, g.wg, send, g.genID, meter)
	return cmd
}

// startJob runs work on a new goroutine, counted in wg so that Close
// waits for the session to be free. work's result message is delivered to
// Update when it ends; progress lines go to the status line. cancellable
// jobs get a context that esc and quitting cancel. The caller has checked
// the gate.
func (g *sessionGate) startJob(label string, cancellable bool, work func(ctx context.Context, progress func(string)) tea.Msg) tea.Cmd {
	ctx, cancel := context.WithCancel(g.ctx)
	g.jobID++
	j := &job{id: g.jobID, label: label, progress: make(chan string, 1), done: make(chan tea.Msg, 1)}
	if cancellable {
		j.cancel = cancel
	}
	g.job = j
	*g.status = label + "…"
	if cancellable {
		*g.status += " — esc cancels"
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer cancel()
		j.done <- work(ctx, j.report)
	}()
	return j.wait()
}

// report replaces the pending progress line with text, never blocking.
func (j *job) report(text string) {
	for {
		select {
		case j.progress <- text:
			return
		default:
		}
		select { // full: drop the line the UI has not read yet
		case <-j.progress:
		default:
		}
	}
}

// wait delivers the job's next progress line or its end.
func (j *job) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case r := <-j.done:
			return jobDoneMsg{j.id, r}
		case p := <-j.progress:
			return jobProgressMsg{j.id, p}
		}
	}
}

// onJobProgress shows the running job's progress line and waits for its
// next news; ours is false for a message from a job already gone.
func (g *sessionGate) onJobProgress(msg jobProgressMsg) (cmd tea.Cmd, ours bool) {
	if g.job == nil || msg.id != g.job.id {
		return nil, false
	}
	*g.status = g.job.label + ": " + msg.text
	if g.job.cancel != nil {
		*g.status += " — esc cancels"
	}
	return g.job.wait(), true
}

// onJobDone frees the gate and gives back the job's result for its
// handler; ours is false for a message from a job already gone.
func (g *sessionGate) onJobDone(msg jobDoneMsg) (result tea.Msg, ours bool) {
	if g.job == nil || msg.id != g.job.id {
		return nil, false
	}
	g.job = nil
	*g.status = ""
	return msg.result, true
}

// cancelJob stops the running job if it can be stopped.
func (g *sessionGate) cancelJob() bool {
	if g.job == nil || g.job.cancel == nil {
		return false
	}
	g.job.cancel()
	*g.status = "cancelling: " + g.job.label + "…"
	return true
}
