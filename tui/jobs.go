package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// The TUI runs all engine work through one gate. At most one thing touches
// the engine at a time: a streaming reply (generation) or one job (a
// compression build, a calibration, a session load or save, a /set). Every
// action that needs the engine asks the gate first and is refused with the
// reason while something else runs; long jobs report progress in the
// status line and stop with esc. A job's worker never blocks on the UI:
// progress overwrites a one-slot mailbox and the result goes to a buffered
// channel, so quitting (which cancels the jobs and waits for the engine to
// be free) cannot hang on a send nobody reads.

// job is one piece of engine work running off the UI goroutine.
type job struct {
	id       int
	label    string             // what the status line says, e.g. "building the rank 128 compression"
	cancel   context.CancelFunc // nil: it cannot be stopped
	progress chan string        // the newest progress line (one slot, overwritten)
	done     chan tea.Msg       // the result, sent once (buffered)
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

// busyWith is what holds the engine now, or "" when it is free.
func (m *Model) busyWith() string {
	switch {
	case m.gen != nil:
		return "a reply is streaming"
	case m.job != nil:
		return m.job.label
	}
	return ""
}

// gate reports whether the engine is free for what; when it is not, it
// says in the status line what what waits for.
func (m *Model) gate(what string) bool {
	b := m.busyWith()
	if b == "" {
		return true
	}
	hint := ""
	if m.gen != nil || m.job.cancel != nil {
		hint = " (esc stops it)"
	}
	m.status = fmt.Sprintf("%s must wait: %s%s", what, b, hint)
	return false
}

// startJob runs work on a new goroutine, counted in m.wg so that Close
// waits for the engine to be free. work's result message is delivered to
// Update when it ends; progress lines go to the status line. cancellable
// jobs get a context that esc and quitting cancel. The caller has checked
// the gate.
func (m *Model) startJob(label string, cancellable bool, work func(ctx context.Context, progress func(string)) tea.Msg) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.jobID++
	j := &job{id: m.jobID, label: label, progress: make(chan string, 1), done: make(chan tea.Msg, 1)}
	if cancellable {
		j.cancel = cancel
	}
	m.job = j
	m.status = label + "…"
	if cancellable {
		m.status += " — esc cancels"
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
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

func (m *Model) onJobProgress(msg jobProgressMsg) tea.Cmd {
	if m.job == nil || msg.id != m.job.id {
		return nil
	}
	m.geo.Update(msg) // a calibration shows its stage in its pane too
	m.status = m.job.label + ": " + msg.text
	if m.job.cancel != nil {
		m.status += " — esc cancels"
	}
	return m.job.wait()
}

// onJobDone frees the gate and hands the result to its handler.
func (m *Model) onJobDone(msg jobDoneMsg) tea.Cmd {
	if m.job == nil || msg.id != m.job.id {
		return nil
	}
	m.job = nil
	m.status = ""
	_, cmd := m.Update(msg.result)
	return cmd
}

// cancelJob stops the running job if it can be stopped.
func (m *Model) cancelJob() bool {
	if m.job == nil || m.job.cancel == nil {
		return false
	}
	m.job.cancel()
	m.status = "cancelling: " + m.job.label + "…"
	return true
}
