package cuda

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestViewRefusals: a view outside its buffer, and a Write past a view's
// last row, fail the backend (sticky, as a device error) instead of
// addressing memory past the view: through a view that memory is the
// parent's next rows, which would change silently. The parent is as it
// was.
func TestViewRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(b *Backend, x *buf)
	}{
		{"view past the end", func(b *Backend, x *buf) { b.View(x, 5, 3) }},
		{"negative first row", func(b *Backend, x *buf) { b.View(x, -1, 2) }},
		{"empty view", func(b *Backend, x *buf) { b.View(x, 2, 0) }},
		{"view of a view past its end", func(b *Backend, x *buf) { b.View(b.View(x, 2, 3), 1, 3) }},
		{"write past a view", func(b *Backend, x *buf) { b.Write(b.View(x, 2, 3), 2, make([]float32, 2*x.width)) }},
		{"write before a view", func(b *Backend, x *buf) { b.Write(b.View(x, 2, 3), -1, make([]float32, x.width)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			xb, err := b.Alloc(7, 8)
			if err != nil {
				t.Fatal(err)
			}
			x := xb.(*buf)
			init := make([]float32, 7*8)
			for i := range init {
				init[i] = float32(i + 1)
			}
			b.Write(x, 0, init)
			tc.run(b, x)
			if err := b.Err(); err == nil || !strings.Contains(err.Error(), "buffer of") {
				t.Fatalf("Err after %s: %v", tc.name, err)
			}
			// The backend has failed: read the parent straight from the
			// recorder's memory.
			mem, off, ok := f.find(x.p)
			if !ok {
				t.Fatal("the parent's memory is gone")
			}
			got := make([]float32, len(init))
			for i := range got {
				got[i] = math.Float32frombits(binary.LittleEndian.Uint32(mem[off+4*i:]))
			}
			if !slices.Equal(got, init) {
				t.Errorf("the parent changed after %s", tc.name)
			}
			for _, e := range f.errs {
				t.Error(e)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
