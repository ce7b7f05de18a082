package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
)

// TestGPUAttentionDepths compares the device's attention (attn_split and
// attn_reduce for decode, attn_tile for a batch of 64 rows) with the CPU
// backend's over caches filled to depths 1…8K, f32 and f16, with plain
// options, a window with sinks, and a soft-cap, and logs the time of a
// decode attention at each depth (one layer): the split kernels' aim is a
// step at 8K close to one at depth 0; and of a prefill step of MaxBatch
// rows (attn_tile).
func TestGPUAttentionDepths(t *testing.T) {
	g := gpuDevice(t)
	const ctx = 8192
	shapes := []backend.Attention{{Heads: 32, KVHeads: 8, HeadDim: 64}, {Heads: 64, KVHeads: 8, HeadDim: 64}, {Heads: 8, KVHeads: 4, HeadDim: 256}}
	for _, kvt := range []backend.KVType{backend.KVF32, backend.KVF16} {
		for si, a := range shapes {
			a.KV = kvt
			t.Run(fmt.Sprintf("%s/%dx%d/%d", kvt, a.Heads, a.KVHeads, a.HeadDim), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(si), 1))
				gb, err := g.NewBackend()
				if err != nil {
					t.Fatal(err)
				}
				defer gb.Close()
				cb := cpu.New(nil)
				gk, err := gb.NewKV(1, ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				ck, err := cb.NewKV(1, ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				w := a.KVHeads * a.HeadDim
				gkb, _ := gb.Alloc(MaxBatch, w)
				gvb, _ := gb.Alloc(MaxBatch, w)
				ckb, _ := cb.Alloc(MaxBatch, w)
				cvb, _ := cb.Alloc(MaxBatch, w)
				for p := 0; p < ctx; p += MaxBatch {
					k, v := randRows(r, MaxBatch*w, 1.5), randRows(r, MaxBatch*w, 1)
					gb.Write(gkb, 0, k)
					gb.Write(gvb, 0, v)
					cb.Write(ckb, 0, k)
					cb.Write(cvb, 0, v)
					gb.StoreKV(gk, 0, p, MaxBatch, gkb, gvb)
					cb.StoreKV(ck, 0, p, MaxBatch, ckb, cvb)
				}
				qw := a.Heads * a.HeadDim
				gq, _ := gb.Alloc(MaxBatch, qw)
				cq, _ := cb.Alloc(MaxBatch, qw)
				gout, _ := gb.Alloc(MaxBatch, qw)
				cout, _ := cb.Alloc(MaxBatch, qw)
				sinks := randRows(r, a.Heads, 2)
				gs, err := gb.Vector(sinks)
				if err != nil {
					t.Fatal(err)
				}
				cs, _ := cb.Vector(sinks)
				q := randRows(r, MaxBatch*qw, 1.5)
				gb.Write(gq, 0, q)
				cb.Write(cq, 0, q)
				for _, o := range []backend.AttendOptions{{}, {Window: 128, Sinks: gs}, {SoftCap: 30}} {
					oc := o
					if o.Sinks != nil {
						oc.Sinks = cs
					}
					for _, depth := range []int{1, 7, 255, 1000, 4096, ctx} {
						for _, n := range []int{1, min(depth, MaxBatch)} {
							pos0 := depth - n
							gb.Attend(gout, gq, gk, 0, pos0, n, o)
							cb.Attend(cout, cq, ck, 0, pos0, n, oc)
							got := slices.Clone(gb.Host(gout, 0, n))
							want := cb.Host(cout, 0, n)
							if err := gb.Err(); err != nil {
								t.Fatal(err)
							}
							d := 0.0
							for i := range got {
								e := math.Abs(float64(got[i] - want[i]))
								if !(e <= d) {
									d = e
								}
							}
							if !(d <= 5e-5) {
								t.Errorf("%+v depth %d rows %d: off the CPU by %g", oc, depth, n, d)
							}
						}
					}
				}
				// The decode attention's time at each depth.
				var line string
				for _, depth := range []int{1, 1024, 4096, ctx} {
					const reps = 200
					gb.Host(gout, 0, 1)
					t0 := time.Now()
					for range reps {
						gb.Attend(gout, gq, gk, 0, depth-1, 1, backend.AttendOptions{})
					}
					gb.Host(gout, 0, 1)
					line += fmt.Sprintf(" depth %d %.1f µs", depth, float64(time.Since(t0).Microseconds())/reps)
				}
				t.Logf("decode attention, one layer:%s", line)
				// A prefill step's attention (attn_tile, MaxBatch rows) at
				// each depth: the rows' last position.
				line = ""
				for _, depth := range []int{MaxBatch, 2 * MaxBatch, 4096, ctx} {
					const reps = 20
					gb.Host(gout, 0, 1)
					t0 := time.Now()
					for range reps {
						gb.Attend(gout, gq, gk, 0, depth-MaxBatch, MaxBatch, backend.AttendOptions{})
					}
					gb.Host(gout, 0, 1)
					line += fmt.Sprintf(" depth %d %.1f µs", depth, float64(time.Since(t0).Microseconds())/reps)
				}
				t.Logf("prefill attention of %d rows, one layer:%s", MaxBatch, line)
			})
		}
	}
}

func randRows(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}
