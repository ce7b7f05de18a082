package cuda

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
)

// TestNewKVRefusesQ8_0: the device kernels read float32 and binary16
// caches, so q8_0 is refused in one sentence, before the device is touched.
func TestNewKVRefusesQ8_0(t *testing.T) {
	_, err := new(Backend).NewKV(2, 16, backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 64, KV: backend.KVQ8_0})
	if err == nil || !strings.Contains(err.Error(), "KV cache type q8_0 is not supported") {
		t.Errorf("q8_0: %v, want a refusal naming the type", err)
	}
}

// TestNewKVF16: an f16 cache takes 2 bytes a value on the device, and
// NewKV grows the split attention's scratch to the cache's capacity.
func TestNewKVF16(t *testing.T) {
	g, f := newFakeDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	a := backend.Attention{Heads: 8, KVHeads: 2, HeadDim: 64, KV: backend.KVF16}
	before := len(f.mem)
	c, err := b.NewKV(3, 1000, a)
	if err != nil {
		t.Fatal(err)
	}
	k := c.(*kv)
	for _, p := range []cu.DevicePtr{k.k, k.v} {
		buf, off, ok := f.find(p)
		if !ok || off != 0 || len(buf) != 2*3*1000*2*64 {
			t.Errorf("an f16 cache allocation of %d bytes, want %d", len(buf), 2*3*1000*2*64)
		}
	}
	if len(f.mem) != before+3 || b.npart != partFloats(1000, a) {
		t.Errorf("%d allocations for a cache, scratch of %d floats; want 3 and %d", len(f.mem)-before, b.npart, partFloats(1000, a))
	}
	// A smaller cache reuses the scratch.
	if _, err := b.NewKV(1, 100, a); err != nil {
		t.Fatal(err)
	}
	if len(f.mem) != before+5 {
		t.Errorf("a smaller cache grew the scratch")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
