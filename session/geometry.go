package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/chat"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/prompts"
)

// CalibrationSource is this session's model as geometry calibration needs
// it: prompts tokenised as a first user turn (chat mode) or as text after
// BOS (completion mode), so that calibration reads prompts in the form the
// live gauge will. It runs on the session's backend: do not calibrate
// while a reply is streaming.
func (s *Session) CalibrationSource() geometry.Source {
	text := func(t string) ([]int32, error) {
		return s.tok.Encode(t, tokenizer.EncodeOptions{AddSpecial: true})
	}
	prompt := text
	if tmpl := s.conv.Template(); tmpl != nil {
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
	return geometry.Source{Model: s.m, Backend: s.b, Prompt: prompt, Text: text, Decode: decode, Stop: stop, Chat: s.conv.Template() != nil}
}

// SetGeometry runs profile p live from the next turn: a TEH gauge on every
// token (Event.Gauge, Turn.Geometry) and Snipe projectors switched by the
// "snipe" setting. A profile built for another model is refused (the
// error wraps geometry.ErrOtherModel). nil detaches the profile.
func (s *Session) SetGeometry(p *geometry.Profile) error {
	if p == nil {
		if s.geoRemove != nil {
			s.geoRemove()
		}
		_ = s.useOGD(0)
		// The memory outlives its profile: kept, it is saved with the
		// conversation and used again when the profile comes back.
		if s.cog != nil {
			cs, err := s.cogSections()
			if err != nil {
				return err
			}
			s.cogKept = &keptCOG{sections: cs, fp: s.cogFP, usable: true}
		}
		s.geo, s.geoRemove, s.cog, s.cogFP, s.embed = nil, nil, nil, "", nil
		return nil
	}
	sum, err := s.ModelSHA256()
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
	if s.geoRemove != nil {
		s.geoRemove()
	}
	s.geo = mon
	if err := s.attachGeometry(); err != nil {
		s.geo = nil
		return err
	}
	note, err := s.startCOG(p)
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
		if err := s.useOGD(s.set.OGDAlpha); err != nil {
			return err
		}
	}
	// Toggles saved with the conversation (or given before the profile
	// was ready) take effect now.
	if s.set.Snipe != "" {
		if err := s.useSnipe(s.set.Snipe); err != nil {
			return err
		}
	}
	return nil
}

// attachGeometry registers the monitor on the current state (again after
// the KV cache is reallocated).
func (s *Session) attachGeometry() error {
	if s.geo == nil {
		return nil
	}
	remove, err := s.st.AddHook(s.geo)
	if err != nil {
		return err
	}
	s.geoRemove = remove
	if s.explore != nil {
		if s.exploreRemove, err = s.st.AddHook(s.explore); err != nil {
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
	if w := s.waitingNote(); w != "" {
		n = append(n, w)
	}
	return n
}

// Geometry is the live geometry monitor, or nil when no profile is loaded.
// Read it between replies only.
func (s *Session) Geometry() *geometry.Monitor { return s.geo }

// ErrNoGeometry is returned by Snipe toggles when no profile is loaded.
var ErrNoGeometry = errors.New("no geometry profile loaded: run `isagi calibrate` (or /calibrate) first")

// useSnipe enables exactly the projectors named in list ("a,b", "" or
// "off" for none).
func (s *Session) useSnipe(list string) error {
	want := parseSnipe(list)
	if s.geo == nil {
		if len(want) == 0 {
			return nil
		}
		return ErrNoGeometry
	}
	before := s.geo.Snipes()
	for _, name := range want {
		if !slices.Contains(s.geo.Profile().CategoryNames(), name) {
			return fmt.Errorf("no category %q (have %s)", name, strings.Join(s.geo.Profile().CategoryNames(), ", "))
		}
	}
	for _, name := range s.geo.Profile().CategoryNames() {
		if err := s.geo.SetSnipe(name, slices.Contains(want, name)); err != nil {
			// Put the previous set back so a refused toggle changes nothing.
			for _, n := range s.geo.Profile().CategoryNames() {
				_ = s.geo.SetSnipe(n, slices.Contains(before, n))
			}
			return err
		}
	}
	// A projector below the last block changes the keys and values later
	// blocks write, so the cached conversation no longer matches: it is
	// recomputed on the next turn. At the last block only the logits move.
	if !slices.Equal(before, s.geo.Snipes()) && s.geo.Profile().SnipeLayer < s.m.Layers-1 {
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

// ModelRef names this session's model for files bound to it (sessions,
// caches, geometry profiles).
func (s *Session) ModelRef() (miku.ModelRef, error) {
	sum, err := s.ModelSHA256()
	if err != nil {
		return miku.ModelRef{}, err
	}
	return miku.ModelRef{File: filepath.Base(s.info.Path), SHA256: sum, Arch: s.info.Arch, Name: s.info.Name}, nil
}

// GeometryProfile is the profile running live, or nil.
func (s *Session) GeometryProfile() *geometry.Profile {
	if s.geo == nil {
		return nil
	}
	return s.geo.Profile()
}

// Snipes lists the categories whose projector is on.
func (s *Session) Snipes() []string {
	if s.geo == nil {
		return nil
	}
	return s.geo.Snipes()
}

// profilePath is where this model's profile lives ("" without a
// ProfileDir).
func (s *Session) profilePath() (string, error) {
	if s.profileDir == "" {
		return "", nil
	}
	sum, err := s.ModelSHA256()
	if err != nil {
		return "", err
	}
	return geometry.ProfilePath(s.profileDir, sum), nil
}

// LoadGeometry attaches the model's stored profile (Options.ProfileDir,
// found by the model's sha256) when there is one; no profile is not an
// error. A damaged or foreign profile is: the caller shows it and the
// session runs without gauges.
func (s *Session) LoadGeometry() (loaded bool, err error) {
	path, err := s.profilePath()
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
	if err := s.SetGeometry(p); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// Calibrate builds this model's geometry profile with the shipped prompt
// sets and default options, stores it under Options.ProfileDir and runs it
// live. Cancelling ctx stops it and changes nothing. Not while a reply
// streams: it uses the session's worker pool.
func (s *Session) Calibrate(ctx context.Context, progress geometry.Progress) error {
	set, err := prompts.Default()
	if err != nil {
		return err
	}
	p, err := geometry.Calibrate(ctx, s.CalibrationSource(), set, geometry.DefaultOptions(), progress)
	if err != nil {
		return err
	}
	if p.Model, err = s.ModelRef(); err != nil {
		return err
	}
	path, err := s.profilePath()
	if err != nil {
		return err
	}
	if path != "" {
		if err := p.Save(path, s.appVersion); err != nil {
			return err
		}
	}
	return s.SetGeometry(p)
}
