package tui

import (
	"context"
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/isagi-lab/isagi/session"
)

// Manifold is implemented by sessions with the living manifold and the
// exploration step (*session.Session does). The α knob goes through
// Session.Set("ogd_alpha", …).
type Manifold interface {
	// Stats describes the manifold; ok is false while there is none (no
	// geometry profile).
	Stats() (session.ManifoldStats, bool)
}

// Regenerator is implemented by conversations that can answer their last
// message again (*session.Conversation does): ctrl+r and /regen.
type Regenerator interface {
	// Regenerate answers the last message again by generating, even when
	// the manifold served it from memory.
	Regenerate(ctx context.Context, emit func(session.Event)) (session.Turn, error)
}

// regenerator is the session's conversation, if it can answer again.
func (f features) regenerator() (Regenerator, bool) {
	return part[Regenerator](f.sess, func(p parted) any { return p.Conversation() })
}

// manifold is the session's living manifold, if it has one.
func (f features) manifold() (Manifold, bool) {
	return part[Manifold](f.sess, func(p parted) any { return p.Memory() })
}

// alphaStep and alphaMax bound the α knob's keys (the product range of
// docs/mechanisms.md §8 is 0.05–0.30).
const (
	alphaStep = 0.05
	alphaMax  = 0.30
)

// manifoldPane shows the living manifold: the last query's tier and
// distance, the growth of the metric turn by turn, its top eigenvalues,
// the trajectories and a scatter of them on M's top two eigenvectors,
// and the exploration knob with the TEH measured on what it produced.
type manifoldPane struct {
	stats     session.ManifoldStats
	ok        bool
	last      *session.COGTurn
	growth    []float64 // after each turn
	replyTEH  float32   // overall TEH of the last reply
	retrieved bool      // the last answer came from memory
	// profiled says a geometry profile is attached: without a manifold
	// the pane then says it is yet to grow (or inactive), not that a
	// profile is needed, which /calibrate has just built.
	profiled bool
}

// Update records each turn when its reply ends, takes back the answer
// from memory that ctrl+r replaces, and forgets the last turn's figures
// with the conversation (the manifold itself is the session's: sync).
func (p *manifoldPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case streamMsg:
		if msg.done {
			p.finish(msg.turn)
		}
	case replyBeginMsg:
		if msg.regenerate {
			p.retrieved = false
		}
	case newConversationMsg:
		p.last, p.growth, p.retrieved, p.replyTEH = nil, nil, false, 0
	}
	return nil
}

func (p *manifoldPane) sync(e Manifold) {
	p.stats, p.ok = e.Stats()
}

// setProfiled says whether a geometry profile is attached.
func (p *manifoldPane) setProfiled(on bool) { p.profiled = on }

// active reports whether there is a manifold to show (and an α to turn).
func (p *manifoldPane) active() bool { return p.ok }

// alpha is the exploration knob's value.
func (p *manifoldPane) alpha() float64 { return p.stats.Alpha }

// served reports whether the last answer came from memory: ctrl+r can
// regenerate it.
func (p *manifoldPane) served() bool { return p.retrieved }

// finish records a turn.
func (p *manifoldPane) finish(t session.Turn) {
	if t.Geometry != nil {
		p.replyTEH = t.Geometry.Reply.Overall
	}
	if t.COG == nil {
		p.retrieved = false
		return
	}
	p.last = t.COG
	p.retrieved = t.COG.Retrieved
	p.growth = append(p.growth, t.COG.Growth)
	if len(p.growth) > maxSamples {
		p.growth = p.growth[len(p.growth)-maxSamples:]
	}
}

// notices are what a turn deserves in the chat: a note on an answer
// served from memory.
func (p *manifoldPane) notices(t session.Turn) []entry {
	if t.COG != nil && t.COG.Retrieved {
		// Why says which rule served it (word for word under τ, or the
		// same request in any wording, here or as a portable answer).
		return []entry{{kind: entryNotice, text: "answered from memory: " + t.COG.Why + " — ctrl+r regenerates"}}
	}
	return nil
}

// memoryLines say whether the memory serves answers and, for the last
// turn, why it was or was not answered from memory, wrapped to w.
func (p *manifoldPane) memoryLines(w int) []string {
	st := p.stats
	state := fmt.Sprintf("on · τ %.4f", st.Tau)
	switch {
	case st.MemoryOff:
		state = "off " + theme.Label.Render("/set memory on")
	case !st.Calibrated:
		state = "on · word-for-word only"
	}
	out := []string{kv("memory", state)}
	if p.last == nil || p.last.Why == "" {
		return out
	}
	verdict := "not served: "
	if p.last.Retrieved {
		verdict = "served: "
	}
	for _, l := range wrapWords(verdict+p.last.Why, max(w-2, 8)) {
		out = append(out, "  "+theme.Dim.Render(l))
	}
	return out
}

// wrapWords breaks s at spaces into lines of at most w cells; a word wider
// than w is cut.
func wrapWords(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case lipgloss.Width(line)+1+lipgloss.Width(word) <= w:
			line += " " + word
		default:
			out = append(out, truncateCells(line, w))
			line = word
		}
	}
	if line != "" {
		out = append(out, truncateCells(line, w))
	}
	return out
}

var clusterMarks = []rune("●◆▲■○◇△□")

func (p *manifoldPane) lines(w int) []string {
	if !p.ok && p.profiled {
		return []string{theme.Label.Render("no manifold in use"), "it grows from the next turn;", "a saved one that cannot be used", "is kept in the file (see notes)"}
	}
	if !p.ok {
		return []string{theme.Label.Render("needs a geometry profile"), "/calibrate builds one"}
	}
	st := p.stats
	tier := theme.Dim.Render("no query yet")
	if p.last != nil {
		tier = fmt.Sprintf("%s d %.4f", strings.ToUpper(p.last.Tier), p.last.Distance)
	}
	spark := sparkline(p.growth, max(w-16, 4))
	if spark == "" {
		spark = theme.Dim.Render("·")
	}
	// As many eigenvalues as fit, each to three significant figures:
	// a value cut off at the pane's edge would misstate it.
	var eig []string
	room := w - 7
	for _, v := range st.TopEigen {
		s := fmtSig(v)
		if room < len(s) {
			break
		}
		eig = append(eig, s)
		room -= len(s) + 1
	}
	out := []string{kv("last", tier)}
	out = append(out, p.memoryLines(w)...)
	out = append(out,
		kv("growth", fmt.Sprintf("%.4f ", st.Growth)+theme.Spark.Render(spark)),
		kv("λ(M)", strings.Join(eig, " ")),
		kv("stored", fmt.Sprintf("%d · %d %s", st.Trajectories, st.Clusters, plural(st.Clusters, "cluster", "clusters"))),
	)
	out = append(out, scatter(st, w, 7)...)
	alpha := theme.Dim.Render("off")
	if st.Alpha > 0 {
		alpha = fmt.Sprintf("%.2f", st.Alpha)
	}
	out = append(out, kv("OGD α", alpha+theme.Label.Render(" alt+↑/↓")))
	if st.Alpha > 0 && st.Direction != "" {
		out = append(out, theme.Label.Render("  along "+st.Direction))
	}
	out = append(out, kv("TEH out", fmt.Sprintf("%.1f%%", p.replyTEH)))
	return out
}

// summary is the pane on one line (the side column's overflow box).
func (p *manifoldPane) summary() string {
	if !p.ok {
		return "needs a profile"
	}
	s := fmt.Sprintf("%d stored", p.stats.Trajectories)
	if p.last != nil {
		from := "generated · "
		if p.last.Retrieved {
			from = "from memory · "
		}
		s = strings.ToUpper(p.last.Tier) + fmt.Sprintf(" d %.3f · ", p.last.Distance) + from + s
	}
	return s
}

// fmtSig formats v to three significant figures, with k/M for large ones.
func fmtSig(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// scatter draws the trajectories' 2-D projection (points in the unit
// disc) on a w×h grid, one mark per cluster, framed by a dotted axis.
func scatter(st session.ManifoldStats, w, h int) []string {
	grid := make([][]rune, h)
	for r := range grid {
		grid[r] = []rune(strings.Repeat(" ", w))
		grid[r][w/2] = '┊'
	}
	for c := range w {
		grid[h/2][c] = '┈'
	}
	grid[h/2][w/2] = '┼'
	for _, pt := range st.Points {
		c := int(math.Round((pt.X + 1) / 2 * float64(w-1)))
		r := int(math.Round((1 - pt.Y) / 2 * float64(h-1)))
		c, r = min(max(c, 0), w-1), min(max(r, 0), h-1)
		grid[r][c] = clusterMarks[pt.Cluster%len(clusterMarks)]
	}
	out := make([]string, h)
	for r := range grid {
		out[r] = theme.Spark.Render(string(grid[r]))
	}
	if len(st.Points) == 0 {
		out[h/2] = theme.Dim.Render(centre("no trajectories yet", w))
	}
	return out
}

func centre(s string, w int) string {
	pad := max((w-len([]rune(s)))/2, 0)
	return strings.Repeat(" ", pad) + s
}

// nudgeAlpha moves the exploration knob by delta.
func (m *Model) nudgeAlpha(delta float64) tea.Cmd {
	if _, ok := m.parts.manifold(); !ok || !m.mani.active() {
		m.status = "the OGD knob needs a geometry profile — /calibrate"
		return nil
	}
	if !m.gate.free("changing α") {
		return nil
	}
	a := math.Round((m.mani.alpha()+delta)/alphaStep) * alphaStep
	a = min(max(a, 0), alphaMax)
	v := fmt.Sprintf("%.2f", a)
	if a == 0 {
		v = "off"
	}
	if err := m.sess.Set("ogd_alpha", v); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	m.refreshGeometry()
	m.status = "OGD α " + v
	return nil
}

// regenerate answers the last message again (ctrl+r, /regen). In chat
// mode any reply can be regenerated, and the old one stays as a version
// (/branch prev); completion mode is one running text, from which only an
// answer served from memory can be taken back.
func (m *Model) regenerate() tea.Cmd {
	e, ok := m.parts.regenerator()
	if !ok {
		m.status = "this engine cannot regenerate"
		return nil
	}
	branched := false
	if b, ok := m.parts.brancher(); ok && m.info.Mode == session.ModeChat {
		br := b.Branch()
		if len(br) == 0 || br[len(br)-1].Role != session.RoleAssistant {
			m.status = "there is no reply to regenerate"
			return nil
		}
		branched = true
	} else if !m.mani.served() {
		if m.info.Mode == session.ModeCompletion {
			// The status line's "served from memory" alone left a
			// user who pressed it in completion mode without a reason.
			m.chat.add(entryInfo, "nothing to regenerate: completion mode is one running text, and a continuation the model wrote stays in it — "+
				"only one served from memory can be taken back and generated again (ctrl+r, /regen). Type more text to go on, or /clear to start over.")
			return nil
		}
		m.status = "ctrl+r regenerates an answer served from memory"
		return nil
	}
	if !m.gate.free("regenerating") {
		return nil
	}
	m.rebranch = branched
	m.rewound = nil
	m.chat.add(entryInfo, "regenerating the last answer")
	began := m.broadcast(replyBeginMsg{regenerate: true})
	m.status = generatingStatus
	return tea.Batch(began, m.gate.startReply(m.withExperts(e.Regenerate), m.startMeter()))
}
