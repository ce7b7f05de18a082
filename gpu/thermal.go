package gpu

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// ThermalConfig is the thermal rank controller's policy (docs/mechanisms.md §4):
// the rank falls linearly from RMax at TLow to RMin at THigh, and a power
// cap, when set, lowers it further in proportion to the excess draw.
type ThermalConfig struct {
	RMin, RMax  int
	TLow, THigh float64       // °C; defaults 65 and 85
	PowerCapW   float64       // 0: no cap
	MinInterval time.Duration // decisions at most this often; default 500 ms
}

// Decision is one step of the controller, kept for the log and the pane.
type Decision struct {
	At     time.Time
	Rank   int
	TempC  float64
	PowerW float64
	Reason string
}

// ThermalRank chooses a GRC rank from GPU telemetry. Without telemetry it
// holds the base rank and says so. It is safe for concurrent use: a Meter
// feeds it samples from its own goroutine while a reply decodes, and the
// UI asks it for the rank to apply once the reply has ended.
type ThermalRank struct {
	cfg ThermalConfig
	src Source

	mu   sync.Mutex
	last Decision
	log  []Decision
}

// NewThermalRank validates cfg; src may be nil (no telemetry).
func NewThermalRank(cfg ThermalConfig, src Source) (*ThermalRank, error) {
	if cfg.TLow == 0 && cfg.THigh == 0 {
		cfg.TLow, cfg.THigh = 65, 85
	}
	if cfg.MinInterval == 0 {
		cfg.MinInterval = 500 * time.Millisecond
	}
	switch {
	case cfg.RMin < 1 || cfg.RMax < cfg.RMin:
		return nil, fmt.Errorf("gpu: thermal rank range [%d, %d] is empty or below 1", cfg.RMin, cfg.RMax)
	case !(cfg.THigh > cfg.TLow):
		return nil, fmt.Errorf("gpu: thermal range %g–%g °C is empty", cfg.TLow, cfg.THigh)
	case cfg.PowerCapW < 0:
		return nil, fmt.Errorf("gpu: negative power cap %g W", cfg.PowerCapW)
	}
	return &ThermalRank{cfg: cfg, src: src, last: Decision{Rank: cfg.RMax, Reason: "start"}}, nil
}

// RankFor is the policy: r(T) = clip(RMax − (RMax − RMin)·(T − TLow)/(THigh − TLow)),
// then scaled down by PowerCapW/PowerW when the draw exceeds the cap, and
// clipped to [RMin, RMax] again.
func (c ThermalConfig) RankFor(tempC, powerW float64) int {
	frac := math.Max(0, math.Min(1, (tempC-c.TLow)/(c.THigh-c.TLow)))
	r := float64(c.RMax) - float64(c.RMax-c.RMin)*frac
	if c.PowerCapW > 0 && powerW > c.PowerCapW {
		r *= c.PowerCapW / powerW
	}
	return int(math.Round(math.Max(float64(c.RMin), math.Min(float64(c.RMax), r))))
}

// Decide samples the telemetry (at most once per MinInterval) and returns
// the rank to use now. A decision that changes the rank is logged with the
// temperature that caused it.
func (t *ThermalRank) Decide(now time.Time) Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.limited(now) {
		return t.last
	}
	if t.src == nil {
		t.last = Decision{At: now, Rank: t.cfg.RMax, Reason: "no telemetry: base rank"}
		return t.last
	}
	s, err := t.src.Sample()
	return t.decide(now, s, err)
}

// Observe is Decide on a sample someone else took (err: the sample
// failed), so that one sampler can feed the pane, the power meter and the
// controller without reading the device once for each. The same rate limit
// applies: a sample within MinInterval of the last decision is ignored.
func (t *ThermalRank) Observe(now time.Time, s Stats, err error) Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.limited(now) {
		return t.last
	}
	return t.decide(now, s, err)
}

// limited reports whether a decision at now would come too soon after the
// last one. t.mu is held.
func (t *ThermalRank) limited(now time.Time) bool {
	return !t.last.At.IsZero() && now.Sub(t.last.At) < t.cfg.MinInterval
}

// decide applies the policy to one sample. t.mu is held.
func (t *ThermalRank) decide(now time.Time, s Stats, err error) Decision {
	if err != nil {
		t.last = Decision{At: now, Rank: t.last.Rank, Reason: "telemetry failed, rank kept: " + err.Error()}
		return t.last
	}
	r := t.cfg.RankFor(s.TempC, s.PowerW)
	d := Decision{At: now, Rank: r, TempC: s.TempC, PowerW: s.PowerW,
		Reason: fmt.Sprintf("%.0f °C, %.0f W → rank %d", s.TempC, s.PowerW, r)}
	if r != t.last.Rank {
		t.log = append(t.log, d)
	}
	t.last = d
	return d
}

// Log is every decision that changed the rank, oldest first (a copy: the
// controller may be deciding on another goroutine).
func (t *ThermalRank) Log() []Decision {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Decision(nil), t.log...)
}
