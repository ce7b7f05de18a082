package grc

import (
	"context"
	"testing"
)

// FuzzFromCache: whatever a cache file's knobs say, FromCache answers
// with a compression or an error, never a panic. The seed is a real
// cache of kjv with every Compression II field set (sink channels, the
// bypass's thresholds, the calibration profile); the blobs stay valid, so
// the fuzzer works on what is decoded from JSON.
func FuzzFromCache(f *testing.F) {
	m := openModel(f, "kjv/kjv-q8_0.gguf")
	prof, err := LayerProfile(context.Background(), m, nil, kjvTokens(120), 1, 64)
	if err != nil {
		f.Fatal(err)
	}
	spec := Spec{Slots: QKV | FFN, K: 96, SinkChannels: 4, Gauge: true, SinkBypass: true, Calib: "00"}
	gb, err := NewBuilder(m, spec.Slots)
	if err != nil {
		f.Fatal(err)
	}
	g := buildSpec(f, gb, spec, prof)
	knobs, secs, err := g.CacheSections()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(knobs)
	f.Add([]byte(`{"format":1,"k":96,"slots":"qkv,ffn","alloc":"uniform","ranks":[96,96,96,96,96,96],"blocks":6,"bypass":[1,2],"depth":{"sink":9,"intrinsic_dim":[1]}}`))
	f.Fuzz(func(t *testing.T, knobs []byte) {
		if back, err := FromCache(m, spec, knobs, secs); err == nil && back.Layers() != m.Layers {
			t.Fatalf("a cache of %d blocks accepted for %d", back.Layers(), m.Layers)
		}
	})
}
