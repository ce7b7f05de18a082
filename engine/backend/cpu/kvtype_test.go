package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// roundKV is x as a cache of typ stores it: one head's row (len(x) values)
// encoded and decoded.
func roundKV(typ backend.KVType, x []float32) []float32 {
	out := slices.Clone(x)
	switch typ {
	case backend.KVF16:
		h := make([]uint16, len(x))
		tensor.EncodeF16(h, x)
		tensor.DecodeF16(out, h)
	case backend.KVQ8_0:
		q := make([]byte, tensor.Q8_0RowBytes(len(x)))
		tensor.EncodeQ8_0(q, x)
		tensor.DecodeQ8_0(out, q)
	}
	return out
}

// roundRows rounds every head of rows rows of width kvHeads·hd.
func roundRows(typ backend.KVType, x []float32, hd int) []float32 {
	out := make([]float32, 0, len(x))
	for i := 0; i < len(x); i += hd {
		out = append(out, roundKV(typ, x[i:i+hd])...)
	}
	return out
}

// kvPair is the same attention run twice: on a cache of typ, and on an
// f32 cache holding the values typ rounds to.
type kvPair struct {
	b                      *Backend
	typ                    backend.KVType
	compact, ref           backend.KV
	k, v, kr, vr, q, o, or backend.Buffer
	heads, kvHeads, hd     int
}

func newKVPair(t testing.TB, typ backend.KVType, layers, ctx, heads, kvHeads, hd, rows int) *kvPair {
	t.Helper()
	pool := tensor.NewPool(2)
	t.Cleanup(pool.Close)
	b := New(tensor.NewKernels(pool))
	a := backend.Attention{Heads: heads, KVHeads: kvHeads, HeadDim: hd, KV: typ}
	p := &kvPair{b: b, typ: typ, heads: heads, kvHeads: kvHeads, hd: hd}
	var err error
	if p.compact, err = b.NewKV(layers, ctx, a); err != nil {
		t.Fatal(err)
	}
	a.KV = backend.KVF32
	if p.ref, err = b.NewKV(layers, ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		dst   *backend.Buffer
		width int
	}{{&p.k, kvHeads * hd}, {&p.v, kvHeads * hd}, {&p.kr, kvHeads * hd}, {&p.vr, kvHeads * hd}, {&p.q, heads * hd}, {&p.o, heads * hd}, {&p.or, heads * hd}} {
		if *x.dst, err = b.Alloc(rows, x.width); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// store writes rows random keys and values at slot0 of layer into both
// caches (rounded for the reference).
func (p *kvPair) store(r *rand.Rand, layer, slot0, rows int) {
	k, v := hb(p.k).data[:rows*p.kvHeads*p.hd], hb(p.v).data[:rows*p.kvHeads*p.hd]
	for i := range k {
		k[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		if r.IntN(40) == 0 {
			k[i] *= 8 // an outlier, as real keys have: it sets its block's q8_0 scale
		}
	}
	copy(hb(p.kr).data, roundRows(p.typ, k, p.hd))
	copy(hb(p.vr).data, roundRows(p.typ, v, p.hd))
	p.b.StoreKV(p.compact, layer, slot0, rows, p.k, p.v)
	p.b.StoreKV(p.ref, layer, slot0, rows, p.kr, p.vr)
}

// attend runs both attentions for rows queries from slot0 and returns the
// largest difference of their outputs.
func (p *kvPair) attend(r *rand.Rand, layer, slot0, rows int, o backend.AttendOptions) float64 {
	q := hb(p.q).data[:rows*p.heads*p.hd]
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	p.b.Attend(p.o, p.q, p.compact, layer, slot0, rows, o)
	p.b.Attend(p.or, p.q, p.ref, layer, slot0, rows, o)
	var d float64
	for i, x := range hb(p.o).data[:len(q)] {
		d = max(d, math.Abs(float64(x-hb(p.or).data[i])))
	}
	return d
}

// TestKVTypeAttentionMatchesRoundedF32: attention over an f16 or q8_0
// cache equals attention over an f32 cache holding the same rounded keys
// and values — the compact kernels add only float32 rounding of their
// own — for prefill batches and decode steps, grouped-query heads, a
// window and a soft cap; and ReadKV and Keys return the rounded values.
func TestKVTypeAttentionMatchesRoundedF32(t *testing.T) {
	const layers, ctx, heads, kvHeads = 2, 96, 6, 2
	for _, typ := range []backend.KVType{backend.KVF16, backend.KVQ8_0} {
		for _, hd := range []int{32, 64, 128} {
			r := rand.New(rand.NewPCG(uint64(hd), uint64(typ)))
			p := newKVPair(t, typ, layers, ctx, heads, kvHeads, hd, 40)
			worst := 0.0
			for _, o := range []backend.AttendOptions{{}, {Window: 17}, {SoftCap: 3, Scale: 0.3}} {
				for l := range layers {
					p.store(r, l, 0, 40) // a prefill batch
					worst = max(worst, p.attend(r, l, 0, 40, o))
					for s := 40; s < 50; s++ { // decode steps
						p.store(r, l, s, 1)
						worst = max(worst, p.attend(r, l, s, 1, o))
					}
				}
			}
			if worst > 1e-5 {
				t.Errorf("%s, head size %d: outputs differ from the f32 cache of rounded values by %g", typ, hd, worst)
			}
			t.Logf("%s, head size %d: largest difference from the f32 cache of rounded values %.2g", typ, hd, worst)

			// ReadKV decodes what the f32 reference holds, bit for bit.
			w := kvHeads * hd
			k, v, kr, vr := make([]float32, w), make([]float32, w), make([]float32, w), make([]float32, w)
			for _, slot := range []int{0, 17, 49} {
				p.b.ReadKV(p.compact, 1, slot, k, v)
				p.b.ReadKV(p.ref, 1, slot, kr, vr)
				if !slices.Equal(k, kr) || !slices.Equal(v, vr) {
					t.Fatalf("%s: ReadKV of slot %d differs from the rounded values", typ, slot)
				}
			}
			// So does Keys, and a second call allocates nothing.
			if got, want := p.b.Keys(p.compact, 1, 1, 50), p.b.Keys(p.ref, 1, 1, 50); !slices.Equal(got, want) {
				t.Fatalf("%s: Keys differ from the rounded keys", typ)
			}
			if n := testing.AllocsPerRun(5, func() { p.b.Keys(p.compact, 0, 1, 50) }); n != 0 {
				t.Errorf("%s: Keys allocates %v times once its scratch has grown", typ, n)
			}
		}
	}
}

// TestKVTypeDecodeAllocatesNothing: a decode step's store and attention
// allocate nothing, for every type.
func TestKVTypeDecodeAllocatesNothing(t *testing.T) {
	for _, typ := range backend.KVTypes() {
		r := rand.New(rand.NewPCG(1, 1))
		p := newKVPair(t, typ, 1, 64, 9, 3, 64, 1)
		for s := range 32 {
			p.store(r, 0, s, 1)
		}
		if n := testing.AllocsPerRun(20, func() {
			p.b.StoreKV(p.compact, 0, 32, 1, p.k, p.v)
			p.b.Attend(p.o, p.q, p.compact, 0, 32, 1, backend.AttendOptions{})
		}); n != 0 {
			t.Errorf("%s: %v allocations per decode step", typ, n)
		}
	}
}

// TestKVTypeCopyAndCompact: CopyKV copies a compact cache (its rows and
// its compaction) and refuses caches of two types; Compact moves compact
// rows as it moves float32 ones.
func TestKVTypeCopyAndCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, typ := range []backend.KVType{backend.KVF16, backend.KVQ8_0} {
		p := newKVPair(t, typ, 1, 32, 2, 1, 32, 16)
		p.store(r, 0, 0, 16)
		keep := [][]int32{{1, 4, 5, 9, 15}}
		if err := p.b.Compact(p.compact, 16, keep); err != nil {
			t.Fatal(err)
		}
		if err := p.b.Compact(p.ref, 16, keep); err != nil {
			t.Fatal(err)
		}
		dst, err := p.b.NewKV(1, 32, backend.Attention{Heads: 2, KVHeads: 1, HeadDim: 32, KV: typ})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.b.CopyKV(dst, p.compact, 5); err != nil {
			t.Fatal(err)
		}
		k, v, kr, vr := make([]float32, 32), make([]float32, 32), make([]float32, 32), make([]float32, 32)
		for s := range 5 {
			p.b.ReadKV(dst, 0, s, k, v)
			p.b.ReadKV(p.ref, 0, s, kr, vr)
			if !slices.Equal(k, kr) || !slices.Equal(v, vr) {
				t.Fatalf("%s: slot %d after Compact and CopyKV differs from the f32 cache's", typ, s)
			}
		}
		pos := make([]int32, 5)
		p.b.Positions(dst, 0, 0, pos)
		if !slices.Equal(pos, []int32{1, 4, 5, 9, 15}) {
			t.Errorf("%s: copied positions %v", typ, pos)
		}
		err = p.b.CopyKV(dst, p.ref, 5)
		if err == nil || !strings.Contains(err.Error(), "one type") {
			t.Errorf("%s: CopyKV from an f32 cache: %v, want a refusal naming the types", typ, err)
		}
	}
}

// TestKVTypeHeadDims: q8_0 refuses heads that are not a multiple of 32
// with a sentence that says so; f16 and f32 take any head size.
func TestKVTypeHeadDims(t *testing.T) {
	b := New(nil)
	for _, hd := range []int{1, 3, 16, 33, 48, 80} {
		_, err := b.NewKV(1, 8, backend.Attention{Heads: 2, KVHeads: 1, HeadDim: hd, KV: backend.KVQ8_0})
		if err == nil || !strings.Contains(err.Error(), "blocks of 32") {
			t.Errorf("q8_0 with heads of %d: %v, want a refusal naming the 32-value blocks", hd, err)
		}
		for _, typ := range []backend.KVType{backend.KVF32, backend.KVF16} {
			if _, err := b.NewKV(1, 8, backend.Attention{Heads: 2, KVHeads: 1, HeadDim: hd, KV: typ}); err != nil {
				t.Errorf("%s with heads of %d: %v", typ, hd, err)
			}
		}
	}
	if _, err := b.NewKV(1, 8, backend.Attention{Heads: 2, KVHeads: 1, HeadDim: 32, KV: 9}); err == nil {
		t.Error("an unknown KV type was accepted")
	}
}

// FuzzKVTypeAttention: any head size and type either is refused by NewKV
// (q8_0 off its 32-value blocks) or attends as an f32 cache of the rounded
// values does; nothing panics.
func FuzzKVTypeAttention(f *testing.F) {
	f.Add(uint64(1), uint8(64), uint8(1), uint8(5))
	f.Add(uint64(2), uint8(3), uint8(1), uint8(1))
	f.Add(uint64(3), uint8(32), uint8(2), uint8(9))
	f.Add(uint64(4), uint8(40), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, hdb, typb, rowsb uint8) {
		hd, typ, rows := int(hdb%160)+1, backend.KVType(typb%3), int(rowsb%24)+1
		if err := typ.CheckHeadDim(hd); err != nil {
			if _, err2 := New(nil).NewKV(1, 32, backend.Attention{Heads: 2, KVHeads: 1, HeadDim: hd, KV: typ}); err2 == nil {
				t.Fatalf("%s with heads of %d: CheckHeadDim refuses (%v) but NewKV accepts", typ, hd, err)
			}
			return
		}
		r := rand.New(rand.NewPCG(seed, 1))
		p := newKVPair(t, typ, 1, 32, 4, 2, hd, rows)
		p.store(r, 0, 0, rows)
		if d := p.attend(r, 0, 0, rows, backend.AttendOptions{}); d > 1e-5 {
			t.Fatalf("%s, head size %d, %d rows: differs from the f32 cache of rounded values by %g", typ, hd, rows, d)
		}
	})
}

// BenchmarkAttendDecode times one decode step's attention of two layers
// of SmolLM2-135M's heads (9 query heads over 3 KV heads of 64) at a depth
// of 1536 positions, for each KV type.
func BenchmarkAttendDecode(b *testing.B) {
	const layers, heads, kvHeads, hd, ctx, depth = 2, 9, 3, 64, 2048, 1536
	for _, typ := range backend.KVTypes() {
		b.Run(typ.String(), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			p := newKVPair(b, typ, layers, ctx, heads, kvHeads, hd, 64)
			for s := 0; s < depth; s += 64 {
				for l := range layers {
					p.store(r, l, s, 64)
				}
			}
			q := hb(p.q).data[:heads*hd]
			for i := range q {
				q[i] = float32(r.NormFloat64())
			}
			b.SetBytes(int64(2 * layers * kvHeads * depth * typ.RowBytes(hd)))
			for b.Loop() {
				for l := range layers {
					p.b.Attend(p.o, p.q, p.compact, l, depth, 1, backend.AttendOptions{})
				}
			}
		})
	}
}
