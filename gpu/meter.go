package gpu

import (
	"fmt"
	"sync"
	"time"
)

// MeterInterval is how often a Meter samples by default: often enough that
// a reply of a second gets a handful of samples and the thermal controller
// sees the heat of generation as it builds, rarely enough that reading
// NVML (well under a millisecond per sample) costs the decode nothing
// measurable.
const MeterInterval = 250 * time.Millisecond

// meterCap bounds the power samples a Meter keeps (at 250 ms, four
// minutes' worth before the first thinning; see push).
const meterCap = 1024

// Reading is one sample a Meter took.
type Reading struct {
	At    time.Time
	Stats Stats
	Err   error // the sample failed; Stats is zero
}

// powerSample is the part of a Reading the power window integrates.
type powerSample struct {
	at     time.Time
	powerW float64
}

// Window is the GPU's power over a span of time: the decode of one reply.
type Window struct {
	Duration   time.Duration
	Samples    int     // samples the mean is made of (those inside the span and the one on each side)
	MeanPowerW float64 // time-weighted mean draw
	EnergyJ    float64 // MeanPowerW × Duration
}

// TokensPerJoule is tokS (decode tokens per second) over the mean power:
// tokens per joule of GPU energy. ok is false when the window has no
// samples, the device reports no power, or tokS is not positive — there
// is then no figure to show, which is not the same as a figure of 0.
func (w Window) TokensPerJoule(tokS float64) (tpj float64, ok bool) {
	if w.Samples == 0 || w.MeanPowerW <= 0 || tokS <= 0 {
		return 0, false
	}
	return tokS / w.MeanPowerW, true
}

// FormatTokensPerJoule shows a tokens-per-joule figure to about three
// significant figures, e.g. "0.33 tok/J", "12.9 tok/J", "412 tok/J": a
// large model on a big GPU makes fractions, a small one tens or hundreds.
func FormatTokensPerJoule(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f tok/J", v)
	case v < 100:
		return fmt.Sprintf("%.1f tok/J", v)
	default:
		return fmt.Sprintf("%.0f tok/J", v)
	}
}

// Meter samples a Source on its own goroutine while a model generates: it
// keeps the newest reading for a live display, the power samples for
// Window, and feeds every sample to a ThermalRank so that the controller
// decides from the load of generation rather than from an idle GPU between
// turns. Start one per reply with StartMeter and Stop it when the reply
// ends; its methods are safe for concurrent use and a nil *Meter does
// nothing.
type Meter struct {
	src     Source
	thermal *ThermalRank

	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	latest   Reading
	have     bool
	decision Decision
	decided  bool
	samples  []powerSample // time order; capacity meterCap, never grown
}

// StartMeter starts sampling src every interval (MeterInterval when 0 or
// less): once at once, so that a window opening now has a sample at its
// start, then on every tick, and once more when stopped. thermal, when not
// nil, is given every sample (ThermalRank.Observe); with a nil src it is
// asked to sample its own source instead (ThermalRank.Decide). Both may be
// nil: the Meter then only ticks.
func StartMeter(src Source, thermal *ThermalRank, interval time.Duration) *Meter {
	if interval <= 0 {
		interval = MeterInterval
	}
	m := &Meter{
		src: src, thermal: thermal,
		stop: make(chan struct{}), done: make(chan struct{}),
		samples: make([]powerSample, 0, meterCap),
	}
	go m.run(interval)
	return m
}

func (m *Meter) run(interval time.Duration) {
	defer close(m.done)
	m.sample()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			// A last sample closes the window: a decode shorter than the
			// interval is then still bracketed by two samples.
			m.sample()
			return
		case <-t.C:
			m.sample()
		}
	}
}

// sample reads the source once and hands the reading to its users.
func (m *Meter) sample() {
	now := time.Now()
	if m.src == nil {
		if m.thermal != nil {
			d := m.thermal.Decide(now)
			m.mu.Lock()
			m.decision, m.decided = d, true
			m.mu.Unlock()
		}
		return
	}
	s, err := sampleRecovered(m.src)
	var d Decision
	if m.thermal != nil {
		d = m.thermal.Observe(now, s, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.latest, m.have = Reading{At: now, Stats: s, Err: err}, true
	if m.thermal != nil {
		m.decision, m.decided = d, true
	}
	if err == nil {
		m.push(powerSample{at: now, powerW: s.PowerW})
	}
}

// sampleRecovered is src.Sample with a panic turned into an error: the
// Meter's goroutine must not take the program down with a faulty driver
// binding.
func sampleRecovered(src Source) (s Stats, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = Stats{}, fmt.Errorf("%w: sample panicked: %v", ErrNoNVML, r)
		}
	}()
	return src.Sample()
}

// push appends a power sample. When the buffer is full every other sample
// is dropped rather than the oldest ones: a very long reply keeps the
// start of its window at half the resolution instead of losing it, and
// the memory stays bounded. m.mu is held.
func (m *Meter) push(p powerSample) {
	if len(m.samples) == cap(m.samples) {
		n := 0
		for i := 0; i < len(m.samples); i += 2 {
			m.samples[n] = m.samples[i]
			n++
		}
		m.samples = m.samples[:n]
	}
	m.samples = append(m.samples, p)
}

// Stop takes a last sample, stops the sampling goroutine and waits for it
// to end. It may be called more than once.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	m.stopOnce.Do(func() { close(m.stop) })
	<-m.done
}

// Latest is the newest reading; ok is false before the first.
func (m *Meter) Latest() (r Reading, ok bool) {
	if m == nil {
		return Reading{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.latest, m.have
}

// Thermal is the thermal controller's newest decision made from this
// Meter's samples; ok is false when there is no controller or it has not
// decided yet.
func (m *Meter) Thermal() (d Decision, ok bool) {
	if m == nil {
		return Decision{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decision, m.decided
}

// Window is the mean power from from to to, from the samples taken so far.
func (m *Meter) Window(from, to time.Time) Window {
	if m == nil {
		return Window{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return meanPower(m.samples, from, to)
}

// meanPower integrates the power over [from, to] and divides by the span.
// Between two samples the draw is taken to change linearly (the
// trapezoid rule); before the first and after the last it is held at
// that sample's value. A decode is rarely an exact number of sample
// intervals long, so one sample inside the span, or none, is common: the
// samples on either side still weigh in by how close they are. ps is in
// time order.
func meanPower(ps []powerSample, from, to time.Time) Window {
	span := to.Sub(from)
	if len(ps) == 0 || span <= 0 {
		return Window{}
	}
	used := 0
	before, after := false, false
	for _, p := range ps {
		switch {
		case !p.at.After(from):
			before = true // the last of these brackets the start
		case p.at.Before(to):
			used++
		default:
			after = true
		}
	}
	if before {
		used++
	}
	if after {
		used++
	}
	prevT, prevP := from, powerAt(ps, from)
	var joules float64
	for _, p := range ps {
		if !p.at.After(from) {
			continue
		}
		if !p.at.Before(to) {
			break
		}
		joules += (prevP + p.powerW) / 2 * p.at.Sub(prevT).Seconds()
		prevT, prevP = p.at, p.powerW
	}
	joules += (prevP + powerAt(ps, to)) / 2 * to.Sub(prevT).Seconds()
	return Window{Duration: span, Samples: used, MeanPowerW: joules / span.Seconds(), EnergyJ: joules}
}

// powerAt interpolates the draw at t between the samples around it.
func powerAt(ps []powerSample, t time.Time) float64 {
	if !t.After(ps[0].at) {
		return ps[0].powerW
	}
	for i := 1; i < len(ps); i++ {
		if t.Before(ps[i].at) {
			a, b := ps[i-1], ps[i]
			f := t.Sub(a.at).Seconds() / b.at.Sub(a.at).Seconds()
			return a.powerW + f*(b.powerW-a.powerW)
		}
	}
	return ps[len(ps)-1].powerW
}
