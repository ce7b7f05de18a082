package tensor

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolLateWakeToken replays the late token: a publisher whose part the
// worker already ran clears the worker's next park and wakes it with
// nothing new. The worker must go back to waiting, not run an empty part
// (which was a nil-task panic under load).
func TestPoolLateWakeToken(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	w := p.workers[0]
	c := &countTask{hits: make([]atomic.Int32, 2)}
	p.Run(2, c)
	for deadline := time.Now().Add(5 * time.Second); !w.sleeping.Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the worker never parked")
		}
		time.Sleep(spinFor)
	}
	if w.sleeping.CompareAndSwap(true, false) {
		w.wake <- struct{}{} // what the late publisher does
	}
	time.Sleep(spinFor / 2)
	c = &countTask{hits: make([]atomic.Int32, 2)}
	p.Run(2, c)
	for i := range c.hits {
		if h := c.hits[i].Load(); h != 1 {
			t.Fatalf("index %d ran %d times after a late token", i, h)
		}
	}
}

// TestPoolStress runs many short-lived pools of random sizes from several
// goroutines, with pauses long enough for workers to park between runs.
func TestPoolStress(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 100 {
				p := NewPool(1 + rng.IntN(4))
				for range rng.IntN(20) {
					n := rng.IntN(6)
					c := &countTask{hits: make([]atomic.Int32, n)}
					p.Run(n, c)
					for i := range c.hits {
						if h := c.hits[i].Load(); h != 1 {
							t.Errorf("index %d of %d ran %d times", i, n, h)
						}
					}
					if rng.IntN(10) == 0 {
						time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
					}
				}
				p.Close()
			}
		}()
	}
	wg.Wait()
}

// TestPoolRunRevokesLateWorker: with one processor the worker cannot start
// while the caller runs, so the caller claims every chunk, revokes the
// worker's generation instead of waiting for it, and the worker, when it
// gets to run, must skip that generation and still serve the next.
func TestPoolRunRevokesLateWorker(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := NewPool(2)
	defer p.Close()
	w := p.workers[0]
	for round := range 3 {
		c := &countTask{hits: make([]atomic.Int32, 64)}
		p.Run(64, c)
		for i := range c.hits {
			if h := c.hits[i].Load(); h != 1 {
				t.Fatalf("round %d: index %d ran %d times", round, i, h)
			}
		}
		if round == 0 {
			if ph := w.state.Load() & 3; ph != phaseRevoked {
				t.Fatalf("the worker's phase after a run it could not join is %d, want revoked (%d)", ph, phaseRevoked)
			}
		}
		runtime.Gosched() // let the worker see the revoked generation
	}
}
