package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/session"
)

// ExpertMapper is implemented by sessions that record a mixture-of-experts
// model's routing (*session.Experts does): the Experts pane, /experts and
// the full-width map read it. expert_off goes through Session.Set.
type ExpertMapper interface {
	// MoE reports whether the model has experts at all.
	MoE() bool
	// Map fills m with the routing of the last tokens.
	Map(m *session.ExpertMap) error
	// Counts is the conversation's routing counts.
	Counts() (session.ExpertCounts, error)
}

// experts is the session's expert map, when its model has experts.
func (f features) experts() (ExpertMapper, bool) {
	x, ok := part[ExpertMapper](f.sess, func(p parted) any { return p.Experts() })
	if !ok || !x.MoE() {
		return nil, false
	}
	return x, true
}

// expertsCommands are the expert map's.
func expertsCommands() []slashCommand {
	return []slashCommand{
		{name: "/experts", args: "[map]", help: "expert counts of the conversation; map: full map", idle: true, run: cmdExperts},
	}
}

// expertsMsg is the expert map as the session last recorded it.
type expertsMsg struct{ m *session.ExpertMap }

// expertsPane shows a mixture-of-experts model's routing: the current
// token's heaviest experts, its routing entropy, and a heat map of layers
// × experts over the last tokens — binned into the side column, or over
// the chat's whole area when big (/experts map).
type expertsPane struct {
	m   *session.ExpertMap // nil until the first read
	big bool
}

// Update takes a new map; a new conversation forgets the old one's.
func (p *expertsPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case expertsMsg:
		p.m = msg.m
	case newConversationMsg:
		p.m = nil
	}
	return nil
}

// shades are the heat map's cells, coolest first: a cell is the share of
// the window's tokens that chose the hottest expert it stands for,
// relative to the hottest cell of the map.
var shades = []rune(" ·░▒▓█")

// shade is the cell for v of top.
func shade(v, top float32) rune {
	if v <= 0 || top <= 0 {
		return shades[0]
	}
	i := 1 + int(float32(len(shades)-2)*v/top+0.5)
	return shades[min(i, len(shades)-1)]
}

// heat draws the map in at most w columns and h rows: a layer label, then
// one cell per bin of experts; layers are binned too when there are more
// than h. A bin shows its hottest member, so that one busy expert is not
// averaged away.
func heat(m *session.ExpertMap, w, h int) []string {
	L, E := len(m.Layers), m.Experts
	if L == 0 || E == 0 || w < 6 || h < 1 {
		return nil
	}
	label := len(fmt.Sprint(m.Layers[L-1])) + 1
	cols := min(E, w-label-1)
	perCol := (E + cols - 1) / cols
	cols = (E + perCol - 1) / perCol
	rows := min(L, h)
	perRow := (L + rows - 1) / rows
	rows = (L + perRow - 1) / perRow
	var top float32
	for _, v := range m.Fired {
		top = max(top, v)
	}
	out := make([]string, 0, rows)
	for r := range rows {
		var b strings.Builder
		b.WriteString(padCells(fmt.Sprint(m.Layers[r*perRow]), label))
		b.WriteByte('|')
		for c := range cols {
			var v float32
			for i := r * perRow; i < min((r+1)*perRow, L); i++ {
				for e := c * perCol; e < min((c+1)*perCol, E); e++ {
					v = max(v, m.Fired[i*E+e])
				}
			}
			b.WriteRune(shade(v, top))
		}
		out = append(out, b.String())
	}
	return out
}

// binNote says what one cell of heat(m, w, h) stands for, "" when one
// expert of one layer.
func binNote(m *session.ExpertMap, w, h int) string {
	L, E := len(m.Layers), m.Experts
	label := len(fmt.Sprint(m.Layers[L-1])) + 1
	cols := min(E, w-label-1)
	perCol := (E + cols - 1) / cols
	perRow := (L + min(L, h) - 1) / min(L, h)
	var parts []string
	if perCol > 1 {
		parts = append(parts, fmt.Sprintf("%d experts", perCol))
	}
	if perRow > 1 {
		parts = append(parts, fmt.Sprintf("%d layers", perRow))
	}
	if len(parts) == 0 {
		return ""
	}
	return "a cell: " + strings.Join(parts, " × ") + ", the hottest"
}

// top is the current token's heaviest experts, as many as fit w.
func (p *expertsPane) top(w int) string {
	var parts []string
	used := 0
	for _, x := range p.m.Top(8) {
		s := fmt.Sprintf("%d:%d %.2f", x.Layer, x.Expert, x.Weight)
		if used+len(s)+1 > w && len(parts) > 0 {
			break
		}
		parts = append(parts, s)
		used += len(s) + 1
	}
	return strings.Join(parts, " ")
}

// entropy is the routing entropy line: the current token's, of the most
// there can be, and the window's mean.
func (p *expertsPane) entropy() string {
	return fmt.Sprintf("%.2f/%.2f bits, μ %.2f", p.m.Entropy, p.m.MaxEntropy, p.m.MeanEntropy)
}

// lines is the side pane, w cells wide.
func (p *expertsPane) lines(w int) []string {
	m := p.m
	if m == nil || m.Pos < 0 {
		return []string{theme.Dim.Render("no token routed yet"), theme.Dim.Render("/experts map: the full map")}
	}
	out := []string{
		kv("token", p.top(w-8)),
		kv("entropy", p.entropy()),
	}
	if len(m.Off) > 0 {
		out = append(out, kv("off", offList(m.Off)))
	}
	out = append(out, theme.Label.Render(fmt.Sprintf("last %d tokens · layer|experts", m.Tokens)))
	return append(out, heat(m, w, 8)...)
}

// summary is the pane's line in the "more" box.
func (p *expertsPane) summary() string {
	if p.m == nil || p.m.Pos < 0 {
		return "experts: none routed yet"
	}
	return fmt.Sprintf("experts H %.2f/%.2f bits", p.m.Entropy, p.m.MaxEntropy)
}

// view is the full-width map, w×h cells: every MoE layer a row when they
// fit, every expert a column when they fit (else binned, and said so).
func (p *expertsPane) view(w, h int) string {
	m := p.m
	head := theme.PaneTitle.Render("Expert map") + theme.Dim.Render(" · /experts map closes")
	if m == nil || m.Pos < 0 {
		return head + "\n" + theme.Dim.Render("no token routed yet: the map fills as the model reads and writes")
	}
	lines := []string{
		head,
		fmt.Sprintf("last %d tokens · %d MoE layers × %d experts, %d per token · each cell: the share of the tokens that chose it", m.Tokens, len(m.Layers), m.Experts, m.Used),
		kv("token", p.top(w-8)),
		kv("entropy", p.entropy()),
	}
	if len(m.Off) > 0 {
		lines = append(lines, kv("off", offList(m.Off)))
	}
	room := h - len(lines) - 2
	if note := binNote(m, w, room); note != "" {
		lines = append(lines, theme.Dim.Render(note))
	} else {
		room++
	}
	lines = append(lines, theme.Dim.Render("layer|experts 0…"+fmt.Sprint(m.Experts-1)+"   "+string(shades[1:])+" cool → hot"))
	lines = append(lines, heat(m, w, room)...)
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w-1, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// offList is expert_off's list, short.
func offList(refs []session.ExpertRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// cmdExperts prints the conversation's counts, or with "map" toggles the
// full-width map.
func cmdExperts(m *Model, arg string) tea.Cmd {
	x, ok := m.parts.experts()
	if !ok {
		m.chat.add(entryError, session.ErrNoExperts.Error())
		return nil
	}
	switch arg {
	case "map":
		m.xpp.big = !m.xpp.big
		m.refreshExperts()
		return nil
	case "":
	default:
		m.chat.add(entryError, "usage: /experts (the conversation's counts) or /experts map (the full map, again to close)")
		return nil
	}
	c, err := x.Counts()
	if err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	text, hang := countsText(c)
	m.chat.addListing(entryInfo, text, hang)
	return nil
}

// countsText is /experts' listing: the most chosen experts overall, then
// each layer's three, as shares of the conversation's tokens.
func countsText(c session.ExpertCounts) (string, int) {
	if c.Tokens == 0 {
		return "no token routed yet in this conversation", 0
	}
	share := func(n int64) string { return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(c.Tokens)) }
	var b strings.Builder
	fmt.Fprintf(&b, "experts chosen over the conversation's %d tokens (%d MoE layers × %d experts, %d per token; a share is of the tokens)", c.Tokens, len(c.Layers), c.Experts, c.Used)
	var all []string
	for _, x := range c.Overall(8) {
		all = append(all, fmt.Sprintf("%d:%d %s", x.Layer, x.Expert, share(x.Count)))
	}
	label := len(fmt.Sprint(c.Layers[len(c.Layers)-1]))
	hang := max(label, len("overall")) + 2
	b.WriteString("\n" + padCells("overall", hang-2) + "  " + strings.Join(all, " · "))
	for i, l := range c.Layers {
		var top []string
		for _, x := range c.Top(i, 3) {
			top = append(top, fmt.Sprintf("%d %s", x.Expert, share(x.Count)))
		}
		b.WriteString("\n" + padCells(fmt.Sprint(l), hang-2) + "  " + strings.Join(top, " · "))
	}
	fmt.Fprintf(&b, "\n%d of %d experts (over every layer) never chosen", c.Unused(), len(c.Layers)*c.Experts)
	return b.String(), hang
}

// refreshExperts reads the map between replies: not while a reply or a job
// runs on the session's goroutine (the stream's feed brings it then).
func (m *Model) refreshExperts() {
	x, ok := m.parts.experts()
	if !ok || m.gate.busyWith() != "" {
		return
	}
	var em session.ExpertMap
	if err := x.Map(&em); err == nil {
		m.xpp.Update(expertsMsg{&em})
	}
}

// expertFeed carries the map from the reply's goroutine to the UI while a
// reply streams: the session's routing may be read only there, between
// tokens (the emit callback), so the map is taken there, at most once a
// frame, and handed over under a lock.
type expertFeed struct {
	mu    sync.Mutex
	m     *session.ExpertMap
	taken time.Time
}

// sample takes the map, when a frame has passed since the last.
func (f *expertFeed) sample(x ExpertMapper) {
	now := time.Now()
	f.mu.Lock()
	due := now.Sub(f.taken) >= frameInterval
	if due {
		f.taken = now
	}
	f.mu.Unlock()
	if !due {
		return
	}
	var em session.ExpertMap
	if x.Map(&em) != nil {
		return
	}
	f.mu.Lock()
	f.m = &em
	f.mu.Unlock()
}

// take returns the map sampled since the last take, or nil.
func (f *expertFeed) take() *session.ExpertMap {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.m
	f.m = nil
	return m
}

// withExperts wraps a reply's send so that its routing feeds the Experts
// pane while it streams.
func (m *Model) withExperts(send func(context.Context, func(session.Event)) (session.Turn, error)) func(context.Context, func(session.Event)) (session.Turn, error) {
	x, ok := m.parts.experts()
	if !ok {
		return send
	}
	feed := m.xfeed
	return func(ctx context.Context, emit func(session.Event)) (session.Turn, error) {
		return send(ctx, func(ev session.Event) {
			feed.sample(x)
			emit(ev)
		})
	}
}
