package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// frameInterval bounds how often a streaming reply reaches Update: pieces
// that arrive faster are coalesced, so a fast model costs the UI at most
// ~20 redraws a second and the decoder never waits for the screen.
const frameInterval = 50 * time.Millisecond

// generation is one reply being streamed. The goroutine running the
// session writes into it through emit and finish (never blocking: a mutex
// and a 1-slot notification); Update reads it through streamMsg values
// delivered by the wait command.
type generation struct {
	id     int
	cancel context.CancelFunc
	notify chan struct{}
	meter  *gpu.Meter // samples the GPU during the reply, or nil; stopped before done

	mu        sync.Mutex
	text      strings.Builder // pieces not yet delivered
	last      session.Event
	fresh     bool // last is newer than the last delivery
	done      bool
	turn      session.Turn
	err       error
	delivered time.Time
	// The decode window, as the session's Event.Elapsed of the first and
	// the last token: reusing its clock reads keeps emit free of them.
	decoding          bool
	firstTok, lastTok time.Duration
	power             gpu.Window // the GPU's draw over the decode, set with done
	// prefill is how far the prompt has been read, until the first token
	// (session.WithPrefill); the zero value once decoding began.
	prefill session.Prefill
}

// streamMsg carries what a generation produced since the previous one.
type streamMsg struct {
	id    int
	text  string
	ev    session.Event
	fresh bool
	done  bool
	turn  session.Turn
	err   error
	power gpu.Window // with done: the GPU's mean draw over the decode
	// prefill is the prompt's progress while it is read (Total 0 when
	// there is none to show: before it, and once the first token came).
	prefill session.Prefill
}

// startGeneration runs send (the session's Send or Regenerate) on a new goroutine (counted in wg so Run can
// wait for the session to be released) and returns the command that
// delivers its first message. It is started directly rather than from a
// tea.Cmd so that wg is incremented before Update returns: a quit that
// follows at once still waits for it. meter, when not nil, is sampling the
// GPU for this reply: the goroutine stops it (and so joins its sampler)
// when send returns, before the reply is reported done, so that what runs
// after the turn — the thermal step — sees every sample the reply made.
func startGeneration(parent context.Context, wg *sync.WaitGroup, send func(context.Context, func(session.Event)) (session.Turn, error), id int, meter *gpu.Meter) (*generation, tea.Cmd) {
	ctx, cancel := context.WithCancel(parent)
	g := &generation{id: id, cancel: cancel, notify: make(chan struct{}, 1), meter: meter}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		began := time.Now() // Send's own clock starts within microseconds of this
		turn, err := send(session.WithPrefill(ctx, g.onPrefill), g.emit)
		meter.Stop()
		if errors.Is(err, context.Canceled) {
			err = nil
			turn.Stop = "cancelled"
		}
		g.finish(turn, err, g.decodePower(began))
	}()
	return g, g.wait()
}

func (g *generation) emit(ev session.Event) {
	g.mu.Lock()
	g.text.WriteString(ev.Piece)
	g.last, g.fresh = ev, true
	// Decoded tokens only: an answer from memory (ID −1) and the
	// decoder's flushed tail are not decoding.
	if ev.Tokens > 0 && ev.ID >= 0 {
		if !g.decoding {
			g.decoding, g.firstTok = true, ev.Elapsed
			g.prefill = session.Prefill{}
		}
		g.lastTok = ev.Elapsed
	}
	g.mu.Unlock()
	g.poke()
}

// onPrefill records the prompt's progress, told between the model's
// prefill steps: a long prompt shows how far it has been read.
func (g *generation) onPrefill(p session.Prefill) {
	g.mu.Lock()
	if !g.decoding {
		g.prefill = p
	}
	g.mu.Unlock()
	g.poke()
}

// decodePower is the GPU's draw from the first token to the last — the
// span decode tok/s is measured over — or the zero Window when there was
// no meter or no decode.
func (g *generation) decodePower(began time.Time) gpu.Window {
	g.mu.Lock()
	decoding, first, last := g.decoding, g.firstTok, g.lastTok
	g.mu.Unlock()
	if g.meter == nil || !decoding || last <= first {
		return gpu.Window{}
	}
	return g.meter.Window(began.Add(first), began.Add(last))
}

func (g *generation) finish(turn session.Turn, err error, power gpu.Window) {
	g.mu.Lock()
	g.done, g.turn, g.err, g.power = true, turn, err, power
	g.mu.Unlock()
	g.poke()
}

func (g *generation) poke() {
	select {
	case g.notify <- struct{}{}:
	default:
	}
}

// wait returns a command that blocks (in Bubble Tea's command goroutine,
// never in Update) until the generation has news, at most once per
// frameInterval, and returns it as a streamMsg.
func (g *generation) wait() tea.Cmd {
	return func() tea.Msg {
		<-g.notify
		g.mu.Lock()
		next := g.delivered.Add(frameInterval)
		done := g.done
		g.mu.Unlock()
		if d := time.Until(next); d > 0 && !done {
			time.Sleep(d)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.delivered = time.Now()
		msg := streamMsg{id: g.id, text: g.text.String(), ev: g.last, fresh: g.fresh, done: g.done, turn: g.turn, err: g.err, power: g.power, prefill: g.prefill}
		g.text.Reset()
		g.fresh = false
		return msg
	}
}
