package tensor

import (
	"sync/atomic"
	"testing"
	"time"
)

// simulate drives an adaptCtl through steps of n tokens on a simulated
// clock: cost gives how long step i takes in the mode it runs in. It
// returns how many steps ran in each mode (parallel, solo).
func simulate(c *adaptCtl, now *time.Time, steps, n int, cost func(i int, solo bool) time.Duration) (par, solo int) {
	for i := range steps {
		s := c.mark(n, *now)
		if s {
			solo++
		} else {
			par++
		}
		*now = now.Add(cost(i, s))
	}
	return par, solo
}

// costs is a machine where a parallel step takes p and a solo one s, with
// a ±3% wobble.
func costs(p, s time.Duration) func(int, bool) time.Duration {
	return func(i int, solo bool) time.Duration {
		d := p
		if solo {
			d = s
		}
		return d + d*time.Duration(i%7-3)/100
	}
}

func TestAdaptIdleStaysParallel(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	// An idle 2-core machine: parallel decode 1.5× faster.
	par, solo := simulate(&c, &now, 2000, 1, costs(10*time.Millisecond, 15*time.Millisecond))
	if c.solo {
		t.Fatal("ended in the solo mode on an idle machine")
	}
	// One probe early, then one per adaptMaxGap windows at most.
	if solo > 2*(adaptWindow+1)+2000/(adaptMaxGap*adaptWindow)*(adaptWindow+1) {
		t.Fatalf("%d of %d steps ran solo on an idle machine", solo, par+solo)
	}
	t.Logf("idle: %d parallel, %d solo", par, solo)
}

func TestAdaptContendedGoesSolo(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	// One busy process: parallel 0.73 of solo's speed.
	par, solo := simulate(&c, &now, 2000, 1, costs(137*time.Millisecond/10, 10*time.Millisecond))
	if !c.solo {
		t.Fatal("ended in the parallel mode under contention")
	}
	// The first windows, then a probe of four steps every
	// adaptMaxGapSolo windows.
	if par > 3*(adaptWindow+1)+2000*(adaptWindow+1)/(adaptMaxGapSolo*adaptWindow) {
		t.Fatalf("%d of %d steps ran in parallel under contention", par, par+solo)
	}
	t.Logf("contended: %d parallel, %d solo", par, solo)
}

func TestAdaptFollowsChange(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	simulate(&c, &now, 1000, 1, costs(10*time.Millisecond, 15*time.Millisecond))
	// A busy process starts: parallel steps slow down past the solo ones.
	par, _ := simulate(&c, &now, 60, 1, costs(20*time.Millisecond, 15*time.Millisecond))
	if !c.solo {
		t.Fatalf("still parallel 60 steps after contention began (%d parallel)", par)
	}
	// It stops: parallel wins again.
	solo := 0
	for range 6 {
		_, s := simulate(&c, &now, 60, 1, costs(10*time.Millisecond, 15*time.Millisecond))
		solo += s
	}
	if c.solo {
		t.Fatalf("still solo 360 steps after contention ended (%d solo)", solo)
	}
}

// TestAdaptOtherSizes: steps of another size are not timed against the
// decode steps (a prefill of 64 tokens takes far longer than a decode step
// and must not read as contention).
func TestAdaptOtherSizes(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	simulate(&c, &now, 200, 1, costs(10*time.Millisecond, 15*time.Millisecond))
	for range 20 {
		simulate(&c, &now, 3, 64, costs(300*time.Millisecond, 450*time.Millisecond))
		simulate(&c, &now, 30, 1, costs(10*time.Millisecond, 15*time.Millisecond))
	}
	if c.solo {
		t.Fatal("prefill steps between decodes flipped the pool to solo")
	}
}

// TestPoolSolo: a pool in the solo mode still runs every index exactly
// once, on the caller.
func TestPoolSolo(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	p.solo.Store(true)
	task := &countTask{hits: make([]atomic.Int32, 1000)}
	p.Run(len(task.hits), task)
	for i := range task.hits {
		if h := task.hits[i].Load(); h != 1 {
			t.Fatalf("index %d ran %d times", i, h)
		}
	}
	p.SetAdaptive(false)
	if p.solo.Load() {
		t.Fatal("SetAdaptive(false) left the pool solo")
	}
	p.Mark(1)
	p.Mark(1)
	if par, solo := p.Steps(); par+solo != 0 {
		t.Fatalf("a fixed pool timed %d steps", par+solo)
	}
}

func TestMarkAllocatesNothing(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	if a := testing.AllocsPerRun(1000, func() { p.Mark(1) }); a != 0 {
		t.Fatalf("Mark allocates %.1f times", a)
	}
}

// TestAdaptStalls: under contention a parallel step is usually quick but
// now and then waits a scheduler slice for a descheduled worker; the pool
// must judge by throughput (solo wins here: 12 ms against a mean of 16).
func TestAdaptStalls(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	par, solo := simulate(&c, &now, 2000, 1, func(i int, solo bool) time.Duration {
		switch {
		case solo:
			return 12 * time.Millisecond
		case i%5 == 0:
			return 40 * time.Millisecond
		}
		return 10 * time.Millisecond
	})
	if !c.solo || par > solo/5 {
		t.Fatalf("%d parallel, %d solo steps, ended solo: %v", par, solo, c.solo)
	}
}

// TestAdaptCloseCall: where the second thread gains little (a
// memory-bound decode), a lost probe is close, and the probes must still
// grow rare.
func TestAdaptCloseCall(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	par, solo := simulate(&c, &now, 2000, 1, costs(10*time.Millisecond, 108*time.Millisecond/10))
	if c.solo || solo > 40 {
		t.Fatalf("%d parallel, %d solo steps, ended solo: %v", par, solo, c.solo)
	}
	t.Logf("close call: %d parallel, %d solo", par, solo)
}

// TestAdaptAbort: where a parallel step costs four solo ones, a probe of
// the parallel mode ends at its first timed step.
func TestAdaptAbort(t *testing.T) {
	var c adaptCtl
	now := time.Unix(0, 0)
	par, solo := simulate(&c, &now, 2000, 1, costs(40*time.Millisecond, 10*time.Millisecond))
	// The first window, then per probe its untimed first step and one
	// timed step, a probe every adaptMaxGapSolo windows.
	if most := adaptWindow + 1 + 2*(1+2000/(adaptMaxGapSolo*adaptWindow)); !c.solo || par > most {
		t.Fatalf("%d parallel steps (at most %d), %d solo, ended solo: %v", par, most, solo, c.solo)
	}
}
