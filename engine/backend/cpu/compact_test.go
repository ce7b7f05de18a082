package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
)

// refAttend is attention in float64 for one query row over the entries
// (keys, values, positions) a head attends to, within a window of
// positions (0: all), the query being at position p.
func refAttend(q []float32, keys, vals [][]float32, pos []int, p, window int, scale float64) []float64 {
	hd := len(q)
	var sc []float64
	var idx []int
	for j := range keys {
		if window > 0 && pos[j] < p-window+1 {
			continue
		}
		d := 0.0
		for i := range hd {
			d += float64(q[i]) * float64(keys[j][i])
		}
		sc = append(sc, d*scale)
		idx = append(idx, j)
	}
	mx := math.Inf(-1)
	for _, s := range sc {
		mx = max(mx, s)
	}
	sum := 0.0
	for i := range sc {
		sc[i] = math.Exp(sc[i] - mx)
		sum += sc[i]
	}
	out := make([]float64, hd)
	for i, j := range idx {
		for d := range hd {
			out[d] += sc[i] / sum * float64(vals[j][d])
		}
	}
	return out
}

// TestCompactedAttention: attention over a compacted cache equals
// attention over the full cache restricted to the kept positions (and the
// rows stored after), to 1e-5, for grouped-query heads that each keep
// their own entries, with and without a sliding window (measured in
// positions), over two compactions.
//
// It runs for every KV type: the reference holds the keys and values as
// the type rounds them (roundKV), so a compact cache must agree with it
// as the float32 one does.
func TestCompactedAttention(t *testing.T) {
	for _, c := range []struct {
		typ backend.KVType
		hd  int
	}{{backend.KVF32, 8}, {backend.KVF16, 8}, {backend.KVF16, 12}, {backend.KVQ8_0, 32}, {backend.KVQ8_0, 64}} {
		t.Run(fmt.Sprintf("%s/hd%d", c.typ, c.hd), func(t *testing.T) { compactedAttention(t, c.typ, c.hd) })
	}
}

func compactedAttention(t *testing.T, typ backend.KVType, hd int) {
	const (
		layers, heads, kvHeads = 2, 4, 2
		ctx                    = 64
	)
	r := rand.New(rand.NewPCG(3, 4))
	for _, window := range []int{0, 20} {
		b := New(nil)
		a := backend.Attention{Heads: heads, KVHeads: kvHeads, HeadDim: hd, KV: typ}
		cache, err := b.NewKV(layers, ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: every head's entries (key, value, position), kept
		// in step with the evictions.
		type entry struct {
			k, v []float32
			pos  int
		}
		ref := make([][]entry, layers*kvHeads)
		kbuf, _ := b.Alloc(8, kvHeads*hd)
		vbuf, _ := b.Alloc(8, kvHeads*hd)
		qbuf, _ := b.Alloc(8, heads*hd)
		obuf, _ := b.Alloc(8, heads*hd)
		n, pos := 0, 0 // slots used, next position
		store := func(rows int) {
			for i := range rows * kvHeads * hd {
				hb(kbuf).data[i] = float32(r.NormFloat64())
				hb(vbuf).data[i] = float32(r.NormFloat64())
			}
			for l := range layers {
				b.StoreKV(cache, l, n, rows, kbuf, vbuf)
				for g := range kvHeads {
					for i := range rows {
						row := hb(kbuf).data[i*kvHeads*hd+g*hd:]
						vrow := hb(vbuf).data[i*kvHeads*hd+g*hd:]
						ref[l*kvHeads+g] = append(ref[l*kvHeads+g], entry{roundKV(typ, row[:hd]), roundKV(typ, vrow[:hd]), pos + i})
					}
				}
			}
		}
		check := func(rows int, what string) {
			t.Helper()
			for i := range rows * heads * hd {
				hb(qbuf).data[i] = float32(r.NormFloat64())
			}
			for l := range layers {
				b.Attend(obuf, qbuf, cache, l, n-rows, rows, backend.AttendOptions{Window: window})
				for h := range heads {
					g := h / (heads / kvHeads)
					es := ref[l*kvHeads+g]
					for i := range rows {
						p := pos - rows + i
						var ks, vs [][]float32
						var ps []int
						for _, e := range es {
							if e.pos <= p {
								ks, vs, ps = append(ks, e.k), append(vs, e.v), append(ps, e.pos)
							}
						}
						want := refAttend(hb(qbuf).data[i*heads*hd+h*hd:][:hd], ks, vs, ps, p, window, 1/math.Sqrt(float64(hd)))
						got := hb(obuf).data[i*heads*hd+h*hd:][:hd]
						for d := range hd {
							if math.Abs(float64(got[d])-want[d]) > 2e-5 {
								t.Fatalf("window %d, %s: layer %d head %d row %d dim %d: %g, want %g", window, what, l, h, i, d, got[d], want[d])
							}
						}
					}
				}
			}
		}
		compact := func(m int) {
			t.Helper()
			keep := make([][]int32, layers*kvHeads)
			for lg := range keep {
				perm := r.Perm(n)[:m]
				slices.Sort(perm)
				for _, s := range perm {
					keep[lg] = append(keep[lg], int32(s))
				}
				var kept []entry
				for _, s := range keep[lg] {
					kept = append(kept, ref[lg][s])
				}
				ref[lg] = kept
			}
			if err := b.Compact(cache, n, keep); err != nil {
				t.Fatal(err)
			}
			n = m
			// The positions the backend reports are the reference's.
			got := make([]int32, n)
			for lg := range keep {
				b.Positions(cache, lg/kvHeads, lg%kvHeads, got)
				for j, e := range ref[lg] {
					if int(got[j]) != e.pos {
						t.Fatalf("head %d slot %d: position %d, want %d", lg, j, got[j], e.pos)
					}
				}
			}
		}
		store(8)
		n, pos = n+8, pos+8
		check(8, "before any compaction")
		for range 3 {
			store(8)
			n, pos = n+8, pos+8
		}
		compact(13)
		for step := range 2 {
			store(5)
			n, pos = n+5, pos+5
			check(5, "after compaction")
			if step == 0 {
				compact(11)
			}
		}
	}
}

// TestCompactRejects: keep lists that are not ascending, out of range or of
// unequal lengths fail and change nothing.
func TestCompactRejects(t *testing.T) {
	b := New(nil)
	cache, err := b.NewKV(1, 8, backend.Attention{Heads: 2, KVHeads: 2, HeadDim: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range [][][]int32{
		{{0, 1}},            // one list for two heads
		{{0, 1}, {1, 0}},    // not ascending
		{{0, 1}, {0, 5}},    // beyond n
		{{0, 1}, {0, 1, 2}}, // unequal
		{{-1, 1}, {0, 1}},   // negative
	} {
		if err := b.Compact(cache, 4, keep); err == nil {
			t.Errorf("Compact(%v) succeeded", keep)
		}
	}
	dst := make([]int32, 4)
	b.Positions(cache, 0, 1, dst)
	if !slices.Equal(dst, []int32{0, 1, 2, 3}) {
		t.Errorf("positions after rejected compactions: %v", dst)
	}
}
