package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/testkit/peer"
)

// TestSpeed measures prefill and decode through one and two loopback
// rpc-servers against the local CPU backend, on synthetic models of the
// SmolLM2-135M and 1B shapes, the sides alternated over rounds in one run.
// It prints the table docs/remote.md keeps. It is a measurement, not a
// check: it runs only with ISAGI_REMOTE_SPEED=1 (make bench-remote).
//
// The models are ISAGI_REMOTE_MODELS/SHAPE-TYPE.gguf, which make
// bench-remote writes with engine/internal/synth/synthgguf -random.
// Knobs: ISAGI_REMOTE_SHAPES ("smollm2-135m llama-1b"), ISAGI_REMOTE_TYPES
// ("Q8_0 Q4_0"), ISAGI_REMOTE_ROUNDS (3), ISAGI_REMOTE_THREADS (2: the
// local backend's and each server's threads).
func TestSpeed(t *testing.T) {
	if os.Getenv("ISAGI_REMOTE_SPEED") != "1" {
		t.Skip("a measurement: make bench-remote runs it")
	}
	shapes := strings.Fields(envOr("ISAGI_REMOTE_SHAPES", "smollm2-135m llama-1b"))
	types := strings.Fields(envOr("ISAGI_REMOTE_TYPES", "Q8_0 Q4_0"))
	rounds := atoiOr(envOr("ISAGI_REMOTE_ROUNDS", "3"), 3)
	threads := atoiOr(envOr("ISAGI_REMOTE_THREADS", "2"), 2)
	a1, _ := startServer(t, threads)
	a2, _ := startServer(t, threads)
	const prompt, decode = 128, 64
	dir := os.Getenv("ISAGI_REMOTE_MODELS")
	fmt.Printf("\n%d CPUs (%s), local backend and each server %d threads; prompt %d, decode %d tokens; best of %d rounds (spread: worst/best)\n\n",
		runtime.NumCPU(), runtime.GOARCH, threads, prompt, decode, rounds)
	fmt.Println("| shape | type | side | prefill tok/s | decode tok/s | decode vs local | round trips/token | KiB sent/token | graphs recomputed | waiting |")
	fmt.Println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, shape := range shapes {
		for _, ty := range types {
			path := filepath.Join(dir, shape+"-"+ty+".gguf")
			m, err := model.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			sides := []side{{name: "local cpu"}, {name: "1 server", addrs: []string{a1}}, {name: "2 servers", addrs: []string{a1, a2}}}
			for r := range rounds {
				for i := range sides {
					// Alternate the order each round, so that a slow spell
					// of the machine does not fall on one side.
					s := &sides[i]
					if r%2 == 1 {
						s = &sides[len(sides)-1-i]
					}
					s.run(t, m, threads, prompt, decode)
				}
			}
			m.Close()
			local := sides[0].best(func(x sample) float64 { return x.decode })
			for _, s := range sides {
				d := s.best(func(x sample) float64 { return x.decode })
				p := s.best(func(x sample) float64 { return x.prefill })
				ratio := "1"
				if s.addrs != nil {
					ratio = fmt.Sprintf("%.2f", d/local)
				}
				last := s.samples[len(s.samples)-1]
				rt, kb, rc, w := "–", "–", "–", "–"
				if s.addrs != nil {
					rt = fmt.Sprintf("%.2f", last.roundTrips)
					kb = fmt.Sprintf("%.1f", last.sentKiB)
					rc = fmt.Sprintf("%.0f%%", 100*last.recomputed)
					w = fmt.Sprintf("%.0f%%", 100*last.waitShare)
				}
				fmt.Printf("| %s | %s | %s | %.1f (%.2f) | %.1f (%.2f) | %s | %s | %s | %s | %s |\n", shape, ty, s.name,
					p, s.spread(func(x sample) float64 { return x.prefill }),
					d, s.spread(func(x sample) float64 { return x.decode }), ratio, rt, kb, rc, w)
			}
		}
	}
}

type sample struct {
	prefill, decode                 float64 // tok/s
	roundTrips, sentKiB, recomputed float64 // per decoded token; share of decode graphs recomputed
	waitShare                       float64 // of decode's time, waiting for replies
}

type side struct {
	name    string
	addrs   []string
	samples []sample
}

func (s *side) best(f func(sample) float64) float64 {
	b := 0.0
	for _, x := range s.samples {
		b = max(b, f(x))
	}
	return b
}

// spread is the worst round over the best.
func (s *side) spread(f func(sample) float64) float64 {
	v := make([]float64, len(s.samples))
	for i, x := range s.samples {
		v[i] = f(x)
	}
	return slices.Min(v) / slices.Max(v)
}

// run prefills prompt tokens and decodes decode more, once.
func (s *side) run(t *testing.T, m *model.Model, threads, prompt, decode int) {
	var b backend.Backend
	var c *Cluster
	if s.addrs == nil {
		b = cpu.New(tensor.NewKernels(tensor.NewPool(threads)))
	} else {
		var err error
		if c, err = Dial(s.addrs, Options{Timeout: 5 * time.Minute}); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rb, err := c.NewBackend()
		if err != nil {
			t.Fatal(err)
		}
		defer rb.Close()
		b = rb
	}
	st, err := m.NewStateOn(prompt+decode+8, b)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	V := m.Config.Vocab
	logits := make([]float32, V)
	var x sample
	x.prefill = timedPrefill(t, st, prompt, logits)
	var before Stats
	if c != nil {
		before = c.Stats()
	}
	next := []int32{0}
	t0 := time.Now()
	for i := range decode {
		next[0] = int32((i*31 + 7) % V)
		if err := st.Forward(next, logits); err != nil {
			t.Fatal(err)
		}
	}
	x.decode = float64(decode) / time.Since(t0).Seconds()
	if c != nil {
		d := c.Stats()
		x.roundTrips = float64(d.RoundTrips-before.RoundTrips) / float64(decode)
		x.sentKiB = float64(d.Sent-before.Sent) / 1024 / float64(decode)
		x.waitShare = (d.Wait - before.Wait).Seconds() / time.Since(t0).Seconds()
		if g := (d.Graphs - before.Graphs) + (d.Recomputes - before.Recomputes); g > 0 {
			x.recomputed = float64(d.Recomputes-before.Recomputes) / float64(g)
		}
	}
	s.samples = append(s.samples, x)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func atoiOr(s string, def int) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
		return def
	}
	return n
}

// BenchmarkRoundTrip is the protocol's fixed cost: a one-node graph sent
// and one row read back, through a loopback server.
func BenchmarkRoundTrip(b *testing.B) { benchNodes(b, 1) }

// BenchmarkGraph600 is a graph of 600 small nodes (a SmolLM2 decode step
// records about that many) and one row read back: the server's cost per
// node beyond the round trip.
func BenchmarkGraph600(b *testing.B) { benchNodes(b, 600) }

func benchNodes(b *testing.B, nodes int) {
	a, _ := startServer(b, 2)
	c := dialT(b, a)
	rb, err := c.NewBackend()
	if err != nil {
		b.Fatal(err)
	}
	defer rb.Close()
	x, _ := rb.Alloc(1, 576)
	b.ResetTimer()
	for range b.N {
		for range nodes {
			rb.Scale(x, 1, 1)
		}
		rb.Host(x, 0, 1)
	}
	if err := rb.Err(); err != nil {
		b.Fatal(err)
	}
}

// TestPrefillPipeline measures a prompt's prefill through two servers of a
// split, pipelined and in turn, against one server, emulating "two
// machines against one" on one box: each server is pinned to a core of
// its own (taskset -c 0, -c 1) and runs 1 thread, and the single server
// runs 1 thread on core 0. The sides alternate over rounds in one run. It
// is a measurement: it runs only with ISAGI_REMOTE_SPEED=1 (make
// bench-remote), on the models TestSpeed reads.
//
// Knobs: ISAGI_REMOTE_SHAPES, ISAGI_REMOTE_TYPES, ISAGI_REMOTE_ROUNDS as
// TestSpeed's; ISAGI_REMOTE_PROMPT (512 tokens); ISAGI_REMOTE_MICRO (the
// pipelined micro-batches to compare, "64"); ISAGI_REMOTE_PIN=0 leaves the
// servers unpinned.
func TestPrefillPipeline(t *testing.T) {
	if os.Getenv("ISAGI_REMOTE_SPEED") != "1" {
		t.Skip("a measurement: make bench-remote runs it")
	}
	shapes := strings.Fields(envOr("ISAGI_REMOTE_SHAPES", "llama-1b"))
	types := strings.Fields(envOr("ISAGI_REMOTE_TYPES", "Q8_0 Q4_0"))
	rounds := atoiOr(envOr("ISAGI_REMOTE_ROUNDS", "3"), 3)
	prompt := atoiOr(envOr("ISAGI_REMOTE_PROMPT", "512"), 512)
	var micros []int
	for _, f := range strings.Fields(envOr("ISAGI_REMOTE_MICRO", "64")) {
		micros = append(micros, atoiOr(f, DefaultMicroBatch))
	}
	bin := peer.RPCServer(t)
	pinned := func(core int) string {
		if os.Getenv("ISAGI_REMOTE_PIN") == "0" {
			return bin
		}
		// A wrapper, so that the test's server starter runs it as it runs
		// a server: exec keeps the process the test kills.
		p := filepath.Join(t.TempDir(), fmt.Sprintf("rpc-server-core%d", core))
		sh := fmt.Sprintf("#!/bin/sh\nexec taskset -c %d %q \"$@\"\n", core, bin)
		if err := os.WriteFile(p, []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1, _ := runServer(t, pinned(0), 1)
	a2, _ := runServer(t, pinned(1), 1)
	dir := os.Getenv("ISAGI_REMOTE_MODELS")
	fmt.Printf("\nprefill of %d tokens; each server 1 thread on its own core; best of %d rounds (spread: worst/best)\n\n", prompt, rounds)
	fmt.Println("| shape | type | side | step | prefill tok/s | vs 1 server |")
	fmt.Println("|---|---|---|---:|---:|---:|")
	for _, shape := range shapes {
		for _, ty := range types {
			m, err := model.Open(filepath.Join(dir, shape+"-"+ty+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			sides := []pside{
				{name: "1 server", addrs: []string{a1}},
				{name: "1 server", addrs: []string{a1}, o: Options{MicroBatch: micros[0]}},
				{name: "2 servers in turn", addrs: []string{a1, a2}, o: Options{MicroBatch: 256, InTurn: true}},
				{name: "2 servers in turn", addrs: []string{a1, a2}, o: Options{MicroBatch: micros[0], InTurn: true}},
			}
			for _, mb := range micros {
				sides = append(sides, pside{name: "2 servers pipelined", addrs: []string{a1, a2}, o: Options{MicroBatch: mb}})
			}
			for r := range rounds {
				for i := range sides {
					s := &sides[i]
					if r%2 == 1 {
						s = &sides[len(sides)-1-i]
					}
					s.run(t, m, prompt)
				}
			}
			m.Close()
			one := slices.Max(sides[0].tps)
			for _, s := range sides {
				best := slices.Max(s.tps)
				fmt.Printf("| %s | %s | %s | %d | %.1f (%.2f) | %.2f |\n", shape, ty, s.name, s.step, best, slices.Min(s.tps)/best, best/one)
			}
		}
	}
}

// pside is one side of TestPrefillPipeline.
type pside struct {
	name  string
	addrs []string
	o     Options
	step  int
	tps   []float64
}

// run prefills prompt tokens once.
func (s *pside) run(t *testing.T, m *model.Model, prompt int) {
	o := s.o
	o.Timeout = 5 * time.Minute
	c, err := Dial(s.addrs, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := c.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, err := m.NewStateOn(prompt+8, b)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s.step = st.BatchSize()
	s.tps = append(s.tps, timedPrefill(t, st, prompt, make([]float32, m.Config.Vocab)))
}

// timedPrefill runs a prompt of n fixed token ids through st and returns
// its tokens per second.
func timedPrefill(t *testing.T, st *model.State, n int, logits []float32) float64 {
	t.Helper()
	V := len(logits)
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32((i*7919 + 13) % V)
	}
	t0 := time.Now()
	if err := st.Forward(ids, logits); err != nil {
		t.Fatal(err)
	}
	return float64(n) / time.Since(t0).Seconds()
}
