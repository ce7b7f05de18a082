package session

import (
	"context"
	"os"
	"slices"
	"testing"
)

// BenchmarkGrammarDecode measures what holding a reply to a JSON Schema
// costs in decode speed, on the model ISAGI_BENCH_MODEL names (docs/serve.md
// used a llama 1B-shape Q4_K_M): rounds of the same reply length with and
// without the format, sides alternated, each round's decode tok/s from the
// turn. The schema keeps the reply inside one long string, so both sides
// decode every token of the budget. It reports both speeds (medians) and
// their ratio with its spread over the rounds.
func BenchmarkGrammarDecode(b *testing.B) {
	path := os.Getenv("ISAGI_BENCH_MODEL")
	if path == "" {
		b.Skip("ISAGI_BENCH_MODEL is not set: name a GGUF (a 1B shape) to measure the grammar's cost in decode")
	}
	set := DefaultSettings()
	set.MaxTokens, set.Temperature, set.Seed = 64, 1, 7
	s, err := Open(path, Options{Settings: set})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := JSONSchemaFormat([]byte(`{"type": "object", "properties": {"text": {"type": "string", "minLength": 400}}, "required": ["text"]}`), false)
	if err != nil {
		b.Fatal(err)
	}
	turn := func(format *Format) float64 {
		s.Clear()
		if err := s.SetFormat(format); err != nil {
			b.Fatal(err)
		}
		t, err := s.SendNoMemory(context.Background(), "The weather today", func(Event) {})
		if err != nil {
			b.Fatal(err)
		}
		if t.Tokens < set.MaxTokens {
			b.Fatalf("a reply of %d tokens, not %d", t.Tokens, set.MaxTokens)
		}
		return t.DecodeTokS
	}
	turn(nil) // warm the weights and the vocabulary
	turn(f)
	var plain, held, ratio []float64
	for b.Loop() {
		for round := range 6 {
			var p, h float64
			if round%2 == 0 {
				p, h = turn(nil), turn(f)
			} else {
				h, p = turn(f), turn(nil)
			}
			plain, held, ratio = append(plain, p), append(held, h), append(ratio, h/p)
		}
	}
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	b.ReportMetric(med(plain), "plain-tok/s")
	b.ReportMetric(med(held), "grammar-tok/s")
	b.ReportMetric(med(ratio), "ratio")
	b.ReportMetric(slices.Min(ratio), "ratio-min")
	b.ReportMetric(slices.Max(ratio), "ratio-max")
}
