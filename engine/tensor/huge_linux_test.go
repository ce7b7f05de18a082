package tensor

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestPackAdvisesHugePages checks that a packed copy's memory carries the
// MADV_HUGEPAGE advice (the "hg" flag of its mapping in /proc/self/smaps),
// which is what makes decoding it cheaper in TLB misses (huge_linux.go).
// Whether the kernel then finds huge pages depends on the machine, so only
// the advice is checked.
func TestPackAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	k := NewKernels(NewPool(1))
	defer k.pool.Close()
	if k.prows[Q4_0] == nil {
		t.Skip("no packed Q4_0 kernels on this CPU")
	}
	const rows, cols = 4096, 2048 // 4.5 MiB packed: at least one aligned 2 MiB
	rng := rand.New(rand.NewPCG(7, 8))
	w, err := NewMatrix(Q4_0, rows, cols, randomWeights(rng, Q4_0, rows, cols))
	if err != nil {
		t.Fatal(err)
	}
	p := k.Pack(w)
	if p.packed == nil {
		t.Fatal("Q4_0 matrix was not packed")
	}
	base := uintptr(unsafe.Pointer(&p.packed[0]))
	lo := (base + (2<<20 - 1)) &^ (2<<20 - 1) // the advised interior's start: 4.5 MiB hold a whole 2 MiB after it
	flags, err := vmFlags(lo)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("packed copy at %#x: VmFlags %q lack hg (MADV_HUGEPAGE)", lo, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line[:strings.IndexByte(line, ' ')], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
