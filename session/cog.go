package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/miku"
	"github.com/isagi-lab/isagi/ogd"
)

// Sections of a .miku file that hold the living manifold: the manifold
// itself (package cog's encoding) and the profile it was measured in.
const (
	sectionCOG        = "cog"
	sectionCOGProfile = "cog.profile"
)

// COGTurn is what the living manifold decided for a turn (docs/mechanisms.md
// §9, docs/geometry.md): the tier, the distance to the nearest stored
// trajectory (1 when there was none), whether the answer was served from
// memory and why (or why not), and the manifold after the turn.
type COGTurn struct {
	Tier      string  `json:"tier"`
	Distance  float64 `json:"distance"`
	Nearest   string  `json:"nearest,omitempty"` // the nearest trajectory's prompt
	Retrieved bool    `json:"retrieved"`         // the answer was served from memory
	// Decision names the reason: "served", "empty", "other-request",
	// "other-state", "farther", "over-gate", "other-context" (cog.Reason),
	// "memory-off" or "regenerated"; Why says it in words for the
	// Manifold pane.
	Decision string `json:"decision"`
	Why      string `json:"why"`
	// SameContext: the answer served was given to the same request at
	// the same point of the same conversation (else it is portable).
	SameContext bool `json:"same_context,omitempty"`
	// Gate is the plain distance of the same request asked before (−1
	// when there was none) and Tau the profile's threshold: a calibrated
	// gate serves the same request in any wording, whatever Gate is; one
	// from before calibration only word for word (Gate under Tau).
	Gate         float64 `json:"gate"`
	Tau          float64 `json:"tau"`
	Growth       float64 `json:"growth"` // ‖M − I‖_F
	Trajectories int     `json:"trajectories"`
}

// ManifoldStats is the living manifold for display.
type ManifoldStats struct {
	Growth       float64
	Trajectories int
	Clusters     int
	TopEigen     []float64   // of M, largest first (up to 4)
	Points       []cog.Point // trajectories on M's top two eigenvectors
	Alpha        float64     // the OGD step (0: off)
	Direction    string      // where the OGD direction comes from
	// Tau is the memory gate's threshold; Calibrated is false for a
	// profile made before the gate (only word-for-word repeats are
	// served); MemoryOff is the "memory" setting off (nothing is served).
	Tau        float64
	Calibrated bool
	MemoryOff  bool
}

// cogProfile is the cog.profile section: which coordinate system the
// stored embeddings are in.
type cogProfile struct {
	Fingerprint string `json:"fingerprint"`
	K           int    `json:"k"`
}

// start gives a newly attached profile its manifold: the one kept from
// a session file when it was measured in this profile, else a new one —
// unless the file's manifold cannot be used with it, which stays kept
// (saved back unchanged) and leaves the session without memory; note
// says why.
func (mem *Memory) start(p *geometry.Profile) (note string, err error) {
	s := mem.s
	emb, err := geometry.NewEmbedder(s.gm.CalibrationSource(), p)
	if err != nil {
		return "", err
	}
	s.gm.embed = emb
	if mem.cogKept != nil {
		mem.cog, mem.cogFP = nil, ""
		return mem.useKept(p), nil
	}
	m, err := cog.New(cog.Config{Dim: p.K})
	if err != nil {
		return "", err
	}
	mem.cog, mem.cogFP = m, p.Fingerprint()
	return "", nil
}

// keptCOG is the living manifold of a session file that the session does
// not use: its sections exactly as read (cog, then cog.profile when the
// file has it), which every save writes back unchanged.
type keptCOG struct {
	sections []miku.Section
	// fp is the fingerprint of the profile it was measured in; usable
	// is false when it can never be used here (another model's, no
	// readable profile record, unreadable), and why then says why.
	fp     string
	usable bool
	why    string
	// told is set once Notes has said that no profile is attached.
	told bool
}

// keptSuffix ends every note about a manifold the session keeps unused.
const keptSuffix = "it is kept in the session file unchanged, and this conversation runs without memory (a new conversation, /clear in the TUI, starts a new one)"

// useKept starts using the kept manifold if it was measured in p, and
// otherwise says why it stays unused ("" when it is in use and there is
// nothing to tell).
func (mem *Memory) useKept(p *geometry.Profile) string {
	k := mem.cogKept
	if !k.usable {
		return k.why
	}
	fp := p.Fingerprint()
	if k.fp != fp {
		return fmt.Sprintf("the saved living manifold was measured with another geometry profile (%s; this one is %s): %s", k.fp, fp, keptSuffix)
	}
	m, err := cog.Decode(k.sections[0].Data)
	if err == nil && m.Dim() != p.K {
		err = fmt.Errorf("%d coordinates, the profile has %d", m.Dim(), p.K)
	}
	if err != nil {
		k.usable, k.why = false, fmt.Sprintf("the saved living manifold could not be read (%v): %s", err, keptSuffix)
		return k.why
	}
	mem.cog, mem.cogFP, mem.cogKept = m, fp, nil
	return keylessNote(m)
}

// waitingNote says, once, that the kept manifold waits for a profile
// ("" when there is nothing to say): a caller that attaches the profile
// after loading the file (isagi run --session, the TUI's start) asks
// Notes after it, so only a profile that did not come is told.
func (mem *Memory) waitingNote() string {
	s := mem.s
	k := mem.cogKept
	if k == nil || !k.usable || s.gm.geo != nil || k.told {
		return ""
	}
	k.told = true
	return fmt.Sprintf("the saved living manifold is inactive: it was measured with geometry profile %s, and no geometry profile is attached (none for this model here); it is kept in the session file unchanged, and is used again wherever that profile is attached", k.fp)
}

// keylessNote tells about trajectories saved before answers were keyed on
// the live state ("" when there are none): they keep their place in the
// manifold, but nothing says under which state they were answered, so they
// are never served.
func keylessNote(m *cog.Manifold) string {
	n := 0
	for _, t := range m.Trajectories() {
		if t.Key == "" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the saved manifold holds %d %s from before answers were keyed on the live state: kept in the manifold, never served from memory",
		n, map[bool]string{true: "answer", false: "answers"}[n == 1])
}

// turn describes a turn's decision after it was recorded. A served
// turn shows the trajectory it was served from; any other, the nearest.
func (mem *Memory) turn(m *memTurn, retrieved bool) *COGTurn {
	near := m.look.Nearest
	if retrieved {
		near = m.dec.Candidate
	}
	t := &COGTurn{Tier: near.Tier.String(), Distance: near.Distance, Retrieved: retrieved,
		Decision: m.decision, Why: m.why, SameContext: retrieved && m.dec.InContext, Gate: m.dec.Plain, Tau: m.gate.Tau,
		Growth: mem.cog.Growth(), Trajectories: mem.cog.Len()}
	if near.Found {
		t.Nearest = near.Trajectory.Prompt
	}
	return t
}

// serveRetrieved answers from memory: the stored answer, streamed as one
// piece, added to the conversation like a generated one, and noted in the
// record of served answers the session file keeps.
func (mem *Memory) serveRetrieved(input string, m *memTurn, start time.Time, emit func(Event)) (Turn, error) {
	s := mem.s
	c := m.dec.Candidate
	ans := c.Trajectory.Answer
	mem.lastServed = &served{input: input, answer: ans}
	s.cv.conv.AddExchange(input, ans)
	// Nothing was decoded: the cache lacks the exchange until the next
	// turn, but the conversation holds it.
	s.cv.lags()
	emit(Event{Piece: ans, Elapsed: time.Since(start), ID: -1})
	now := time.Now()
	if err := mem.cog.Touch(c.Trajectory.ID, now); err != nil {
		return Turn{}, err
	}
	mem.served = append(mem.served, ServedAnswer{Prompt: input, Answer: ans, Stored: c.Trajectory.Prompt,
		Trajectory: c.Trajectory.ID, Distance: c.Distance, Gate: m.dec.Plain, Tau: m.gate.Tau, SameContext: m.dec.InContext, Time: now.UTC()})
	t := Turn{Text: ans, Stop: "retrieved", COG: mem.turn(m, true)}
	t.ContextUsed, _ = s.cv.ContextUsed()
	s.cv.record(input, &t)
	return t, nil
}

// Stats describes the living manifold; ok is false without one.
func (mem *Memory) Stats() (ManifoldStats, bool) {
	s := mem.s
	if mem.cog == nil {
		return ManifoldStats{}, false
	}
	st := ManifoldStats{Growth: mem.cog.Growth(), Trajectories: mem.cog.Len(), Clusters: mem.cog.Clusters(), Alpha: s.set.OGDAlpha,
		MemoryOff: s.set.MemoryOff}
	if s.gm.geo != nil {
		g := s.gm.geo.Profile().MemoryGate()
		st.Tau, st.Calibrated = g.Tau, g.Calibrated
	}
	if ev, err := mem.cog.TopEigen(min(4, mem.cog.Dim())); err == nil {
		st.TopEigen = ev
	}
	if pts, err := mem.cog.Project2D(); err == nil {
		st.Points = pts
	}
	if s.gm.explore != nil {
		st.Direction = s.gm.explore.Source
	}
	return st, true
}

// dropServed forgets the last served answer, taken back out of the
// conversation.
func (mem *Memory) dropServed() {
	if n := len(mem.served); n > 0 {
		mem.served = mem.served[:n-1]
	}
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

func (mem *Memory) metric() *mat.SymDense {
	if mem.cog == nil {
		return nil
	}
	return mem.cog.Metric()
}

// SetOGDDirection fixes the exploration direction (d wide; nil goes back
// to the default: the manifold's top eigenvector, else the first UGT
// axis). It applies from the next Set("ogd_alpha", …).
func (gm *Geometry) SetOGDDirection(dir []float64, source string) {
	gm.ogdDir, gm.ogdSource = dir, source
}

func parseAlpha(value string) (float64, error) {
	if value == "off" {
		return 0, nil
	}
	a, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return 0, err
	}
	if a < 0 || a > 0.5 {
		return 0, fmt.Errorf("want off or 0…0.5 (the useful range is 0.05–0.30)")
	}
	return a, nil
}

// sections are the manifold's sections for a session file: the one in
// use, or the one kept from the loaded file as it was read.
func (mem *Memory) sections() ([]miku.Section, error) {
	if mem.cog == nil {
		if mem.cogKept != nil {
			return mem.cogKept.sections, nil
		}
		return nil, nil
	}
	data, err := mem.cog.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("session: the living manifold: %w", err)
	}
	prof, err := json.Marshal(cogProfile{Fingerprint: mem.cogFP, K: mem.cog.Dim()})
	if err != nil {
		return nil, fmt.Errorf("session: the living manifold's profile record: %w", err)
	}
	// Not required: an older reader keeps the conversation and skips the
	// manifold.
	return []miku.Section{{Name: sectionCOG, Data: data}, {Name: sectionCOGProfile, Data: prof}}, nil
}

// load takes the living manifold of a session file in place of the
// session's: the memory belongs to the conversation and its file. It is
// used at once when the profile it was measured in is attached, else kept
// as read (and used if that profile is attached later, SetGeometry). A
// file without one starts a new manifold when a profile is attached.
// sameModel is false for a file saved with another model (loaded with
// force), whose manifold is kept and never used.
func (mem *Memory) load(f *miku.File, sameModel bool) (notes []string) {
	s := mem.s
	mem.cog, mem.cogFP, mem.cogKept = nil, "", nil
	sec, ok := f.Section(sectionCOG)
	if !ok {
		if s.gm.geo != nil {
			m, err := cog.New(cog.Config{Dim: s.gm.geo.Profile().K})
			if err != nil {
				return []string{"the living manifold could not start: " + err.Error()}
			}
			mem.cog, mem.cogFP = m, s.gm.geo.Profile().Fingerprint()
		}
		return nil
	}
	k := &keptCOG{sections: []miku.Section{cloneSection(sec)}}
	ps, hasProf := f.Section(sectionCOGProfile)
	if hasProf {
		k.sections = append(k.sections, cloneSection(ps))
	}
	var prof cogProfile
	switch {
	case !sameModel:
		k.why = "the saved living manifold belongs to the other model and is not used: " + keptSuffix
	case !hasProf || json.Unmarshal(ps.Data, &prof) != nil:
		k.why = "the saved living manifold has no readable profile record, so it cannot be used: " + keptSuffix
	default:
		k.fp, k.usable = prof.Fingerprint, true
	}
	mem.cogKept = k
	if !k.usable {
		return []string{k.why}
	}
	if s.gm.geo == nil {
		return nil // used by SetGeometry, or told by Notes
	}
	if note := mem.useKept(s.gm.geo.Profile()); note != "" {
		return []string{note}
	}
	return nil
}

// cloneSection copies a section read from a file, which aliases the
// whole file's buffer.
func cloneSection(sec miku.Section) miku.Section {
	sec.Data = slices.Clone(sec.Data)
	return sec
}

// ChainStep is one generation of an exploration chain.
type ChainStep struct {
	Alpha float64 `json:"alpha"`
	Seed  uint64  `json:"seed"`
	Text  string  `json:"text"`
	// TEH is the overall gauge on what was generated: the mean state of
	// the reply and its highest token (the step guarantees nothing about
	// later blocks, so it is measured, not assumed).
	TEH     float32 `json:"teh"`
	TEHPeak float32 `json:"teh_peak"`
}

// Chain is an exploration chain and its creativity score.
type Chain struct {
	Concept   string      `json:"concept"`
	Steps     []ChainStep `json:"steps"`
	Score     ogd.Score   `json:"score"`
	Direction string      `json:"direction"`
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
	if gm.geo == nil || gm.embed == nil {
		return nil, ErrNoGeometry
	}
	p := gm.geo.Profile()
	hc, err := gm.embed.State(ctx, concept)
	if err != nil {
		return nil, err
	}
	dir, err := ogd.ConceptDirection([][]float64{hc}, [][]float64{p.Mu})
	if err != nil {
		return nil, fmt.Errorf("session: the concept's direction: %w", err)
	}
	saved, rec := s.set, s.cv.conv.Record()
	defer func() {
		gm.SetOGDDirection(nil, "")
		s.cv.conv.Restore(rec)
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
		s.cv.conv.Clear()
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
		h, err := gm.embed.State(ctx, turn.Text)
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

// served is a turn answered from memory, so that Regenerate can take it
// back out of a completion-mode text.
type served struct{ input, answer string }
