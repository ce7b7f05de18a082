package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Task is a unit of data-parallel work: Run processes the half-open index
// range [lo, hi). A Task is passed to Pool.Run as a pointer held by the caller,
// so dispatching it allocates nothing.
type Task interface {
	Run(lo, hi int)
}

// spinFor is how long an idle worker polls for its next part before it
// parks. Decoding one token of a small model dispatches ~150 parts a few
// microseconds apart; waking a parked goroutine costs tens of microseconds on
// a VM (a futex wake, then the scheduler hands it a thread), which measured
// as much as the parallel work itself, so the second thread added nothing.
// Polling for a while after each part keeps workers hot through a token and
// between tokens, and parking after it keeps an idle program idle.
const spinFor = 2 * time.Millisecond

// chunksPer is how many chunks a Run deals per participant. The
// participants claim chunks one at a time from a shared counter, so a
// thread that runs slowly (its core shared with another busy process) takes
// fewer of them instead of holding everyone up with an equal share. Four per
// participant bounds what a thread descheduled mid-chunk leaves the others
// waiting for, at one atomic add per chunk. (With one busy process on a
// 2-vCPU VM, 2-thread decode still measured 0.73 of 1-thread decode with
// this: most of that loss is the caller's own time off its core;
// docs/performance.md.)
const chunksPer = 4

// A worker's state word is its generation shifted left by two, or'ed with
// one of these phases. The caller publishes a generation; the worker
// accepts it (and then must finish it) or the caller, finding every chunk
// claimed, revokes it first, so the caller never waits for a worker that
// has not started: under contention a worker can be off its core for
// milliseconds.
const (
	phaseRevoked   = 0 // the caller finished without this worker
	phasePublished = 1
	phaseRunning   = 2
	phaseDone      = 3
)

// worker is one background goroutine of a Pool. The caller publishes a
// generation by storing it in state; the worker claims chunks of the
// pool's job until none are left, then marks the generation done. sleeping
// and wake are the parking handshake (see await).
type worker struct {
	state    atomic.Uint64
	sleeping atomic.Bool
	wake     chan struct{}
	_        [64]byte // keep each worker's hot fields off its neighbours' cache line
}

// job is one Run call: n indices in chunks chunks.
type job struct {
	t         Task
	n, chunks int
}

// Pool is a fixed set of worker goroutines that run a Task over an index
// range, split into chunks that the caller and the workers claim as they
// go. The goroutines live as long as the Pool, because starting goroutines
// per matrix×vector call costs more than a small matvec itself. A Pool may
// be shared; concurrent Run calls are serialised.
type Pool struct {
	mu      sync.Mutex
	size    int
	workers []*worker
	seq     uint64 // last published generation; written under mu
	// job is the current Run's. The caller writes it before publishing a
	// generation and clears it after every accepting worker is done; a
	// worker reads it only after accepting, so the two never overlap.
	job    job
	_      [64]byte
	next   atomic.Int64 // the next unclaimed chunk of the current Run
	_      [64]byte
	closed atomic.Bool
	once   sync.Once

	// solo makes Run run every part on the caller; adapt decides it
	// (adapt.go), under adaptMu, from the steps Mark times.
	solo    atomic.Bool
	adaptMu sync.Mutex
	adapt   adaptCtl
	fixed   bool // SetAdaptive(false): always parallel
}

// NewPool starts a pool of n workers, counting the calling goroutine as one.
// n < 1 means runtime.GOMAXPROCS(0).
func NewPool(n int) *Pool {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Pool{size: n, workers: make([]*worker, n-1)}
	for i := range p.workers {
		w := &worker{wake: make(chan struct{}, 1)}
		p.workers[i] = w
		go p.loop(w)
	}
	return p
}

// loop is a worker's life: wait for a new generation, accept it unless it
// was revoked, claim chunks until none are left, repeat.
func (p *Pool) loop(w *worker) {
	var last uint64
	for {
		s := p.await(w, last)
		if p.closed.Load() {
			return
		}
		last = s >> 2
		if s&3 != phasePublished || !w.state.CompareAndSwap(s, s&^3|phaseRunning) {
			continue // revoked: the caller ran every chunk without us
		}
		p.drain()
		w.state.Store(s&^3 | phaseDone)
	}
}

// drain claims and runs chunks of the current job until none are left.
func (p *Pool) drain() {
	j := &p.job
	for {
		c := int(p.next.Add(1) - 1)
		if c >= j.chunks {
			return
		}
		j.t.Run(j.n*c/j.chunks, j.n*(c+1)/j.chunks)
	}
}

// await polls w's generation until it moves past last, parking after
// spinFor, and returns the new state. The parking handshake cannot lose a
// wake-up: the worker sets sleeping before its final look at the state,
// and the publisher stores the state before it clears sleeping, so one of
// the two sees the other. A token can come late, though: a publisher whose
// generation this worker already saw may be preempted between storing the
// state and clearing sleeping, and then clear a later park's flag. So a
// wake-up is only a reason to look again, never news in itself.
func (p *Pool) await(w *worker, last uint64) uint64 {
	for {
		deadline := time.Now().Add(spinFor)
		for i := 1; ; i++ {
			if s := w.state.Load(); s>>2 != last || p.closed.Load() {
				return s
			}
			if i&255 != 0 {
				spinPause()
				continue
			}
			if time.Now().After(deadline) {
				break
			}
			// Let other goroutines on this thread's processor run: a
			// pool larger than GOMAXPROCS must not starve the caller.
			runtime.Gosched()
		}
		w.sleeping.Store(true)
		if s := w.state.Load(); s>>2 != last || p.closed.Load() {
			if !w.sleeping.CompareAndSwap(true, false) {
				<-w.wake // a publisher saw us asleep and sends a token: take it
			}
			return s
		}
		<-w.wake
		if s := w.state.Load(); s>>2 != last || p.closed.Load() {
			return s
		}
	}
}

// publish offers w generation gen, waking it if it has parked.
func (w *worker) publish(gen uint64) {
	w.state.Store(gen<<2 | phasePublished)
	if w.sleeping.CompareAndSwap(true, false) {
		w.wake <- struct{}{}
	}
}

// Size is the number of goroutines that share a Run, the caller included.
func (p *Pool) Size() int { return p.size }

// Run runs t over [0, n) in parallel, in contiguous chunks that the caller
// and the workers claim as they go, and returns when all are done. Which
// goroutine runs which chunk varies from call to call, so a Task's results
// must not depend on how its range is split.
func (p *Pool) Run(n int, t Task) {
	if n > 0 && p.solo.Load() {
		t.Run(0, n)
		return
	}
	p.runParallel(n, t)
}

// runParallel is Run on every thread, whatever mode the pool chose (the
// memory probe measures the machine, not the mode).
func (p *Pool) runParallel(n int, t Task) {
	if n <= 0 {
		return
	}
	parts := min(p.size, n)
	if parts == 1 {
		t.Run(0, n)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	gen := p.seq
	p.job = job{t: t, n: n, chunks: min(n, parts*chunksPer)}
	p.next.Store(0)
	helpers := p.workers[:parts-1]
	for _, w := range helpers {
		w.publish(gen)
	}
	p.drain()
	for _, w := range helpers {
		if w.state.CompareAndSwap(gen<<2|phasePublished, gen<<2|phaseRevoked) {
			continue
		}
		for i := 0; w.state.Load() != gen<<2|phaseDone; i++ {
			if i&255 == 255 {
				// A descheduled worker takes a while to come back; yield
				// so a pool larger than GOMAXPROCS still makes progress.
				runtime.Gosched()
			} else {
				spinPause()
			}
		}
	}
	p.job = job{} // drop the task so the pool holds no caller memory
}

// Mark tells the pool that the caller starts a step of n tokens: a
// forward pass, whose Runs follow until the next Mark. The pool times
// steps of equal size and runs them in parallel or all on the caller,
// whichever measures faster (adapt.go): under contention for the cores the
// solo mode can be the faster. A pool of one, or one made fixed by
// SetAdaptive(false), ignores it.
func (p *Pool) Mark(n int) {
	if p.size == 1 {
		return
	}
	p.adaptMu.Lock()
	if !p.fixed {
		p.solo.Store(p.adapt.mark(n, time.Now()))
	}
	p.adaptMu.Unlock()
}

// SetAdaptive turns the choice of mode on (the default) or off; off, every
// Run is parallel again.
func (p *Pool) SetAdaptive(on bool) {
	p.adaptMu.Lock()
	p.fixed = !on
	if !on {
		p.adapt = adaptCtl{}
		p.solo.Store(false)
	}
	p.adaptMu.Unlock()
}

// Steps returns how many timed steps ran in parallel and how many solo
// since the pool started.
func (p *Pool) Steps() (parallel, solo int) {
	p.adaptMu.Lock()
	defer p.adaptMu.Unlock()
	return p.adapt.steps[0], p.adapt.steps[1]
}

// Close stops the workers. Run must not be called after Close.
func (p *Pool) Close() {
	p.once.Do(func() {
		p.closed.Store(true)
		for _, w := range p.workers {
			if w.sleeping.CompareAndSwap(true, false) {
				w.wake <- struct{}{}
			}
		}
	})
}
