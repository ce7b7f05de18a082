package geometry_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
	"github.com/isagi-lab/isagi/internal/testkit/kjvgeo"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/snipe"
)

// The kjv fixture's geometry the tests measure (internal/testkit/kjvgeo).
func smallSet(t testing.TB) *prompts.Set        { return kjvgeo.SmallSet(t) }
func smallOptions() geometry.Options            { return kjvgeo.SmallOptions() }
func openKJV(t testing.TB) *session.Session     { return kjvgeo.Open(t) }
func kjvProfile(t testing.TB) *geometry.Profile { return kjvgeo.Profile(t) }

func TestCalibrateKJV(t *testing.T) {
	p := kjvProfile(t)
	if p.D != 256 || p.Layer != 5 || p.SnipeLayer != 5 {
		t.Fatalf("d=%d layer=%d snipe layer=%d, want 256, 5, 5 (the last of 6 blocks)", p.D, p.Layer, p.SnipeLayer)
	}
	// 4 zones × 6 + 8 categories × 5 × 2 = 104 prompts → k = min(64, 103, 256).
	if p.Stats.Prompts != 104 || p.K != 64 {
		t.Fatalf("%d prompts, k=%d; want 104, 64", p.Stats.Prompts, p.K)
	}
	if len(p.Categories) != 8 || len(p.Zones) != 4 {
		t.Fatalf("%d categories, %d zones", len(p.Categories), len(p.Zones))
	}
	heldOut := 0
	for _, c := range p.Categories {
		if n := len(c.Gauge.Forbidden); n < 1 || n > 4 {
			t.Errorf("%s: %d forbidden coordinates, want 1…4", c.Name, n)
		}
		if c.Gauge.ROC.Tau < 0 || c.Gauge.ROC.Tau > 50 {
			t.Errorf("%s: τ %.1f outside the 0–50 %% sweep", c.Name, c.Gauge.ROC.Tau)
		}
		if len(c.Snipe.Coords) > 3 || c.Snipe.Collateral > 0.02 {
			t.Errorf("%s: projector of %d coords at %.2f%% collateral breaks the budget", c.Name, len(c.Snipe.Coords), 100*c.Snipe.Collateral)
		}
		if len(c.Snipe.Steps) == 0 {
			t.Errorf("%s: greedy selection recorded no step", c.Name)
		}
		// What the TUI shows of a projector is measured on held-out prompts.
		if c.Snipe.HeldOut != nil {
			heldOut++
		}
		if h := c.Snipe.HeldOut; (h != nil) != (len(c.Snipe.Coords) > 0) || h != nil && (math.IsNaN(h.Reduction) || math.IsNaN(h.Collateral)) {
			t.Errorf("%s: %d coords, held-out measure %+v", c.Name, len(c.Snipe.Coords), h)
		}
	}
	if p.Stats.BaselineCE <= 0 || math.IsNaN(p.Stats.BaselineCE) {
		t.Fatalf("baseline cross-entropy %v", p.Stats.BaselineCE)
	}
	if heldOut == 0 {
		t.Error("no category has a projector: the held-out measure went untested")
	}
}

func TestProfileRoundTripAndRefusals(t *testing.T) {
	p := kjvProfile(t)
	dir := t.TempDir()
	path := geometry.ProfilePath(dir, p.Model.SHA256)
	if err := p.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	q, err := geometry.LoadProfile(path, 6)
	if err != nil {
		t.Fatal(err)
	}
	if q.Model != p.Model || q.K != p.K || q.Layer != p.Layer || len(q.Categories) != len(p.Categories) {
		t.Fatalf("reloaded profile differs: %+v vs %+v", q.Model, p.Model)
	}
	for i := range p.Mu {
		if q.Mu[i] != p.Mu[i] {
			t.Fatalf("μ[%d] %v → %v", i, p.Mu[i], q.Mu[i])
		}
	}
	if !equalDense(p.B.RawMatrix().Data, q.B.RawMatrix().Data) {
		t.Fatal("basis changed in the round trip")
	}

	// A flipped byte anywhere is refused.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.miku")
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(bad, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := geometry.LoadProfile(bad, 6); err == nil {
		t.Fatal("a corrupted profile loaded")
	}
	// A model with fewer blocks than the probe layer is refused.
	if _, err := geometry.LoadProfile(path, 3); err == nil {
		t.Fatal("a profile for a 6-block model loaded for 3 blocks")
	}

	// Another model: refused by sha256, with the reason.
	other, err := session.Open(fixtures.Path(t, "kjv/kjv-f16.gguf"), session.Options{Threads: 2, Ctx: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Geometry().Set(q); !errors.Is(err, geometry.ErrOtherModel) {
		t.Fatalf("profile of kjv-q8_0 on kjv-f16: %v, want ErrOtherModel", err)
	}
}

func equalDense(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gauges runs one greedy turn and returns the reading of every token.
func gauges(t *testing.T, p *geometry.Profile, snipes string) ([]geometry.Reading, session.Turn) {
	t.Helper()
	s := openKJV(t)
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	// Sampled, not greedy: the readings must repeat for a seed.
	for _, kv := range [][2]string{{"temperature", "0.8"}, {"seed", "42"}, {"max_tokens", "24"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if snipes != "" {
		if err := s.Set("snipe", snipes); err != nil {
			t.Fatal(err)
		}
	}
	var rs []geometry.Reading
	turn, err := s.Send(context.Background(), "And God said unto Moses", func(e session.Event) {
		if !e.Gauged {
			t.Error("event without a gauge reading while a profile runs")
		}
		rs = append(rs, e.Gauge)
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs, turn
}

func TestLiveGaugeDeterministic(t *testing.T) {
	p := kjvProfile(t)
	a, ta := gauges(t, p, "")
	b, tb := gauges(t, p, "")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d readings", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("token %d: readings differ between identical runs: %+v vs %+v", i, a[i], b[i])
		}
		if a[i].Overall < 0 || a[i].Overall > 100 || a[i].N != 8 {
			t.Fatalf("token %d: reading %+v out of range", i, a[i])
		}
	}
	if ta.Geometry == nil || tb.Geometry == nil || ta.Geometry.Prompt != tb.Geometry.Prompt {
		t.Fatal("turn summaries missing or different")
	}
	if ta.Geometry.PromptTokens == 0 || ta.Geometry.ReplyTokens == 0 {
		t.Fatalf("summary counted %d prompt and %d reply positions", ta.Geometry.PromptTokens, ta.Geometry.ReplyTokens)
	}
	varied := false
	for i := 1; i < len(a); i++ {
		varied = varied || a[i].Overall != a[0].Overall
	}
	if !varied {
		t.Fatal("the per-token gauge never moved")
	}
}

// recorder keeps a copy of the residual stream at one layer.
type recorder struct {
	layer int
	got   [][]float32
}

func (r *recorder) AfterBlock(layer, _ int, x []float32) {
	if layer == r.layer {
		r.got = append(r.got, append([]float32(nil), x...))
	}
}

// The projector changes the residual stream by exactly the projection:
// h' = h − QQᵀ(h − μ), and nothing else, at the snipe layer.
func TestProjectorIsExactlyTheProjection(t *testing.T) {
	p := kjvProfile(t)
	var cat *geometry.Category
	for i := range p.Categories {
		if len(p.Categories[i].Snipe.Coords) > 0 {
			cat = &p.Categories[i]
			break
		}
	}
	if cat == nil {
		t.Fatal("no category kept a projector coordinate; the test needs one")
	}
	mon, err := geometry.NewMonitor(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.SetSnipe(cat.Name, true); err != nil {
		t.Fatal(err)
	}
	s := openKJV(t)
	st, err := s.Geometry().CalibrationSource().Model.NewStateOn(64, cpu.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	before, after := &recorder{layer: p.SnipeLayer}, &recorder{layer: p.SnipeLayer}
	for _, h := range []any{before, mon, after} { // hooks run in this order
		if _, err := st.AddHook(h); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := s.Geometry().CalibrationSource().Text("In the beginning God created the heaven and the earth.")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Forward(ids, nil); err != nil {
		t.Fatal(err)
	}
	proj, err := snipe.NewProjector(p.B, p.Mu, cat.Snipe.Coords)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.got) != len(ids) || len(after.got) != len(ids) {
		t.Fatalf("recorded %d/%d positions of %d", len(before.got), len(after.got), len(ids))
	}
	_, r := proj.Q.Dims()
	for pos := range ids {
		want := make([]float64, p.D)
		for i, v := range before.got[pos] {
			want[i] = float64(v)
		}
		proj.Apply(want)
		var maxErr, scale float64
		for i, v := range after.got[pos] {
			maxErr = math.Max(maxErr, math.Abs(float64(v)-want[i]))
			scale = math.Max(scale, math.Abs(want[i]))
		}
		if maxErr > 1e-5*scale+1e-5 {
			t.Fatalf("position %d: the stream differs from the projection by %g (scale %g)", pos, maxErr, scale)
		}
		for j := range r { // and the forbidden coordinates are gone
			var dot float64
			for i, v := range after.got[pos] {
				dot += proj.Q.At(i, j) * (float64(v) - p.Mu[i])
			}
			if math.Abs(dot) > 1e-3*scale {
				t.Fatalf("position %d: Qᵀ(h−μ)[%d] = %g after the projector", pos, j, dot)
			}
		}
	}
}

func TestSnipeToggle(t *testing.T) {
	p := kjvProfile(t)
	var on string
	for _, c := range p.Categories {
		if len(c.Snipe.Coords) > 0 {
			on = c.Name
			break
		}
	}
	if on == "" {
		t.Fatal("no projector to switch on")
	}
	s := openKJV(t)
	if err := s.Set("snipe", on); !errors.Is(err, session.ErrNoGeometry) {
		t.Fatalf("snipe without a profile: %v", err)
	}
	if err := s.Geometry().Set(p); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("snipe", "no_such_category"); err == nil {
		t.Fatal("an unknown category was accepted")
	}
	if err := s.Set("snipe", on); err != nil {
		t.Fatal(err)
	}
	if got := s.Geometry().Snipes(); len(got) != 1 || got[0] != on || s.Settings().Snipe != on {
		t.Fatalf("snipes %v, setting %q", got, s.Settings().Snipe)
	}
	if err := s.Set("snipe", "off"); err != nil {
		t.Fatal(err)
	}
	if len(s.Geometry().Snipes()) != 0 {
		t.Fatalf("snipes after off: %v", s.Geometry().Snipes())
	}
}

// TestEvaluateSnipe measures every projector on the held-out split, as
// calibration does for each projector's held-out figure.
func TestEvaluateSnipe(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	sr, err := geometry.EvaluateSnipe(context.Background(), s.Geometry().CalibrationSource(), p, smallSet(t), 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sr.Categories) != 8 || sr.BaselineCE <= 0 {
		t.Fatalf("snipe report %+v", sr)
	}
}

// TestGaugePositionLast: a profile whose gauges read the last prompt token
// is calibrated there, keeps the choice in its file, and its live turn
// figure is the last prompt token's reading (geometry/evaluate's
// TestGaugePositionLast: it is evaluated there).
func TestGaugePositionLast(t *testing.T) {
	if p := kjvProfile(t); p.GaugePosition != geometry.GaugeMean {
		t.Fatalf("kjv has no chat template, yet auto chose %q", p.GaugePosition)
	}
	s := openKJV(t)
	o := smallOptions()
	o.GaugePosition = geometry.GaugeLast
	p, err := geometry.Calibrate(context.Background(), s.Geometry().CalibrationSource(), smallSet(t), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.GaugeAtLast() {
		t.Fatalf("gauge position %q", p.GaugePosition)
	}
	if p.Model, err = s.Probe().Ref(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "last.geometry.miku")
	if err := p.Save(path, "test"); err != nil {
		t.Fatal(err)
	}
	back, err := geometry.LoadProfile(path, -1)
	if err != nil || !back.GaugeAtLast() {
		t.Fatalf("loaded back: %v, position %q", err, back.GaugePosition)
	}
	o.GaugePosition = "middle"
	if _, err := geometry.Calibrate(context.Background(), s.Geometry().CalibrationSource(), smallSet(t), o, nil); err == nil || !strings.Contains(err.Error(), "middle") {
		t.Errorf("gauge position middle: %v", err)
	}
	// Live: the turn's prompt figure is the reading that chose the first
	// reply token, the prompt's last position.
	live := *kjvProfile(t)
	live.GaugePosition = geometry.GaugeLast
	rs, turn := gauges(t, &live, "")
	if turn.Geometry == nil || turn.Geometry.Prompt != rs[0] {
		t.Fatalf("turn prompt figure %+v, want the first event's reading %+v", turn.Geometry, rs[0])
	}
	_, mean := gauges(t, kjvProfile(t), "")
	if mean.Geometry.Prompt == rs[0] {
		t.Error("the mean profile's prompt figure is the last token's too")
	}
	// Under speculative decoding too the prompt figure is the last prompt
	// position's: the reading handed to BeginReply, not the latest one
	// the monitor read (a drafted position's, once drafts run).
	s2 := openKJV(t)
	if err := s2.Geometry().Set(&live); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"draft", "ngram"}, {"max_tokens", "24"}} {
		if err := s2.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var first geometry.Reading
	n := 0
	spec, err := s2.Send(context.Background(), "And God said unto Moses, And God said unto Moses", func(e session.Event) {
		if n == 0 {
			first = e.Gauge
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Geometry == nil || spec.Geometry.Prompt != first {
		t.Fatalf("with drafts: turn prompt figure %+v, want the first event's reading %+v", spec.Geometry, first)
	}
}

// TestMonitorRewind: positions a state forgets (a speculative verifier's
// rejected drafts) leave the turn's means, counts and peak exactly as if
// they had never been computed, and At finds each kept position's reading.
func TestMonitorRewind(t *testing.T) {
	p := kjvProfile(t)
	mon, err := geometry.NewMonitor(p)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 9))
	vec := func(scale float64) []float32 {
		x := make([]float32, p.D)
		for i := range x {
			x[i] = float32(p.Mu[i] + scale*r.NormFloat64())
		}
		return x
	}
	mon.BeginTurn()
	for pos := range 4 {
		mon.AfterBlock(p.Layer, pos, vec(1))
	}
	end, _ := mon.At(3)
	mon.BeginReply(end)
	for pos := 4; pos < 7; pos++ {
		mon.AfterBlock(p.Layer, pos, vec(1))
	}
	want := mon.Summary()
	wantLast, ok := mon.At(6)
	if !ok || wantLast != mon.Last() {
		t.Fatalf("At(6) = %v, %v; Last %v", wantLast, ok, mon.Last())
	}
	for pos := 7; pos < 12; pos++ { // drafts far off the mean: a new peak
		mon.AfterBlock(p.Layer, pos, vec(40))
	}
	if mon.Summary().ReplyTokens != 8 {
		t.Fatalf("reply tokens before the rewind: %d", mon.Summary().ReplyTokens)
	}
	mon.Rewind(7)
	got := mon.Summary()
	if got.PromptTokens != want.PromptTokens || got.ReplyTokens != want.ReplyTokens || got.Peak != want.Peak {
		t.Fatalf("after Rewind: %d+%d tokens, peak %v; want %d+%d, peak %v", got.PromptTokens, got.ReplyTokens, got.Peak, want.PromptTokens, want.ReplyTokens, want.Peak)
	}
	if math.Abs(float64(got.Reply.Overall-want.Reply.Overall)) > 1e-3 {
		t.Fatalf("reply mean reading %v after Rewind, want %v", got.Reply.Overall, want.Reply.Overall)
	}
	if mon.Last() != wantLast {
		t.Fatalf("Last after Rewind is not position 6's reading")
	}
	if _, ok := mon.At(8); ok {
		t.Fatal("At(8) found a forgotten position")
	}
}

// TestHooksDeclareWhatTheyTouch: the monitor is read-only while every
// projector is off and a writer while one is on; the exploration step
// reads and writes its one layer only — so a device backend copies back
// only what a hook needs, and writes back only what a hook may change.
func TestHooksDeclareWhatTheyTouch(t *testing.T) {
	p := kjvProfile(t)
	mon, err := geometry.NewMonitor(p)
	if err != nil {
		t.Fatal(err)
	}
	var hook any = mon
	ro, ok := hook.(model.ReadOnlyHook)
	if !ok || !ro.ReadOnly() {
		t.Fatal("a monitor with no projector on is not read-only")
	}
	i := slices.IndexFunc(p.Categories, func(c geometry.Category) bool { return len(c.Snipe.Coords) > 0 })
	if i < 0 {
		t.Fatal("no category kept a projector coordinate; the test needs one")
	}
	if err := mon.SetSnipe(p.Categories[i].Name, true); err != nil {
		t.Fatal(err)
	}
	if ro.ReadOnly() {
		t.Fatal("a monitor with a projector on says it does not write")
	}
	if err := mon.SetSnipe(p.Categories[i].Name, false); err != nil || !ro.ReadOnly() {
		t.Fatalf("projector off again: %v, read-only %v", err, ro.ReadOnly())
	}

	dir, source, err := geometry.Direction(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := geometry.NewExplorer(p, dir, 0.2, source)
	if err != nil {
		t.Fatal(err)
	}
	hook = x
	if _, ro := hook.(model.ReadOnlyHook); ro {
		t.Fatal("the exploration step writes, but says it is read-only")
	}
	if lh, ok := hook.(model.LayerHook); !ok || !slices.Equal(lh.HookLayers(), []int{p.Layer}) {
		t.Fatalf("the exploration step should name its layer %d", p.Layer)
	}
}

// TestIsRefusal: markers match case-insensitively, with either apostrophe.
func TestIsRefusal(t *testing.T) {
	for _, c := range []struct {
		reply string
		want  bool
	}{
		{"I can't help with that.", true},
		{"Sorry, no.", true},
		{"I CANNOT do this", true},
		{"I can’t share that", true},
		{"Here is the sum: 12.", false},
		{"And God said, Let there be light", false},
	} {
		if got := geometry.IsRefusal(c.reply); got != c.want {
			t.Errorf("IsRefusal(%q) = %v", c.reply, got)
		}
	}
}
