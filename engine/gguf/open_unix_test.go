//go:build unix

package gguf

import "testing"

// TestOpenMaps checks that Open on Unix really takes the mmap path, so the
// mapping (and its Close) is what TestOpenAndReadFallback exercised.
func TestOpenMaps(t *testing.T) {
	f, err := Open(fixture(t, "stories260k/stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if f.release == nil {
		t.Fatal("Open did not map the file")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f.release != nil || f.data != nil {
		t.Error("Close left the mapping referenced")
	}
}
