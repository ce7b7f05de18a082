package session

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
)

// TestKVTypeOption: Options.KVType sets the conversation cache's type,
// which survives a resize (kv_keep rebuilds the cache) and a Fork, and
// the pane's bytes per entry follow it; a type the model's heads cannot
// take is refused when the session opens.
func TestKVTypeOption(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-f32.gguf"), Options{Ctx: 64, Settings: greedy(), KVType: backend.KVQ8_0})
	if got := s.st.KVType(); got != backend.KVQ8_0 {
		t.Fatalf("the session's cache stores %s, want q8_0", got)
	}
	if s.st.KVEntryBytes() != 1632 {
		t.Errorf("%d bytes per entry, want 1632 (6 layers, 4 KV heads, 32 values as q8_0)", s.st.KVEntryBytes())
	}
	send(t, s, "And God said")
	if err := s.resize(128); err != nil {
		t.Fatal(err)
	}
	if got := s.st.KVType(); got != backend.KVQ8_0 {
		t.Errorf("after a resize the cache stores %s", got)
	}
	f, err := s.Fork(0, greedy())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.st.KVType(); got != backend.KVQ8_0 {
		t.Errorf("a fork's cache stores %s", got)
	}
	send(t, f, "And God said")

	// The archs qwen2 model's heads hold 16 values: no q8_0 blocks.
	_, err = Open(chatModel(t), Options{KVType: backend.KVQ8_0})
	if err == nil || !strings.Contains(err.Error(), "blocks of 32") {
		t.Fatalf("q8_0 on heads of 16: %v, want a refusal", err)
	}
}
