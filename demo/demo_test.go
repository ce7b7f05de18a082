package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestEmbeddedModelIsTheFixture: the embedded bytes are exactly the
// published kjv-q8_0.gguf (sha256 from ../shared/fixtures/kjv/README.md).
func TestEmbeddedModelIsTheFixture(t *testing.T) {
	sum := sha256.Sum256(Model)
	if got, want := hex.EncodeToString(sum[:]), "6c31c802f73686f4f8e42f530d42b8bd76ecbb0ae9a986dc7dcb70807f6a4f28"; got != want {
		t.Fatalf("embedded model sha256 %s, want %s", got, want)
	}
	if !bytes.HasPrefix(Model, []byte("GGUF")) {
		t.Fatal("embedded model is not a GGUF file")
	}
}

// TestLookup: both demo models are GGUF files under their names, and an
// unknown name is refused.
func TestLookup(t *testing.T) {
	for _, which := range Names() {
		name, b, ok := Lookup(which)
		if !ok || name == "" || !bytes.HasPrefix(b, []byte("GGUF")) {
			t.Fatalf("Lookup(%q) = %q, %d bytes, %v", which, name, len(b), ok)
		}
	}
	if _, _, ok := Lookup("gpt"); ok {
		t.Fatal("an unknown demo was found")
	}
	// The chat demo is a few MB, as the README promises.
	if len(ChatModel) > 5<<20 {
		t.Fatalf("the chat demo is %d bytes", len(ChatModel))
	}
}
