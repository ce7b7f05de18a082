package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// warmingGPU heats up and draws more with every sample, as a GPU does
// under load: call n (from 1) reads 62+3n °C and 100+10n W. It keeps the
// time and draw of every call so a test can work out what a window's
// mean should be.
type warmingGPU struct {
	mu    sync.Mutex
	at    []time.Time
	power []float64
}

func (g *warmingGPU) Sample() (gpu.Stats, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(g.at) + 1
	s := gpu.Stats{Name: "fake H100", TempC: 62 + 3*float64(n), PowerW: 100 + 10*float64(n), PowerLimitW: 700,
		SMClockMHz: 1980, MemClockMHz: 2619, MemUsed: 3 << 29, MemTotal: 80 << 30}
	g.at = append(g.at, time.Now())
	g.power = append(g.power, s.PowerW)
	return s, nil
}

func (g *warmingGPU) calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.at)
}

// meanOver is the time-weighted mean draw from from to to, the trapezoid
// rule between samples and the nearest sample held outside them: worked
// out here from the source's own record, independently of gpu.Meter.
func (g *warmingGPU) meanOver(from, to time.Time) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := func(t time.Time) float64 {
		if !t.After(g.at[0]) {
			return g.power[0]
		}
		for i := 1; i < len(g.at); i++ {
			if t.Before(g.at[i]) {
				f := t.Sub(g.at[i-1]).Seconds() / g.at[i].Sub(g.at[i-1]).Seconds()
				return g.power[i-1] + f*(g.power[i]-g.power[i-1])
			}
		}
		return g.power[len(g.power)-1]
	}
	const steps = 10000 // fine enough that the sum is the integral to 0.1%
	var sum float64
	for i := range steps {
		sum += at(from.Add(time.Duration((float64(i) + 0.5) / steps * float64(to.Sub(from)))))
	}
	return sum / steps
}

// timedSession is the fake session with a prefill (a pause before the first
// token) that records, in wall time, when its reply began and ended, its
// first and last token, and when the TUI first changed a setting.
type timedSession struct {
	*fakeSession
	prefill time.Duration

	tmu                       sync.Mutex
	began, first, last, ended time.Time
	firstSet                  time.Time
}

func (e *timedSession) Send(ctx context.Context, input string, emit func(session.Event)) (session.Turn, error) {
	start := time.Now()
	e.tmu.Lock()
	e.began = start
	e.tmu.Unlock()
	select {
	case <-time.After(e.prefill):
	case <-ctx.Done():
		return session.Turn{Stop: "cancelled"}, ctx.Err()
	}
	turn, err := e.fakeSession.Send(ctx, input, func(ev session.Event) {
		now := time.Now()
		ev.Elapsed = now.Sub(start) // since this Send began, prefill included, as session's are
		e.tmu.Lock()
		if e.first.IsZero() {
			e.first = now
		}
		e.last = now
		e.tmu.Unlock()
		emit(ev)
	})
	e.tmu.Lock()
	e.ended = time.Now()
	e.tmu.Unlock()
	return turn, err
}

func (e *timedSession) Set(name, value string) error {
	e.tmu.Lock()
	if e.firstSet.IsZero() {
		e.firstSet = time.Now()
	}
	e.tmu.Unlock()
	return e.fakeSession.Set(name, value)
}

func (e *timedSession) times() (began, first, last, ended, firstSet time.Time) {
	e.tmu.Lock()
	defer e.tmu.Unlock()
	return e.began, e.first, e.last, e.ended, e.firstSet
}

func newTimed(pieces int, delay, prefill time.Duration) *timedSession {
	f := newFake()
	f.pieces = strings.SplitAfter(strings.TrimSpace(strings.Repeat("word ", pieces)), " ")
	f.delay = delay
	return &timedSession{fakeSession: f, prefill: prefill}
}

// TestThermalDecidesDuringDecode: with a warming GPU the thermal
// controller changes its mind while the reply decodes — each change logged
// at a time inside the reply and shown live in the Hardware pane — and
// the rank it settled on is applied only after the reply has ended.
func TestThermalDecidesDuringDecode(t *testing.T) {
	src := &warmingGPU{}
	th, err := gpu.NewThermalRank(gpu.ThermalConfig{RMin: 64, RMax: 256, MinInterval: 100 * time.Millisecond}, src)
	if err != nil {
		t.Fatal(err)
	}
	e := newTimed(150, 20*time.Millisecond, 0) // a reply of about 3 s: several samples even on a loaded machine
	tm := start(t, e, 120, 50, Options{Telemetry: src, Thermal: th})
	waitFor(t, tm, "ready")
	typeLine(tm, "hello")
	waitFor(t, tm, "thermal rank ", "next turn") // the Hardware pane, live
	waitFor(t, tm, "decided while the reply decoded", "set rank = ")
	m := finish(t, tm)

	began, _, _, ended, firstSet := e.times()
	var during []gpu.Decision
	for _, d := range th.Log() {
		if !d.At.Before(began) && !d.At.After(ended) {
			during = append(during, d)
		}
	}
	if len(during) < 2 {
		t.Fatalf("%d rank changes during a reply of %v on a warming GPU (log %+v)", len(during), ended.Sub(began), th.Log())
	}
	if firstSet.IsZero() || firstSet.Before(ended) {
		t.Errorf("the rank was set at %v, before the reply ended at %v", firstSet, ended)
	}
	last := th.Log()[len(th.Log())-1]
	_, sets, _, _ := e.snapshot()
	if len(sets) != 1 || sets[0] != [2]string{"rank", fmt.Sprint(last.Rank)} {
		t.Errorf("session saw %v; the controller's last decision was rank %d", sets, last.Rank)
	}
	if f := frame(m); !strings.Contains(f, fmt.Sprintf("thermal rank %d", last.Rank)) || strings.Contains(f, "next turn") {
		t.Errorf("after the reply the pane should show the applied rank %d:\n%s", last.Rank, f)
	}
}

// TestTokensPerJoule: after a reply the Perf pane shows decode tok/s over
// the mean power of the decode window — from its first token to its last,
// the prefill left out — worked out from every sample in it, not one.
func TestTokensPerJoule(t *testing.T) {
	src := &warmingGPU{}
	// 600 ms of prefill, then about 0.8 s of decode: the window holds a
	// few samples and the draw rises all along.
	e := newTimed(40, 20*time.Millisecond, 600*time.Millisecond)
	tm := start(t, e, 120, 50, Options{Telemetry: src})
	waitFor(t, tm, "energy  –") // telemetry, no reply yet
	typeLine(tm, "hello")
	waitFor(t, tm, "tok/J")
	m := finish(t, tm)

	began, first, last, _, _ := e.times()
	want := src.meanOver(first, last)
	if d := m.perf.powerW - want; d > 0.01*want || d < -0.01*want {
		t.Errorf("mean power %.2f W, want %.2f W (the decode window's time-weighted mean)", m.perf.powerW, want)
	}
	turn := src.meanOver(began, last)
	if d := want - turn; d < 5 {
		t.Fatalf("test too weak: decode window %.1f W vs whole reply %.1f W", want, turn)
	}
	if d := m.perf.powerW - turn; d < 2.5 {
		t.Errorf("mean power %.2f W is the whole reply's (%.2f W), not the decode's (%.2f W)", m.perf.powerW, turn, want)
	}
	src.mu.Lock()
	var inWindow []float64
	for i, at := range src.at {
		if !at.Before(first) && !at.After(last) {
			inWindow = append(inWindow, src.power[i])
		}
	}
	src.mu.Unlock()
	if len(inWindow) < 2 {
		t.Fatalf("only %d samples in the decode window", len(inWindow))
	}
	for _, p := range inWindow {
		if p == m.perf.powerW {
			t.Errorf("mean power %.2f W is one sample's", p)
		}
	}
	if !nearRel(m.perf.tokJ, e.tokS/m.perf.powerW, 1e-12) {
		t.Errorf("tok/J %g, want %g tok/s / %g W", m.perf.tokJ, e.tokS, m.perf.powerW)
	}
	if want := "energy  " + gpu.FormatTokensPerJoule(m.perf.tokJ) + fmt.Sprintf(" · %.0f W", m.perf.powerW); !strings.Contains(frame(m), want) {
		t.Errorf("pane lacks %q:\n%s", want, frame(m))
	}
}

func nearRel(a, b, tol float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= tol*max(b, -b)
}

// TestHardwareDuringReply: while a reply streams, the Hardware pane shows
// readings taken during it (the reply's sampler, refreshed as it decodes),
// and names the compute device given in Options.
func TestHardwareDuringReply(t *testing.T) {
	src := &warmingGPU{}
	e := newTimed(250, 20*time.Millisecond, 0) // about 5 s: the reply outlasts the sampler's third reading by far, even on a loaded machine
	tm := start(t, e, 120, 50, Options{Telemetry: src, Compute: "CUDA · fake H100"})
	waitFor(t, tm, "compute CUDA · fake H100", "fake H100", "power ")
	k := src.calls()
	typeLine(tm, "hello")
	// Sample k+3 comes from the reply's sampler, at least 500 ms in.
	temp := fmt.Sprintf("%.0f °C", 62+3*float64(k+3))
	waitFor(t, tm, temp)
	_, _, _, ended, _ := e.times()
	if !ended.IsZero() {
		t.Errorf("%s showed only after the reply ended", temp)
	}
	waitFor(t, tm, "ready")
	finish(t, tm)
}

// TestHardwarePollReadsTheMeter: while a reply has a Meter, the pane's
// poll shows the Meter's newest reading instead of reading the device, so
// one sampler reads it at a time; without one it reads the device.
func TestHardwarePollReadsTheMeter(t *testing.T) {
	src := &warmingGPU{}
	mt := gpu.StartMeter(src, nil, time.Hour) // samples at start, and once more at Stop
	mt.Stop()
	h := hardwarePane{src: src}
	h.begin(mt)
	msg := h.poll()().(hwMsg)
	if n := src.calls(); n != 2 || msg.stats.TempC != 62+3*2 {
		t.Errorf("with a Meter: %d device reads, pane got %.0f °C; want 2 reads and the Meter's last (68 °C)", n, msg.stats.TempC)
	}
	h.end()
	msg = h.poll()().(hwMsg)
	if n := src.calls(); n != 3 || msg.stats.TempC != 62+3*3 {
		t.Errorf("between replies: %d device reads, pane got %.0f °C; want a read of its own", n, msg.stats.TempC)
	}
}

// TestHardwarePaneLines: the compute device is always named; on the CPU
// without telemetry the pane says so in one line, and the Perf pane has
// no energy line at all.
func TestHardwarePaneLines(t *testing.T) {
	info := newFake().info
	h := hardwarePane{compute: cpuLabel(info)}
	got := ansi.Strip(strings.Join(h.lines(0), "\n"))
	if want := "compute cpu avx2 × 2 threads\n" + gpu.NoTelemetry; got != want {
		t.Errorf("CPU, no telemetry:\n%s\nwant:\n%s", got, want)
	}
	if l := cpuLabel(session.Info{Kernels: "go"}); l != "cpu go" {
		t.Errorf("no thread count: %q", l)
	}
	h.decide(gpu.Decision{Rank: 256, Reason: "no telemetry: base rank"})
	if got := ansi.Strip(strings.Join(h.lines(256), "\n")); !strings.HasSuffix(got, "thermal rank 256") {
		t.Errorf("thermal line: %q", got)
	}

	p := perfPane{}
	p.finish(session.Turn{Tokens: 40, DecodeTokS: 90})
	p.measure(90, gpu.Window{Samples: 3, MeanPowerW: 180}) // even a window: no telemetry, no line
	if s := strings.Join(p.lines(30), "\n"); strings.Contains(s, "energy") || strings.Contains(s, "tok/J") {
		t.Errorf("no telemetry, yet:\n%s", s)
	}
	p.energy = true
	p.measure(90, gpu.Window{Samples: 3, MeanPowerW: 180})
	if s := ansi.Strip(strings.Join(p.lines(30), "\n")); !strings.Contains(s, "energy  0.50 tok/J · 180 W") {
		t.Errorf("90 tok/s at 180 W:\n%s", s)
	}
	p.measure(90, gpu.Window{})
	if s := ansi.Strip(strings.Join(p.lines(30), "\n")); !strings.Contains(s, "energy  –") || strings.Contains(s, "tok/J") {
		t.Errorf("a turn without a power reading must show none, not 0:\n%s", s)
	}
}

func TestDecidedDuring(t *testing.T) {
	t0 := time.Unix(100, 0)
	var log []gpu.Decision
	for i := range 6 {
		log = append(log, gpu.Decision{At: t0.Add(time.Duration(i) * time.Second), TempC: float64(70 + i), Rank: 200 - 10*i})
	}
	if got, want := decidedDuring(log, t0.Add(time.Second), t0.Add(2*time.Second)), "71 °C → 190, 72 °C → 180"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := decidedDuring(log, t0, t0.Add(time.Hour)), "6 changes, the last 73 °C → 170, 74 °C → 160, 75 °C → 150"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := decidedDuring(log, t0.Add(time.Hour), t0.Add(2*time.Hour)); got != "" {
		t.Errorf("none in the span: %q", got)
	}
}
