package tensor

import (
	"runtime"
	"sync"
)

// Task is a unit of data-parallel work: Run processes the half-open index
// range [lo, hi). A Task is passed to Pool.Run as a pointer held by the caller,
// so dispatching it allocates nothing.
type Task interface {
	Run(lo, hi int)
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
	mu    sync.Mutex
	size  int
	start []chan part // one per background worker; the caller runs part 0
	done  chan struct{}
	once  sync.Once
}

// NewPool starts a pool of n workers, counting the calling goroutine as one.
// n < 1 means runtime.GOMAXPROCS(0).
func NewPool(n int) *Pool {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Pool{size: n, done: make(chan struct{}, n)}
	p.start = make([]chan part, n-1)
	for i := range p.start {
		ch := make(chan part, 1)
		p.start[i] = ch
		go func() {
			for w := range ch {
				w.t.Run(w.lo, w.hi)
				p.done <- struct{}{}
			}
		}()
	}
	return p
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
	for i := 1; i < parts; i++ {
		p.start[i-1] <- part{t, n * i / parts, n * (i + 1) / parts}
	}
	t.Run(0, n/parts)
	for i := 1; i < parts; i++ {
		<-p.done
	}
}

// Close stops the workers. Run must not be called after Close.
func (p *Pool) Close() {
	p.once.Do(func() {
		for _, ch := range p.start {
			close(ch)
		}
	})
}
