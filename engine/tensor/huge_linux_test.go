package tensor

import (
	"bufio"
	"errors"
	"fmt"
	"math"
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
	k := hugeQ4Kernels(t)
	const rows, cols = 4096, 2048 // 4.5 MiB packed: at least one aligned 2 MiB
	rng := rand.New(rand.NewPCG(7, 8))
	_, p := packedQ4(t, k, rng, rows, cols)
	requireAdvised(t, "Q4_0 packed copy", p.packed) // 4.5 MiB: a whole aligned 2 MiB inside
}

// TestPackCopiesFloatIntoHugePages checks Pack's copy of a mapped F16 or
// BF16 matrix: its Data is a new buffer advised into huge pages, the
// original bytes are handed to evict whole, the copy is not copied again,
// and products from it equal those from the original bit for bit. A
// matrix without evict (not from a mapping) is left as it is.
func TestPackCopiesFloatIntoHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	k := NewKernels(NewPool(2))
	defer k.pool.Close()
	const rows, cols = 1040, 2048 // 4.06 MiB of F16
	for _, typ := range []Type{F16, BF16} {
		rng := rand.New(rand.NewPCG(9, uint64(typ)))
		w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
		if err != nil {
			t.Fatal(err)
		}
		if k.Pack(w) != w {
			t.Fatalf("%s: a matrix without evict was copied", typ)
		}
		var evicted []byte
		w.SetEvict(func(b []byte) { evicted = b })
		p := k.Pack(w)
		if p == w || &p.Data[0] == &w.Data[0] {
			t.Fatalf("%s: Pack made no copy", typ)
		}
		if len(evicted) != len(w.Data) || &evicted[0] != &w.Data[0] {
			t.Fatalf("%s: evict got %d bytes, want the %d of the original", typ, len(evicted), len(w.Data))
		}
		if k.Pack(p) != p {
			t.Fatalf("%s: the copy was copied again", typ)
		}
		requireAdvised(t, typ.String()+" copy", p.Data)
		x := randomVec(rng, cols)
		y0, y1 := make([]float32, rows), make([]float32, rows)
		k.MatVec(y0, w, x)
		k.MatVec(y1, p, x)
		for i := range y0 {
			if math.Float32bits(y0[i]) != math.Float32bits(y1[i]) {
				t.Fatalf("%s row %d: %v from the copy, %v from the original", typ, i, y1[i], y0[i])
			}
		}
	}
}

// requireAdvised fails t unless the first 2 MiB-aligned address of b
// (which must hold a whole aligned 2 MiB) lies in a mapping with the "hg"
// flag, MADV_HUGEPAGE's mark; it skips t where smaps shows no flags.
func requireAdvised(t *testing.T, what string, b []byte) {
	t.Helper()
	requireAdvisedAt(t, what, (uintptr(unsafe.Pointer(&b[0]))+(2<<20-1))&^(2<<20-1))
}

// requireAdvisedAt fails t unless addr lies in a mapping with the "hg"
// flag; it skips t where smaps shows no flags.
func requireAdvisedAt(t *testing.T, what string, addr uintptr) {
	t.Helper()
	flags, err := vmFlags(addr)
	if errors.Is(err, errNoFlags) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("%s at %#x: VmFlags %q lack hg (MADV_HUGEPAGE)", what, addr, flags)
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
		// A mapping's header line starts "lo-hi perms …"; its fields follow.
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") {
			var lo, hi uintptr
			if n, _ := fmt.Sscanf(rng, "%x-%x", &lo, &hi); n == 2 {
				in = lo <= addr && addr < hi
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errNoFlags
}

// errNoFlags is vmFlags finding no VmFlags for the address: a kernel or
// sandbox whose smaps does not show them, where the advice cannot be seen.
var errNoFlags = errors.New("/proc/self/smaps shows no VmFlags for the address")

// TestPackSmallMatricesInHugePages checks that packed copies smaller than
// a huge page, which on their own would get none, lie in memory advised
// into huge pages at both ends (hugearena.go): several 1.1 MiB copies
// share a chunk, each starting on a cache line, none overlapping another,
// and each holds, once all are made, the bytes another Kernels packs from
// the same matrix.
func TestPackSmallMatricesInHugePages(t *testing.T) {
	k := hugeQ4Kernels(t)
	const rows, cols = 1024, 2048 // 1.1 MiB packed
	rng := rand.New(rand.NewPCG(11, 12))
	var ws, ps []*Matrix
	for i := range 4 {
		w, p := packedQ4(t, k, rng, rows, cols)
		lo, hi := uintptr(unsafe.Pointer(&p.packed[0])), uintptr(unsafe.Pointer(&p.packed[len(p.packed)-1]))
		if lo%64 != 0 {
			t.Errorf("copy %d starts at %#x, not on a cache line", i, lo)
		}
		requireAdvisedAt(t, fmt.Sprintf("copy %d's first byte", i), lo)
		requireAdvisedAt(t, fmt.Sprintf("copy %d's last byte", i), hi)
		for j, q := range ps {
			qlo, qhi := uintptr(unsafe.Pointer(&q.packed[0])), uintptr(unsafe.Pointer(&q.packed[len(q.packed)-1]))
			if lo <= qhi && qlo <= hi {
				t.Fatalf("copy %d overlaps copy %d", i, j)
			}
		}
		ws, ps = append(ws, w), append(ps, p)
	}
	other := NewKernels(k.pool)
	for i, w := range ws {
		if want := other.Pack(w).packed; string(ps[i].packed) != string(want) {
			t.Fatalf("copy %d does not hold the packed bytes of its matrix", i)
		}
	}
}

// hugeQ4Kernels are kernels of one thread (stopped when t ends) where this
// kernel has transparent huge pages and the CPU packed Q4_0 kernels; t
// skips elsewhere.
func hugeQ4Kernels(t *testing.T) *Kernels {
	t.Helper()
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	k := NewKernels(NewPool(1))
	t.Cleanup(k.pool.Close)
	if k.prows[Q4_0] == nil {
		t.Skip("no packed Q4_0 kernels on this CPU")
	}
	return k
}

// packedQ4 is a random Q4_0 matrix and k's packed copy of it.
func packedQ4(t *testing.T, k *Kernels, rng *rand.Rand, rows, cols int) (w, p *Matrix) {
	t.Helper()
	w, err := NewMatrix(Q4_0, rows, cols, randomWeights(rng, Q4_0, rows, cols))
	if err != nil {
		t.Fatal(err)
	}
	if p = k.Pack(w); p.packed == nil {
		t.Fatal("Q4_0 matrix was not packed")
	}
	return w, p
}
