package tensor

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestHugeArena checks the arena's hand-outs: n zeroed bytes each, on a
// cache line, disjoint, later ones after earlier ones in the same chunk
// while it has room, a large one in a chunk of its own; and that the arena
// lets its chunk go once no hand-out in it is reachable (a Kernels that
// outlives its model keeps none of the model's memory), while one that is
// reachable keeps it.
func TestHugeArena(t *testing.T) {
	var a hugeArena
	if !hugePages {
		if b := a.alloc(100); len(b) != 100 {
			t.Fatalf("alloc(100) gave %d bytes", len(b))
		}
		t.Skip("no huge pages here: the arena allocates plainly")
	}
	addr := func(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
	x := a.alloc(1000)
	y := a.alloc(3 << 20)
	if len(x) != 1000 || cap(x) != 1000 || len(y) != 3<<20 {
		t.Fatalf("lengths %d (cap %d) and %d", len(x), cap(x), len(y))
	}
	if addr(x)%hugePageBytes != 0 {
		t.Errorf("a new chunk's first hand-out at %#x is not on a huge page", addr(x))
	}
	if addr(y) != addr(x)+1024 {
		t.Errorf("the second hand-out is at %#x, want %#x (the first's 1000 bytes rounded to a cache line)", addr(y), addr(x)+1024)
	}
	for i, v := range y {
		if v != 0 {
			t.Fatalf("byte %d of a hand-out is %d", i, v)
		}
	}
	big := a.alloc(hugeArenaChunk + 1)
	if addr(big)%hugePageBytes != 0 || addr(big) >= addr(x) && addr(big) < addr(x)+hugeArenaChunk {
		t.Errorf("a hand-out larger than a chunk at %#x, inside the first chunk or off a huge page", addr(big))
	}
	z := a.alloc(64)
	if addr(z) != addr(y)+3<<20 {
		t.Errorf("after a large hand-out the next small one is at %#x, want the first chunk's end %#x", addr(z), addr(y)+3<<20)
	}
	x, y, big = nil, nil, nil
	runtime.GC()
	if a.base.Value() == nil {
		t.Fatal("the arena let its chunk go while a hand-out in it is reachable")
	}
	runtime.KeepAlive(z)
	z = nil
	runtime.GC()
	runtime.GC()
	if a.base.Value() != nil {
		t.Error("the arena keeps its chunk alive with no hand-out in it reachable")
	}
	if w := a.alloc(64); addr(w)%hugePageBytes != 0 {
		t.Errorf("after its chunk went the arena handed out %#x, not a new chunk's start", addr(w))
	}
}
