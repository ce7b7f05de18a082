package tensor

import "time"

// Running a Pool's parts in parallel pays only while its threads have
// cores. With another busy process on a 2-vCPU machine, three runnable
// threads share two cores: a worker that spins between parts takes a
// third of a core from the caller, and a part waits whenever its partner is
// descheduled. 2-thread decode measured 0.73 of 1-thread decode there (and
// llama.cpp 0.38–0.44), whatever the chunking: the loss is the threads'
// time off their cores, which no split of the work can see.
//
// So the pool times the two ways of running, in windows of equal work, and
// keeps the faster: steps of the same number of tokens (decode's one token
// a step) are alike, so the median step of a window run in parallel and of
// a window run solo (every part on the caller, the workers parked) compare
// directly. The pool probes the mode it is not using now and then: soon
// after a change in step time (contention starting), rarely when the last
// probe lost by far, and at least every ~100 steps while solo (a solo
// step's time does not show contention ending). Steps of more than
// adaptMaxTokens tokens (a prompt's) end the window untimed and run in the
// mode the decode chose.

const (
	// adaptWindow is the steps timed per window; its median is the
	// window's time, so one step stretched by a pause does not decide.
	adaptWindow = 3
	// adaptGain is how much faster a probed mode must be to be kept: the
	// probe runs after the window it is compared with, a little deeper
	// into the context, so a tie leaves the mode as it is.
	adaptGain = 0.95
	// adaptFar: a probe this much slower (or more) than the mode in use
	// puts the next probe off for adaptMaxGap windows, so an idle
	// machine, where the parallel mode wins by 1.3–1.8×, spends almost
	// nothing on probes.
	adaptFar = 1.2
	// adaptJump: a window this much slower or faster than the one before
	// it means the machine changed: probe again after the next window.
	adaptJump = 1.25
	// adaptMaxGap is the most windows between probes of the solo mode
	// (~400 decode steps): while the parallel mode is kept, contention
	// shows as a jump in its step time, so the probes need not look for it.
	adaptMaxGap = 128
	// adaptMaxGapSolo is the most windows between probes of the parallel
	// mode. A solo step takes as long whether another process is busy or
	// not (it has a core either way), so only a probe sees the machine
	// free up again; each costs four slower steps, about 1.5% of a 100-step
	// gap under contention.
	adaptMaxGapSolo = 32
	// adaptMaxTokens is the largest step timed: decode's, a speculative
	// verifier's. A prompt's steps differ in depth (the second 64 tokens
	// attend to twice the keys), so windows of them would not compare;
	// they run in the mode the decode chose.
	adaptMaxTokens = 8
)

// adaptCtl is a Pool's choice between the parallel and the solo mode (see
// the comment above). It is driven by mark, called at the start of every
// step, and is not safe for concurrent use (Pool.Mark locks it).
type adaptCtl struct {
	last    time.Time // the previous mark
	n       int       // tokens per step in the current run of marks
	solo    bool      // the mode running now
	skip    bool      // the step now running follows a switch: not timed
	probing bool      // the window running now is a probe of the other mode
	times   [adaptWindow]time.Duration
	k       int           // steps timed in the window running now
	ref     time.Duration // median step of the last window in the kept mode
	gap     int           // windows between probes, doubled by each lost probe
	left    int           // windows before the next probe
	// steps counts the timed steps run in each mode (parallel, solo).
	steps [2]int
}

// mark records that a step of n tokens starts at now (and so that the
// previous one, if it had n tokens too, took now − last), and returns the
// mode the step is to run in.
func (c *adaptCtl) mark(n int, now time.Time) (solo bool) {
	prev := c.last
	c.last = now
	if n != c.n || n > adaptMaxTokens || prev.IsZero() {
		// A step of another size ended the window: start a new one (in
		// the same mode; a probe under way goes on).
		c.n, c.k, c.skip = n, 0, false
		return c.solo
	}
	if c.skip {
		// The step that just ended ran while the other mode's threads
		// were still winding down (a worker spins for spinFor before it
		// parks).
		c.skip = false
		return c.solo
	}
	c.times[c.k] = now.Sub(prev)
	c.k++
	if c.solo {
		c.steps[1]++
	} else {
		c.steps[0]++
	}
	if c.k < adaptWindow {
		return c.solo
	}
	c.k = 0
	med := medianDur(c.times[:])
	if c.probing {
		c.probing = false
		switch {
		case float64(med) < adaptGain*float64(c.ref):
			// The probed mode is faster: keep it, and look back soon
			// in case the machine is still changing.
			c.ref, c.gap = med, 1
		default:
			// Back to the kept mode, and the next probe later.
			c.solo, c.skip = !c.solo, true
			most := adaptMaxGap
			if c.solo {
				most = adaptMaxGapSolo
			}
			if float64(med) > adaptFar*float64(c.ref) {
				c.gap = most
			} else {
				c.gap = min(2*max(c.gap, 1), most)
			}
		}
		c.left = c.gap
		return c.solo
	}
	if c.ref > 0 && (float64(med) > adaptJump*float64(c.ref) || float64(c.ref) > adaptJump*float64(med)) {
		c.gap, c.left = 1, min(c.left, 1)
	}
	c.ref = med
	if c.left--; c.left <= 0 {
		c.probing, c.solo, c.skip = true, !c.solo, true
	}
	return c.solo
}

// medianDur is the median of d, which it sorts in place (an insertion
// sort: sort.Slice would allocate on decode's path).
func medianDur(d []time.Duration) time.Duration {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j] < d[j-1]; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	return d[len(d)/2]
}
