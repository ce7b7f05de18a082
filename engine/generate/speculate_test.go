package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// kjvGolden is the golden prompts of the kjv fixture and its EOS id.
func kjvGolden(t *testing.T) (prompts [][]int32, eos int32) {
	t.Helper()
	var gold struct {
		EOS   int32 `json:"eos_token_id"`
		Cases []struct {
			PromptIDs []int32 `json:"prompt_ids"`
		} `json:"cases"`
	}
	b, err := os.ReadFile(fixture(t, "kjv/golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &gold); err != nil {
		t.Fatal(err)
	}
	for _, c := range gold.Cases {
		prompts = append(prompts, c.PromptIDs)
	}
	return prompts, gold.EOS
}

// openModel opens a fixture model for the test's duration.
func openModel(t testing.TB, rel string) *model.Model {
	t.Helper()
	m, err := model.Open(fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// specGen is a generator on a fresh state of m with hooks registered and
// speculation by d at γ gamma (nil d: plain).
func specGen(t testing.TB, m *model.Model, p sample.Params, d Drafter, gamma int, hooks ...any) *Generator {
	t.Helper()
	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		if _, err := st.AddHook(h); err != nil {
			t.Fatal(err)
		}
	}
	g, err := New(st, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetSpeculation(SpecOptions{Drafter: d, Gamma: gamma}); err != nil {
		t.Fatal(err)
	}
	return g
}

// compressedState is a second state of m run through a rank-k GRC of slots.
func compressedState(t testing.TB, m *model.Model, slots grc.Slots, k int) *model.State {
	t.Helper()
	gb, err := grc.NewBuilder(m, slots)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gb.Build(k)
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetProjections(c); err != nil {
		t.Fatal(err)
	}
	return st
}

// drafterCase builds one drafter for model m and sampling p.
type drafterCase struct {
	name  string
	gamma int
	make  func(t testing.TB, m *model.Model, p sample.Params) Drafter
}

func modelDrafter(slots grc.Slots, k int) func(testing.TB, *model.Model, sample.Params) Drafter {
	return func(t testing.TB, m *model.Model, p sample.Params) Drafter {
		d, err := NewModelDrafter(compressedState(t, m, slots, k), p, fmt.Sprintf("rank %d %s", k, slots))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

var drafterCases = []drafterCase{
	{"rank8-qkv-γ3", 3, modelDrafter(grc.QKV, 8)},
	{"rank192-qkv+ffn-adaptive", 0, modelDrafter(grc.QKV|grc.FFN, 192)},
	{"rank128-qkv-γ8", 8, modelDrafter(grc.QKV, 128)},
	{"ngram-γ4", 4, func(testing.TB, *model.Model, sample.Params) Drafter { return NewNGramDrafter() }},
}

// TestSpecGreedyMatchesPlain: greedy speculative decoding gives plain
// greedy decoding's tokens, token for token, for every golden prompt, on
// f32 and q8_0, with drafters that are often wrong (rank 8) and often
// right, with fixed and adaptive γ, and with the n-gram drafter.
func TestSpecGreedyMatchesPlain(t *testing.T) {
	prompts, eos := kjvGolden(t)
	const maxTok = 48
	for _, file := range []string{"kjv/kjv-f32.gguf", "kjv/kjv-q8_0.gguf"} {
		m := openModel(t, file)
		plain := make([][]int32, len(prompts))
		for i, pr := range prompts {
			g := specGen(t, m, sample.Params{}, nil, 0)
			var err error
			if plain[i], _, err = collect(t, g, context.Background(), pr, Options{MaxTokens: maxTok, Stop: []int32{eos}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, dc := range drafterCases {
			if file != "kjv/kjv-f32.gguf" && dc.gamma != 3 && dc.gamma != 4 {
				continue // q8_0: the often-wrong drafter and the n-gram one
			}
			t.Run(file+"/"+dc.name, func(t *testing.T) {
				g := specGen(t, m, sample.Params{}, dc.make(t, m, sample.Params{}), dc.gamma)
				var total SpecStats
				for i, pr := range prompts {
					g.Reset(0)
					got, stats, err := collect(t, g, context.Background(), pr, Options{MaxTokens: maxTok, Stop: []int32{eos}})
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, plain[i]) {
						t.Fatalf("prompt %d: speculative %v\nplain %v", i, got, plain[i])
					}
					if g.State().Pos() != len(g.History())-1 {
						t.Fatalf("prompt %d: state at %d with %d tokens of history (the last pending)", i, g.State().Pos(), len(g.History()))
					}
					total.Steps += stats.Spec.Steps
					total.Drafted += stats.Spec.Drafted
					total.Accepted += stats.Spec.Accepted
				}
				t.Logf("%d verifier steps, %d drafted, %d accepted (%.0f%%)", total.Steps, total.Drafted, total.Accepted, 100*total.AcceptRate())
				if dc.gamma > 0 && total.Steps == 0 {
					t.Fatal("no speculative step ran")
				}
				if total.Steps > 0 && total.Accepted == total.Drafted && dc.name == drafterCases[0].name {
					t.Fatal("the rank-8 drafter was never rejected: the test does not exercise rollback")
				}
			})
		}
	}
}

// TestSpecSamplingMatchesVerifier: the token a speculative step emits
// first is distributed as the verifier's sampler distribution p, whatever
// the drafter's q: 20,000 draws of the acceptance walk at one context of
// the kjv model, with q from a rank-8 drafter (often rejected) and from a
// rank-192 one (mostly accepted), each under plain sampling and under
// top-k/top-p with temperature. Pearson's χ² over the tokens expected ≥ 5
// times (the rest pooled) must not reject at p = 0.001.
func TestSpecSamplingMatchesVerifier(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: 80,000 acceptance walks; `make unit` runs it without the race detector")
	}
	m := openModel(t, "kjv/kjv-f32.gguf")
	ctxTokens := []int32{1, 300, 391, 394, 285, 264}
	logitsOf := func(st *model.State) []float32 {
		out := make([]float32, m.Vocab)
		if err := st.Forward(ctxTokens, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	vst, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	pLogits := logitsOf(vst)
	for _, params := range []sample.Params{
		{Temperature: 1, Seed: 11},
		{Temperature: 0.8, TopK: 40, TopP: 0.95, Seed: 12},
	} {
		for _, rank := range []int{8, 192} {
			t.Run(fmt.Sprintf("T%.1f-k%d/rank%d", params.Temperature, params.TopK, rank), func(t *testing.T) {
				qLogits := logitsOf(compressedState(t, m, grc.QKV|grc.FFN, rank))
				g := specGen(t, m, params, NewNGramDrafter(), 1)
				s := g.spec
				smp, err := sample.New(m.Vocab, params)
				if err != nil {
					t.Fatal(err)
				}
				p := smp.Dist(pLogits, ctxTokens, nil)
				q := smp.Dist(qLogits, ctxTokens, nil)
				// Both rows of the walk's logits: the first decides the
				// token; the second (the bonus after an accepted draft)
				// does not matter for it.
				logits := append(slices.Clone(pLogits), pLogits...)
				hist := append(slices.Clone(ctxTokens), 0)
				rng := rand.New(rand.NewPCG(uint64(rank), 7))
				const draws = 20000
				counts := map[int32]int{}
				accepted := 0
				for range draws {
					x := drawFrom(q, rng.Float64())
					s.drafts[0] = x
					s.q[0] = append(s.q[0][:0], q...)
					hist[len(hist)-1] = x
					acc, _, next := s.walk(g.sampler, logits, hist, len(ctxTokens), 1, func(int) {})
					if acc == 1 {
						counts[x]++
						accepted++
					} else {
						counts[next]++
					}
				}
				chi2, dof := chiSquare(p, counts, draws)
				crit := distuv.ChiSquared{K: float64(dof)}.Quantile(0.999)
				t.Logf("accepted %.1f%% of drafts; χ² = %.1f on %d degrees of freedom (critical %.1f at p = 0.001)", 100*float64(accepted)/draws, chi2, dof, crit)
				if chi2 > crit {
					t.Fatalf("the emitted tokens are not distributed as the verifier's p: χ² = %.1f > %.1f", chi2, crit)
				}
				if dof < 3 {
					t.Fatalf("only %d degrees of freedom: the distribution is too peaked to test", dof)
				}
			})
		}
	}
}

// drawFrom draws from d at u ∈ [0, 1).
func drawFrom(d []sample.Prob, u float64) int32 {
	for _, e := range d[:len(d)-1] {
		if u -= e.P; u < 0 {
			return e.ID
		}
	}
	return d[len(d)-1].ID
}

// chiSquare is Pearson's statistic of counts against n draws from p, over
// the tokens expected at least 5 times and one bin pooling the rest.
func chiSquare(p []sample.Prob, counts map[int32]int, n int) (chi2 float64, dof int) {
	pooledE, pooledO := 0.0, n
	bins := 0
	for _, e := range p {
		exp := e.P * float64(n)
		if exp < 5 {
			pooledE += exp
			continue
		}
		o := float64(counts[e.ID])
		pooledO -= counts[e.ID]
		chi2 += (o - exp) * (o - exp) / exp
		bins++
	}
	if pooledE >= 5 {
		chi2 += (float64(pooledO) - pooledE) * (float64(pooledO) - pooledE) / pooledE
		bins++
	} else if pooledO > 0 && pooledE == 0 {
		return math.Inf(1), bins // a token p cannot give came out
	}
	return chi2, bins - 1
}

// TestSpecRollbackKV: after speculative sampling with a drafter that is
// often rejected, the verifier's cache equals a fresh prefill of the
// accepted text at every position (1e-5), and a rewind hook on the
// verifier holds exactly the positions the conversation has.
func TestSpecRollbackKV(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	params := sample.Params{Temperature: 1, Seed: 5}
	rec := &posRecorder{}
	g := specGen(t, m, params, modelDrafter(grc.QKV, 8)(t, m, params), 6, rec)
	st := g.State()
	var spec SpecStats
	prompt := []int32{1, 300, 391, 394}
	for _, p := range [][]int32{prompt, {285}} { // two calls: the second continues the first
		_, stats, err := collect(t, g, context.Background(), p, Options{MaxTokens: 40})
		if err != nil {
			t.Fatal(err)
		}
		spec.Drafted += stats.Spec.Drafted
		spec.Accepted += stats.Spec.Accepted
	}
	if spec.Drafted == spec.Accepted {
		t.Fatalf("no rejection in %d drafts: the test does not exercise rollback", spec.Drafted)
	}
	n := st.Pos()
	if n != len(g.History())-1 {
		t.Fatalf("state at %d, history %d (the last pending)", n, len(g.History()))
	}
	fresh, err := m.NewStateOn(0, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Forward(g.History()[:n], nil); err != nil {
		t.Fatal(err)
	}
	kd := m.KVDim()
	k1, v1, k2, v2 := make([]float32, kd), make([]float32, kd), make([]float32, kd), make([]float32, kd)
	worst := 0.0
	for l := range m.Layers {
		for pos := range n {
			if err := st.KVAt(l, pos, k1, v1); err != nil {
				t.Fatal(err)
			}
			if err := fresh.KVAt(l, pos, k2, v2); err != nil {
				t.Fatal(err)
			}
			for i := range kd {
				worst = max(worst, math.Abs(float64(k1[i]-k2[i])), math.Abs(float64(v1[i]-v2[i])))
			}
		}
	}
	t.Logf("%d drafted, %d accepted; largest KV difference to a fresh prefill of %d positions: %.2g", spec.Drafted, spec.Accepted, n, worst)
	if worst > 1e-5 {
		t.Fatalf("the verifier's cache differs from a fresh prefill by %g", worst)
	}
	if err := st.KVAt(0, n, k1, v1); err == nil {
		t.Fatal("KVAt read a position past the state's")
	}
	if len(rec.seen) != n {
		t.Fatalf("the rewind hook holds %d positions, the state %d", len(rec.seen), n)
	}
	for i, p := range rec.seen {
		if p != i {
			t.Fatalf("the rewind hook holds position %d at %d", p, i)
		}
	}
}

// posRecorder records the positions it saw at layer 0, forgetting
// rewound ones.
type posRecorder struct{ seen []int }

func (r *posRecorder) AfterBlock(layer, pos int, _ []float32) {
	if layer == 0 {
		r.seen = append(r.seen, pos)
	}
}

func (r *posRecorder) Rewind(pos int) {
	for len(r.seen) > 0 && r.seen[len(r.seen)-1] >= pos {
		r.seen = r.seen[:len(r.seen)-1]
	}
}

// TestSpecDecodeAllocatesNothing: a speculative generation (model
// drafter, sampling) allocates nothing once its buffers have grown.
func TestSpecDecodeAllocatesNothing(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	params := sample.Params{Temperature: 0.9, TopK: 50, Seed: 3}
	g := specGen(t, m, params, modelDrafter(grc.QKV, 64)(t, m, params), 4)
	generatesWithoutAllocating(t, g)
}

// generatesWithoutAllocating fails t unless a 30-token generation from a
// kjv prompt allocates nothing once three runs have grown every buffer.
func generatesWithoutAllocating(t *testing.T, g *Generator) {
	t.Helper()
	prompt := []int32{1, 300, 391, 394}
	emit := func(int32) error { return nil }
	o := Options{MaxTokens: 30}
	for range 3 { // grow every buffer
		g.Reset(1)
		if _, err := g.Generate(context.Background(), prompt, o, emit); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(5, func() {
		g.Reset(1)
		if _, err := g.Generate(context.Background(), prompt, o, emit); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per 30-token speculative generation", n)
	}
}

// TestNGramDrafter proposes what followed the latest earlier match of the
// longest suffix, and nothing without a match.
func TestNGramDrafter(t *testing.T) {
	d := NewNGramDrafter()
	out := make([]int32, 4)
	q := make([][]sample.Prob, 4)
	for _, c := range []struct {
		hist []int32
		want []int32
	}{
		{[]int32{1, 2, 3, 4, 9, 2, 3}, []int32{4, 9, 2, 3}},
		{[]int32{5, 6, 7, 5, 6, 8, 5, 6}, []int32{8, 5, 6}}, // latest match of "5 6"
		{[]int32{1, 2, 3}, nil},
		{[]int32{7}, nil},
		{[]int32{4, 2, 4}, []int32{2, 4}},
	} {
		n, err := d.Draft(DraftRequest{History: c.hist}, out, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out[:n], c.want) {
			t.Errorf("history %v: drafted %v, want %v", c.hist, out[:n], c.want)
		}
		for i := range n {
			if len(q[i]) != 1 || q[i][0].ID != out[i] || q[i][0].P != 1 {
				t.Errorf("history %v: q[%d] = %v, want the token with probability 1", c.hist, i, q[i])
			}
		}
	}
	n, _ := d.Draft(DraftRequest{History: []int32{1, 2, 3, 1, 2}, Stop: []int32{3}}, out, q)
	if n != 1 || out[0] != 3 {
		t.Errorf("drafting stops at a stop token: got %v", out[:n])
	}
}

// TestSpecController: the throughput model picks a long γ for a cheap,
// reliable drafter, turns speculation off for an expensive, unreliable
// one (probing again after 32 plain steps, then ever more rarely), and keeps
// a fixed γ.
func TestSpecController(t *testing.T) {
	var c specCtl
	c.init(0, 8)
	if g := c.choose(); g != 0 {
		t.Fatalf("before any plain step, γ = %d (want a plain step to measure)", g)
	}
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	c.plain(ms(10))
	for range 50 { // cheap drafter, every draft accepted, batches cost 1.2× a step
		c.spec(4, 4, false, ms(4), ms(12))
		for b := 2; b < len(c.tv); b++ {
			c.tv[b] = 0.012
		}
	}
	c.plain(ms(10))
	for range 5 {
		c.spec(4, 4, false, ms(4), ms(12))
	}
	if g := c.choose(); g < 6 || c.off {
		t.Fatalf("α %.2f, cheap drafter: γ = %d, off %v (want a long γ)", c.alpha(), g, c.off)
	}
	// While on, a plain step every 32 keeps T_V(1) measured.
	for range probeEvery {
		c.spec(4, 4, false, ms(4), ms(12))
	}
	if g := c.choose(); g != 0 {
		t.Fatalf("after %d speculative steps γ = %d, want a plain step to re-measure", probeEvery+5, g)
	}
	c.plain(ms(10))
	if g := c.choose(); g < 6 {
		t.Fatalf("after the plain step γ = %d, want speculation again", g)
	}
	// One plain step 50× slower than the rest moves the estimate at most
	// as a 4× one would.
	before := c.tv[1]
	c.plain(ms(500))
	if c.tv[1] > before*(1+ewmaW*3)+1e-12 {
		t.Fatalf("an outlier moved T_V(1) from %v to %v", before, c.tv[1])
	}
	c.init(0, 8)
	c.plain(ms(10))
	for range 50 { // expensive drafter, mostly rejected
		c.spec(2, 0, true, ms(16), ms(12))
	}
	if g := c.choose(); g != 0 || !c.off {
		t.Fatalf("α %.2f, costly drafter: γ = %d, off %v (want off)", c.alpha(), g, c.off)
	}
	// Probes come after 32 plain steps, then 64, 128…: a drafter that
	// keeps losing costs ever less.
	var probes []int
	for step := range 400 {
		if c.choose() > 0 {
			probes = append(probes, step)
			c.spec(2, 0, true, ms(16), ms(12)) // the probe loses again
			continue
		}
		c.plain(ms(10))
	}
	// (One plain step was measured before the loop.)
	if len(probes) < 3 || probes[0] != 31 || probes[1]-probes[0]-1 != 64 || probes[2]-probes[1]-1 != 128 {
		t.Fatalf("probes at steps %v, want after 32, 64 and 128 plain steps", probes)
	}
	c.init(3, 3)
	if g := c.choose(); g != 3 {
		t.Fatalf("fixed γ 3 chose %d", g)
	}
}

// TestBreakEven: the α at which (1 − α^{γ+1})/(1 − α) equals the cost.
func TestBreakEven(t *testing.T) {
	for _, c := range []struct{ gamma, cost, want float64 }{
		{1, 1.5, 0.5}, {2, 1, 0}, {3, 4, 1}, {4, 9, 1},
	} {
		if got := breakEven(c.gamma, c.cost); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("breakEven(%v, %v) = %v, want %v", c.gamma, c.cost, got, c.want)
		}
	}
	// γ = 2, cost 2.5: 1 + α + α² = 2.5.
	if got, want := breakEven(2, 2.5), (math.Sqrt(7)-1)/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("breakEven(2, 2.5) = %v, want %v", got, want)
	}
}
