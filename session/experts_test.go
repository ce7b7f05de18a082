package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
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

// TestExpertsLive runs the expert map on a real mixture of experts: the
// routing of every generated token is there while it streams, the counts
// cover exactly the positions the state holds (a speculative reply, whose
// verifier forgets its rejected drafts, counts as the plain one does), and
// an expert switched off is never chosen again, in the conversation, a
// fork and a reloaded file alike.
func TestExpertsLive(t *testing.T) {
	path := fixtures.MoE(t, "")
	set := greedy()
	set.MaxTokens = 24
	s := open(t, path, Options{Settings: set})
	if !s.Experts().MoE() {
		t.Fatal("the qwen3moe fixture does not read as a mixture of experts")
	}
	prompt := "the cat sat on the mat and the cat sat on the mat and the cat"
	var routed, tokens int
	turn, err := s.Send(context.Background(), prompt, func(e Event) {
		if e.ID < 0 {
			return
		}
		tokens++
		r := s.Experts().RouteAt(e.Pos, nil)
		if len(r) == 2 && len(r[0].Experts) == fixtures.MoEUsed && len(r[1].Experts) == fixtures.MoEUsed {
			routed++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if tokens == 0 || routed != tokens {
		t.Errorf("%d of %d streamed tokens had their routing", routed, tokens)
	}
	c, err := s.Experts().Counts()
	if err != nil {
		t.Fatal(err)
	}
	if c.Tokens != s.st.Pos() || c.Tokens == 0 {
		t.Errorf("counts over %d positions, the state holds %d", c.Tokens, s.st.Pos())
	}
	var m ExpertMap
	if err := s.Experts().Map(&m); err != nil {
		t.Fatal(err)
	}
	if m.Tokens != min(ExpertWindow, s.st.Pos()) || m.Pos != s.st.Pos()-1 || len(m.Current) != 2 {
		t.Errorf("map: %d tokens, pos %d, %d layers; the state holds %d", m.Tokens, m.Pos, len(m.Current), s.st.Pos())
	}

	// The same reply with an n-gram drafter: its verifier computes drafts
	// and forgets the rejected ones, and the counts must not keep them.
	sp := set
	sp.Draft = "ngram"
	d := open(t, path, Options{Settings: sp})
	dturn := send(t, d, prompt)
	if dturn.Text != turn.Text {
		t.Fatalf("the speculative reply %q differs from the plain %q", dturn.Text, turn.Text)
	}
	if dturn.Spec == nil || dturn.Spec.Drafted == dturn.Spec.Accepted {
		t.Fatalf("the n-gram drafter had no draft rejected (%+v): the rewind is not exercised", dturn.Spec)
	}
	dc, err := d.Experts().Counts()
	if err != nil {
		t.Fatal(err)
	}
	if dc.Tokens != d.st.Pos() {
		t.Errorf("the speculative session counts %d positions, its state holds %d", dc.Tokens, d.st.Pos())
	}
	if !slices.Equal(dc.Counts, c.Counts) {
		t.Errorf("a speculative reply's counts differ from the plain reply's:\n%v\n%v", dc.Counts, c.Counts)
	}

	// Switch off layer 1's most chosen expert, and every layer's expert 0.
	top := c.Top(1, 1)[0]
	off := fmt.Sprintf("*:0,1:%d", top.Expert) // as expert_off writes it back
	if top.Expert == 0 {
		off = "*:0"
	}
	if err := s.Set("expert_off", off); err != nil {
		t.Fatal(err)
	}
	checkOffHeld := func(name string, x *Session) {
		t.Helper()
		x.Clear()
		send(t, x, prompt)
		c, err := x.Experts().Counts()
		if err != nil {
			t.Fatal(err)
		}
		if c.Tokens == 0 {
			t.Fatalf("%s: nothing counted", name)
		}
		for i := range c.Layers {
			if v := c.Counts[i*c.Experts]; v != 0 {
				t.Errorf("%s: expert 0 of layer %d, switched off, was chosen %d times", name, c.Layers[i], v)
			}
		}
		if v := c.Counts[1*c.Experts+top.Expert]; v != 0 {
			t.Errorf("%s: expert %d of layer 1, switched off, was chosen %d times", name, top.Expert, v)
		}
	}
	checkOffHeld("the conversation", s)
	if got := s.Settings().ExpertOff; got != off {
		t.Errorf("expert_off reads %q", got)
	}
	f, err := s.Fork(0, s.Settings())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkOffHeld("a fork", f)

	file := filepath.Join(t.TempDir(), "moe.miku")
	if err := s.Files().Save(context.Background(), file, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	l := open(t, path, Options{Settings: set})
	if _, err := l.Files().Load(context.Background(), file, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if l.Settings().ExpertOff != s.Settings().ExpertOff {
		t.Errorf("the loaded file switched off %q, the saved one %q", l.Settings().ExpertOff, s.Settings().ExpertOff)
	}
	checkOffHeld("a loaded file", l)

	// A compressed drafter's state has the same experts off.
	if err := s.Set("draft", "rank:16"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.dr.state().ExpertsOff()); got != fmt.Sprint(s.st.ExpertsOff()) || len(s.st.ExpertsOff()) == 0 {
		t.Errorf("the drafter has %s off, the conversation %v", got, s.st.ExpertsOff())
	}
	if err := s.Set("draft", "off"); err != nil {
		t.Fatal(err)
	}

	// Everything on again; too many off is one sentence and changes nothing.
	if err := s.Set("expert_off", "none"); err != nil {
		t.Fatal(err)
	}
	if got := s.st.ExpertsOff(); len(got) != 0 {
		t.Errorf("expert_off none left %v off", got)
	}
	if err := s.Set("expert_off", "1:0,1:1,1:2"); err == nil || !strings.Contains(err.Error(), "fewer than the 2") {
		t.Errorf("three of four experts off at k=2: %v", err)
	}
	if err := s.Set("expert_off", "1:9"); err == nil || !strings.Contains(err.Error(), "each layer has 4 experts") {
		t.Errorf("an expert out of range: %v", err)
	}
	if s.Settings().ExpertOff != "" {
		t.Errorf("a refused expert_off changed the setting to %q", s.Settings().ExpertOff)
	}
	// Recording off: no map, and no cost; on again, it starts afresh.
	if err := s.Experts().Record(false); err != nil {
		t.Fatal(err)
	}
	send(t, s, " again")
	if err := s.Experts().Map(&m); err != nil || m.Tokens != 0 {
		t.Errorf("recording off, the map has %d tokens (%v)", m.Tokens, err)
	}
	if err := s.Experts().Record(true); err != nil {
		t.Fatal(err)
	}
	send(t, s, " and again")
	if err := s.Experts().Map(&m); err != nil || m.Tokens == 0 {
		t.Errorf("recording on again, the map has %d tokens (%v)", m.Tokens, err)
	}
}
