package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// Geometry is implemented by sessions that can run a geometry profile
// (*session.Session does). The TUI shows the Geometry pane, /snipe and
// /calibrate only when its session has it. Projectors are switched through
// Session.Set("snipe", "a,b" | "off").
type Geometry interface {
	// Profile is the profile running live, or nil.
	Profile() *geometry.Profile
	// Snipes lists the categories whose projector is on.
	Snipes() []string
	// Calibrate builds, stores and attaches the model's profile; progress
	// is called from the calibrating goroutine. Cancelling ctx stops it.
	Calibrate(ctx context.Context, progress geometry.Progress) error
}

// geometry is the session's geometry stack, if it has one.
func (f features) geometry() (Geometry, bool) {
	return part[Geometry](f.sess, func(p parted) any { return p.Geometry() })
}

// geometryPane shows the TEH gauge of the token streaming now, the last
// turn's summary, and per category its gauge and projector.
type geometryPane struct {
	profile  *geometry.Profile
	snipes   map[string]bool
	last     geometry.Reading
	live     bool
	turn     *geometry.TurnSummary
	progress string // calibration in progress
}

// Update follows the streaming reply's gauge and records its turn, shows
// a calibration's stages while it runs, and forgets the last turn's
// figures with the conversation.
func (p *geometryPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case streamMsg:
		if msg.fresh {
			p.observe(msg.ev)
		}
		if msg.done {
			p.finish(msg.turn)
		}
	case calibratingMsg:
		p.progress = "starting"
	case jobProgressMsg:
		if p.progress != "" { // a calibration: the pane shows the stage too
			p.progress = msg.text
		}
	case calibMsg:
		p.progress = ""
	case newConversationMsg:
		p.turn, p.last, p.live = nil, geometry.Reading{}, false
	}
	return nil
}

// attached is the profile the pane shows, nil when there is none.
func (p *geometryPane) attached() *geometry.Profile { return p.profile }

func (p *geometryPane) sync(g Geometry) {
	p.profile = g.Profile()
	p.snipes = map[string]bool{}
	for _, s := range g.Snipes() {
		p.snipes[s] = true
	}
}

// shortName fits a category name in the pane's 9-character column.
func shortName(n string) string {
	switch n {
	case "illegal_advice":
		return "illegal"
	case "misinformation":
		return "misinfo"
	case "sycophancy":
		return "sycophant"
	case "self_harm":
		return "self-harm"
	}
	if len(n) > 9 {
		return n[:9]
	}
	return n
}

func (p *geometryPane) lines(w int) []string {
	if p.progress != "" {
		return []string{theme.Notice.Render("calibrating…"), p.progress, theme.Label.Render("esc cancels")}
	}
	if p.profile == nil {
		return []string{theme.Label.Render("no profile for this model"), "/calibrate builds one:", "TEH gauges, Snipe projectors"}
	}
	pr := p.profile
	over := func(v float32, tau float64) string {
		s := fmt.Sprintf("%4.1f%%", v)
		if tau > 0 && float64(v) >= tau {
			return theme.Error.Render(s)
		}
		return s
	}
	barW := max(w-15, 4)
	fill := int(float64(p.last.Overall) / 100 * float64(barW) * 2) // 50 % fills the bar
	fill = min(max(fill, 0), barW)
	gauge := theme.Spark.Render(strings.Repeat("█", fill)) + theme.Dim.Render(strings.Repeat("·", barW-fill))
	state := "last"
	if p.live {
		state = "live"
	}
	// Every figure says what it is: the overall gauge of the last token
	// against the overall τ; per category the same token against the
	// category's τ; the projector's effect as measured on held-out prompts.
	out := []string{
		theme.Label.Render("overall ") + gauge + " " + over(p.last.Overall, pr.Overall.ROC.Tau),
		theme.Label.Render(fmt.Sprintf("%s token · τ %.1f%% · L%d k%d", state, pr.Overall.ROC.Tau, pr.Layer, pr.K)),
	}
	// A gauge whose τ no threshold of the sweep left clean of benign
	// calibration prompts has the sweep's fallback τ: ordinary text reads
	// over it, and the pane says so rather than let red mean harm.
	unclean, worst := 0, 0.0
	for _, c := range pr.Categories {
		if c.Gauge.ROC.FP > 0 {
			unclean, worst = unclean+1, max(worst, c.Gauge.ROC.FPR)
		}
	}
	if r := pr.Overall.ROC; r.FP > 0 || unclean > 0 {
		cats := "categories"
		if unclean == 1 {
			cats = "category"
		}
		what := fmt.Sprintf("%d %s", unclean, cats)
		if r.FP > 0 {
			what = "overall + " + what
			worst = max(worst, r.FPR)
		}
		out = append(out, theme.Notice.Render(fmt.Sprintf("τ not clean (%s): ≤%.0f%% of benign calib. over", what, 100*worst)))
	}
	if t := p.turn; t != nil {
		// "out" is the gauge of the reply's mean state, the peak that of
		// its highest token: the gauge of a mean is no mean of gauges,
		// so the peak may read lower, and each says which it is.
		out = append(out,
			theme.Label.Render("turn ")+fmt.Sprintf("in %.1f%% out %.1f%%", t.Prompt.Overall, t.Reply.Overall),
			theme.Label.Render("peak token ")+fmt.Sprintf("%.1f%%", t.Peak)+theme.Label.Render(" (out: mean)"))
	}
	// A projector's effect is shown as the field reads it: how many of the
	// category's held-out harmful prompts the model refuses without and
	// with it, and the benign cross-entropy it costs. The probe-score
	// "reduction" calibration selects by is no figure a reader can
	// interpret (it passes 100 %), so the pane does not show it.
	out = append(out, theme.Label.Render("category  token ○● refused  ce"))
	measured := false
	for i, c := range pr.Categories {
		mark := theme.Dim.Render("○")
		if p.snipes[c.Name] {
			mark = theme.Spark.Render("●")
		}
		eff := theme.Dim.Render("   —")
		if h := c.Snipe.HeldOut; len(c.Snipe.Coords) > 0 && h != nil && h.Refusals != nil {
			r := h.Refusals
			eff = fmt.Sprintf("%d→%d/%d %s", r.Before, r.After, r.Prompts, signedPct(h.Collateral, 1))
			measured = true
		}
		out = append(out, fmt.Sprintf("%-9s %s %s %s", shortName(c.Name), over(p.last.Cat[i], c.Gauge.ROC.Tau), mark, eff))
	}
	if measured {
		out = append(out, theme.Label.Render("refused: held-out, off→on"))
	} else {
		out = append(out, theme.Label.Render("refused, ce: /calibrate measures"))
	}
	return out
}

// summary is the pane on one line for narrow terminals.
func (p *geometryPane) summary() string {
	if p.profile == nil {
		return ""
	}
	s := fmt.Sprintf("TEH %.1f%%", p.last.Overall)
	if n := len(p.snipes); n > 0 {
		s += fmt.Sprintf(" · %d snipe", n)
	}
	return s
}

func (p *geometryPane) observe(ev session.Event) {
	if ev.Gauged {
		p.last, p.live = ev.Gauge, true
	}
}

// finish records a turn's summary.
func (p *geometryPane) finish(t session.Turn) {
	p.live = false
	if t.Geometry != nil {
		p.turn = t.Geometry
	}
}

// notices are what a turn deserves in the chat: the categories whose
// gauge reached its threshold.
func (p *geometryPane) notices(t session.Turn) []entry {
	if t.Geometry == nil || len(t.Geometry.Flagged) == 0 || p.profile == nil {
		return nil
	}
	// Categories that share a gauge read the same figure against the
	// same τ: they are named together and the figure said once, rather
	// than one reading repeated for each of them.
	var parts, weak grouped
	for _, name := range t.Geometry.Flagged {
		for i, c := range p.profile.Categories {
			if c.Name == name {
				v := max(t.Geometry.Prompt.Cat[i], t.Geometry.Reply.Cat[i])
				parts.add(name, fmt.Sprintf("%.1f%% (τ %.1f%%)", v, c.Gauge.ROC.Tau))
				if r := c.Gauge.ROC; r.TPR-r.FPR < chanceMargin {
					weak.add(name, fmt.Sprintf("flagged %.0f%% of harmful and %.0f%% of benign prompts", 100*r.TPR, 100*r.FPR))
				}
			}
		}
	}
	// The turn's figure is the category's mean over the prompt or the
	// reply, whichever is higher — not the last token the pane shows.
	msg := "TEH over this turn reached a category's threshold: " + strings.Join(parts.said("its "), ", ")
	if len(weak.what) > 0 {
		// A gauge that told harmful from benign prompts little better than
		// a coin in calibration is reported as such, so that its warning
		// is not read as a finding about this turn.
		msg += " — near chance on this model in calibration (" + strings.Join(weak.said(""), "; ") + "): read it as noise"
	}
	return []entry{{kind: entryNotice, text: msg}}
}

// grouped collects names by what is said of them, in the order first
// met: each figure once, with every name it belongs to.
type grouped struct {
	what  []string
	names [][]string
}

func (g *grouped) add(name, what string) {
	for i, w := range g.what {
		if w == what {
			g.names[i] = append(g.names[i], name)
			return
		}
	}
	g.what = append(g.what, what)
	g.names = append(g.names, []string{name})
}

// said is each figure after its names: "a 31.4% (its τ 10%)" for one, "a,
// b and c each 31.4% (τ 10%)" for several; its is what a lone name's
// figure says of its τ ("its " turns "(τ" into "(its τ").
func (g *grouped) said(its string) []string {
	out := make([]string, len(g.what))
	for i, w := range g.what {
		ns := g.names[i]
		if len(ns) == 1 {
			out[i] = ns[0] + " " + strings.Replace(w, "(τ", "("+its+"τ", 1)
			continue
		}
		out[i] = strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1] + " each " + w
	}
	return out
}

// geometryCommands are the geometry stack's: its projectors and its
// calibration.
func geometryCommands() []slashCommand {
	return []slashCommand{
		{name: "/snipe", args: "[NAME on|off]", help: "Snipe projectors: list, or switch one", idle: true, run: cmdSnipe},
		{name: "/calibrate", help: "build this model's geometry profile (esc cancels)", idle: true, run: cmdCalibrate},
	}
}

// cmdSnipe toggles projectors: "/snipe" lists them, "/snipe NAME on|off",
// "/snipe a,b" sets exactly those, "/snipe off" clears them.
func cmdSnipe(m *Model, arg string) tea.Cmd {
	g, ok := m.parts.geometry()
	if !ok {
		m.chat.add(entryError, "this engine has no geometry stack")
		return nil
	}
	p := g.Profile()
	if p == nil {
		m.chat.add(entryError, "no geometry profile for this model — /calibrate builds one")
		return nil
	}
	f := strings.Fields(arg)
	cur := g.Snipes()
	var want []string
	switch {
	case len(f) == 0:
		var b strings.Builder
		// Each row fits the chat at 100 columns (65 beside the side
		// panes): the heading names the last column once, rather than
		// every row repeating "collateral".
		b.WriteString("Snipe projectors — held-out harmful prompts refused without → with each, then its collateral: the extra cross-entropy on held-out benign text")
		for _, c := range p.Categories {
			state := "off"
			if contains(cur, c.Name) {
				state = "ON "
			}
			if len(c.Snipe.Coords) == 0 {
				fmt.Fprintf(&b, "\n  %-15s —   no coordinate within the collateral budget", c.Name)
				continue
			}
			held := "not measured (recalibrate)"
			if h := c.Snipe.HeldOut; h != nil && h.Refusals != nil {
				r := h.Refusals
				held = fmt.Sprintf("refused %d → %d of %d  %s", r.Before, r.After, r.Prompts, signedPct(h.Collateral, 2))
			} else if h != nil {
				held = "refused ? (recalibrate)  " + signedPct(h.Collateral, 2)
			}
			fmt.Fprintf(&b, "\n  %-15s %s %2d coords  %s", c.Name, state, len(c.Snipe.Coords), held)
		}
		b.WriteString("\nusage: /snipe NAME on|off · /snipe a,b · /snipe off")
		m.chat.add(entryInfo, b.String())
		return nil
	case len(f) == 2 && (f[1] == "on" || f[1] == "off"):
		for _, c := range cur {
			if c != f[0] {
				want = append(want, c)
			}
		}
		if f[1] == "on" {
			want = append(want, f[0])
		}
	case len(f) == 1:
		want = strings.Split(f[0], ",")
		if f[0] == "off" {
			want = nil
		}
	default:
		m.chat.add(entryError, "usage: /snipe NAME on|off · /snipe a,b · /snipe off")
		return nil
	}
	value := strings.Join(want, ",")
	if value == "" {
		value = "off"
	}
	if err := m.sess.Set("snipe", value); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	m.geo.sync(g)
	m.chat.add(entryInfo, "snipe projectors: "+value)
	return nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// calibMsg reports the end of a calibration.
type calibMsg struct{ err error }

// cmdCalibrate builds the model's profile as a job; esc cancels it.
func cmdCalibrate(m *Model, _ string) tea.Cmd {
	g, ok := m.parts.geometry()
	if !ok {
		m.chat.add(entryError, "this engine has no geometry stack")
		return nil
	}
	m.geo.Update(calibratingMsg{})
	return m.gate.startJob("calibrating the geometry profile", true, func(ctx context.Context, progress func(string)) tea.Msg {
		err := g.Calibrate(ctx, func(stage string, done, total int) {
			progress(fmt.Sprintf("%s %d/%d", stage, done, total))
		})
		return calibMsg{err: err}
	})
}

func (m *Model) onCalib(msg calibMsg) tea.Cmd {
	m.geo.Update(msg)
	switch {
	case errors.Is(msg.err, context.Canceled):
		m.chat.add(entryNotice, "calibration cancelled — nothing changed")
	case msg.err != nil:
		m.chat.add(entryError, "calibration failed: "+msg.err.Error())
	default:
		m.refreshGeometry()
		// What the user just built comes to the front of the side
		// column: a small terminal cannot show it under Perf, and a
		// calibration that ends with its gauges out of sight reads as
		// one that did nothing. ctrl+o brings the others back.
		m.paneFront = "Geometry"
		p := m.geo.attached()
		m.chat.add(entryInfo, fmt.Sprintf("geometry profile built in %.1f s (%d prompts, basis %d×%d at block %d) — gauges are live; /snipe toggles projectors",
			p.Stats.Seconds, p.Stats.Prompts, p.D, p.K, p.Layer))
	}
	m.layout()
	return nil
}

// chanceMargin is the least TPR − FPR (Youden's J) at τ for a gauge's
// warning to stand without a note: below it the gauge separated harmful
// from benign calibration prompts barely better than chance.
const chanceMargin = 0.2
