package gpu

import (
	"errors"
	"math"
	"os"
	"sync"
	"testing"
	"time"
)

// warmingGPU heats up and draws more power with every sample, as a GPU
// does under a decode: call n (from 1) reads 60+5n °C and 100·n W.
type warmingGPU struct {
	mu    sync.Mutex
	n     int
	panic bool
}

func (g *warmingGPU) Sample() (Stats, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.panic {
		panic("driver binding fell over")
	}
	g.n++
	return Stats{Name: "fake GPU", TempC: 60 + 5*float64(g.n), PowerW: 100 * float64(g.n)}, nil
}

func (g *warmingGPU) calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestMeanPowerIsTimeWeighted: the mean over a window weighs the draw by
// time, interpolating between samples, so it is not any one sample.
func TestMeanPowerIsTimeWeighted(t *testing.T) {
	t0 := time.Unix(1000, 0)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ps := []powerSample{{sec(0), 100}, {sec(1), 200}, {sec(2), 400}}

	// 0.5 s → 1.5 s: 150 W rising to 200 W, then 200 W rising to 300 W.
	w := meanPower(ps, sec(0.5), sec(1.5))
	if want := (150+200)/2*0.5 + (200+300)/2*0.5; !near(w.EnergyJ, want) || !near(w.MeanPowerW, want/1) {
		t.Errorf("0.5–1.5 s: %+v, want %g J and %g W", w, want, want)
	}
	if w.Samples != 3 || w.Duration != time.Second {
		t.Errorf("0.5–1.5 s: %d samples over %v, want the one inside and one on each side over 1s", w.Samples, w.Duration)
	}
	if w.MeanPowerW == 200 {
		t.Error("the mean is the one sample inside the window")
	}
	// The whole run: (100+200)/2 + (200+400)/2 = 450 J over 2 s.
	if w := meanPower(ps, sec(0), sec(2)); !near(w.MeanPowerW, 225) || w.Samples != 3 {
		t.Errorf("0–2 s: %+v, want 225 W from 3 samples", w)
	}
	// A decode shorter than the interval, between two samples: the mean
	// of the interpolated draw at its ends.
	if w := meanPower(ps, sec(1.25), sec(1.75)); !near(w.MeanPowerW, 300) || w.Samples != 2 {
		t.Errorf("1.25–1.75 s: %+v, want 300 W from the 2 samples around it", w)
	}
	// Outside the samples the draw is held at the nearest one.
	if w := meanPower(ps, sec(-2), sec(-1)); !near(w.MeanPowerW, 100) || w.Samples != 1 {
		t.Errorf("before the samples: %+v", w)
	}
	if w := meanPower(ps, sec(3), sec(5)); !near(w.MeanPowerW, 400) || w.Samples != 1 {
		t.Errorf("after the samples: %+v", w)
	}
	for _, w := range []Window{meanPower(nil, sec(0), sec(1)), meanPower(ps, sec(1), sec(1)), meanPower(ps, sec(2), sec(1))} {
		if w != (Window{}) {
			t.Errorf("no samples or no span: %+v, want the zero Window", w)
		}
	}
}

func TestTokensPerJoule(t *testing.T) {
	w := Window{Duration: time.Second, Samples: 3, MeanPowerW: 212.5, EnergyJ: 212.5}
	if v, ok := w.TokensPerJoule(425); !ok || !near(v, 2) {
		t.Errorf("425 tok/s at 212.5 W: %g, %v; want 2 tok/J", v, ok)
	}
	for v, want := range map[float64]string{0.333: "0.33 tok/J", 12.94: "12.9 tok/J", 412.4: "412 tok/J"} {
		if got := FormatTokensPerJoule(v); got != want {
			t.Errorf("FormatTokensPerJoule(%g) = %q, want %q", v, got, want)
		}
	}
	for _, c := range []struct {
		w    Window
		tokS float64
	}{
		{Window{}, 425},                          // no telemetry
		{Window{Samples: 2, MeanPowerW: 0}, 425}, // the device reports no power
		{w, 0},                                   // no decode (an answer from memory)
	} {
		if v, ok := c.w.TokensPerJoule(c.tokS); ok {
			t.Errorf("%+v at %g tok/s: %g tok/J, want none", c.w, c.tokS, v)
		}
	}
}

// TestMeterFeedsThermalDuringDecode: while a (simulated) decode runs, the
// Meter samples on its own and the thermal controller decides from those
// samples, rank changes logged with times inside the decode; Stop joins
// the goroutine, after which nothing samples.
func TestMeterFeedsThermalDuringDecode(t *testing.T) {
	src := &warmingGPU{}
	th, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256, MinInterval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	m := StartMeter(src, th, 5*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for src.calls() < 6 && time.Now().Before(deadline) { // the "decode"
		time.Sleep(time.Millisecond)
	}
	decodeEnd := time.Now()
	m.Stop()
	m.Stop() // twice is fine
	n := src.calls()
	time.Sleep(20 * time.Millisecond)
	if src.calls() != n {
		t.Fatalf("the source was sampled after Stop returned (%d → %d calls)", n, src.calls())
	}
	log := th.Log()
	// 65, 70, 75, … °C: every sample from the second on changes the rank.
	if len(log) < 3 {
		t.Fatalf("%d rank changes from %d warming samples: %+v", len(log), n, log)
	}
	for _, d := range log[:len(log)-1] { // the last may be Stop's closing sample
		if d.At.Before(began) || d.At.After(decodeEnd) {
			t.Errorf("decision at %v is outside the decode [%v, %v]", d.At, began, decodeEnd)
		}
	}
	if log[len(log)-1].Rank >= log[0].Rank {
		t.Errorf("a warming GPU did not lower the rank: %+v", log)
	}
	d, ok := m.Thermal()
	r, rok := m.Latest()
	// The closing sample may come within MinInterval of the decision
	// before it, which then stands.
	if !ok || !rok || d.TempC < 65 || d.TempC > r.Stats.TempC || r.Stats.TempC != 60+5*float64(n) {
		t.Errorf("after %d samples: decision %+v (%v), latest %+v (%v)", n, d, ok, r, rok)
	}
}

// TestMeterWindowSpansSamples: the power of a window several samples long
// is their time-weighted mean — above the first sample's draw and below
// the last's on a GPU that draws more and more.
func TestMeterWindowSpansSamples(t *testing.T) {
	src := &warmingGPU{}
	m := StartMeter(src, nil, 2*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for src.calls() < 2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	from := time.Now()
	for src.calls() < 8 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	to := time.Now()
	m.Stop()
	w := m.Window(from, to)
	last := 100 * float64(src.calls())
	if w.Samples < 4 || w.MeanPowerW <= 200 || w.MeanPowerW >= last {
		t.Errorf("window %+v: want ≥ 4 samples and a mean strictly between 200 W and %g W", w, last)
	}
	if !near(w.EnergyJ, w.MeanPowerW*to.Sub(from).Seconds()) {
		t.Errorf("energy %g J ≠ %g W × %v", w.EnergyJ, w.MeanPowerW, to.Sub(from))
	}
}

func TestMeterBoundsItsSamples(t *testing.T) {
	m := &Meter{samples: make([]powerSample, 0, meterCap)}
	t0 := time.Unix(0, 0)
	for i := range 5 * meterCap {
		m.push(powerSample{at: t0.Add(time.Duration(i) * time.Millisecond), powerW: float64(i)})
	}
	if len(m.samples) > meterCap || cap(m.samples) != meterCap {
		t.Fatalf("%d samples kept in a buffer of %d, bound %d", len(m.samples), cap(m.samples), meterCap)
	}
	if m.samples[0].powerW != 0 || m.samples[len(m.samples)-1].powerW != float64(5*meterCap-1) {
		t.Errorf("thinning lost the start or the end: %g … %g", m.samples[0].powerW, m.samples[len(m.samples)-1].powerW)
	}
	for i := 1; i < len(m.samples); i++ {
		if !m.samples[i].at.After(m.samples[i-1].at) {
			t.Fatalf("samples out of order at %d", i)
		}
	}
}

// TestMeterWithoutSource: a Meter with only a thermal controller lets it
// sample its own source; with neither it only ticks; a nil Meter and a
// panicking source are harmless.
func TestMeterWithoutSource(t *testing.T) {
	own := &warmingGPU{}
	th, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256, MinInterval: time.Millisecond}, own)
	if err != nil {
		t.Fatal(err)
	}
	m := StartMeter(nil, th, time.Millisecond)
	time.Sleep(10 * time.Millisecond)
	m.Stop()
	if d, ok := m.Thermal(); !ok || own.calls() == 0 || d.TempC == 0 {
		t.Errorf("controller not asked: %+v (%v) after %d samples of its source", d, ok, own.calls())
	}
	if _, ok := m.Latest(); ok {
		t.Error("a reading without a source")
	}
	bare := StartMeter(nil, nil, time.Millisecond)
	bare.Stop()
	if w := bare.Window(time.Now().Add(-time.Second), time.Now()); w != (Window{}) {
		t.Errorf("window without a source: %+v", w)
	}
	var none *Meter
	none.Stop()
	if _, ok := none.Latest(); ok {
		t.Error("nil Meter has a reading")
	}
	if _, ok := none.Thermal(); ok {
		t.Error("nil Meter has a decision")
	}
	bad := StartMeter(&warmingGPU{panic: true}, nil, time.Millisecond)
	bad.Stop()
	if r, ok := bad.Latest(); !ok || !errors.Is(r.Err, ErrNoNVML) {
		t.Errorf("panicking source: %+v, %v", r, ok)
	}
}

// TestThermalObserve: Observe applies the policy and the rate limit to a
// sample taken elsewhere, and a failed sample keeps the rank; Decide and
// Observe may race (run with -race).
func TestThermalObserve(t *testing.T) {
	src := &warmingGPU{}
	tr, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256}, src)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	if d := tr.Observe(t0, Stats{TempC: 75}, nil); d.Rank != 160 {
		t.Fatalf("75 °C: %+v", d)
	}
	if d := tr.Observe(t0.Add(100*time.Millisecond), Stats{TempC: 90}, nil); d.Rank != 160 {
		t.Fatalf("a sample 100 ms later must be ignored: %+v", d)
	}
	if d := tr.Observe(t0.Add(time.Second), Stats{}, errors.New("lost the device")); d.Rank != 160 {
		t.Fatalf("a failed sample must keep the rank: %+v", d)
	}
	if src.calls() != 0 {
		t.Fatalf("Observe sampled the source %d times", src.calls())
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				at := t0.Add(time.Duration(2+i*50+j) * time.Second)
				if i%2 == 0 {
					tr.Decide(at)
				} else {
					tr.Observe(at, Stats{TempC: float64(60 + j)}, nil)
				}
				_ = tr.Log()
			}
		}()
	}
	wg.Wait()
}

// TestMeterOnNVML samples a real GPU for a moment (ISAGI_EXPECT_GPU=1 on a
// GPU machine; skipped elsewhere): readings with a name and a draw, and a
// window with a positive mean power over several samples.
func TestMeterOnNVML(t *testing.T) {
	if os.Getenv("ISAGI_EXPECT_GPU") != "1" {
		t.Skip("no GPU expected; set ISAGI_EXPECT_GPU=1 on a GPU machine")
	}
	n, err := NewNVML()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	th, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256}, n)
	if err != nil {
		t.Fatal(err)
	}
	m := StartMeter(n, th, 50*time.Millisecond)
	from := time.Now()
	time.Sleep(600 * time.Millisecond)
	to := time.Now()
	m.Stop()
	r, ok := m.Latest()
	d, dok := m.Thermal()
	w := m.Window(from, to)
	t.Logf("latest %+v\nthermal %+v\nwindow %+v", r, d, w)
	if !ok || r.Err != nil || r.Stats.Name == "" || r.Stats.PowerW <= 0 {
		t.Errorf("reading %+v (%v)", r, ok)
	}
	if !dok || d.TempC <= 0 {
		t.Errorf("no thermal decision from the samples: %+v", d)
	}
	if w.Samples < 5 || w.MeanPowerW <= 0 {
		t.Errorf("window %+v: want several samples and a positive mean", w)
	}
}
