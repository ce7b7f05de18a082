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
// a step) are alike, so a window of them run in parallel and a window run
// solo (every part on the caller, the workers parked) compare directly.
// The pool probes the mode it is not using now and then: soon after
// parallel steps slow down (contention starting), rarely when the last
// probe lost by far, and at least every ~256 steps while solo (a solo
// step's time does not show contention ending). Steps of more than
// adaptMaxTokens tokens (a prompt's) end the window untimed and run in the
// mode the decode chose.

const (
	// adaptWindow is the steps timed per window. A window's time is
	// their sum, the throughput itself: under contention the parallel
	// mode loses by its stalls (a step waits a scheduler slice for a
	// descheduled worker), which a median would hide.
	adaptWindow = 4
	// adaptGain is how much faster a probed mode must be to be kept: the
	// probe runs after the window it is compared with, a little deeper
	// into the context, and a busy machine's windows wobble, so a near tie
	// leaves the mode as it is.
	adaptGain = 0.9
	// adaptFar: a probe this much slower (or more) than the mode in use
	// puts the next probe off for the most windows, so an idle machine,
	// where the parallel mode wins by 1.3–1.8×, spends almost nothing on
	// probes. A closer loss waits four times as long as the last gap
	// (eight windows at first): a memory-bound decode (a 1B F16 file)
	// gains less from its second thread, and each probe costs five slower
	// steps.
	adaptFar = 1.1
	// adaptAbort: a probe whose steps so far run this much slower than
	// the kept mode's window pace ends there, lost by far.
	adaptAbort = 1.5
	// adaptJump: two parallel windows in a row this much slower than the
	// kept mode's running average mean another process started to
	// compete (its stalls make parallel steps 2–4× slower): probe after
	// the next window. A lower bar (1.25) let the VM's noise set off
	// probes that cost an idle SmolLM2 decode 3–6%.
	adaptJump = 1.5
	// adaptMaxGap is the most windows between probes of the solo mode
	// (~500 decode steps): while the parallel mode is kept, contention
	// shows as a jump in its step time, so the probes need not look for it.
	adaptMaxGap = 128
	// adaptMaxGapSolo is the most windows between probes of the parallel
	// mode. A solo step takes as long whether another process is busy or
	// not (it has a core either way), so only a probe sees the machine
	// free up again. Under contention a probe costs its untimed first
	// step and the step that ends it (adaptAbort), each up to four solo
	// steps' time: a few percent of this 256-step gap.
	adaptMaxGapSolo = 64
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
	last    time.Time     // the previous mark
	n       int           // tokens per step in the current run of marks
	solo    bool          // the mode running now
	skip    bool          // the step now running follows a switch: not timed
	probing bool          // the window running now is a probe of the other mode
	k       int           // steps timed in the window running now
	sum     time.Duration // and their time
	ref     time.Duration // the last window in the kept mode
	avg     time.Duration // the kept mode's windows, a running average
	slow    int           // parallel windows in a row past adaptJump·avg
	gap     int           // windows between probes, grown by each lost probe
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
		c.n, c.k, c.sum, c.skip = n, 0, 0, false
		return c.solo
	}
	if c.skip {
		// The step that just ended ran while the other mode's threads
		// were still winding down (a worker spins for spinFor before it
		// parks) or waking up.
		c.skip = false
		return c.solo
	}
	c.sum += now.Sub(prev)
	c.k++
	if c.solo {
		c.steps[1]++
	} else {
		c.steps[0]++
	}
	// A probe already past adaptAbort times the kept mode's pace has
	// lost: under contention a parallel step can take four solo ones
	// (it waits for a descheduled worker), and the rest of the window
	// would only add to the cost.
	lost := c.probing && float64(c.sum)*adaptWindow > adaptAbort*float64(c.k)*float64(c.ref)
	if c.k < adaptWindow && !lost {
		return c.solo
	}
	w := c.sum * adaptWindow / time.Duration(c.k)
	c.k, c.sum = 0, 0
	if c.probing {
		c.probing = false
		switch {
		case !lost && float64(w) < adaptGain*float64(c.ref):
			// The probed mode is faster: keep it, and look back after
			// two windows in case the machine is still changing.
			c.ref, c.avg, c.slow, c.gap = w, w, 0, 2
		default:
			// Back to the kept mode, and the next probe later.
			c.solo, c.skip = !c.solo, true
			most := adaptMaxGap
			if c.solo {
				most = adaptMaxGapSolo
			}
			if lost || float64(w) > adaptFar*float64(c.ref) {
				c.gap = most
			} else {
				c.gap = min(max(4*c.gap, 8), most)
			}
		}
		c.left = c.gap
		return c.solo
	}
	if c.avg == 0 {
		c.avg = w
	}
	if !c.solo && float64(w) > adaptJump*float64(c.avg) {
		if c.slow++; c.slow >= 2 {
			c.gap, c.left, c.slow = 1, min(c.left, 1), 0
		}
	} else {
		c.slow = 0
	}
	c.ref, c.avg = w, c.avg+(w-c.avg)/4
	if c.left--; c.left <= 0 {
		c.probing, c.solo, c.skip = true, !c.solo, true
	}
	return c.solo
}
