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

// worker is one background goroutine of a Pool. The caller publishes a part
// by writing job and then storing a new seq; the worker runs it and reports
// through the pool's pending count. sleeping and wake are the parking
// handshake (see await).
type worker struct {
	job      part
	seq      atomic.Uint64
	sleeping atomic.Bool
	wake     chan struct{}
	_        [64]byte // keep each worker's hot fields off its neighbours' cache line
}

// part is one worker's share of a Run call.
type part struct {
	t      Task
	lo, hi int
}

// Pool is a fixed set of worker goroutines that split an index range into
// contiguous parts. The goroutines live as long as the Pool, because starting
// goroutines per matrix×vector call costs more than a small matvec itself.
// A Pool may be shared; concurrent Run calls are serialised.
type Pool struct {
	mu      sync.Mutex
	size    int
	workers []*worker
	seq     uint64       // last published generation; written under mu
	pending atomic.Int64 // parts of the current Run not yet finished
	closed  atomic.Bool
	once    sync.Once
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

// loop is a worker's life: wait for a new generation, run its part, repeat.
func (p *Pool) loop(w *worker) {
	var last uint64
	for {
		last = p.await(w, last)
		if p.closed.Load() {
			return
		}
		j := w.job
		j.t.Run(j.lo, j.hi)
		w.job = part{} // drop the task so the pool holds no caller memory
		p.pending.Add(-1)
	}
}

// await polls w.seq until it moves past last, parking after spinFor, and
// returns the new generation. The parking handshake cannot lose a wake-up:
// the worker sets sleeping before its final look at seq, and the publisher
// stores seq before it clears sleeping, so one of the two sees the other.
// A token can come late, though: a publisher whose seq this worker already
// saw (and whose part it already ran) may be preempted between storing seq
// and clearing sleeping, and then clear a later park's flag. So a wake-up
// is only a reason to look again, never news in itself.
func (p *Pool) await(w *worker, last uint64) uint64 {
	for {
		deadline := time.Now().Add(spinFor)
		for i := 1; ; i++ {
			if s := w.seq.Load(); s != last || p.closed.Load() {
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
		if s := w.seq.Load(); s != last || p.closed.Load() {
			if !w.sleeping.CompareAndSwap(true, false) {
				<-w.wake // a publisher saw us asleep and sends a token: take it
			}
			return s
		}
		<-w.wake
		if s := w.seq.Load(); s != last || p.closed.Load() {
			return s
		}
	}
}

// publish hands w its part of generation seq, waking it if it has parked.
func (w *worker) publish(j part, seq uint64) {
	w.job = j
	w.seq.Store(seq)
	if w.sleeping.CompareAndSwap(true, false) {
		w.wake <- struct{}{}
	}
}

// Size is the number of goroutines that share a Run, the caller included.
func (p *Pool) Size() int { return p.size }

// Run splits [0, n) into at most Size contiguous parts of near-equal length,
// runs t on each in parallel and returns when all are done.
func (p *Pool) Run(n int, t Task) {
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
	p.pending.Store(int64(parts - 1))
	for i := 1; i < parts; i++ {
		p.workers[i-1].publish(part{t, n * i / parts, n * (i + 1) / parts}, p.seq)
	}
	t.Run(0, n/parts)
	for i := 0; p.pending.Load() != 0; i++ {
		if i&255 == 255 {
			// A worker that parked takes a while to come back; yield so a
			// pool larger than GOMAXPROCS still makes progress.
			runtime.Gosched()
		} else {
			spinPause()
		}
	}
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
