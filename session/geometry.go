package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/ogd"
	"github.com/isagi-lab/isagi/prompts"
)

// Geometry is the geometry part of a Session: the profile running live
// (the TEH gauge), the Snipe projectors and the OGD exploration step.
type Geometry struct {
	s             *Session
	geo           *geometry.Monitor  // the geometry profile running live, or nil
	geoRemove     func()             // unregisters geo from the state
	profileDir    string             // where profiles are stored ("": nowhere)
	embedder      *geometry.Embedder // the profile's coordinates of a text (the memory's, the chains'), or nil
	explore       *geometry.Explorer
	exploreRemove func()
	ogdDir        []float64 // a fixed exploration direction (isagi explore), or nil
	ogdSource     string
}

// newGeometry is the geometry part of s, with no profile yet; profileDir
// is where profiles are stored ("": nowhere).
func newGeometry(s *Session, profileDir string) *Geometry {
	return &Geometry{s: s, profileDir: profileDir}
}

// fork is the geometry part of f, a fork of this part's session: it
// stores profiles in the same place (fork attaches the profile itself).
func (gm *Geometry) fork(f *Session) *Geometry { return newGeometry(f, gm.profileDir) }

// CalibrationSource is this session's model as geometry calibration needs
// it: prompts tokenised as a first user turn (chat mode) or as text after
// BOS (completion mode), so that calibration reads prompts in the form the
// live gauge will. It runs on the session's backend: do not calibrate
// while a reply is streaming.
func (gm *Geometry) CalibrationSource() geometry.Source {
	s := gm.s
	text := func(t string) ([]int32, error) {
		return s.tok.Encode(t, tokenizer.EncodeOptions{AddSpecial: true})
	}
	prompt := text
	if tmpl := s.cv.template(); tmpl != nil {
		prompt = func(t string) ([]int32, error) {
			p, err := tmpl.Render([]chat.Message{{Role: "user", Content: t}}, chat.Options{AddGenerationPrompt: true})
			if err != nil {
				return nil, err
			}
			return s.tok.EncodePrompt(p.Text, p.User, tokenizer.EncodeOptions{})
		}
	}
	decode := func(ids []int32) string { return s.tok.Decode(ids, tokenizer.DecodeOptions{Continuation: true}) }
	stops := s.stops
	stop := func(id int32) bool { return isStop(id, stops) }
	return geometry.Source{Model: s.m, Backend: s.b, Prompt: prompt, Text: text, Decode: decode, Stop: stop, Chat: s.cv.template() != nil}
}

// Set runs profile p live from the next turn: a TEH gauge on every
// token (Event.Gauge, Turn.Geometry) and Snipe projectors switched by the
// "snipe" setting. A profile built for another model is refused (the
// error wraps geometry.ErrOtherModel). nil detaches the profile.
func (gm *Geometry) Set(p *geometry.Profile) error {
	s := gm.s
	if p == nil {
		if gm.geoRemove != nil {
			gm.geoRemove()
		}
		_ = gm.useOGD(0)
		if err := s.mem.detach(); err != nil {
			return err
		}
		gm.geo, gm.geoRemove, gm.embedder = nil, nil, nil
		return nil
	}
	sum, err := s.pr.SHA256()
	if err != nil {
		return err
	}
	if err := p.Check(sum); err != nil {
		return err
	}
	if p.D != s.m.Dim || p.Layer >= s.m.Layers || p.SnipeLayer >= s.m.Layers {
		return fmt.Errorf("session: the geometry profile's shape (d=%d, layers %d/%d) does not fit this model", p.D, p.Layer, p.SnipeLayer)
	}
	mon, err := geometry.NewMonitor(p)
	if err != nil {
		return err
	}
	if gm.geoRemove != nil {
		gm.geoRemove()
	}
	gm.geo = mon
	if err := gm.attach(); err != nil {
		gm.geo = nil
		return err
	}
	emb, err := geometry.NewEmbedder(gm.CalibrationSource(), p)
	if err != nil {
		return err
	}
	gm.embedder = emb
	note, err := s.mem.start(p)
	if err != nil {
		return err
	}
	if note != "" {
		s.notes = append(s.notes, note)
	}
	if p.COG == nil {
		s.notes = append(s.notes, "this geometry profile was made before the memory gate was calibrated: only word-for-word repeats are answered from memory until `isagi calibrate` runs again")
	}
	if s.set.OGDAlpha > 0 {
		if err := gm.useOGD(s.set.OGDAlpha); err != nil {
			return err
		}
	}
	// Toggles saved with the conversation (or given before the profile
	// was ready) take effect now.
	if s.set.Snipe != "" {
		if err := gm.useSnipe(s.set.Snipe); err != nil {
			return err
		}
	}
	return nil
}

// attach registers the monitor on the current state (again after
// the KV cache is reallocated).
func (gm *Geometry) attach() error {
	s := gm.s
	if gm.geo == nil {
		return nil
	}
	remove, err := s.st.AddHook(gm.geo)
	if err != nil {
		return err
	}
	gm.geoRemove = remove
	if gm.explore != nil {
		if gm.exploreRemove, err = s.st.AddHook(gm.explore); err != nil {
			return err
		}
	}
	return nil
}

// Notes returns and clears what the session had to tell the user about
// state it could not restore (a manifold from another profile…),
// including, once, a saved manifold still waiting for its profile: ask
// after attaching the profile (LoadGeometry), so that only one that did
// not come is told.
func (s *Session) Notes() []string {
	n := s.notes
	s.notes = nil
	if w := s.mem.waitingNote(); w != "" {
		n = append(n, w)
	}
	return n
}

// Monitor is the live geometry monitor, or nil when no profile is loaded.
// Read it between replies only.
func (gm *Geometry) Monitor() *geometry.Monitor { return gm.geo }

// ErrNoGeometry is returned by Snipe toggles when no profile is loaded.
var ErrNoGeometry = errors.New("no geometry profile loaded: run `isagi calibrate` (or /calibrate) first")

// useSnipe enables exactly the projectors named in list ("a,b", "" or
// "off" for none).
func (gm *Geometry) useSnipe(list string) error {
	s := gm.s
	want := parseSnipe(list)
	if gm.geo == nil {
		if len(want) == 0 {
			return nil
		}
		return ErrNoGeometry
	}
	before := gm.geo.Snipes()
	for _, name := range want {
		if !slices.Contains(gm.geo.Profile().CategoryNames(), name) {
			return fmt.Errorf("no category %q (have %s)", name, strings.Join(gm.geo.Profile().CategoryNames(), ", "))
		}
	}
	for _, name := range gm.geo.Profile().CategoryNames() {
		if err := gm.geo.SetSnipe(name, slices.Contains(want, name)); err != nil {
			// Put the previous set back so a refused toggle changes nothing.
			for _, n := range gm.geo.Profile().CategoryNames() {
				_ = gm.geo.SetSnipe(n, slices.Contains(before, n))
			}
			return err
		}
	}
	// A projector below the last block changes the keys and values later
	// blocks write, so the cached conversation no longer matches: it is
	// recomputed on the next turn. At the last block only the logits move.
	if !slices.Equal(before, gm.geo.Snipes()) && gm.geo.Profile().SnipeLayer < s.m.Layers-1 {
		s.resetCache(s.set.Seed)
	}
	return nil
}

// parseSnipe splits "a, b" into names; "off" and "" mean none.
func parseSnipe(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "off" && f != "none" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Profile is the profile running live, or nil.
func (gm *Geometry) Profile() *geometry.Profile {
	if gm.geo == nil {
		return nil
	}
	return gm.geo.Profile()
}

// Snipes lists the categories whose projector is on.
func (gm *Geometry) Snipes() []string {
	if gm.geo == nil {
		return nil
	}
	return gm.geo.Snipes()
}

// profilePath is where this model's profile lives ("" without a
// ProfileDir).
func (gm *Geometry) profilePath() (string, error) {
	s := gm.s
	if gm.profileDir == "" {
		return "", nil
	}
	sum, err := s.pr.SHA256()
	if err != nil {
		return "", err
	}
	return geometry.ProfilePath(gm.profileDir, sum), nil
}

// Load attaches the model's stored profile (Options.ProfileDir,
// found by the model's sha256) when there is one; no profile is not an
// error. A damaged or foreign profile is: the caller shows it and the
// session runs without gauges.
func (gm *Geometry) Load() (loaded bool, err error) {
	s := gm.s
	path, err := gm.profilePath()
	if err != nil || path == "" {
		return false, err
	}
	p, err := geometry.LoadProfile(path, s.m.Layers)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := gm.Set(p); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// Calibrate builds this model's geometry profile with the shipped prompt
// sets and default options, stores it under Options.ProfileDir and runs it
// live. Cancelling ctx stops it and changes nothing. Not while a reply
// streams: it uses the session's worker pool.
func (gm *Geometry) Calibrate(ctx context.Context, progress geometry.Progress) error {
	s := gm.s
	set, err := prompts.Default()
	if err != nil {
		return err
	}
	p, err := geometry.Calibrate(ctx, gm.CalibrationSource(), set, geometry.DefaultOptions(), progress)
	if err != nil {
		return err
	}
	if p.Model, err = s.pr.Ref(); err != nil {
		return err
	}
	path, err := gm.profilePath()
	if err != nil {
		return err
	}
	if path != "" {
		if err := p.Save(path, s.appVersion); err != nil {
			return err
		}
	}
	return gm.Set(p)
}

// useOGD sets the exploration step: α = 0 removes it.
func (gm *Geometry) useOGD(alpha float64) error {
	s := gm.s
	if alpha == 0 {
		if gm.exploreRemove != nil {
			gm.exploreRemove()
		}
		gm.explore, gm.exploreRemove = nil, nil
		return nil
	}
	if gm.geo == nil {
		return ErrNoGeometry
	}
	p := gm.geo.Profile()
	dir, source := gm.ogdDir, gm.ogdSource
	if dir == nil {
		var err error
		if dir, source, err = geometry.Direction(p, s.mem.metric()); err != nil {
			return err
		}
	}
	x, err := geometry.NewExplorer(p, dir, alpha, source)
	if err != nil {
		return err
	}
	if gm.exploreRemove != nil {
		gm.exploreRemove()
	}
	remove, err := s.st.AddHook(x)
	if err != nil {
		return err
	}
	if p.Layer < s.m.Layers-1 && (gm.explore == nil || gm.explore.P.Alpha() != alpha) {
		s.resetCache(s.set.Seed) // later blocks' keys and values change
	}
	gm.explore, gm.exploreRemove = x, remove
	return nil
}

// SetOGDDirection fixes the exploration direction (d wide; nil goes back
// to the default: the manifold's top eigenvector, else the first UGT
// axis). It applies from the next Set("ogd_alpha", …).
func (gm *Geometry) SetOGDDirection(dir []float64, source string) {
	gm.ogdDir, gm.ogdSource = dir, source
}

// ExploreChain runs successive generations with decreasing α
// (docs/mechanisms.md §8): the first continues concept, each later one the
// previous output, all steered along the concept's direction (its state
// minus the profile's mean state) with the forbidden subspace removed.
// Each step is a fresh conversation with a seed derived from seed, so a
// chain is reproducible; the living manifold is neither consulted nor
// changed. emit, if set, sees every piece. The session's conversation and
// knobs are restored afterwards.
func (gm *Geometry) ExploreChain(ctx context.Context, concept string, alphas []float64, seed uint64, emit func(step int, ev Event)) (*Chain, error) {
	s := gm.s
	if gm.geo == nil || gm.embedder == nil {
		return nil, ErrNoGeometry
	}
	p := gm.geo.Profile()
	hc, err := gm.embedder.State(ctx, concept)
	if err != nil {
		return nil, err
	}
	dir, err := ogd.ConceptDirection([][]float64{hc}, [][]float64{p.Mu})
	if err != nil {
		return nil, fmt.Errorf("session: the concept's direction: %w", err)
	}
	saved, rec := s.set, s.cv.snapshot()
	defer func() {
		gm.SetOGDDirection(nil, "")
		s.cv.rollback(rec)
		s.resetCache(saved.Seed)
		_ = s.apply(saved)
	}()
	gm.SetOGDDirection(dir, "concept: "+concept)
	ch := &Chain{Concept: concept, Direction: "concept: " + concept}
	var states [][]float64
	gen := func(step int, alpha float64, stepSeed uint64, prev string) (string, error) {
		if prev == "" {
			prev = concept
		}
		s.cv.clearMessages()
		n := saved
		n.Seed, n.OGDAlpha = stepSeed, alpha
		if err := s.apply(n); err != nil {
			return "", err
		}
		s.resetCache(stepSeed)
		turn, err := s.send(ctx, prev, sendNoMemory, func(ev Event) {
			if emit != nil {
				emit(step, ev)
			}
		})
		if err != nil {
			return "", err
		}
		st := ChainStep{Alpha: alpha, Seed: stepSeed, Text: turn.Text}
		if g := turn.Geometry; g != nil {
			st.TEH, st.TEHPeak = g.Reply.Overall, g.Peak
		}
		h, err := gm.embedder.State(ctx, turn.Text)
		if err != nil {
			return "", err
		}
		states = append(states, h)
		ch.Steps = append(ch.Steps, st)
		return turn.Text, nil
	}
	texts, err := ogd.Chain(alphas, seed, gen)
	if err != nil {
		return nil, err
	}
	if len(texts) >= 2 {
		if ch.Score, err = ogd.Creativity(texts, states); err != nil {
			return nil, err
		}
	}
	return ch, nil
}

// What the session and the other parts ask of the geometry.

// use applies the settings' Snipe projectors and exploration step.
// Without a profile the toggles wait in the settings until Set (a session
// saved with projectors on, loaded first).
func (gm *Geometry) use(n Settings) error {
	if gm.geo == nil {
		return nil
	}
	if err := gm.useSnipe(n.Snipe); err != nil {
		return err
	}
	return gm.useOGD(n.OGDAlpha)
}

// reaim aims a running exploration step at where the manifold's top
// eigenvector points now (it moves as the manifold grows), unless the
// direction is fixed (SetOGDDirection).
func (gm *Geometry) reaim() error {
	if gm.explore == nil || gm.ogdDir != nil {
		return nil
	}
	return gm.useOGD(gm.s.set.OGDAlpha)
}

// exploring reports whether an exploration step runs.
func (gm *Geometry) exploring() bool { return gm.explore != nil }

// direction is the running exploration step's direction ("" without one).
func (gm *Geometry) direction() string {
	if gm.explore == nil {
		return ""
	}
	return gm.explore.Source
}

// embeds reports whether texts can be embedded in the profile's
// coordinates (a profile is attached).
func (gm *Geometry) embeds() bool { return gm.embedder != nil }

// embed is text's coordinates in the profile (embeds must be true).
func (gm *Geometry) embed(ctx context.Context, text string) ([]float64, error) {
	return gm.embedder.Embed(ctx, text)
}

// beginTurn starts a turn on the live gauge; gauged says a profile runs,
// and reading may be asked for the turn's tokens.
func (gm *Geometry) beginTurn() (gauged bool) {
	if gm.geo == nil {
		return false
	}
	gm.geo.BeginTurn()
	return true
}

// reading is the gauge's reading of the position that chose a token (pos):
// under speculative decoding the monitor has already read the drafts
// after it. The first token's reading begins the reply.
func (gm *Geometry) reading(pos int, first bool) geometry.Reading {
	r, ok := gm.geo.At(pos)
	if !ok {
		r = gm.geo.Last()
	}
	if first {
		gm.geo.BeginReply(r)
	}
	return r
}

// turnSummary is the gauge over the turn, or nil without a profile.
func (gm *Geometry) turnSummary() *geometry.TurnSummary {
	if gm.geo == nil {
		return nil
	}
	sum := gm.geo.Summary()
	return &sum
}
