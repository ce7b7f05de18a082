//go:build linux

package gguf

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// rssFileKB reads this process's resident file-backed memory (RssFile).
func rssFileKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("RssFile line %q: %v", l, err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestEvict checks that Evict drops a mapped tensor's pages from the
// process (RssFile falls by most of its 8 MiB) while every byte still
// reads back as written, and that it leaves a file read into memory alone
// (dropping ordinary memory would zero it).
func TestEvict(t *testing.T) {
	data := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var w Writer
	if err := w.AddTensor("w", tensor.F32, []uint64{1024, 2048}, data); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "evict.gguf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	td := f.TensorData(&f.Tensors[0])
	if !bytes.Equal(td, data) { // and every page is now resident
		t.Fatal("mapped tensor differs from what was written")
	}
	before := rssFileKB(t)
	f.Evict(td)
	after := rssFileKB(t)
	if drop := before - after; drop < 6<<10 {
		t.Errorf("RssFile %d → %d kB: Evict dropped %d kB of an 8 MiB tensor", before, after, drop)
	}
	if !bytes.Equal(td, data) {
		t.Fatal("evicted tensor reads back different bytes")
	}
	f.Evict(data) // not part of the mapping: nothing happens

	mem, err := Parse("mem", append([]byte(nil), buf.Bytes()...))
	if err != nil {
		t.Fatal(err)
	}
	md := mem.TensorData(&mem.Tensors[0])
	mem.Evict(md)
	if !bytes.Equal(md, data) {
		t.Fatal("Evict changed a file held in ordinary memory")
	}
}
