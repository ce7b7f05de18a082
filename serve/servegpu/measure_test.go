package servegpu

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestServe2OnCPU runs the device check's measurements (servegpu_test.go)
// here, on CPU backends: the server over a session, streams of 1, 4 and 8
// requests at once on kjv Q4_K_M, then the batched replies against each
// alone on the two fixtures
// TestGPUServe2Equal serves. Every measurement must write its records and
// the batched replies must equal the lone ones, so that the device check
// does not find the measurements' bugs for the first time on a GPU. (Its
// speeds and ratios say nothing of a GPU's.)
func TestServe2OnCPU(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(fixtureDir(), "kjv", "kjv-q4_k_m.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("fixture %s is missing (the tests read ../shared/fixtures): %v", path, err)
	}
	t.Setenv("ISAGI_DEVICE_OUT", dir)
	g := cpuDevice{}
	const bw = 1e12 // not measured on the CPU: any positive figure
	serve2Rounds(t, g, path, bw, serve2Config{streams: []int{4, 8}, rounds: 2, steps: 5, prompt: 20, chunk: 8})
	for _, rel := range serve2EqualModels {
		serve2Equal(t, g, filepath.Join(fixtureDir(), rel), filepath.Base(rel), 1, false)
	}

	b, err := os.ReadFile(filepath.Join(dir, "serve2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, line := range splitLines(b) {
		var r struct {
			Kind    string
			Streams int
			Met     *bool
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		got[r.Kind]++
		if r.Kind == "decode" && r.Streams == 4 && r.Met == nil {
			t.Errorf("the 4-stream record has no verdict: %s", line)
		}
		if r.Kind == "ttft" && r.Met == nil {
			t.Errorf("the TTFT record has no verdict: %s", line)
		}
	}
	// 1 is measured though not asked for: it is the ratios' denominator.
	for kind, n := range map[string]int{"decode": 3, "ttft": 1, "equal": len(serve2EqualModels)} {
		if got[kind] != n {
			t.Errorf("%d %s records, want %d (all: %v)", got[kind], kind, n, got)
		}
	}
	t.Logf("records: %v", got)
}

// TestServe2Figures checks a round's figures on made-up arrival times:
// the steady window, the fallback when the streams never all decode at
// once, TTFT and the percentiles.
func TestServe2Figures(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var ts []time.Time
		for _, m := range ms {
			ts = append(ts, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return ts
	}
	// Two streams sent at 0: first tokens at 10 and 20 ms, then a token
	// every 10 ms to 100 and 110; final chunks 1 ms after the last token.
	a := serve2Stream{sent: t0, tokens: at(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), end: t0.Add(101 * time.Millisecond), n: 10}
	b := serve2Stream{sent: t0, tokens: at(20, 30, 40, 50, 60, 70, 80, 90, 100, 110), end: t0.Add(111 * time.Millisecond), n: 10}
	f := serve2FiguresOf([]serve2Stream{a, b})
	// The window (20, 100] ms: 8 tokens of each in 80 ms.
	if !f.steady || !near(f.window, 0.080) || !near(f.agg, 16/0.080) {
		t.Errorf("steady: %+v", f)
	}
	if !near(f.ttft[0], 0.010) || !near(f.ttft[1], 0.020) {
		t.Errorf("ttft %v", f.ttft)
	}
	if !near(f.overall, 20/0.111) {
		t.Errorf("overall %g", f.overall)
	}
	// One stream: its tokens after the first over its first to last.
	f = serve2FiguresOf([]serve2Stream{a})
	if !f.steady || !near(f.agg, 9/0.090) {
		t.Errorf("one stream: %+v", f)
	}
	// The second starts when the first is done: no common window.
	c := serve2Stream{sent: t0, tokens: at(200, 210, 220), end: t0.Add(221 * time.Millisecond), n: 3}
	f = serve2FiguresOf([]serve2Stream{a, c})
	if f.steady || !near(f.window, 0.210) || !near(f.agg, 11/0.210) {
		t.Errorf("no common window: %+v", f)
	}
	// A reply whose text never came: its final chunk stands for its
	// first token.
	d := serve2Stream{sent: t0, end: t0.Add(50 * time.Millisecond), n: 1}
	if f = serve2FiguresOf([]serve2Stream{d}); !near(f.ttft[0], 0.050) || f.agg != 0 {
		t.Errorf("no text: %+v", f)
	}
	v := []float64{5, 1, 4, 2, 3}
	if p := percentile(v, 50); p != 3 {
		t.Errorf("p50 %g", p)
	}
	if p := percentile(v, 99); p != 5 {
		t.Errorf("p99 %g", p)
	}
	if p := percentile(v, 20); p != 1 {
		t.Errorf("p20 %g", p)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
