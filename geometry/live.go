package geometry

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/snipe"
	"github.com/isagi-lab/isagi/teh"
)

// Reading is one TEH measurement (docs/mechanisms.md §6), in percent: the share
// of the centred state's norm that lies in the forbidden subspace, overall
// and per category (in the profile's category order). A value type of
// fixed size, so a reading per token costs no allocation.
type Reading struct {
	Overall float32
	N       int // categories in Cat
	Cat     [MaxCategories]float32
}

// TurnSummary is the gauge over one turn: TEH of the prompt fed this turn
// read where the thresholds were calibrated (the mean state of its tokens,
// or its last token's state: Profile.GaugePosition), TEH of the mean state
// of the tokens generated, the highest per-token overall reading, and the
// categories at or over their threshold.
type TurnSummary struct {
	Prompt, Reply             Reading
	PromptTokens, ReplyTokens int
	Peak                      float32
	Flagged                   []string
}

// gauge is one TEH gauge in float32: Q's columns as rows.
type gauge struct {
	m int
	q []float32 // m×d
}

// Monitor runs a profile live: registered as a model hook (it implements
// model.BlockHook), it reads the TEH gauges at the probe layer for every
// position and applies the enabled Snipe projectors at layers ≥ ℓ_s. It
// is driven by one goroutine at a time, like the state it is attached to.
type Monitor struct {
	p       *Profile
	d       int
	mu      []float32
	centred []float32
	dots    []float32 // Qᵀc, scratch
	overall gauge
	cats    []gauge
	subs    []*teh.Subspace // float64 gauges for per-turn summaries; [0] overall
	enabled []bool
	proj    *projHook

	last Reading
	// promptEnd is the reading of the prompt's last position, the turn's
	// prompt figure when the profile's gauges read the last token.
	promptEnd Reading
	reply     bool
	sum       [2][]float64 // mean-state accumulators: prompt, reply
	n         [2]int
	peak      float32
	// recent holds what the last few positions added, so that Rewind
	// can take back positions a speculative verifier rejected.
	recent [recentN]recentPos
}

// recentN is how many positions Rewind can take back: a speculative
// verification batch (the pending token and up to 16 drafts) and spare.
const recentN = 20

// recentPos is what one position added to the turn's gauge.
type recentPos struct {
	pos  int // -1: empty, or from an earlier turn
	ph   int
	peak float32 // the turn's peak before this position
	r    Reading
	x    []float32
}

// NewMonitor prepares p for live use; every projector starts off.
func NewMonitor(p *Profile) (*Monitor, error) {
	if err := p.validate(0); err != nil {
		return nil, fmt.Errorf("geometry: %w", err)
	}
	m := &Monitor{
		p: p, d: p.D, mu: narrow(p.Mu), centred: make([]float32, p.D),
		enabled: make([]bool, len(p.Categories)),
		sum:     [2][]float64{make([]float64, p.D), make([]float64, p.D)},
	}
	mk := func(cs []int) (gauge, *teh.Subspace, error) {
		if len(cs) == 0 {
			return gauge{}, nil, nil
		}
		s, err := teh.NewSubspace(p.B, p.Mu, cs)
		if err != nil {
			return gauge{}, nil, err
		}
		_, r := s.Q.Dims()
		g := gauge{m: r, q: make([]float32, r*p.D)}
		if r > len(m.dots) {
			m.dots = make([]float32, r)
		}
		for j := range r {
			for i := range p.D {
				g.q[j*p.D+i] = float32(s.Q.At(i, j))
			}
		}
		return g, s, nil
	}
	g, s, err := mk(p.Overall.Forbidden)
	if err != nil {
		return nil, fmt.Errorf("geometry: overall gauge: %w", err)
	}
	m.overall, m.subs = g, append(m.subs, s)
	for _, c := range p.Categories {
		g, s, err := mk(c.Gauge.Forbidden)
		if err != nil {
			return nil, fmt.Errorf("geometry: %s gauge: %w", c.Name, err)
		}
		m.cats, m.subs = append(m.cats, g), append(m.subs, s)
	}
	m.last.N = len(p.Categories)
	for i := range m.recent {
		m.recent[i] = recentPos{pos: -1, x: make([]float32, p.D)}
	}
	m.proj = newProjHook(p.SnipeLayer, nil, p.Mu)
	return m, nil
}

// Profile is the profile the monitor runs.
func (m *Monitor) Profile() *Profile { return m.p }

// AfterBlock implements model.BlockHook. At the probe layer it reads the
// gauges before this layer's projection, so the gauge shows what the
// model computed there; earlier projections (ℓ_s below the probe layer)
// are already in the state it reads.
// ReadOnly implements model.ReadOnlyHook: the monitor only reads while
// every Snipe projector is off (a device backend then never takes the rows
// back); with one on it writes at layers ≥ ℓ_s.
func (m *Monitor) ReadOnly() bool { return m.proj.r == 0 }

func (m *Monitor) AfterBlock(layer, pos int, x []float32) {
	if len(x) != m.d {
		return
	}
	if layer == m.p.Layer {
		m.read(pos, x)
	}
	m.proj.AfterBlock(layer, pos, x)
}

// AffineAt implements model.AffineHook: the enabled Snipe projectors at
// layers ≥ ℓ_s, applied by the backend; at the probe layer the monitor
// also reads the rows (ReadBlock, before the projection).
func (m *Monitor) AffineAt(layer int) (*model.Affine, bool) {
	a, _ := m.proj.AffineAt(layer)
	return a, layer == m.p.Layer
}

// ReadBlock implements model.AffineHook: the gauges' reading, without the
// projection.
func (m *Monitor) ReadBlock(layer, pos int, x []float32) {
	if len(x) == m.d && layer == m.p.Layer {
		m.read(pos, x)
	}
}

func (m *Monitor) read(pos int, x []float32) {
	var n2 float32
	for i, v := range x {
		c := v - m.mu[i]
		m.centred[i] = c
		n2 += c * c
	}
	norm := float32(math.Sqrt(float64(n2)))
	m.last.Overall = m.score(m.overall, norm)
	for i, g := range m.cats {
		m.last.Cat[i] = m.score(g, norm)
	}
	ph := 0
	if pos >= 0 {
		e := &m.recent[pos%recentN]
		e.pos, e.peak, e.r = pos, m.peak, m.last
		copy(e.x, x)
	}
	if m.reply {
		ph = 1
		m.peak = max(m.peak, m.last.Overall)
	}
	if pos >= 0 {
		m.recent[pos%recentN].ph = ph
	}
	s := m.sum[ph]
	for i, v := range x {
		s[i] += float64(v)
	}
	m.n[ph]++
}

// score is 100·‖Qᵀc‖/‖c‖ for the centred state c (Q orthonormal, so
// ‖QQᵀc‖ = ‖Qᵀc‖).
func (m *Monitor) score(g gauge, norm float32) float32 {
	if g.m == 0 || norm == 0 {
		return 0
	}
	dots := m.dots[:g.m]
	tensor.DotRows(g.q, m.centred, dots)
	var s2 float32
	for _, v := range dots {
		s2 += v * v
	}
	return 100 * float32(math.Sqrt(float64(s2))) / norm
}

// Rewind implements model.RewindHook: the positions from pos on, which
// the state forgot (a speculative verifier's rejected drafts), leave the
// turn's means and peak, as far back as the last few positions of this
// turn go.
func (m *Monitor) Rewind(pos int) {
	first := -1 // the earliest position taken back
	for i := range m.recent {
		e := &m.recent[i]
		if e.pos < pos {
			continue
		}
		s := m.sum[e.ph]
		for j, v := range e.x {
			s[j] -= float64(v)
		}
		m.n[e.ph]--
		if first < 0 || e.pos < m.recent[first].pos {
			first = i
		}
	}
	if first < 0 {
		return
	}
	m.peak = m.recent[first].peak
	for i := range m.recent {
		if m.recent[i].pos >= pos {
			m.recent[i].pos = -1
		}
	}
	if r, ok := m.At(pos - 1); ok {
		m.last = r
	}
}

// At is the reading at position pos, if it is among the last few this
// turn computed: the reading of the state that chose the token after pos
// (under speculative decoding the latest reading is a drafted position's,
// so a token's reading is looked up by position).
func (m *Monitor) At(pos int) (Reading, bool) {
	if pos < 0 {
		return Reading{}, false
	}
	e := &m.recent[pos%recentN]
	if e.pos != pos {
		return Reading{}, false
	}
	return e.r, true
}

// Last is the reading of the most recent position computed: during a
// reply, the state whose logits chose the token just emitted.
func (m *Monitor) Last() Reading { return m.last }

// BeginTurn starts a turn: the positions computed next are its prompt.
func (m *Monitor) BeginTurn() {
	for i := range m.sum {
		clear(m.sum[i])
		m.n[i] = 0
	}
	m.reply, m.peak = false, 0
	m.promptEnd = Reading{N: len(m.p.Categories)}
	for i := range m.recent {
		m.recent[i].pos = -1
	}
}

// BeginReply marks the end of the prompt: positions computed from now on
// are the tokens the model generated. end is the reading of the prompt's
// last position (the one that chose the first reply token: At of its
// position), the turn's prompt figure when the profile's gauges read the
// last token; it is passed in because under speculative decoding the
// monitor may already have read drafted positions after it.
func (m *Monitor) BeginReply(end Reading) {
	m.reply = true
	m.promptEnd = end
}

// Summary is the gauge over the turn so far.
func (m *Monitor) Summary() TurnSummary {
	t := TurnSummary{PromptTokens: m.n[0], ReplyTokens: m.n[1], Peak: m.peak}
	t.Prompt, t.Reply = m.meanReading(0), m.meanReading(1)
	if m.p.GaugeAtLast() && t.PromptTokens > 0 {
		// The thresholds were set on the prompt's last token: compare
		// like with like.
		t.Prompt = m.promptEnd
	}
	for i, c := range m.p.Categories {
		tau := float32(c.Gauge.ROC.Tau)
		if (t.PromptTokens > 0 && t.Prompt.Cat[i] >= tau) || (t.ReplyTokens > 0 && t.Reply.Cat[i] >= tau) {
			t.Flagged = append(t.Flagged, c.Name)
		}
	}
	return t
}

func (m *Monitor) meanReading(ph int) Reading {
	r := Reading{N: len(m.p.Categories)}
	if m.n[ph] == 0 {
		return r
	}
	h := make([]float64, m.d)
	for i, v := range m.sum[ph] {
		h[i] = v / float64(m.n[ph])
	}
	if s := m.subs[0]; s != nil {
		r.Overall = float32(s.Score(h))
	}
	for i, s := range m.subs[1:] {
		if s != nil {
			r.Cat[i] = float32(s.Score(h))
		}
	}
	return r
}

// SetSnipe turns category name's projector on or off. A category whose
// calibration kept no coordinate (the first one already cost more than
// the budget) cannot be turned on.
func (m *Monitor) SetSnipe(name string, on bool) error {
	i := slices.IndexFunc(m.p.Categories, func(c Category) bool { return c.Name == name })
	if i < 0 {
		return fmt.Errorf("geometry: no category %q (have %s)", name, strings.Join(m.p.CategoryNames(), ", "))
	}
	if on && len(m.p.Categories[i].Snipe.Coords) == 0 {
		return fmt.Errorf("geometry: %s has no projector: calibration found no coordinate within the %.1f%% collateral budget", name, 100*m.p.Stats.Budget)
	}
	was := m.enabled[i]
	m.enabled[i] = on
	if err := m.rebuild(); err != nil {
		m.enabled[i] = was
		return err
	}
	return nil
}

// Snipes lists the categories whose projector is on.
func (m *Monitor) Snipes() []string {
	var out []string
	for i, on := range m.enabled {
		if on {
			out = append(out, m.p.Categories[i].Name)
		}
	}
	return out
}

// rebuild makes one projector over the union of the enabled categories'
// coordinates: removing the span of the union is what removing each
// category's span means, and one orthonormal Q applies it in one pass.
func (m *Monitor) rebuild() error {
	var cs []int
	for i, on := range m.enabled {
		if on {
			cs = append(cs, m.p.Categories[i].Snipe.Coords...)
		}
	}
	slices.Sort(cs)
	cs = slices.Compact(cs)
	if len(cs) == 0 {
		m.proj = newProjHook(m.p.SnipeLayer, nil, m.p.Mu)
		return nil
	}
	pr, err := snipe.NewProjector(m.p.B, m.p.Mu, cs)
	if err != nil {
		return fmt.Errorf("geometry: projector: %w", err)
	}
	m.proj = newProjHook(m.p.SnipeLayer, pr.Q, m.p.Mu)
	return nil
}
