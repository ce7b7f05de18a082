package ogd

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/floats"
)

// Weights of the three parts of the creativity total. Equal thirds: the
// paper's MCB weights dimensions this package cannot measure (associative
// breadth, constraints, metaphor), and among the three it can, no one is
// privileged — hidden-state divergence, lexical variety and textual
// novelty each count once.
const (
	WeightDivergence = 1.0 / 3
	WeightDistinct   = 1.0 / 3
	WeightNovelty    = 1.0 / 3
)

// bleuOrder is the longest n-gram BLEU counts (BLEU-4).
const bleuOrder = 4

// Score is an automated creativity score for a batch of generations (the
// automatable part of the paper's MIKU Creativity Benchmark).
type Score struct {
	// Divergence is the mean pairwise cosine distance 1 − cos of the
	// outputs' hidden states, each pair clamped to [0, 1]: orthogonal
	// states already count as fully divergent (anti-correlated ones are
	// not "more creative").
	Divergence float64
	// Distinct is the mean of distinct-1 and distinct-2: unique n-grams
	// over all n-grams, pooled across the texts (n-grams never span two
	// texts). Only orders with at least one n-gram count; 0 with no
	// tokens at all.
	Distinct float64
	// SelfBLEU is the mean BLEU-4 of each text against all the others as
	// references, in [0, 1]; high means the texts repeat each other.
	SelfBLEU float64
	// Total is 100·(WeightDivergence·Divergence + WeightDistinct·Distinct
	// + WeightNovelty·(1 − SelfBLEU)), in [0, 100].
	Total float64
}

// Grade is the paper's tier for the total: S ≥ 80, A ≥ 65, B ≥ 50,
// C ≥ 35, else D.
func (s Score) Grade() string {
	switch {
	case s.Total >= 80:
		return "S"
	case s.Total >= 65:
		return "A"
	case s.Total >= 50:
		return "B"
	case s.Total >= 35:
		return "C"
	}
	return "D"
}

// Creativity scores a batch of at least two generated texts, states[i]
// being a hidden state of texts[i] (all of one length). It is
// deterministic: integer n-gram counts, sums in a fixed order.
//
// Tokens are the whitespace-separated words, lower-cased, with leading and
// trailing punctuation trimmed ("Lake." and "lake" are one token); a text
// with no tokens has BLEU 0 against the others. BLEU-4 uses the standard
// clipped n-gram precisions, uniform weights and brevity penalty against
// the closest reference length, with add-one smoothing for n ≥ 2 (Lin &
// Och) so that short texts without a shared 4-gram do not all score 0.
//
// Errors: fewer than two texts, a state count differing from the text
// count, empty, ragged, non-finite or zero states.
func Creativity(texts []string, states [][]float64) (Score, error) {
	if len(texts) < 2 {
		return Score{}, fmt.Errorf("ogd: creativity: %d texts, need at least 2", len(texts))
	}
	if len(states) != len(texts) {
		return Score{}, fmt.Errorf("ogd: creativity: %d hidden states for %d texts", len(states), len(texts))
	}
	div, err := divergence(states)
	if err != nil {
		return Score{}, fmt.Errorf("ogd: creativity: %w", err)
	}
	toks := make([][]string, len(texts))
	for i, t := range texts {
		toks[i] = tokens(t)
	}
	s := Score{Divergence: div, Distinct: distinct(toks), SelfBLEU: selfBLEU(toks)}
	total := 100 * (WeightDivergence*s.Divergence + WeightDistinct*s.Distinct + WeightNovelty*(1-s.SelfBLEU))
	s.Total = math.Min(100, math.Max(0, total))
	return s, nil
}

// divergence is the mean over pairs of min(1, 1 − cos).
func divergence(states [][]float64) (float64, error) {
	d := len(states[0])
	if d == 0 {
		return 0, fmt.Errorf("hidden state 0 is empty")
	}
	units := make([][]float64, len(states))
	for i, s := range states {
		if len(s) != d {
			return 0, fmt.Errorf("hidden state %d has %d values, want %d", i, len(s), d)
		}
		u, err := unit(fmt.Sprintf("hidden state %d", i), s)
		if err != nil {
			return 0, err
		}
		units[i] = u
	}
	var sum float64
	pairs := 0
	for i := range units {
		for j := i + 1; j < len(units); j++ {
			sum += math.Min(1, math.Max(0, 1-floats.Dot(units[i], units[j])))
			pairs++
		}
	}
	return sum / float64(pairs), nil
}

// tokens splits on whitespace, lower-cases and trims edge punctuation.
func tokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		if t := strings.TrimFunc(f, unicode.IsPunct); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// ngrams counts the n-grams of one token list. Keys join tokens with a
// byte that whitespace splitting can never leave inside a token.
func ngrams(toks []string, n int) map[string]int {
	c := make(map[string]int)
	for i := 0; i+n <= len(toks); i++ {
		c[strings.Join(toks[i:i+n], "\x00")]++
	}
	return c
}

// distinct is the mean of distinct-1 and distinct-2 over the orders that
// have n-grams.
func distinct(toks [][]string) float64 {
	var sum float64
	orders := 0
	for n := 1; n <= 2; n++ {
		seen := make(map[string]bool)
		total := 0
		for _, t := range toks {
			for g, c := range ngrams(t, n) {
				seen[g] = true
				total += c
			}
		}
		if total > 0 {
			sum += float64(len(seen)) / float64(total)
			orders++
		}
	}
	if orders == 0 {
		return 0
	}
	return sum / float64(orders)
}

// selfBLEU is the mean over texts of BLEU-4 against the other texts.
func selfBLEU(toks [][]string) float64 {
	counts := make([][]map[string]int, len(toks)) // [text][n-1]
	for i, t := range toks {
		counts[i] = make([]map[string]int, bleuOrder)
		for n := 1; n <= bleuOrder; n++ {
			counts[i][n-1] = ngrams(t, n)
		}
	}
	var sum float64
	for i := range toks {
		sum += bleu(i, toks, counts)
	}
	return sum / float64(len(toks))
}

// bleu scores text h against every other text as references.
func bleu(h int, toks [][]string, counts [][]map[string]int) float64 {
	c := len(toks[h])
	if c == 0 {
		return 0
	}
	var logP float64
	for n := 1; n <= bleuOrder; n++ {
		matched := 0
		for g, cnt := range counts[h][n-1] {
			best := 0
			for r := range toks {
				if r != h {
					best = max(best, counts[r][n-1][g])
				}
			}
			matched += min(cnt, best)
		}
		total := max(c-n+1, 0)
		var p float64
		if n == 1 {
			if matched == 0 {
				return 0
			}
			p = float64(matched) / float64(total)
		} else {
			p = float64(matched+1) / float64(total+1)
		}
		logP += math.Log(p) / bleuOrder
	}
	// Brevity penalty against the closest reference length (ties: the
	// shorter), as in the standard corpus definition.
	ref := -1
	for r := range toks {
		if r == h {
			continue
		}
		l := len(toks[r])
		if ref < 0 || abs(l-c) < abs(ref-c) || (abs(l-c) == abs(ref-c) && l < ref) {
			ref = l
		}
	}
	bp := 1.0
	if c <= ref {
		bp = math.Exp(1 - float64(ref)/float64(c))
	}
	return math.Min(1, bp*math.Exp(logP))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
