package kvpress

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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
	}{{Manifold, true}, {Windowed, true}, {ManifoldL1, true}, {ManifoldLinf, true}, {KeyDiff, false}, {KNorm, false}} {
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
		{Manifold, 2, []int32{1, 2}},     // the two farthest from μ = (1.325, 0.725)
		{ManifoldL1, 2, []int32{1, 2}},   // L1 to μ: 0.6, 3.95, 2.05, 1.85
		{ManifoldLinf, 2, []int32{1, 2}}, // L∞ to μ: 0.325, 2.275, 1.925, 1.225
		{KNorm, 2, []int32{0, 3}},        // the smallest norms
		{KeyDiff, 1, []int32{2}},         // the only one off μ's direction
		{Streaming, 2, []int32{2, 3}},    // the newest
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
	_, err := ParseKind("bogus")
	if err == nil {
		t.Fatal("bogus parsed")
	}
	// The error names the bad input and every name that would have done.
	msg := err.Error()
	for _, want := range append([]string{`"bogus"`}, liveNames()) {
		if !strings.Contains(msg, want) {
			t.Errorf("ParseKind error %q does not mention %s", msg, want)
		}
	}
	// The attention scorers and AdaKV are eval kv's alone: a generator
	// has no queries to give them.
	for _, s := range []string{"snapkv", "h2o", "adakv+manifold"} {
		if _, err := ParseKind(s); err == nil || !strings.Contains(err.Error(), "isagi eval kv") {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
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

// TestProtectionOverBudget: when m is below Sinks+Recent the sinks go
// first, then the newest; at exactly the protected count nothing is
// scored; one past it, the single best unprotected slot joins them.
func TestProtectionOverBudget(t *testing.T) {
	const n, hd = 20, 1
	keys := make([]float32, n)
	for i := range keys {
		keys[i] = float32(10 + i)
	}
	keys[7] = 0.5 // K-norm's favourite among the unprotected
	p := &Policy{Kind: KNorm, Sinks: 4, Recent: 8}
	for _, c := range []struct {
		m    int
		want []int32
	}{
		{3, []int32{0, 1, 2}},
		{4, []int32{0, 1, 2, 3}},
		{6, []int32{0, 1, 2, 3, 18, 19}},
		{12, []int32{0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 18, 19}},
		{13, []int32{0, 1, 2, 3, 7, 12, 13, 14, 15, 16, 17, 18, 19}},
		{20, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
	} {
		if got := choose(p, keys, n, hd, c.m); !slices.Equal(got, c.want) {
			t.Errorf("keeping %d: %v, want %v", c.m, got, c.want)
		}
	}
	// Zero fields take the defaults: 4 sinks and 64 recent, so of 100
	// slots keeping 68 keeps exactly 0–3 and 36–99.
	keys = make([]float32, 100)
	for i := range keys {
		keys[i] = float32(-i) // K-norm would rather keep the middle
	}
	var want []int32
	for i := range 100 {
		if i < DefaultSinks || i >= 100-DefaultRecent {
			want = append(want, int32(i))
		}
	}
	if got := choose(&Policy{Kind: KNorm}, keys, 100, 1, 68); !slices.Equal(got, want) {
		t.Errorf("defaults: kept %v, want %v", got, want)
	}
}

// TestNoneKeepsOldest: None (which callers never evict with) keeps the
// protected slots and then the oldest, so unprotected it keeps the first m.
func TestNoneKeepsOldest(t *testing.T) {
	keys := make([]float32, 10)
	if got := choose(&Policy{Kind: None, Sinks: -1, Recent: -1}, keys, 10, 1, 3); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("none, unprotected: %v, want [0 1 2]", got)
	}
	if got := choose(&Policy{Kind: None, Sinks: 1, Recent: 2}, keys, 10, 1, 5); !slices.Equal(got, []int32{0, 1, 2, 8, 9}) {
		t.Errorf("none, 1 sink 2 recent: %v, want [0 1 2 8 9]", got)
	}
}

// TestScoresValues: the scores themselves, against the formulas.
func TestScoresValues(t *testing.T) {
	// Three 2-d keys, the last zero: μ = (1, 1).
	keys := []float32{3, 0, 0, 3, 0, 0}
	pos := []int32{5, 9, 40} // gapped, as after an eviction
	dst := make([]float32, 3)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	r5, r2 := math.Sqrt(5), math.Sqrt(2)
	for _, c := range []struct {
		kind Kind
		want []float64
	}{
		{Manifold, []float64{r5, r5, r2}},
		// cos((3,0),(1,1)) = 1/√2; the zero key's cosine is 0.
		{KeyDiff, []float64{1 - 1/r2, 1 - 1/r2, 1}},
		{KNorm, []float64{-3, -3, 0}},
		{Streaming, []float64{5, 9, 40}},
		{None, []float64{0, -1, -2}},
	} {
		(&Policy{Kind: c.kind}).Scores(keys, 3, 2, pos, dst)
		for i := range dst {
			if !near(float64(dst[i]), c.want[i]) {
				t.Errorf("%s scores %v, want %v", c.kind, dst, c.want)
				break
			}
		}
	}
	// Windowed with windows of 2: slot 2 is alone in its window, at its
	// own mean; the first window's mean is (1.5, 1.5).
	(&Policy{Kind: Windowed, Window: 2}).Scores(keys, 3, 2, pos, dst)
	if w := math.Sqrt(1.5*1.5 + 1.5*1.5); !near(float64(dst[0]), w) || !near(float64(dst[1]), w) || dst[2] != 0 {
		t.Errorf("windowed scores %v, want [%v %v 0]", dst, w, w)
	}
}

func TestMean(t *testing.T) {
	keys := []float32{1, 2, 3, 4, 5, 6}
	mu := make([]float32, 3)
	Mean(keys, 2, 3, mu, make([]float64, 3))
	if !slices.Equal(mu, []float32{2.5, 3.5, 4.5}) {
		t.Errorf("mean %v, want [2.5 3.5 4.5]", mu)
	}
	// Short scratch is refused, not indexed past.
	mu = []float32{7, 7, 7}
	Mean(keys, 2, 3, mu, make([]float64, 2))
	if !slices.Equal(mu, []float32{7, 7, 7}) {
		t.Errorf("mean with short scratch wrote %v", mu)
	}
}

// TestRandomStream: Random draws math/rand/v2's Float32 stream from
// PCG(Seed, pcgStream), so a seed's choices are what they were when a
// *rand.Rand held the generator; changing Seed restarts the stream.
func TestRandomStream(t *testing.T) {
	const n = 50
	keys := make([]float32, n)
	dst := make([]float32, n)
	p := &Policy{Kind: Random, Seed: 3}
	ref := rand.New(rand.NewPCG(3, pcgStream))
	for range 2 { // the second call continues the stream
		p.Scores(keys, n, 1, nil, dst)
		for i := range dst {
			if w := ref.Float32(); dst[i] != w {
				t.Fatalf("score %d: %v, want %v", i, dst[i], w)
			}
		}
	}
	p.Seed = 4
	p.Scores(keys, n, 1, nil, dst)
	fresh := make([]float32, n)
	(&Policy{Kind: Random, Seed: 4}).Scores(keys, n, 1, nil, fresh)
	if !slices.Equal(dst, fresh) {
		t.Errorf("after Seed = 4: %v, want a fresh seed-4 stream %v", dst[:4], fresh[:4])
	}
}

// TestBadSizes: arguments that do not fit are refused by Check, and
// Choose and Scores neither panic nor index past their slices on them.
func TestBadSizes(t *testing.T) {
	keys := make([]float32, 8)
	pos := make([]int32, 4)
	for _, c := range []struct {
		name  string
		keys  []float32
		n, hd int
		pos   []int32
		m     int
	}{
		{"short keys", keys[:7], 4, 2, pos, 2},
		{"short positions", keys, 4, 2, pos[:3], 2},
		{"m past n", keys, 4, 2, pos, 5},
		{"zero head dim", keys, 4, 0, pos, 2},
		{"negative n", keys, -1, 2, pos, 0},
		{"n·hd overflowing to 0", nil, 4, 1 << 62, pos, 2},
	} {
		keep := make([]int32, c.m)
		if Check(c.keys, c.n, c.hd, c.pos, keep) == nil {
			t.Errorf("%s: Check passed", c.name)
		}
		for _, k := range Kinds() {
			(&Policy{Kind: k}).Choose(c.keys, c.n, c.hd, c.pos, keep)
			for _, s := range keep {
				if s < 0 || (c.n > 0 && int(s) >= c.n) {
					t.Errorf("%s, %s: kept slot %d of %d", c.name, k, s, c.n)
				}
			}
			(&Policy{Kind: k}).Scores(c.keys, c.n, c.hd, c.pos, make([]float32, max(c.n, 0)))
		}
	}
	if err := Check(keys, 4, 2, pos, make([]int32, 4)); err != nil {
		t.Errorf("fitting arguments refused: %v", err)
	}
}

// TestTiesGoToNewer: equal scores are broken in favour of the newer slot,
// so identical keys leave the most recent ones.
func TestTiesGoToNewer(t *testing.T) {
	keys := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1} // six equal 2-d keys
	for _, k := range []Kind{Manifold, Windowed, KeyDiff, KNorm} {
		if got := choose(&Policy{Kind: k, Sinks: -1, Recent: -1}, keys, 6, 2, 2); !slices.Equal(got, []int32{4, 5}) {
			t.Errorf("%s on equal keys kept %v, want the newest [4 5]", k, got)
		}
	}
}
