package kvpress

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// choose runs p on keys (n rows of hd) keeping m, no positions given
// beyond the slot order.
func choose(p *Policy, keys []float32, n, hd, m int) []int32 {
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	keep := make([]int32, m)
	p.Choose(keys, n, hd, pos, keep)
	return keep
}

// radial is the seed's radial-outlier example: keys along u = e₀ of norm
// about 1 with a little jitter, a few keys pointing elsewhere, and at slot
// out one key 5·u — along μ, far from it.
func radial() (keys []float32, n, hd, out int) {
	hd, n, out = 4, 24, 11
	r := rand.New(rand.NewPCG(1, 2))
	keys = make([]float32, n*hd)
	for i := range n {
		k := keys[i*hd : (i+1)*hd]
		k[0] = 1 + float32(r.NormFloat64()*0.05)
		for j := 1; j < hd; j++ {
			k[j] = float32(r.NormFloat64() * 0.05)
		}
		switch {
		case i == out:
			copy(k, []float32{5, 0, 0, 0})
		case i%8 == 3: // three keys in other directions
			copy(k, []float32{0.2, float32(i%3) - 1, 1, 0.5})
		}
	}
	return keys, n, hd, out
}

// TestRadialOutlier: on the seed's example ManifoldKV keeps the radial
// outlier, which KeyDiff (cosine to μ ≈ 1) and K-norm (the largest norm)
// evict.
func TestRadialOutlier(t *testing.T) {
	keys, n, hd, out := radial()
	const m = 6 // the 3 other-direction keys, the outlier and 2 more
	for _, c := range []struct {
		kind Kind
		kept bool
	}{{Manifold, true}, {Windowed, true}, {KeyDiff, false}, {KNorm, false}} {
		p := &Policy{Kind: c.kind, Sinks: -1, Recent: -1}
		keep := choose(p, keys, n, hd, m)
		if got := slices.Contains(keep, int32(out)); got != c.kept {
			t.Errorf("%s: outlier kept %v, want %v (kept %v)", c.kind, got, c.kept, keep)
		}
	}
	// KeyDiff keeps the keys whose direction differs: the three others
	// (slots 3 and 19; 11 is the outlier).
	keep := choose(&Policy{Kind: KeyDiff, Sinks: -1, Recent: -1}, keys, n, hd, 2)
	if !slices.Equal(keep, []int32{3, 19}) {
		t.Errorf("keydiff keeping 2 kept %v, want the other-direction keys [3 19]", keep)
	}
}

// TestScorersOnHandBuiltKeys: each scorer's choice where the answer is
// known.
func TestScorersOnHandBuiltKeys(t *testing.T) {
	// Four 2-d keys: the mean is (1, 1).
	keys := []float32{
		1, 1, // at μ
		3, 3, // along μ, far: L2 far, cosine 1, norm large
		1.2, -1.2, // off μ's direction, norm 1.7
		0.1, 0.1, // along μ, tiny norm
	}
	p := func(k Kind) *Policy { return &Policy{Kind: k, Sinks: -1, Recent: -1} }
	cases := []struct {
		kind Kind
		m    int
		want []int32
	}{
		{Manifold, 2, []int32{1, 2}},  // the two farthest from μ = (1.325, 0.725)
		{KNorm, 2, []int32{0, 3}},     // the smallest norms
		{KeyDiff, 1, []int32{2}},      // the only one off μ's direction
		{Streaming, 2, []int32{2, 3}}, // the newest
	}
	for _, c := range cases {
		if got := choose(p(c.kind), keys, 4, 2, c.m); !slices.Equal(got, c.want) {
			t.Errorf("%s keeping %d: %v, want %v", c.kind, c.m, got, c.want)
		}
	}
	// Windowed: two windows of four 1-d keys. Globally the mean is 5 and
	// the far keys are the second window's; per window each window's own
	// outlier is kept.
	w := []float32{0, 0, 0, 4, 10, 10, 10, 6}
	gl := choose(&Policy{Kind: Manifold, Sinks: -1, Recent: -1}, w, 8, 1, 2)
	wi := choose(&Policy{Kind: Windowed, Window: 4, Sinks: -1, Recent: -1}, w, 8, 1, 2)
	if !slices.Equal(wi, []int32{3, 7}) {
		t.Errorf("windowed kept %v, want each window's outlier [3 7]", wi)
	}
	if slices.Equal(gl, wi) {
		t.Errorf("the global mean chose as the windows did (%v): the case tests nothing", gl)
	}
}

// TestProtection: sinks and recent entries are always kept, the output is
// ascending, unique and in range, for every scorer on random keys.
func TestProtection(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := range 300 {
		n, hd := 1+r.IntN(200), 1+r.IntN(8)
		m := r.IntN(n + 1)
		keys := make([]float32, n*hd)
		for i := range keys {
			keys[i] = float32(r.NormFloat64())
		}
		for _, k := range Kinds() {
			p := &Policy{Kind: k, Sinks: r.IntN(6) - 1, Recent: r.IntN(40) - 1, Window: r.IntN(64), Seed: uint64(it)}
			keep := choose(p, keys, n, hd, m)
			checkKeep(t, keep, n, m)
			sinks, recent := p.protected()
			sinks = min(sinks, m, n)
			recent = min(recent, m-sinks, n-sinks)
			for i := range sinks {
				if !slices.Contains(keep, int32(i)) {
					t.Fatalf("%s n=%d m=%d: sink %d evicted", k, n, m, i)
				}
			}
			for i := n - recent; i < n; i++ {
				if !slices.Contains(keep, int32(i)) {
					t.Fatalf("%s n=%d m=%d: recent %d evicted", k, n, m, i)
				}
			}
		}
	}
}

func checkKeep(t *testing.T, keep []int32, n, m int) {
	t.Helper()
	if len(keep) != m {
		t.Fatalf("%d kept, want %d", len(keep), m)
	}
	for i, s := range keep {
		if s < 0 || int(s) >= n || (i > 0 && s <= keep[i-1]) {
			t.Fatalf("keep %v (n %d) is not ascending unique slots", keep, n)
		}
	}
}

// TestRandomSeeded: the random scorer repeats for a seed and differs
// across seeds.
func TestRandomSeeded(t *testing.T) {
	keys := make([]float32, 100*2)
	a := choose(&Policy{Kind: Random, Seed: 1, Sinks: -1, Recent: -1}, keys, 100, 2, 30)
	b := choose(&Policy{Kind: Random, Seed: 1, Sinks: -1, Recent: -1}, keys, 100, 2, 30)
	c := choose(&Policy{Kind: Random, Seed: 2, Sinks: -1, Recent: -1}, keys, 100, 2, 30)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatalf("seed 1 twice: %v, %v; seed 2: %v", a, b, c)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds() {
		if got, err := ParseKind(" " + k.String() + " "); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("snapkv"); err == nil {
		t.Error("snapkv parsed")
	}
	if got, _ := ParseKind("ManifolD"); got != Manifold {
		t.Error("case matters")
	}
}

// TestChooseAllocatesNothing: once warmed, Choose allocates nothing.
func TestChooseAllocatesNothing(t *testing.T) {
	keys, n, hd, _ := radial()
	pos := make([]int32, n)
	keep := make([]int32, 10)
	for _, k := range Kinds() {
		p := &Policy{Kind: k, Sinks: 2, Recent: 3, Window: 8}
		p.Choose(keys, n, hd, pos, keep)
		if a := testing.AllocsPerRun(20, func() { p.Choose(keys, n, hd, pos, keep) }); a != 0 {
			t.Errorf("%s: %v allocations per Choose", k, a)
		}
	}
}

// FuzzChoose: any sizes and keys give a valid choice and no panic.
func FuzzChoose(f *testing.F) {
	f.Add([]byte{10, 2, 4, 1, 0, 0, 128, 63})
	f.Add([]byte{200, 7, 100, 6, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		n, hd, m, kind := int(b[0]), 1+int(b[1]%16), int(b[2]), Kind(int(b[3])%len(kindNames))
		m = min(m, n)
		keys := make([]float32, n*hd)
		for i := range keys {
			if off := 4 + 4*i; off+4 <= len(b) {
				keys[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
			}
		}
		pos := make([]int32, n)
		for i := range pos {
			pos[i] = int32(i)
		}
		keep := make([]int32, m)
		p := &Policy{Kind: kind, Sinks: int(b[1]%5) - 1, Recent: int(b[2]%9) - 1, Window: int(b[3] % 32)}
		p.Choose(keys, n, hd, pos, keep)
		checkKeep(t, keep, n, m)
	})
}
