package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestCompressionIIKnobs: the mechanisms' settings build the compression
// they name (its key, its figures on Info), kv_proj halves the cache at
// rank d/2 and a conversation goes on through every switch; kv_proj
// without a rank is refused, and rank off turns it off with the rank.
func TestCompressionIIKnobs(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	if err := s.Set("kv_proj", "on"); !errors.Is(err, ErrKVProjNeedsRank) {
		t.Fatalf("kv_proj without a rank: %v", err)
	}
	plain := s.Compression().KV().EntryBytes
	for _, kv := range [][2]string{{"rank", "128"}, {"gauge", "on"}, {"sink_channels", "8"}, {"sink_bypass", "on"}, {"kv_proj", "on"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%q, %q): %v", kv[0], kv[1], err)
		}
		if turn := send(t, s, "And God said"); turn.Tokens == 0 {
			t.Fatalf("after %s %s: an empty reply", kv[0], kv[1])
		}
	}
	i := s.Info()
	if got := strings.Join(i.Mechanisms, ","); got != "gauge,sink channels 8,sink bypass" {
		t.Errorf("mechanisms %q", got)
	}
	if i.Depth == nil || len(i.Depth.IntrinsicDim) != s.m.Layers {
		t.Errorf("no calibration figures: %+v", i.Depth)
	}
	if i.KVRank != s.m.HeadDim/2 || i.KVEntryAfter*2 != i.KVEntryBefore || i.KVSaved <= 0 {
		t.Errorf("KV projection at rank d/2: %+v", i)
	}
	if got := s.Compression().KV().EntryBytes; got*2 != plain {
		t.Errorf("a cache entry is %d bytes under the projection, %d without", got, plain)
	}
	if err := s.Set("rank", "off"); err != nil {
		t.Fatal(err)
	}
	if st := s.Settings(); st.KVProj || s.Info().KVRank != 0 || s.st.KVProjection() != nil {
		t.Errorf("rank off left the KV projection on: %+v", st)
	}
	if turn := send(t, s, "And God said"); turn.Tokens == 0 {
		t.Fatal("an empty reply after rank off")
	}
}

// TestKVProjOnABackendWithout: a backend that cannot project its KV cache
// refuses kv_proj in one sentence, and a session saved with it opens there
// without it, saying so.
func TestKVProjOnABackendWithout(t *testing.T) {
	path := fixture(t, "kjv/kjv-q8_0.gguf")
	s := open(t, path, Options{Settings: greedy()})
	for _, kv := range [][2]string{{"rank", "128"}, {"kv_proj", "on"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	send(t, s, "And God said")
	file := filepath.Join(t.TempDir(), "kv.miku")
	if err := s.Files().Save(context.Background(), file, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: greedy(), Threads: 1, Backend: func(th int) (backend.Backend, error) {
		pool := tensor.NewPool(th)
		t.Cleanup(pool.Close)
		return &testBackend{Backend: cpu.New(tensor.NewKernels(pool)), n: &backendCounts{}}, nil
	}}
	r, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if err := r.Set("rank", "128"); err != nil {
		t.Fatal(err)
	}
	if err := r.Set("kv_proj", "on"); err == nil || !strings.Contains(err.Error(), "test backend cannot project its KV cache") {
		t.Fatalf("kv_proj on a backend without: %v", err)
	}
	notes, err := r.Files().Load(context.Background(), file, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "kv_proj on") || r.Settings().KVProj || r.Settings().Rank != 128 {
		t.Fatalf("loaded: notes %q, settings %+v", notes, r.Settings())
	}
	if turn := send(t, r, "And God said"); turn.Tokens == 0 {
		t.Fatal("an empty reply after loading")
	}
}
