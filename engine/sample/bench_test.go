package sample

import (
	"math/rand/v2"
	"testing"
)

// benchLogits mimics one step of a 151936-token (Qwen-sized) model: a broad
// N(0, 2.5²) background with a few dozen boosted tokens on top.
func benchLogits(vocab int, peaked bool) []float32 {
	r := rand.New(rand.NewPCG(1, 1))
	l := randomLogits(r, vocab, 2.5)
	if peaked {
		for i := range 30 {
			l[r.IntN(vocab)] += 18 - float32(i)/2
		}
	}
	return l
}

func BenchmarkSample(b *testing.B) {
	const vocab = 151936
	hist := make([]int32, 512)
	r := rand.New(rand.NewPCG(2, 2))
	for i := range hist {
		hist[i] = int32(r.IntN(vocab))
	}
	for _, bc := range []struct {
		name   string
		p      Params
		peaked bool
	}{
		{"greedy", Params{}, true},
		{"greedy+penalty", Params{RepeatPenalty: 1.1}, true},
		{"T0.8+topk40+topp0.95+minp0.05+penalty", Params{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1}, true},
		{"T0.8+topp0.95", Params{Temperature: 0.8, TopP: 0.95}, true},
		{"T0.8+topp0.95+minp0.05", Params{Temperature: 0.8, TopP: 0.95, MinP: 0.05}, true},
		{"T1+topp0.95/flat", Params{Temperature: 1, TopP: 0.95}, false},
		{"T1/flat", Params{Temperature: 1}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			logits := benchLogits(vocab, bc.peaked)
			s, err := New(vocab, bc.p)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Sample(logits, hist)
			}
		})
	}
}
