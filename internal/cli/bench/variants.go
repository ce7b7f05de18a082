package bench

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// variantRounds is how many times each variant is measured, in turn:
// the machine is shared, so the sides alternate and the spread is shown.
const variantRounds = 3

// variantRow is one variant's measurements.
type variantRow struct {
	Label string `json:"variant"`
	// PrefillTokS and DecodeTokS are the medians over the rounds;
	// DecodeMin and DecodeMax their spread.
	PrefillTokS float64 `json:"prefill_tok_s"`
	DecodeTokS  float64 `json:"decode_tok_s"`
	DecodeMin   float64 `json:"decode_tok_s_min"`
	DecodeMax   float64 `json:"decode_tok_s_max"`
	// WeightMB is the weights one token reads; KVBytes the KV cache's
	// bytes per position.
	WeightMB float64 `json:"weight_mb_per_token"`
	KVBytes  int64   `json:"kv_bytes_per_token"`
	// Bypassed is how many block runs went dense (sink bypass) over the
	// last round.
	Bypassed int64 `json:"bypassed,omitempty"`
}

// benchVariants measures every variant the mechanism flags ask for
// (base.Variants) on the same state, alternating them over
// variantRounds rounds, after one warm-up run each.
func benchVariants(mf *base.ModelFlags, vs []base.Variant, f *gguf.File, m *model.Model, tok *tokenizer.Tokenizer, st *model.State,
	promptLen, genLen int) ([]variantRow, error) {
	ctx := context.Background()
	prefill := make([][]float64, len(vs))
	decode := make([][]float64, len(vs))
	rows := make([]variantRow, len(vs))
	for round := -1; round < variantRounds; round++ {
		for i, v := range vs {
			if err := mf.UseVariant(f, tok, m, st, v); err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Label, err)
			}
			stats, err := benchRun(ctx, st, tok.BOS(), promptLen, genLen, nil)
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Label, err)
			}
			if round < 0 {
				continue // warm-up: the build, the cache, the buffers
			}
			prefill[i] = append(prefill[i], stats.PrefillTokPerSec())
			decode[i] = append(decode[i], stats.DecodeTokPerSec())
			weights := m.WeightBytes()
			if g := grc.Of(st); g != nil {
				weights += g.BytesAfter - g.BytesBefore
			}
			rows[i] = variantRow{Label: v.Label, WeightMB: float64(weights) / 1e6, KVBytes: st.KVEntryBytes(), Bypassed: st.Bypassed()}
		}
	}
	for i := range rows {
		rows[i].PrefillTokS = median(prefill[i])
		rows[i].DecodeTokS = median(decode[i])
		rows[i].DecodeMin, rows[i].DecodeMax = slices.Min(decode[i]), slices.Max(decode[i])
	}
	return rows, nil
}

// median of a non-empty slice.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// writeVariants prints the variants' table for a person.
func writeVariants(w io.Writer, rows []variantRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "variants     %d rounds each, alternating; decode median (min–max)\n", variantRounds)
	fmt.Fprintf(w, "  %-20s %10s %24s %12s %14s\n", "variant", "prefill", "decode tok/s", "weights MB", "KV B/token")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-20s %10.1f %10.1f (%5.1f–%5.1f) %12.2f %14d", r.Label, r.PrefillTokS, r.DecodeTokS, r.DecodeMin, r.DecodeMax, r.WeightMB, r.KVBytes)
		if r.Bypassed > 0 {
			fmt.Fprintf(w, "  %d dense block runs", r.Bypassed)
		}
		fmt.Fprintln(w)
	}
}
