package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/internal/termtext"
	"github.com/isagi-lab/isagi/session"
)

// Session is what the TUI needs from the session it shows;
// *session.Session implements it, tests use a fake. Only Send runs while
// the UI is live; the other methods are called between replies.
type Session interface {
	Info() session.Info
	Settings() session.Settings
	// Set changes a setting by name (temperature, top_p, top_k, min_p,
	// repeat_penalty, seed, num_ctx, max_tokens); it returns a clear error
	// for an unknown name or a bad value.
	Set(name, value string) error
	// Clear forgets the conversation.
	Clear()
	// Send streams one reply to input (a user message in chat mode; text to
	// continue in completion mode). It blocks until the reply ends; emit is
	// called on the calling goroutine for every piece. Cancelling ctx stops
	// it promptly (Turn.Stop == "cancelled", err nil or context.Canceled).
	Send(ctx context.Context, input string, emit func(session.Event)) (session.Turn, error)
}

// Options configure the TUI.
type Options struct {
	// Telemetry feeds the Hardware pane, the thermal controller while a
	// reply decodes, and tokens per joule in the Perf pane; nil shows "CPU —
	// no GPU telemetry". Pass a *gpu.NVML only when gpu.NewNVML succeeded.
	Telemetry gpu.Source
	// Compute names the device that runs the model, for the Hardware pane
	// (e.g. "cpu avx2 × 2 threads", "CUDA · NVIDIA H100 80GB HBM3"); empty:
	// the CPU path Info reports. A second line, after "\n", is shown on
	// its own: why the GPU was passed over ("no CUDA GPU found").
	Compute string
	// Version is shown in the header, e.g. "v0.3.0".
	Version string
	// Thermal, when set, picks the GRC rank from GPU telemetry
	// (docs/mechanisms.md §4, docs/gpu.md): it decides from samples taken
	// while each reply decodes — Telemetry's, when set, so give it the
	// same source — and the rank it chose is applied when the reply ends;
	// its decisions show in the Hardware pane and the chat.
	Thermal *gpu.ThermalRank
	// SessionDir is where /save and ctrl+s write a new session file when
	// none is open (the data directory's sessions/, made by the caller).
	SessionDir string
	// MarkdownStyle is glamour's standard style for finished answers:
	// "dark", "light", "notty" or "ascii". Empty: Run asks the terminal for
	// its background; New uses "dark".
	MarkdownStyle string
	// NoAutosave keeps a new conversation from saving itself to a new file
	// in SessionDir after its first turn (a loaded or saved one still
	// autosaves to its own file).
	NoAutosave bool
	// Notes are shown in the chat at start (e.g. a geometry profile that
	// could not be loaded).
	Notes []string
}

// Labels shown for the mode and the demo model.
const (
	completionLabel = "completion mode — this model has no chat template"
	demoLabel       = "demo: a tiny KJV text generator, not an assistant"
)

// Layout constants.
const (
	sideWidth    = 34  // the side column, borders included
	wideMinWidth = 100 // below this the side panes collapse into one line
)

// Model is the root Bubble Tea model. It owns the panes and the features
// (the gate, the session files, the quit dialogue), routes messages to
// them and lays the panes out; build it with New. The features hold
// pointers to the parts of it they share (the chat, the status line, the
// gate), so a Model is never copied: New returns it by pointer.
type Model struct {
	sess  Session
	parts features // the session's optional features, looked up on its parts
	opts  Options
	info  session.Info
	keys  keyMap

	chat  chatPane
	input inputPane
	perf  perfPane
	hw    hardwarePane
	model modelPane
	geo   geometryPane
	// steerFx is a change of steering waiting for its first reply, and
	// lastTurn the last reply, which the change's readout compares with
	// (steer.go).
	steerFx  steerEffect
	lastTurn *session.Turn
	kvp      kvPane // the KV cache under eviction
	xpp      expertsPane
	xfeed    *expertFeed // the expert map, from a streaming reply's goroutine
	mani     manifoldPane
	help     helpOverlay
	cmds     commandTable // the slash commands, by name

	width, height int
	hidePanes     bool
	status        string

	gate sessionGate // the reply or the job that holds the session (jobs.go)
	// afterSave: enter was pressed during an autosave; the input is
	// submitted when the save ends.
	afterSave bool
	sent      string // the message the streaming reply answers (given back if refused)

	frame frameLimiter // bounds full redraws while text pours in

	// paneFront is the title of the side pane in front (ctrl+o moves it
	// along; "": Perf): it is shown whole, before the others.
	paneFront string

	files sessionFiles // the session file: saves, autosave, loads (sessions.go)

	// editing is the user message /edit put in the input (its node id;
	// -1: none): enter sends the text as an edit of it. rebranch says the
	// reply streaming now starts a new branch (an edit, a regeneration):
	// the chat shows the whole branch when it ends.
	editing  int
	rebranch bool
	// rewound is where /forward returns to after a /rewind (nil: none).
	// A message, a regeneration, a switch, a /clear or a /load forgets it:
	// the tree under it moved, or is another tree.
	rewound *rewindMark

	quit   quitDialog // the ctrl+c dialogue (quit.go)
	stopBy string     // the key that stopped the reply streaming now

	// When the reply streaming now (or the last one) began and ended: the
	// thermal decisions made in between were made during it.
	replyBegan, replyEnded time.Time
}

// New builds the root model for sess. Run wraps it in a program; tests drive
// it with teatest.
func New(sess Session, opts Options) *Model {
	if opts.MarkdownStyle == "" {
		opts.MarkdownStyle = "dark"
	}
	info := sess.Info()
	keys := newKeyMap()
	src := opts.Telemetry
	if src != nil {
		src = &serialSource{src: src}
	}
	compute := opts.Compute
	if compute == "" {
		compute = cpuLabel(info)
	}
	placeholder := "Send a message (/help for commands)"
	if info.Mode == session.ModeCompletion {
		placeholder = "Type text for the model to continue"
	}
	m := &Model{
		sess:    sess,
		parts:   features{sess},
		opts:    opts,
		info:    info,
		keys:    keys,
		chat:    newChatPane(info.Name, info.Mode == session.ModeChat, opts.MarkdownStyle, keys),
		input:   newInputPane(placeholder, keys),
		hw:      hardwarePane{src: src, compute: compute},
		perf:    perfPane{energy: src != nil},
		model:   modelPane{info: info},
		help:    helpOverlay{keys: keys},
		cmds:    newCommandTable(commands()),
		width:   80,
		height:  24,
		editing: -1,
		xfeed:   &expertFeed{},
	}
	m.gate = newSessionGate(&m.status)
	m.quit = quitDialog{m: m, now: time.Now}
	m.files = sessionFiles{parts: m.parts, chat: &m.chat, gate: &m.gate, dir: opts.SessionDir, noAutosave: opts.NoAutosave}
	m.files.showTranscript(m.info.Mode) // a session resumed with --load
	if s, ok := m.parts.sessions(); ok && s.Path() != "" {
		m.chat.add(entryInfo, "resumed "+s.Path()+" — saved again after every turn")
	}
	m.refreshGeometry()
	if _, ok := m.parts.geometry(); ok {
		if m.geo.attached() == nil {
			m.chat.add(entryInfo, "No geometry profile for this model yet — /calibrate builds one (TEH harm gauges, Snipe projectors).")
		}
	}
	for _, n := range opts.Notes {
		m.chat.add(entryNotice, n)
	}
	m.refreshContext()
	m.layout()
	return m
}

// Run shows the TUI on the terminal (alternate screen) until the user
// quits, then waits for any generation to stop.
func Run(sess Session, opts Options) error {
	if opts.MarkdownStyle == "" {
		opts.MarkdownStyle = "dark"
		if !lipgloss.HasDarkBackground() {
			opts.MarkdownStyle = "light"
		}
	}
	m := New(sess, opts)
	_, err := tea.NewProgram(m, tea.WithAltScreen()).Run()
	m.Close()
	return err
}

// Close cancels a running generation and waits for the session to be free.
func (m *Model) Close() {
	m.gate.cancel()
	m.gate.wg.Wait()
}

// Init starts telemetry polling.
func (m *Model) Init() tea.Cmd {
	return m.hw.Init()
}

// Update routes a message to the panes: keys by the key map and by what
// has the focus (onKey), the reply's stream to every pane, telemetry to the
// Hardware pane; the session's results (jobs, saves, loads) go to the
// handlers of the features they belong to or to the root's, which tell the
// panes what changed.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.frame.deferred = false
	switch msg := msg.(type) {
	case redrawMsg:
		m.frame.pending = false
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case streamMsg:
		return m, m.quit.resume(m.onStream(msg))
	case jobProgressMsg:
		cmd, ours := m.gate.onJobProgress(msg)
		if ours {
			m.geo.Update(msg) // a calibration shows its stage in its pane too
		}
		return m, cmd
	case jobDoneMsg:
		var cmd tea.Cmd
		if result, ours := m.gate.onJobDone(msg); ours {
			_, cmd = m.Update(result) // to the result's handler
		}
		return m, m.quit.resume(cmd)
	case quitSaveMsg:
		return m, m.quit.onSave(msg)
	case quitDisarmMsg:
		m.quit.onDisarm(msg)
		return m, nil
	case tea.ResumeMsg:
		// Back from ctrl+z: Bubble Tea has restored the terminal (the
		// alternate screen, the size) and repaints; draw a fresh frame
		// rather than one a burst of keys deferred before the suspend.
		m.frame.pending = false
		return m, nil
	case setDoneMsg:
		return m, m.onSetDone(msg)
	case calibMsg:
		return m, m.onCalib(msg)
	case loadDoneMsg:
		return m, m.onLoadDone(msg)
	case saveDoneMsg:
		cmd := m.files.onSaveDone(msg)
		if m.afterSave {
			// Enter was pressed while this autosave ran: the line in the
			// input goes now.
			m.afterSave = false
			cmd = tea.Batch(cmd, m.submit())
		}
		return m, cmd
	case exportDoneMsg:
		m.chat.add(msg.note())
		return m, nil
	case hwMsg:
		return m, m.hw.Update(msg)
	case tea.KeyMsg:
		// Keys come in bursts (typing, a paste): redraw at most once a
		// frame while they do.
		return m, tea.Batch(m.onKey(msg), m.frame.throttle())
	}
	return m, nil
}

// isText reports whether a key message is typed or pasted text rather than
// a key. Bubble Tea delivers a burst of printable characters (a word typed
// fast, or a paste in a terminal without bracketed paste) as one message
// whose String() is the characters themselves: "enter", "up" or "ctrl+c"
// typed as text must never act as that key. A single character is still a
// key for bindings such as "?".
func isText(msg tea.KeyMsg) bool {
	return msg.Paste || (msg.Type == tea.KeyRunes && len(msg.Runes) > 1) || msg.Type == tea.KeySpace
}

// onKey routes a key. The quit dialogue answers first; typed text always
// goes to the input; the help overlay, when shown, is modal; then the
// root's own bindings; the chat takes its scroll keys, and the input every
// key left.
func (m *Model) onKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.quit.asking {
		if cmd, used := m.quit.answer(msg); used {
			return cmd
		}
	}
	if isText(msg) || !key.Matches(msg, k.Quit) {
		m.quit.disarm()
	}
	if isText(msg) {
		m.help.close() // the text is the user's: show where it went
		return m.input.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Newline):
		return m.input.Update(msg)
	case key.Matches(msg, k.Quit):
		return m.quit.interrupt()
	case key.Matches(msg, k.Suspend):
		return tea.Suspend
	case m.help.visible():
		return m.help.Update(msg)
	case key.Matches(msg, k.Stop) && m.gate.cancelJob():
		return nil
	case key.Matches(msg, k.Stop) && m.gate.gen == nil && m.editing >= 0:
		m.leaveEdit()
		return nil
	case key.Matches(msg, k.Stop):
		m.stopReply("esc")
		return nil
	case key.Matches(msg, k.Help) && (msg.String() != "?" || strings.TrimSpace(m.input.value()) == ""):
		m.help.open()
		return nil
	case key.Matches(msg, k.ScrollUp, k.ScrollDown):
		return m.chat.Update(msg)
	case key.Matches(msg, k.Panes):
		m.hidePanes = !m.hidePanes
		m.layout()
		return nil
	case key.Matches(msg, k.Rotate):
		m.rotatePanes()
		return nil
	case key.Matches(msg, k.AlphaUp):
		return m.nudgeAlpha(alphaStep)
	case key.Matches(msg, k.AlphaDown):
		return m.nudgeAlpha(-alphaStep)
	case key.Matches(msg, k.Regenerate):
		return m.regenerate()
	case key.Matches(msg, k.Save):
		if !m.gate.free("saving") {
			return nil
		}
		return cmdSave(m, "")
	case key.Matches(msg, k.Send):
		return m.submit()
	}
	return m.input.Update(msg)
}

// submit handles enter: a /command, or a message to the model.
func (m *Model) submit() tea.Cmd {
	text := m.input.value()
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil
	}
	if j := m.gate.job; j != nil && j.autosave && m.gate.gen == nil {
		// The save after a turn takes a moment the user did not ask
		// for: what they entered runs when it ends (the saveDoneMsg
		// case), not refused with "must wait".
		m.afterSave = true
		m.status = "after the autosave: " + trimmed
		return nil
	}
	if strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//") {
		m.input.reset()
		// A command ends an edit in progress (its text is gone from the
		// input, and /load, /branch or /clear move the conversation under
		// it); /edit starts a new one.
		m.editing = -1
		cmd := m.runCommand(trimmed)
		m.layout()
		return cmd
	}
	if !m.gate.free("sending") {
		return nil // the message stays in the input
	}
	if strings.HasPrefix(trimmed, "//") { // "//x" sends "/x"
		text = strings.Replace(text, "/", "", 1)
	}
	m.input.reset()
	m.sent = text
	m.stopBy = ""
	m.rewound = nil
	send := sendOf(m.sess, text)
	label := ""
	if b, ok := m.parts.brancher(); ok && m.info.Mode == session.ModeChat {
		label = fmt.Sprintf("message %d", userCount(b)+1)
		if id := m.editing; id >= 0 {
			// The edit replaces that message: its number is its place.
			label = editLabel(b, id)
			send = func(ctx context.Context, emit func(session.Event)) (session.Turn, error) {
				return b.Edit(ctx, id, text, emit)
			}
			m.rebranch = true
		}
	}
	m.editing = -1
	m.chat.addLabelled(entryUser, text, label)
	began := m.broadcast(replyBeginMsg{})
	m.status = generatingStatus
	return tea.Batch(began, m.gate.startReply(m.withExperts(send), m.startMeter()))
}

// startMeter starts sampling the GPU for a reply that begins now, when
// there is telemetry or a thermal controller to feed: the sampler runs on
// its own goroutine for as long as the reply, so the Hardware pane and
// the thermal controller follow the load of generation, and the reply's
// mean power gives tokens per joule. startGeneration stops it.
func (m *Model) startMeter() *gpu.Meter {
	m.replyBegan = time.Now()
	return m.hw.startMeter(m.opts.Thermal)
}

// onStream hands the reply's news to every pane — the chat its text, the
// Perf, Geometry and Hardware panes its figures, and at its end the turn —
// then, at the end, writes the notes the turn deserves under it.
func (m *Model) onStream(msg streamMsg) tea.Cmd {
	if m.gate.gen == nil || msg.id != m.gate.gen.id {
		return nil // from a generation already finished
	}
	if em := m.xfeed.take(); em != nil {
		m.xpp.Update(expertsMsg{em})
	}
	panes := m.broadcast(msg)
	if !msg.done {
		return tea.Batch(panes, m.gate.gen.wait())
	}
	m.gate.gen = nil
	m.replyEnded = time.Now()
	t := msg.turn
	var notes []entry
	if t.Dropped > 0 {
		notes = append(notes, entry{kind: entryNotice, text: fmt.Sprintf("dropped %d oldest %s to fit the context window", t.Dropped, plural(t.Dropped, "turn", "turns"))})
	}
	switch t.Stop {
	case "cancelled":
		stopped := "stopped"
		if m.stopBy != "" {
			stopped += " (" + m.stopBy + ")"
		}
		notes = append(notes, entry{kind: entryNotice, text: stopped})
	case "context full":
		notes = append(notes, entry{kind: entryNotice, text: "the context window is full — the reply was cut short"})
	case "token limit":
		notes = append(notes, entry{kind: entryInfo, text: fmt.Sprintf("reached max_tokens (%d)", t.Tokens)})
	}
	if t.Trimmed > 0 {
		notes = append(notes, entry{kind: entryNotice, text: fmt.Sprintf("the text is longer than the context window: the model saw only its last part (%d earlier %s left out)", t.Trimmed, plural(t.Trimmed, "token", "tokens"))})
	}
	switch {
	case errors.Is(msg.err, session.ErrTooLong):
		// Nothing was sent: give the text back so the user can shorten it.
		notes = append(notes, entry{kind: entryError, text: "not sent — " + strings.TrimPrefix(msg.err.Error(), "session: ") + ". The message is back in the input."})
		m.input.giveBack(m.sent)
	case msg.err != nil:
		notes = append(notes, entry{kind: entryError, text: "generation failed: " + msg.err.Error()})
	}
	m.sent = ""
	notes = append(notes, m.geo.notices(t)...)
	if s := m.steerNotice(t); s != "" && msg.err == nil {
		notes = append(notes, entry{kind: entryInfo, text: s})
	}
	m.lastTurn = &t
	notes = append(notes, m.mani.notices(t)...)
	if !m.rebranch && msg.err == nil && m.madeVersion() {
		// A message sent after /rewind is a new version of the one
		// that was there: show its ‹ k/n › marker now, as after an edit.
		m.rebranch = true
	}
	if m.rebranch {
		// An edit or a regeneration: the branch shown changed above the
		// reply. Show the branch whole, with its versions marked.
		m.rebranch = false
		m.chat.endReply(t.Text)
		m.files.showTranscript(m.info.Mode)
		for _, n := range notes {
			m.chat.add(n.kind, n.text)
		}
	} else {
		m.chat.endReply(t.Text, notes...)
	}
	m.refreshGeometry()
	m.refreshContext()
	m.status = ""
	if t.Stop == "cancelled" {
		m.status = "stopped"
	}
	// Autosave, then let the thermal controller pick a rank: one job
	// after the other through the gate.
	if cmd := m.files.autosave(m.thermalStep); cmd != nil {
		return tea.Batch(panes, cmd)
	}
	return tea.Batch(panes, m.thermalStep())
}

func (m *Model) refreshContext() {
	used, limit := m.parts.chat().ContextUsed()
	m.perf.Update(contextMsg{used, limit})
}

func (m *Model) modeLabel() string {
	if m.info.Mode == session.ModeCompletion {
		return completionLabel
	}
	return "chat"
}

// banner is the line(s) under the header that must not be missed: the
// completion-mode and demo labels.
func (m *Model) banner() string {
	var parts []string
	if m.info.Mode == session.ModeCompletion {
		parts = append(parts, completionLabel)
	}
	if m.info.Demo {
		if m.info.DemoLabel != "" {
			parts = append(parts, m.info.DemoLabel)
		} else {
			parts = append(parts, demoLabel)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return theme.Banner.Width(m.width).Render(strings.Join(parts, " · "))
}

func (m *Model) header() string {
	title := theme.Header.Render("ISAGI")
	if m.opts.Version != "" {
		title += " " + theme.HeaderDim.Render(m.opts.Version)
	}
	mode := m.info.Mode.String()
	s := title + "  " + theme.Value.Bold(true).Render(m.info.Name) + theme.HeaderDim.Render(" · "+m.info.Arch+" "+m.info.WeightType+" · "+mode+" mode")
	return lipgloss.NewStyle().MaxWidth(m.width).Render(s)
}

// generatingStatus is the status line while a reply is generated; while
// its prompt is read, the prefill's progress stands in for "generating".
const generatingStatus = "generating — esc stops"

func (m *Model) statusBar() string {
	left := m.status
	switch {
	case left == "":
		left = "ready"
	case left == generatingStatus && m.perf.prefilling():
		left = m.perf.prefillText() + " — esc stops"
	}
	var hints []string
	for _, b := range m.keys.ShortHelp() {
		verb, _, _ := strings.Cut(b.Help().Desc, " ")
		if b.Help().Key == m.keys.Quit.Help().Key {
			verb = m.quit.hint() // ctrl+c does what fits the moment
		}
		hints = append(hints, theme.StatusKey.Render(b.Help().Key)+" "+verb)
	}
	right := strings.Join(hints, " · ")
	if lipgloss.Width(left)+lipgloss.Width(right)+2 > m.width {
		right = theme.StatusKey.Render("?") + " help"
	}
	gap := max(m.width-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return lipgloss.NewStyle().MaxWidth(m.width).Render(theme.Status.Render(left) + strings.Repeat(" ", gap) + right)
}

func (m *Model) wide() bool { return m.width >= wideMinWidth && !m.hidePanes }

// layout sizes the panes for the terminal.
func (m *Model) layout() {
	inputH := 3
	if m.height < 20 {
		inputH = 1
	}
	m.input.setSize(m.width, inputH)
	cw := m.width
	if m.wide() {
		cw = m.width - sideWidth - 1
	}
	m.chat.setSize(cw, m.bodyHeight())
}

// chrome is the number of lines outside the body.
func (m *Model) chrome() int {
	n := 1 + m.input.height() + 1 // header, input, status
	if b := m.banner(); b != "" {
		n += lipgloss.Height(b)
	}
	if !m.wide() {
		n++ // the one-line pane summary
	}
	return n
}

func (m *Model) bodyHeight() int { return max(m.height-m.chrome(), 1) }

// sidePane is one pane of the side column: its title, its lines, and the
// one line that stands for it in the "more" box when it does not fit.
type sidePane struct {
	title   string
	lines   []string
	summary string
	// spare is how many of the last lines (a legend) go first, without
	// a "…", when the column is too low for the pane.
	spare int
}

// sidePanes are the side column's panes in their usual order, Perf first.
func (m *Model) sidePanes(w int) []sidePane {
	panes := []sidePane{{title: "Perf", lines: m.perf.lines(w), summary: m.perf.summary()}}
	if _, ok := m.parts.geometry(); ok {
		lines, legend := m.geo.lines(w), 0
		if m.geo.attached() != nil && m.geo.progress == "" {
			legend = 1 // what the refused and ce columns are
		}
		panes = append(panes, sidePane{title: "Geometry", lines: lines, summary: "geometry " + m.geo.summary(), spare: legend})
	}
	if _, ok := m.parts.manifold(); ok && m.mani.active() {
		panes = append(panes, sidePane{title: "Manifold", lines: m.mani.lines(w), summary: "COG " + m.mani.summary()})
	}
	if k, ok := m.parts.kvCache(); ok {
		// Read only while the session is free: it is not safe to read
		// while a reply or a job (a /load resets the cache) runs on its
		// worker goroutine; the pane shows the cache as the last one left
		// it.
		if m.gate.busyWith() == "" {
			m.kvp.Update(kvMsg{k.KV()})
		}
		if m.kvp.on() {
			panes = append(panes, sidePane{title: "KV cache", lines: m.kvp.lines(), summary: m.kvp.summary()})
		}
	}
	if _, ok := m.parts.experts(); ok {
		m.refreshExperts()
		panes = append(panes, sidePane{title: "Experts", lines: m.xpp.lines(w), summary: m.xpp.summary()})
	}
	return append(panes,
		sidePane{title: "Model", lines: m.model.lines(), summary: m.info.WeightType + " " + m.info.Name},
		sidePane{title: "Hardware", lines: m.hw.lines(m.info.Rank), summary: m.hw.summary()})
}

// frontPane is the index in panes of the pane in front (paneFront), 0
// (Perf) when it is not among them.
func (m *Model) frontPane(panes []sidePane) int {
	for i, p := range panes {
		if p.title == m.paneFront {
			return i
		}
	}
	return 0
}

// rotatePanes is ctrl+o: the next pane comes to the front.
func (m *Model) rotatePanes() {
	panes := m.sidePanes(sideWidth - 4)
	m.paneFront = panes[(m.frontPane(panes)+1)%len(panes)].title
}

// side is the side column, h lines high. The pane in front comes first
// and is always shown whole (cut short only when the column is lower than
// it): ctrl+o brings each pane to the front in turn, so that every pane
// can be read at any size — at 100×30 the Geometry pane and Perf do not
// fit one above the other, and rotating only what follows Perf left the
// Geometry pane unreachable. The others follow in their usual order while
// they fit; the ones that do not still get a line each in a last box, so
// nothing silently falls off the screen.
func (m *Model) side(h int) string {
	w := sideWidth - 4 // border and padding
	box := func(title string, lines []string) string {
		for i, l := range lines {
			// A line too wide is cut with an ellipsis: a number clipped
			// at the border would read as another number.
			if ansi.StringWidth(l) > w {
				l = ansi.Truncate(l, w-1, "…")
			}
			lines[i] = l
		}
		return theme.Pane.Width(sideWidth - 2).Render(theme.PaneTitle.Render(title) + "\n" + strings.Join(lines, "\n"))
	}
	all := m.sidePanes(w)
	f := m.frontPane(all)
	panes := append(all[f:len(all):len(all)], all[:f]...)
	var out, dropped []string
	used := 0
	for i, p := range panes {
		reserve := 0
		if i+1 < len(panes) || len(dropped) > 0 {
			reserve = 2 + len(dropped) + len(panes) - i - 1 // a "more" box for the rest
		}
		b := box(p.title, p.lines)
		ph := lipgloss.Height(b)
		if i == 0 && ph+reserve > h {
			// The pane in front is shown even in a column too low for
			// it: without its legend, then as many of its lines as
			// fit and "…".
			keep := max(h-reserve-3, 1) // title and borders
			switch {
			case keep >= len(p.lines)-p.spare:
				b = box(p.title, p.lines[:max(keep, len(p.lines)-p.spare)])
			default:
				b = box(p.title, append(p.lines[:keep-1:keep-1], theme.Dim.Render("…")))
			}
			ph = lipgloss.Height(b)
		}
		if i == 0 || used+ph+reserve <= h || (i == len(panes)-1 && len(dropped) == 0 && used+ph <= h) {
			out = append(out, b)
			used += ph
			continue
		}
		dropped = append(dropped, p.summary)
	}
	if len(dropped) > 0 {
		out = append(out, box("more · ctrl+o rotates", dropped))
	}
	return lipgloss.JoinVertical(lipgloss.Left, out...)
}

// View lays out header, banner, body (chat and side panes, or the help
// overlay), the pane summary on narrow terminals, input and status.
func (m *Model) View() string {
	if m.frame.deferred && m.frame.last != "" {
		return m.frame.last
	}
	// The last guard: whatever text reached a pane without being cleaned
	// (a file name, a model's name from its metadata, an error) can colour
	// the screen and no more (termtext.Frame keeps only SGR sequences).
	s := termtext.Frame(m.render())
	m.frame.rendered(s)
	return s
}

func (m *Model) render() string {
	if m.help.visible() { // modal: the whole screen but the status line
		h := max(m.height-1, 1)
		ov := lipgloss.NewStyle().Height(h).MaxHeight(h).MaxWidth(m.width).Render(m.help.View(m.width, h))
		return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(ov + "\n" + m.statusBar())
	}
	bh := m.bodyHeight()
	var body string
	_, moe := m.parts.experts()
	switch {
	case moe && m.xpp.big:
		// /experts map: the map takes the chat's place and the side
		// column's, until closed: 128 experts need the width.
		m.refreshExperts()
		body = m.xpp.view(m.width, bh)
	case m.wide():
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.chat.View(), " ", m.side(bh))
	default:
		body = m.chat.View()
	}
	body = lipgloss.NewStyle().Height(bh).MaxHeight(bh).MaxWidth(m.width).Render(body)

	rows := []string{m.header()}
	if b := m.banner(); b != "" {
		rows = append(rows, b)
	}
	rows = append(rows, body)
	if !m.wide() {
		sum := m.perf.summary()
		if g := m.geo.summary(); g != "" {
			sum += " │ " + g
		}
		sum += " │ " + m.hw.summary()
		rows = append(rows, lipgloss.NewStyle().MaxWidth(m.width).Render(sum))
	}
	rows = append(rows, m.input.View(), m.statusBar())
	return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(strings.Join(rows, "\n"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sendOf is the session's Send of one message, as startGeneration runs it.
func sendOf(sess Session, input string) func(context.Context, func(session.Event)) (session.Turn, error) {
	return func(ctx context.Context, emit func(session.Event)) (session.Turn, error) {
		return sess.Send(ctx, input, emit)
	}
}

// refreshGeometry reads the geometry state between replies.
func (m *Model) refreshGeometry() {
	if g, ok := m.parts.geometry(); ok {
		m.geo.sync(g)
	}
	if e, ok := m.parts.manifold(); ok {
		m.mani.sync(e)
	}
	m.mani.setProfiled(m.geo.attached() != nil)
}
