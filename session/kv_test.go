package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

const retrievalModel = "../testdata/models/retrieval.gguf"

// TestEvictionConversation: with kv_keep 0.25 a conversation runs past its
// cache's size without dropping a turn, the cache never holding more than
// its entries, and the window stays the model's; a session file saved
// with eviction on says, when loaded, that what was evicted is gone.
func TestEvictionConversation(t *testing.T) {
	s := open(t, retrievalModel, Options{Settings: greedy()})
	if err := s.Set("kv_keep", "0.25"); err != nil {
		t.Fatal(err)
	}
	kv := s.comp.KV()
	if !kv.On || kv.Scorer != "manifold" || kv.Entries >= kv.Window || kv.Window != 4096 {
		t.Fatalf("after kv_keep 0.25: %+v", kv)
	}
	text := strings.Repeat(" And God said, Let there be light: and there was light.", 25)
	for i := 0; s.comp.KV().Positions < kv.Entries+300; i++ {
		if i == 20 {
			t.Fatalf("20 turns and only %d positions", s.comp.KV().Positions)
		}
		turn := send(t, s, text)
		if turn.Dropped != 0 || turn.Trimmed != 0 {
			t.Fatalf("turn %d dropped %d turns, trimmed %d tokens", i, turn.Dropped, turn.Trimmed)
		}
		if st := s.comp.KV(); st.Kept > st.Entries {
			t.Fatalf("turn %d: %d entries kept in a cache of %d", i, st.Kept, st.Entries)
		}
	}
	st := s.comp.KV()
	if st.Evicted == 0 || st.Kept+st.Evicted != st.Positions || st.Evictions == 0 || st.SavedBytes <= 0 {
		t.Fatalf("after the conversation: %+v", st)
	}
	if _, limit := s.cv.ContextUsed(); limit != 4096 {
		t.Fatalf("context limit %d, want the window, 4096", limit)
	}
	path := filepath.Join(t.TempDir(), "kv.miku")
	if err := s.fl.Save(context.Background(), path, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	r := open(t, retrievalModel, Options{Settings: greedy()})
	notes, err := r.Files().Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "evicts KV entries") {
		t.Fatalf("loading a session that evicted says nothing of it: %q", notes)
	}
	if got := r.Compression().KV(); !got.On || got.Keep != 0.25 {
		t.Fatalf("loaded session's eviction: %+v", got)
	}
	// Turning it off gives the whole window back as one cache.
	if err := r.Set("kv_keep", "off"); err != nil {
		t.Fatal(err)
	}
	if got := r.Compression().KV(); got.On || got.Entries != 4096 {
		t.Fatalf("after kv_keep off: %+v", got)
	}
}
