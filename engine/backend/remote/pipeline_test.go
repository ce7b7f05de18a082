package remote

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
)

// TestPipelinedPrefill: a prompt of several micro-batches through a split
// over two servers gives the same logits, bit for bit, and writes the
// same KV cache, whether the servers work at once (the pipeline) or in
// turn: the pipeline changes when each server runs its graphs, not which
// graphs it runs.
func TestPipelinedPrefill(t *testing.T) {
	a1, _ := startServer(t, 1)
	a2, _ := startServer(t, 1)
	for _, rel := range []string{"kjv/kjv-q8_0.gguf", "archs/qwen3.gguf"} {
		t.Run(rel, func(t *testing.T) {
			m, err := model.Open(filepath.Join(sharedDir(), "fixtures", rel))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			const n = 200 // micro-batches of 64, 64, 64 and 8
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = int32((i*7919 + 13) % m.Config.Vocab)
			}
			run := func(inTurn bool) (logits, kv []float32) {
				// A server serves one client at a time: each cluster
				// leaves before the next dials.
				c, err := Dial([]string{a1, a2}, Options{Timeout: time.Minute, MicroBatch: 64, InTurn: inTurn})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if got := c.Servers(m.Config.Layers); got[0].LayersCount == 0 || got[1].LayersCount == 0 {
					t.Fatalf("the layers are not split: %+v", got)
				}
				b, err := c.NewBackend()
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				st, err := m.NewStateOn(256, b)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if st.BatchSize() != 64 {
					t.Fatalf("a split steps %d tokens at a time, want the micro-batch of 64", st.BatchSize())
				}
				logits = make([]float32, n*m.Config.Vocab)
				if err := st.Forward(ids, logits); err != nil {
					t.Fatal(err)
				}
				w := m.Config.KVHeads * m.Config.HeadDim
				k, v := make([]float32, w), make([]float32, w)
				for l := range m.Config.Layers {
					for _, p := range []int{0, 63, 64, 130, n - 1} {
						if err := st.KVAt(l, p, k, v); err != nil {
							t.Fatal(err)
						}
						kv = append(append(kv, k...), v...)
					}
				}
				return logits, kv
			}
			seqL, seqKV := run(true)
			pipeL, pipeKV := run(false)
			if i := firstBitDiff(seqL, pipeL); i >= 0 {
				t.Fatalf("logit %d (token %d): %g in turn, %g pipelined", i, i/m.Config.Vocab, seqL[i], pipeL[i])
			}
			if i := firstBitDiff(seqKV, pipeKV); i >= 0 {
				t.Fatalf("KV value %d: %g in turn, %g pipelined", i, seqKV[i], pipeKV[i])
			}
		})
	}
}

// firstBitDiff is the first index where a and b differ in their bits, or
// −1.
func firstBitDiff(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}
