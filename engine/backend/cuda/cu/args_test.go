package cu

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"unsafe"
)

func TestArgsPacking(t *testing.T) {
	a := new(Args)
	a.Reset().Ptr(0x1122334455667788).I32(-5).U32(0xdeadbeef).F32(1.5)
	if a.Len() != 4 {
		t.Fatalf("Len = %d, want 4", a.Len())
	}
	a.fill()
	for i := range a.Len() {
		if a.ptrs[i] != unsafe.Pointer(&a.vals[i]) {
			t.Fatalf("pointer %d does not point at value %d", i, i)
		}
	}
	if got := *(*uint64)(a.ptrs[0]); got != 0x1122334455667788 {
		t.Errorf("Ptr stored %#x", got)
	}
	// The 4-byte arguments sit in the first 4 bytes of their slots, in the
	// machine's byte order, which is what the driver copies for an int.
	check4 := func(i int, want uint32) {
		t.Helper()
		var b [4]byte
		binary.NativeEndian.PutUint32(b[:], want)
		if got := *(*[4]byte)(a.ptrs[i]); got != b {
			t.Errorf("argument %d: bytes % x, want % x", i, got, b)
		}
	}
	check4(1, uint32(0xfffffffb))
	check4(2, 0xdeadbeef)
	check4(3, math.Float32bits(1.5))
	if got := *(*int32)(a.ptrs[1]); got != -5 {
		t.Errorf("I32 stored %d", got)
	}
	if got := *(*float32)(a.ptrs[3]); got != 1.5 {
		t.Errorf("F32 stored %v", got)
	}

	// Reuse: a shorter list after Reset, with no stale upper bytes left
	// behind by the 8-byte pointer that used slot 0 before.
	a.Reset().I32(7)
	if a.Len() != 1 || a.vals[0] != 7 {
		t.Errorf("after Reset: Len %d, slot 0 %#x", a.Len(), a.vals[0])
	}

	// A copied Args gets a table pointing at its own values.
	b := *a
	b.fill()
	if b.ptrs[0] != unsafe.Pointer(&b.vals[0]) {
		t.Error("copy's table points at the original's values")
	}
}

func TestArgsDoNotAllocate(t *testing.T) {
	a := new(Args)
	n := testing.AllocsPerRun(1000, func() {
		a.Reset().Ptr(1).Ptr(2).I32(3).U32(4).F32(5)
		a.fill()
	})
	if n != 0 {
		t.Errorf("packing allocates %v times", n)
	}
}

// Packing past the capacity is recorded and reported by Launch as an error,
// not a panic; Reset clears it.
func TestArgsOverflow(t *testing.T) {
	a := new(Args)
	for i := range maxArgs + 1 {
		a.I32(int32(i))
	}
	if a.Len() != maxArgs {
		t.Fatalf("Len = %d, want %d", a.Len(), maxArgs)
	}
	d := &Driver{}
	err := d.Launch(0, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, a)
	if err == nil || !strings.Contains(err.Error(), "33 kernel arguments") {
		t.Fatalf("Launch with 33 arguments: %v", err)
	}
	a.Reset().Ptr(1)
	if err := d.Launch(0, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, a); err == nil || strings.Contains(err.Error(), "kernel arguments") {
		t.Fatalf("after Reset, Launch still reports the overflow: %v", err)
	}
}
