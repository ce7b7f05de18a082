package session

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// fakeRoute is a deterministic routing for (layer, pos): k distinct
// experts of n, highest first, with weights that sum to one.
func fakeRoute(layer, pos, n, k int) ([]int32, []float32) {
	ids := make([]int32, k)
	ws := make([]float32, k)
	var sum float32
	for j := range k {
		ids[j] = int32((layer*7 + pos*3 + j*5) % n)
		ws[j] = float32(k - j)
		sum += ws[j]
	}
	for j := range ws {
		ws[j] /= sum
	}
	return ids, ws
}

// feed routes positions from..to-1 as a batch does: every position of
// one layer, then the next layer.
func feed(r *routeLog, from, to int) {
	for _, l := range r.layers {
		for p := from; p < to; p++ {
			ids, ws := fakeRoute(l, p, r.experts, r.k)
			r.Routed(l, p, ids, ws)
		}
	}
}

// recount is the counts of positions 0..n-1 worked out from scratch.
func recount(r *routeLog, n int) []int64 {
	c := make([]int64, len(r.layers)*r.experts)
	for i, l := range r.layers {
		for p := range n {
			ids, _ := fakeRoute(l, p, r.experts, r.k)
			for _, e := range ids {
				c[i*r.experts+int(e)]++
			}
		}
	}
	return c
}

// TestRouteLogCounts: the conversation's counts are those of the
// positions held, whatever was computed and forgotten on the way: a
// rewind takes the forgotten positions out, a recomputation without a
// rewind does not count twice, a reset empties them.
func TestRouteLogCounts(t *testing.T) {
	r := newRouteLog(6, []int{1, 2, 4}, 16, 4, 8)
	feed(r, 0, 30)
	if !slices.Equal(r.counts, recount(r, 30)) {
		t.Fatalf("after 30 positions the counts are not theirs")
	}
	// A speculative verifier computes 5 drafts and keeps 2.
	feed(r, 30, 35)
	r.Rewind(32)
	if !slices.Equal(r.counts, recount(r, 32)) {
		t.Errorf("after a rewind to 32 the counts still hold the forgotten drafts")
	}
	if got := r.last(); got != 31 {
		t.Errorf("last %d after the rewind, want 31", got)
	}
	// Position 31 computed again without a rewind: counted once.
	feed(r, 31, 32)
	if !slices.Equal(r.counts, recount(r, 32)) {
		t.Errorf("a position computed twice is counted twice")
	}
	r.Rewind(0)
	for _, c := range r.counts {
		if c != 0 {
			t.Fatalf("a reset left counts %v", r.counts)
		}
	}
	if r.last() != -1 {
		t.Errorf("last %d after a reset", r.last())
	}
	// A dense block's routing (there is none) is ignored, not a crash.
	r.Routed(0, 0, []int32{1}, []float32{1})
	r.Routed(99, 0, []int32{1}, []float32{1})
	if r.last() != -1 {
		t.Errorf("a dense block's call recorded something")
	}
}

// TestRouteLogGap: attached mid-conversation, positions never seen count
// nothing and a rewind over them does not go negative.
func TestRouteLogGap(t *testing.T) {
	r := newRouteLog(2, []int{0, 1}, 8, 2, 4)
	for _, l := range r.layers {
		ids, ws := fakeRoute(l, 10, 8, 2)
		r.Routed(l, 10, ids, ws)
	}
	var sum int64
	for _, c := range r.counts {
		sum += c
	}
	if sum != 4 {
		t.Errorf("one position over two layers at k=2 counts %d, want 4", sum)
	}
	r.Rewind(5)
	for _, c := range r.counts {
		if c != 0 {
			t.Fatalf("counts %v after forgetting the one position", r.counts)
		}
	}
}

// TestRouteLogNoAllocs: the hook allocates nothing per token once the
// history has grown.
func TestRouteLogNoAllocs(t *testing.T) {
	r := newRouteLog(4, []int{0, 1, 2, 3}, 128, 8, ExpertWindow)
	feed(r, 0, 512)
	r.Rewind(0)
	ids, ws := fakeRoute(2, 0, 128, 8)
	p := 0
	allocs := testing.AllocsPerRun(200, func() {
		for l := range 4 {
			r.Routed(l, p, ids, ws)
		}
		p++
	})
	if allocs != 0 {
		t.Errorf("Routed allocates %.1f times per token", allocs)
	}
}

func TestEntropy(t *testing.T) {
	for _, c := range []struct {
		w    []float32
		want float64
	}{
		{[]float32{1, 0, 0, 0}, 0},
		{[]float32{0.25, 0.25, 0.25, 0.25}, 2},
		{[]float32{2, 2}, 1}, // normalised first
		{[]float32{0.5, 0.25, 0.25}, 1.5},
		{nil, 0},
	} {
		if got := entropy(c.w); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("entropy(%v) = %v, want %v", c.w, got, c.want)
		}
	}
}

// mapOf is an expert part over r, as a session of an MoE model has it.
func mapOf(r *routeLog) *Experts {
	xp := newExperts(&Session{})
	xp.log, xp.remove = r, func() {}
	return xp
}

// TestExpertMap: the map covers the last ExpertWindow positions, each row
// of Fired sums to k, the current token is the last position, and a
// speculative rejection does not shrink the window.
func TestExpertMap(t *testing.T) {
	const k, n = 4, 16
	r := newRouteLog(3, []int{0, 2}, n, k, ExpertWindow)
	xp := mapOf(r)
	var m ExpertMap
	if err := xp.Map(&m); err != nil || m.Tokens != 0 || m.Pos != -1 {
		t.Fatalf("an empty map: %v, %d tokens, pos %d", err, m.Tokens, m.Pos)
	}
	feed(r, 0, 100)
	if err := xp.Map(&m); err != nil {
		t.Fatal(err)
	}
	if m.Tokens != ExpertWindow || m.Pos != 99 || len(m.Current) != 2 || m.Current[1].Layer != 2 {
		t.Fatalf("map of 100 positions: %d tokens, pos %d, current %+v", m.Tokens, m.Pos, m.Current)
	}
	for i := range m.Layers {
		var sum float32
		for _, f := range m.Fired[i*n:][:n] {
			sum += f
		}
		if math.Abs(float64(sum-k)) > 1e-4 {
			t.Errorf("layer %d: Fired sums to %v, want %d", m.Layers[i], sum, k)
		}
	}
	ids, ws := fakeRoute(2, 99, n, k)
	if !slices.Equal(m.Current[1].Experts, ids) || !slices.Equal(m.Current[1].Weights, ws) {
		t.Errorf("current routing %+v, want %v %v", m.Current[1], ids, ws)
	}
	// Weights k..1 normalised: the entropy of (4,3,2,1)/10.
	want := entropy([]float32{4, 3, 2, 1})
	if math.Abs(m.Entropy-want) > 1e-6 || math.Abs(m.MeanEntropy-want) > 1e-6 || m.MaxEntropy != 2 {
		t.Errorf("entropy %v mean %v max %v, want %v, %v, 2", m.Entropy, m.MeanEntropy, m.MaxEntropy, want, want)
	}
	top := m.Top(3)
	if len(top) != 3 || top[0].Weight < top[1].Weight || top[0].Layer != 0 {
		t.Errorf("top %+v", top)
	}
	// The verifier computes 17 drafts and rejects them all.
	feed(r, 100, 117)
	r.Rewind(100)
	if err := xp.Map(&m); err != nil {
		t.Fatal(err)
	}
	if m.Tokens != ExpertWindow || m.Pos != 99 {
		t.Errorf("after a rejection: %d tokens, pos %d; want %d, 99", m.Tokens, m.Pos, ExpertWindow)
	}
	if got := xp.RouteAt(99, nil); len(got) != 2 || !slices.Equal(got[1].Experts, ids) {
		t.Errorf("RouteAt(99) = %+v", got)
	}
	if got := xp.RouteAt(100, nil); got != nil {
		t.Errorf("RouteAt of a forgotten position: %+v", got)
	}
	c, err := xp.Counts()
	if err != nil || c.Tokens != 100 {
		t.Fatalf("counts over %d tokens (%v), want 100", c.Tokens, err)
	}
	if !slices.Equal(c.Counts, recount(r, 100)) {
		t.Errorf("counts differ from a recount")
	}
	top0 := c.Top(0, 2)
	if len(top0) != 2 || top0[0].Count < top0[1].Count || top0[0].Layer != 0 {
		t.Errorf("Top %+v", top0)
	}
	if all := c.Overall(5); len(all) != 5 || all[0].Count < all[4].Count {
		t.Errorf("Overall %+v", all)
	}
	// Recording off: nothing to show, until it is on again.
	xp.remove = nil
	if err := xp.Map(&m); err != nil || m.Tokens != 0 {
		t.Errorf("a map while not recording: %v, %d tokens", err, m.Tokens)
	}
	// Dense: one sentence.
	if err := newExperts(&Session{}).Map(&m); !errors.Is(err, ErrNoExperts) {
		t.Errorf("a dense model's map: %v", err)
	}
}

func TestParseExpertOff(t *testing.T) {
	for _, c := range []struct{ value, current, want string }{
		{"none", "", ""},
		{"off", "1:2", ""},
		{"12:37", "", "12:37"},
		{"12:37, 3:5,*:9,12:37", "", "*:9,3:5,12:37"},
		{"+1:1", "3:5", "1:1,3:5"},
		{"-3:5", "1:1,3:5", "1:1"},
		{"-3:5,+*:2", "3:5", "*:2"},
		{"1:1", "3:5", "1:1"}, // no sign: the list replaces
	} {
		refs, err := parseExpertOff(c.value, c.current)
		if err != nil {
			t.Errorf("%q: %v", c.value, err)
			continue
		}
		if got := formatExpertOff(refs); got != c.want {
			t.Errorf("%q over %q = %q, want %q", c.value, c.current, got, c.want)
		}
	}
	for _, bad := range []string{"12", "a:1", "1:b", "-1:-2", "1:", ":3", "1:2:3"} {
		if _, err := parseExpertOff(bad, ""); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckOff(t *testing.T) {
	layers := []int{1, 2, 3} // block 0 is dense
	ok := func(v string) error {
		refs, err := parseExpertOff(v, "")
		if err != nil {
			t.Fatal(err)
		}
		return checkOff(refs, 4, layers, 8, 2)
	}
	for _, v := range []string{"none", "1:0", "*:7,2:3", "3:0,3:1,3:2,3:3,3:4,3:5"} {
		if err := ok(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for v, want := range map[string]string{
		"0:1":                           "layer 0 is a dense layer",
		"4:1":                           "the model has 4 layers",
		"1:8":                           "each layer has 8 experts (0…7)",
		"3:0,3:1,3:2,3:3,3:4,3:5,3:6":   "layer 3 would keep 1 experts on, fewer than the 2",
		"*:0,*:1,*:2,*:3,*:4,*:5,1:6":   "layer 1 would keep 1",
		"*:0,*:1,*:2,*:3,*:4,*:5,*:5,*": "",
	} {
		err := ok(strings.TrimSuffix(v, ",*"))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
	if err := checkOff([]ExpertRef{{1, 1}}, 4, nil, 0, 0); !errors.Is(err, ErrNoExperts) {
		t.Errorf("a dense model: %v", err)
	}
}

// TestExpertOffDense: on a dense model the expert map and expert_off say
// so in one sentence, and none is still accepted (it is /show's value).
func TestExpertOffDense(t *testing.T) {
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), Options{Settings: greedy()})
	err := s.Set("expert_off", "3:1")
	if !errors.Is(err, ErrNoExperts) || strings.Count(err.Error(), ". ") > 0 {
		t.Errorf("expert_off on a dense model: %v", err)
	}
	if err := s.Set("expert_off", "none"); err != nil {
		t.Errorf("expert_off none on a dense model: %v", err)
	}
	if s.Experts().MoE() {
		t.Error("the KJV model reads as a mixture of experts")
	}
	var m ExpertMap
	if err := s.Experts().Map(&m); !errors.Is(err, ErrNoExperts) {
		t.Errorf("a dense model's map: %v", err)
	}
	if _, err := s.Experts().Counts(); !errors.Is(err, ErrNoExperts) {
		t.Errorf("a dense model's counts: %v", err)
	}
}
