package gpu

import (
	"errors"
	"testing"
	"time"
)

type seqSource struct {
	temps []float64
	power float64
	n     int
	err   error
}

func (s *seqSource) Sample() (Stats, error) {
	if s.err != nil {
		return Stats{}, s.err
	}
	t := s.temps[min(s.n, len(s.temps)-1)]
	s.n++
	return Stats{TempC: t, PowerW: s.power}, nil
}

func TestRankForBoundaries(t *testing.T) {
	c := ThermalConfig{RMin: 256, RMax: 1024, TLow: 65, THigh: 85}
	for _, tc := range []struct {
		temp, power float64
		want        int
	}{
		{40, 0, 1024}, // cool: full rank
		{65, 0, 1024}, // at T_low
		{75, 0, 640},  // half way: 1024 − 768/2
		{85, 0, 256},  // at T_high
		{100, 0, 256}, // hotter: clipped at r_min
	} {
		if got := c.RankFor(tc.temp, tc.power); got != tc.want {
			t.Errorf("r(%g °C) = %d, want %d", tc.temp, got, tc.want)
		}
	}
	c.PowerCapW = 200
	if got := c.RankFor(60, 400); got != 512 { // twice the cap halves the rank
		t.Errorf("power 400 W over a 200 W cap: rank %d, want 512", got)
	}
	if got := c.RankFor(60, 150); got != 1024 {
		t.Errorf("under the cap: rank %d, want 1024", got)
	}
}

func TestThermalRankRateLimitAndLog(t *testing.T) {
	src := &seqSource{temps: []float64{60, 75, 90, 90}}
	tr, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256}, src)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	if d := tr.Decide(t0); d.Rank != 256 {
		t.Fatalf("cool start: %+v", d)
	}
	if d := tr.Decide(t0.Add(100 * time.Millisecond)); d.Rank != 256 || src.n != 1 {
		t.Fatalf("a decision 100 ms later must reuse the last sample: %+v after %d samples", d, src.n)
	}
	if d := tr.Decide(t0.Add(600 * time.Millisecond)); d.Rank != 160 {
		t.Fatalf("75 °C: %+v", d)
	}
	tr.Decide(t0.Add(1200 * time.Millisecond)) // 90 °C → r_min
	log := tr.Log()
	if len(log) != 2 || log[0].TempC != 75 || log[1].Rank != 64 {
		t.Fatalf("log %+v: want the two changes with their temperatures", log)
	}
}

func TestThermalRankWithoutTelemetry(t *testing.T) {
	tr, err := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := tr.Decide(time.Now()); d.Rank != 256 || d.Reason != "no telemetry: base rank" {
		t.Fatalf("%+v", d)
	}
	bad := &seqSource{err: errors.New("lost the device")}
	tr2, _ := NewThermalRank(ThermalConfig{RMin: 64, RMax: 256}, bad)
	if d := tr2.Decide(time.Now()); d.Rank != 256 {
		t.Fatalf("failed telemetry must keep the rank: %+v", d)
	}
	for _, c := range []ThermalConfig{{RMin: 0, RMax: 8}, {RMin: 9, RMax: 8}, {RMin: 1, RMax: 8, TLow: 80, THigh: 70}, {RMin: 1, RMax: 8, PowerCapW: -1}} {
		if _, err := NewThermalRank(c, nil); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
