package cuda

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/internal/synthproj"
	"github.com/isagi-lab/isagi/engine/model"
)

// BenchmarkGPURanks is the rank sweep of issue 58: decode speed of the
// model named by ISAGI_BENCH_RANK_MODEL (the 8B shape in
// scripts/device-check.sh) with its Q/K/V (and, with
// ISAGI_BENCH_RANK_SLOTS=all, every GRC slot) run through rank-k
// projections, k/d from 0.25 to 1, against the dense model in the same
// run. It tests two of the seeds' claims about GPUs: that compressed
// decode can beat dense (Paper 1's "super-baseline", 106 % at k = 1024)
// and that throughput peaks at k* = L2 MB × 42.7 (Paper XII). Both are
// claims about speed, so the projections are random (synthproj.ProjectionsFor)
// rather than built: an 8B compression takes an eigendecomposition per
// block, longer than a device session.
//
// Sides alternate: every rank is timed between two dense timings and its
// ratio is to their mean; each timing is the median of five rounds of 16
// decode steps from a depth of 128. Records go to ranks.jsonl.
func BenchmarkGPURanks(b *testing.B) {
	path := os.Getenv("ISAGI_BENCH_RANK_MODEL")
	if path == "" {
		b.Skip("ISAGI_BENCH_RANK_MODEL names no model")
	}
	slots := os.Getenv("ISAGI_BENCH_RANK_SLOTS")
	if slots == "" {
		slots = "qkv"
	}
	g := gpuDevice(b)
	be, err := g.NewBackend()
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	rankSweep(b, path, slots, be, copyBandwidth(b, g), g.Name())
}

// rankSweep times decoding with path's model on be at every rank of the
// sweep, dense on either side; bw is the device's copy bandwidth.
func rankSweep(b *testing.B, path, slots string, be backend.Backend, bw float64, device string) {
	m, err := model.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	st, err := m.NewStateOn(512, be)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	logits := make([]float32, m.Config.Vocab)
	prompt := make([]int32, 128)
	for i := range prompt {
		prompt[i] = int32(3 + i*31%(m.Config.Vocab-3))
	}
	const steps, rounds = 16, 5
	rate := func() float64 {
		st.Reset()
		if err := st.Forward(prompt, logits); err != nil {
			b.Fatal(err)
		}
		tok := []int32{5}
		var r []float64
		for range rounds {
			st.Truncate(len(prompt))
			start := time.Now()
			for range steps {
				if err := st.Forward(tok, logits); err != nil {
					b.Fatal(err)
				}
			}
			r = append(r, steps/time.Since(start).Seconds())
		}
		slices.Sort(r)
		return r[rounds/2]
	}
	name := strings.TrimSuffix(filepath.Base(path), ".gguf")
	dense := decodeBytes(m)
	d := m.Config.Dim
	rate() // warm: the dense weights bound, the kernels loaded
	for _, f := range []float64{0.25, 0.375, 0.45, 0.5, 0.625, 0.75, 0.875, 1} {
		k := int(math.Round(f*float64(d)/32)) * 32
		p, err := synthproj.ProjectionsFor(m, k, slots, uint64(k))
		if err != nil {
			b.Fatal(err)
		}
		before := rate()
		if err := st.SetProjections(p); err != nil {
			b.Fatal(err)
		}
		tps := rate()
		if err := st.SetProjections(nil); err != nil {
			b.Fatal(err)
		}
		after := rate()
		// The bytes a compressed token reads: the dense file's, less the
		// matrices the projections replace, plus the projections.
		var replaced int64
		for l := range m.Config.Layers {
			w := m.Block(l)
			replaced += int64(len(w.Q.Data) + len(w.K.Data) + len(w.V.Data))
			if slots == "all" {
				replaced += int64(len(w.O.Data) + len(w.Gate.Data) + len(w.Up.Data) + len(w.Down.Data))
			}
		}
		bytes := dense - replaced + p.Bytes
		ratio := tps / ((before + after) / 2)
		b.Logf("%s %s k=%d (k/d %.3f): %.1f tok/s, dense %.1f/%.1f, ratio %.3f, %.1f%% of roofline", name, slots, k, float64(k)/float64(d), tps, before, after, ratio, 100*float64(bytes)*tps/bw)
		record(b, "ranks.jsonl", map[string]any{
			"model": name, "slots": slots, "k": k, "k_over_d": float64(k) / float64(d),
			"decode_tok_s": tps, "dense_before_tok_s": before, "dense_after_tok_s": after, "ratio": ratio,
			"weight_bytes_per_token": bytes, "dense_weight_bytes_per_token": dense,
			"roofline_pct": 100 * float64(bytes) * tps / bw, "copy_bandwidth_gbs": bw / 1e9, "device": device,
		})
	}
}
