package session

import (
	"context"
	"sort"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// BenchmarkAB measures what the application layer costs a decoded token:
// the same greedy reply to the same message, decoded by the engine's
// generator alone (A) and through Session.Send (B: the conversation tree,
// the prompt fitting, the events, the turn's record), alternating A and B
// in one run. It reports each side's median decode speed and B/A, which
// must stay ≥ 0.98 (make bench-ab).
func BenchmarkAB(b *testing.B) {
	const (
		input   = "How do I boil an egg? Tell me every step."
		threads = 1
		reply   = 200
	)
	path := abModel(b)

	// A: the engine alone, its prompt rendered as the session renders it.
	f, err := gguf.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := chat.FromGGUF(f, tok)
	if err != nil {
		b.Fatal(err)
	}
	p, err := tmpl.Render([]chat.Message{{Role: "user", Content: input}}, chat.Options{AddGenerationPrompt: true})
	if err != nil {
		b.Fatal(err)
	}
	ids, err := tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.Load(f)
	if err != nil {
		b.Fatal(err)
	}
	pool := tensor.NewPool(threads)
	defer pool.Close()
	st, err := m.NewStateOn(512, cpu.New(tensor.NewKernels(pool)))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	params := sample.Params{Temperature: 0, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1}
	gen, err := generate.New(st, params)
	if err != nil {
		b.Fatal(err)
	}
	// No stop tokens on either side: both decode the full reply length.
	engine := func() float64 {
		gen.Reset(0)
		stats, err := gen.Generate(context.Background(), ids, generate.Options{MaxTokens: reply}, func(int32) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		return stats.DecodeTokPerSec()
	}

	// B: the session.
	set := DefaultSettings()
	set.Temperature, set.MaxTokens = 0, reply
	s, err := Open(path, Options{Threads: threads, Ctx: 512, Settings: set})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.stops = nil
	sess := func() float64 {
		s.Clear()
		t, err := s.Send(context.Background(), input, func(Event) {})
		if err != nil {
			b.Fatal(err)
		}
		if t.Tokens != reply {
			b.Fatalf("the session decoded %d tokens, want %d", t.Tokens, reply)
		}
		return t.DecodeTokS
	}

	engine() // warm both
	sess()
	var as, bs []float64
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			as, bs = append(as, engine()), append(bs, sess())
		} else {
			bs, as = append(bs, sess()), append(as, engine())
		}
	}
	b.StopTimer()
	ma, mb := median(as), median(bs)
	b.ReportMetric(ma, "A_tok/s")
	b.ReportMetric(mb, "B_tok/s")
	b.ReportMetric(mb/ma, "B/A")
	b.Logf("engine %.0f tok/s, session %.0f tok/s, B/A %.3f (medians of %d alternating rounds; spread A %.0f–%.0f, B %.0f–%.0f)",
		ma, mb, mb/ma, len(as), minOf(as), maxOf(as), minOf(bs), maxOf(bs))
}

// abModel is the chat fixture model (testdata/models).
func abModel(b *testing.B) string {
	b.Helper()
	return "../testdata/models/chat.gguf"
}

func median(v []float64) float64 {
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	if n := len(c); n%2 == 1 {
		return c[n/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
