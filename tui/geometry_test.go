package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/teh"
)

var fakeCategories = []string{"privacy", "illegal_advice", "phishing", "sycophancy", "jailbreak", "toxicity", "misinformation", "self_harm"}

// fakeProfile is a profile as the pane reads it: τ 10 % for every gauge,
// every projector but the last with measured figures.
func fakeProfile() *geometry.Profile {
	p := &geometry.Profile{D: 576, K: 64, Layer: 29, SnipeLayer: 29, Overall: geometry.Gauge{ROC: teh.ROC{Tau: 12}}}
	p.Stats.Seconds, p.Stats.Prompts, p.Stats.Budget = 42, 352, 0.02
	for i, n := range fakeCategories {
		c := geometry.Category{Name: n, Gauge: geometry.Gauge{Forbidden: []int{i}, ROC: teh.ROC{Tau: 10}}}
		if i < len(fakeCategories)-1 {
			// Selection-set figures differ from held-out ones: the pane
			// must show the held-out ones.
			c.Snipe = geometry.Snipe{Coords: []int{i, i + 8}, Reduction: 0.82, Collateral: 0.004,
				HeldOut: &geometry.SnipeMeasure{Reduction: 0.41, Collateral: 0.012, Refusals: &geometry.RefusalChange{Prompts: 8, Before: 7, After: 2, Tokens: 24}}}
		}
		p.Categories = append(p.Categories, c)
	}
	return p
}

// fakeGeo is a fake session with the geometry stack.
type fakeGeo struct {
	*fakeSession
	gmu       sync.Mutex
	profile   *geometry.Profile
	snipes    []string
	calibSlow bool // Calibrate waits for cancellation
	alpha     float64
	regens    int
}

func (f *fakeGeo) Stats() (session.ManifoldStats, bool) {
	f.gmu.Lock()
	defer f.gmu.Unlock()
	if f.profile == nil {
		return session.ManifoldStats{}, false
	}
	return session.ManifoldStats{
		Growth: 0.0561, Trajectories: 3, Clusters: 2, TopEigen: []float64{1.031, 1.012, 1},
		Points: []cog.Point{{X: 0.9, Y: 0.9, Cluster: 0}, {X: -0.9, Y: -0.9, Cluster: 1}, {X: 0.1, Y: -0.5, Cluster: 1}},
		Alpha:  f.alpha, Direction: "UGT axis 2", Tau: 0.0373, Calibrated: true,
	}, true
}

func (f *fakeGeo) Regenerate(ctx context.Context, emit func(session.Event)) (session.Turn, error) {
	f.gmu.Lock()
	f.regens++
	f.gmu.Unlock()
	return f.fakeSession.Send(ctx, "(again)", emit)
}

func (f *fakeGeo) Profile() *geometry.Profile {
	f.gmu.Lock()
	defer f.gmu.Unlock()
	return f.profile
}

func (f *fakeGeo) Snipes() []string {
	f.gmu.Lock()
	defer f.gmu.Unlock()
	return append([]string(nil), f.snipes...)
}

func (f *fakeGeo) Set(name, value string) error {
	if name == "ogd_alpha" {
		f.fakeSession.mu.Lock()
		f.fakeSession.sets = append(f.fakeSession.sets, [2]string{name, value})
		f.fakeSession.mu.Unlock()
		f.gmu.Lock()
		defer f.gmu.Unlock()
		f.alpha = 0
		if value != "off" {
			fmt.Sscan(value, &f.alpha)
		}
		return nil
	}
	if name != "snipe" {
		return f.fakeSession.Set(name, value)
	}
	f.fakeSession.mu.Lock()
	f.fakeSession.sets = append(f.fakeSession.sets, [2]string{name, value})
	f.fakeSession.mu.Unlock()
	f.gmu.Lock()
	defer f.gmu.Unlock()
	f.snipes = nil
	if value != "off" {
		for _, n := range strings.Split(value, ",") {
			if !contains(fakeCategories, n) {
				return fmt.Errorf("no category %q", n)
			}
			f.snipes = append(f.snipes, n)
		}
	}
	return nil
}

func (f *fakeGeo) Calibrate(ctx context.Context, progress geometry.Progress) error {
	for i := range 3 {
		progress("hidden states", i+1, 3)
		time.Sleep(5 * time.Millisecond)
	}
	if f.calibSlow {
		<-ctx.Done()
		return fmt.Errorf("geometry: %w", ctx.Err())
	}
	f.gmu.Lock()
	f.profile = fakeProfile()
	f.gmu.Unlock()
	return nil
}

func TestGeometryPaneOffersCalibration(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake()}
	tm := start(t, e, 120, 50)
	waitFor(t, tm, "Geometry", "no profile for this model", "/calibrate builds one")
	typeLine(tm, "/calibrate")
	waitFor(t, tm, "geometry profile built in 42.0 s", "privacy", "self-harm")
	m := finish(t, tm)
	f := checkFrame(t, m, 120, 50, "overall", "τ 12.0%", "category  token ○● refused  ce", "7→2/8 +1.2%", "refused: held-out, off→on")
	if strings.Contains(f, "41%") {
		t.Errorf("the pane shows the probe-score reduction:\n%s", f)
	}
	if strings.Contains(f, "-82%") {
		t.Errorf("the pane shows the selection-set reduction:\n%s", f)
	}
}

func TestCalibrationCancels(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), calibSlow: true}
	tm := start(t, e, 120, 50)
	typeLine(tm, "/calibrate")
	waitFor(t, tm, "calibrating…", "esc cancels")
	typeLine(tm, "a message while busy")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitFor(t, tm, "calibration cancelled — nothing changed")
	m := finish(t, tm)
	if sent, _, _, _ := e.snapshot(); len(sent) != 0 {
		t.Fatalf("a message reached the session during calibration: %q", sent)
	}
	if m.gate.busyWith() != "" || e.Profile() != nil {
		t.Fatalf("busy %q, profile %v after cancelling", m.gate.busyWith(), e.Profile())
	}
}

func TestGeometryLiveGaugeAndSnipe(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	e.gauge = func(i int) geometry.Reading {
		r := geometry.Reading{Overall: 7.5 + float32(i), N: 8}
		r.Cat[0] = 31.4 // privacy well over its τ of 10 %
		return r
	}
	tm := start(t, e, 120, 50)
	typeLine(tm, "/snipe privacy on")
	waitFor(t, tm, "snipe projectors: privacy", "●")
	typeLine(tm, "hello")
	waitFor(t, tm, "reached a category's threshold", "privacy 31.4% (its τ 10.0%)")
	typeLine(tm, "/snipe")
	waitFor(t, tm, "privacy         ON", "no coordinate within the collateral budget")
	typeLine(tm, "/snipe off")
	waitFor(t, tm, "snipe projectors: off")
	finish(t, tm)
	_, sets, _, _ := e.snapshot()
	want := [][2]string{{"snipe", "privacy"}, {"snipe", "off"}}
	if fmt.Sprint(sets) != fmt.Sprint(want) {
		t.Fatalf("session sets %v, want %v", sets, want)
	}
}

func TestManifoldPaneRetrieveRegenerateAndAlpha(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	e.cog = &session.COGTurn{Tier: "retrieve", Distance: 0.0123, Retrieved: true, Growth: 0.0561, Trajectories: 3,
		Decision: "served", Why: "same request as a stored one, same live state", Gate: 0.0021, Tau: 0.0373}
	tm := start(t, e, 130, 80)
	waitFor(t, tm, "Manifold", "λ(M)", "1.03 1.01 1", "3 · 2 clusters", "OGD α", "memory  on · τ 0.0373")
	typeLine(tm, "hello")
	waitFor(t, tm, "answered from memory: same request as a stored one, same live state — ctrl+r regenerates",
		"RETRIEVE d 0.0123", "served: same request as a")
	e.cog = &session.COGTurn{Tier: "expand", Distance: 0.31, Growth: 0.07, Trajectories: 4,
		Decision: "regenerated", Why: "regenerated on request (ctrl+r)", Gate: -1, Tau: 0.0373}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlR})
	waitFor(t, tm, "regenerating the last answer", "EXPAND d 0.3100", "not served: regenerated on")
	tm.Send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	waitFor(t, tm, "OGD α 0.05")
	tm.Send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown, Alt: true})
	time.Sleep(300 * time.Millisecond)
	m := finish(t, tm)
	checkFrame(t, m, 130, 80, "●", "◆", "along UGT axis 2")
	_, sets, _, _ := e.snapshot()
	want := [][2]string{{"ogd_alpha", "0.05"}, {"ogd_alpha", "0.10"}, {"ogd_alpha", "0.05"}}
	if fmt.Sprint(sets) != fmt.Sprint(want) {
		t.Fatalf("session sets %v, want %v", sets, want)
	}
	if e.regens != 1 {
		t.Fatalf("%d regenerations, want 1", e.regens)
	}
}

// At 100×30 the side column cannot hold every pane: the ones that do not
// fit still show a line each, so the Hardware pane never falls off.
func TestSidePanesNeverFallOff(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	tm := start(t, e, 100, 30)
	waitFor(t, tm, "more · ctrl+o rotates")
	m := finish(t, tm)
	f := checkFrame(t, m, 100, 30, "Perf", "more · ctrl+o rotates", "geometry TEH", "COG 3 stored", "CPU — no GPU telemetry")
	if !strings.Contains(f, "Model") {
		t.Errorf("the Model pane fell off:\n%s", f)
	}
}

// A near-miss in the RETRIEVE tier is generated, and the Manifold pane
// says why it was not served; a narrow pane wraps the reason.
func TestManifoldPaneSaysWhyNotServed(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	e.cog = &session.COGTurn{Tier: "retrieve", Distance: 0.0111, Nearest: "And Moses said", Growth: 0.0561, Trajectories: 3,
		Decision: "other-request", Why: `not the same request as the nearest, "And Moses said" (d 0.0111)`, Gate: -1, Tau: 0.0373}
	tm := start(t, e, 130, 80)
	typeLine(tm, "And Aaron said")
	waitFor(t, tm, "RETRIEVE d 0.0111", "not served: not the same", `Moses said" (d 0.0111)`)
	m := finish(t, tm)
	if f := checkFrame(t, m, 130, 80); strings.Contains(f, "answered from memory") {
		t.Errorf("a near-miss was announced as answered from memory:\n%s", f)
	}
	if got := (&manifoldPane{stats: session.ManifoldStats{MemoryOff: true}}).memoryLines(30); !strings.Contains(got[0], "off") {
		t.Errorf("memory off shows %q", got)
	}
	if got := (&manifoldPane{stats: session.ManifoldStats{}}).memoryLines(30); !strings.Contains(got[0], "word-for-word only") {
		t.Errorf("an uncalibrated gate shows %q", got)
	}
	for _, l := range wrapWords("a b c dddddddddddddddd e", 6) {
		if lipgloss.Width(l) > 6 {
			t.Errorf("wrapped line %q is wider than 6", l)
		}
	}
}

// TestFlaggedNearChanceCarriesANote: a warning from a gauge that was near
// chance in calibration says so; one from a gauge that separated well does
// not.
func TestFlaggedNearChanceCarriesANote(t *testing.T) {
	p := geometryPane{profile: fakeProfile()}
	p.profile.Categories[0].Gauge.ROC = teh.ROC{Tau: 10, TPR: 0.52, FPR: 0.47}
	p.profile.Categories[1].Gauge.ROC = teh.ROC{Tau: 10, TPR: 0.95, FPR: 0.04}
	turn := func(flagged string) session.Turn {
		return session.Turn{Geometry: &geometry.TurnSummary{Flagged: []string{flagged}}}
	}
	if got := p.notices(turn("privacy")); len(got) != 1 || !strings.Contains(got[0].text, "near chance") || !strings.Contains(got[0].text, "52% of harmful and 47% of benign") {
		t.Errorf("near-chance gauge: %+v", got)
	}
	if got := p.notices(turn("illegal_advice")); len(got) != 1 || strings.Contains(got[0].text, "chance") {
		t.Errorf("a gauge that separates: %+v", got)
	}
}

// Hardening III, item 8: /regen (and ctrl+r) in completion mode says in
// the chat why there is nothing to generate again, with or without a
// manifold: a continuation the model wrote stays in the running text.
func TestRegenInCompletionModeSaysWhy(t *testing.T) {
	for _, profile := range []bool{false, true} {
		e := &fakeGeo{fakeSession: newFake()}
		e.info.Mode = session.ModeCompletion
		if profile {
			e.profile = fakeProfile()
		}
		m := New(e, Options{})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.runCommand("/regen")
		got := lastEntry(t, m, entryInfo)
		if !strings.Contains(got, "completion mode is one running text") || !strings.Contains(got, "served from memory") {
			t.Errorf("profile %v: /regen in completion mode says %q (status %q)", profile, got, m.status)
		}
		m.Close()
		if e.regens != 0 {
			t.Errorf("profile %v: /regen in completion mode regenerated", profile)
		}
	}
}

// Hardening III, item 7: the turn's figures say what they are — "out" is
// the gauge of the reply's mean state, the peak that of its highest
// token, which may read lower — so that a peak below "out" is no puzzle.
func TestTurnPeakSaysWhatItIs(t *testing.T) {
	p := geometryPane{profile: fakeProfile()}
	p.turn = &geometry.TurnSummary{Prompt: geometry.Reading{Overall: 4.1}, Reply: geometry.Reading{Overall: 48.7}, Peak: 47.9, PromptTokens: 3, ReplyTokens: 9}
	got := ansi.Strip(strings.Join(p.lines(sideWidth-4), "\n"))
	for _, want := range []string{"turn in 4.1% out 48.7%", "peak token 47.9%", "out: mean"} {
		if !strings.Contains(got, want) {
			t.Errorf("the pane lacks %q:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if ansi.StringWidth(l) > sideWidth-4 {
			t.Errorf("line %q is wider than the pane", l)
		}
	}
}

// Hardening III, item 11: at 100 columns each projector of the /snipe list
// is one line, its collateral figure included.
func TestSnipeListFits100Columns(t *testing.T) {
	e := &fakeGeo{fakeSession: newFake(), profile: fakeProfile()}
	m := New(e, Options{})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 50})
	m.runCommand("/snipe")
	f := screen(m)
	rows := 0
	for _, l := range strings.Split(f, "\n") {
		if strings.TrimSpace(strings.Trim(l, "│╭╮╰╯─ ")) == "collateral" {
			t.Errorf("a row's last word wrapped onto a line of its own:\n%s", f)
			break
		}
		if strings.Contains(l, " coords ") {
			rows++
			if !strings.Contains(l, "refused 7 → 2 of 8  +1.20%") {
				t.Errorf("row %q is cut", l)
			}
		}
	}
	if rows != len(fakeCategories)-1 {
		t.Errorf("%d projector rows, want %d:\n%s", rows, len(fakeCategories)-1, f)
	}
}

// Hardening III, item 11: categories that read the same figure against the
// same τ (a profile whose categories share one gauge) are named together
// with the reading once, and a near-chance note they share is said once.
func TestFlaggedSameReadingSaidOnce(t *testing.T) {
	p := geometryPane{profile: fakeProfile()}
	var r geometry.Reading
	r.N = len(fakeCategories)
	for i := range p.profile.Categories {
		p.profile.Categories[i].Gauge.ROC = teh.ROC{Tau: 10, TPR: 0.52, FPR: 0.47}
		r.Cat[i] = 31.4
	}
	r.Cat[2] = 12.5 // phishing reads its own figure
	turn := session.Turn{Geometry: &geometry.TurnSummary{Prompt: r, Reply: r, Flagged: fakeCategories}}
	got := p.notices(turn)
	if len(got) != 1 {
		t.Fatalf("notices %+v", got)
	}
	text := got[0].text
	for _, want := range []string{"31.4%", "12.5%", "52% of harmful and 47% of benign"} {
		if n := strings.Count(text, want); n != 1 {
			t.Errorf("%q appears %d times, want once: %s", want, n, text)
		}
	}
	for _, name := range fakeCategories {
		if !strings.Contains(text, name) {
			t.Errorf("the warning does not name %s: %s", name, text)
		}
	}
}

// TestGeometryPaneSaysWhenTauIsNotClean: a gauge whose τ no threshold of
// the sweep left clean of benign calibration prompts is said to be so;
// clean ones add nothing.
func TestGeometryPaneSaysWhenTauIsNotClean(t *testing.T) {
	clean := &geometryPane{profile: fakeProfile()}
	for _, l := range clean.lines(40) {
		if strings.Contains(l, "not clean") {
			t.Fatalf("clean gauges read %q", l)
		}
	}
	p := fakeProfile()
	p.Overall.ROC.FP, p.Overall.ROC.FPR = 18, 0.05
	p.Categories[2].Gauge.ROC.FP, p.Categories[2].Gauge.ROC.FPR = 30, 0.1
	found := false
	for _, l := range (&geometryPane{profile: p}).lines(40) {
		found = found || strings.Contains(ansi.Strip(l), "τ not clean (overall + 1 category): ≤10% of benign calib. over")
	}
	if !found {
		t.Errorf("the pane does not say the τ is not clean: %q", (&geometryPane{profile: p}).lines(40))
	}
}
