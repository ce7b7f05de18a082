package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// slashCommand is one /command. run gets the text after the name, trimmed.
type slashCommand struct {
	name, args, help string
	alias            string // another name for it, e.g. "/?" for /help
	idle             bool   // needs the session: refused while a reply streams
	// unlisted keeps it out of the help overlay, whose lines are few at
	// 80×24: another command's help names it (/load names /load!).
	unlisted bool
	run      commandHandler
}

// commandHandler runs a command; arg is the text after its name, trimmed.
type commandHandler func(m *Model, arg string) tea.Cmd

// commands is every slash command in the order the help overlay lists
// them. Each feature declares its own commands beside their handlers, in
// its own file; this is the one place that says which features there are.
func commands() []slashCommand {
	var cmds []slashCommand
	for _, group := range [][]slashCommand{
		helpCommands(),         // help.go
		conversationCommands(), // here: /clear and the settings
		geometryCommands(),     // geometry.go
		steerCommands(),        // steer.go
		expertsCommands(),      // experts.go
		branchCommands(),       // branches.go
		sessionCommands(),      // sessions.go
		quitCommands(),         // quit.go
	} {
		cmds = append(cmds, group...)
	}
	return cmds
}

// commandTable finds a command by its name or its alias.
type commandTable map[string]slashCommand

// newCommandTable indexes cmds. A name given twice is a mistake in the
// declarations, not something a user could cause: it panics, so that the
// tests catch it rather than one command silently shadowing the other.
func newCommandTable(cmds []slashCommand) commandTable {
	t := commandTable{}
	for _, c := range cmds {
		for _, name := range []string{c.name, c.alias} {
			if name == "" { // no alias, or a help continuation line
				continue
			}
			if _, dup := t[name]; dup {
				panic("tui: two slash commands are named " + name)
			}
			t[name] = c
		}
	}
	return t
}

// conversationCommands start a new conversation and read or change the
// settings.
func conversationCommands() []slashCommand {
	cmds := []slashCommand{
		{name: "/clear", help: "new conversation: forget messages, cache, memory", idle: true, run: cmdClear},
		{name: "/system", args: "TEXT", help: "set the system prompt", idle: true, run: cmdSystem},
	}
	for i, line := range setHelpLines() {
		if i == 0 {
			cmds = append(cmds, slashCommand{name: "/set", args: "NAME VALUE", help: line, idle: true, run: cmdSet})
		} else {
			cmds = append(cmds, slashCommand{help: line}) // name "": a continuation line, never dispatched
		}
	}
	return append(cmds,
		slashCommand{name: "/show", help: "list settings and model info", idle: true, run: cmdShow},
	)
}

// setHelpWidth bounds a /set line in the help overlay, its indent
// included: the names take three lines at this width, and the overlay
// still fits 80×24 (stacked there: its columns are 76 cells wide).
const setHelpWidth = 54

// setHelpLines are the help overlay's /set text: the settings' names from
// session.Knobs, wrapped; every line after the first is indented. The
// values and what each does are left to /set alone (setUsage): the overlay
// has no room for them, nor for a word more than the names at 80×24.
func setHelpLines() []string {
	words := session.KnobNames()
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= setHelpWidth:
			line += " " + w
		default:
			lines = append(lines, line)
			line = "  " + w
		}
	}
	return append(lines, line)
}

// setUsage is what /set alone prints: every setting from session.Knobs
// with the values it takes and what it does, in aligned columns; hang is
// the column the descriptions start at.
func setUsage() (text string, hang int) {
	knobs := session.Knobs()
	nameW, valW := 0, 0
	for _, k := range knobs {
		nameW = max(nameW, ansi.StringWidth(k.Name))
		valW = max(valW, ansi.StringWidth(k.Values))
	}
	var b strings.Builder
	b.WriteString("usage: /set NAME VALUE (or /set system TEXT); NAME is one of:")
	for _, k := range knobs {
		// padded by cells, so "≥0" and "…" line up with ASCII values
		b.WriteString("\n  " + padCells(k.Name, nameW) + "  " + padCells(k.Values, valW) + "  " + k.Help)
	}
	return b.String(), 2 + nameW + 2 + valW + 2
}

// runCommand dispatches a line that starts with "/" through the table.
func (m *Model) runCommand(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	name = strings.ToLower(name)
	c, ok := m.cmds[name]
	if !ok {
		m.chat.add(entryError, fmt.Sprintf("unknown command %s — /help lists the commands", name))
		return nil
	}
	if c.idle && !m.gate.free(c.name) {
		m.chat.add(entryError, m.status)
		return nil
	}
	return c.run(m, arg)
}

// Restarter is implemented by sessions that can start a new conversation
// in place of the current one (*session.Session does): /clear uses it, so
// that what it forgets is gone from the next save too, and the cleared
// conversation's file is never saved over.
type Restarter interface {
	// NewConversation forgets session.ClearForgets and the session file;
	// the next save goes to file ("": none until /save names one), which
	// does not exist yet.
	NewConversation(file string) error
}

// cmdClear starts a new conversation. A conversation that was saved stays
// in its file as it is; the new one autosaves to a new file, named in the
// message.
func cmdClear(m *Model, _ string) tea.Cmd {
	r, ok := m.sess.(Restarter)
	if !ok {
		m.rewound = nil
		m.sess.Clear()
		m.chat.clear()
		m.chat.add(entryInfo, "conversation cleared")
		m.refreshContext()
		return nil
	}
	old, next := "", ""
	if s, ok := m.parts.sessions(); ok && s.Path() != "" {
		old = s.Path()
		next = m.files.newSavePath(old)
	}
	if err := r.NewConversation(next); err != nil {
		m.chat.add(entryError, "clear failed: "+err.Error())
		return nil
	}
	m.rewound = nil
	// The panes' figures of the last turn describe the forgotten one.
	forget := m.broadcast(newConversationMsg{})
	m.refreshGeometry()
	m.chat.clear()
	msg := "conversation cleared — forgot " + session.ClearForgets + "."
	if old != "" {
		// A new file: the old one may have been saved by another ISAGI
		// (autosave off for it), which concerns the new one no more.
		m.files.autosaveOff = false
		msg += " " + old + " keeps the old conversation; the next save goes to " + next + "."
	} else if _, ok := m.parts.sessions(); ok {
		msg += " It is not saved anywhere yet: /save [FILE] saves it."
	}
	m.chat.add(entryInfo, msg)
	m.refreshContext()
	return forget
}

func cmdSystem(m *Model, arg string) tea.Cmd {
	if arg == "" {
		cur := m.sess.Settings().System
		if cur == "" {
			cur = "(none)"
		}
		m.chat.add(entryInfo, "system prompt: "+cur+"\nusage: /system TEXT")
		return nil
	}
	if m.sess.Info().Mode == session.ModeCompletion {
		// Without a chat template there is nowhere to put a system
		// prompt: saying "set" would promise an effect it cannot have.
		m.chat.add(entryError, "this model has no chat template, so it has no system prompt: it continues the text you type")
		return nil
	}
	m.parts.chat().SetSystem(arg)
	m.chat.add(entryInfo, "system prompt set")
	return nil
}

func cmdSet(m *Model, arg string) tea.Cmd {
	f := strings.Fields(arg)
	if len(f) > 0 && f[0] == "parameter" { // ollama's spelling: /set parameter NAME VALUE
		f = f[1:]
	}
	if len(f) >= 1 && f[0] == "system" {
		return cmdSystem(m, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(arg), "system")))
	}
	switch {
	case len(f) == 0:
		usage, hang := setUsage()
		m.chat.addListing(entryInfo, usage, hang)
		return nil
	case len(f) != 2:
		usage, hang := setUsage()
		m.chat.addListing(entryError, usage, hang)
		return nil
	}
	if k, ok := session.LookupKnob(f[0]); ok && k.Build {
		return m.setRank(f[0], f[1])
	}
	return m.onSetDone(setDoneMsg{name: f[0], value: f[1], err: m.sess.Set(f[0], f[1])})
}

// RankBuilder is implemented by sessions whose compression knobs can report
// progress and be cancelled (*session.Session does); others are set with
// Session.Set and cannot be stopped.
type RankBuilder interface {
	SetCtx(ctx context.Context, name, value string, progress func(done, total int)) error
}

// setRank changes a compression knob (rank, slots, alloc) as a job:
// building a compression decomposes every block, seconds to minutes on a
// large model. The status line shows the blocks done; esc cancels and
// changes nothing.
func (m *Model) setRank(name, value string) tea.Cmd {
	sess := m.sess
	return m.gate.startJob("building the "+name+" "+value+" compression", true, func(ctx context.Context, progress func(string)) tea.Msg {
		var err error
		if rb, ok := sess.(RankBuilder); ok {
			err = rb.SetCtx(ctx, name, value, func(done, total int) {
				progress(fmt.Sprintf("%d/%d blocks", done, total))
			})
		} else {
			err = sess.Set(name, value)
		}
		if errors.Is(err, context.Canceled) {
			err = errors.New("cancelled — the compression did not change")
		}
		return setDoneMsg{name: name, value: value, err: err}
	})
}

// thermalStep applies the thermal controller's rank once a reply has
// ended. The controller decides while the reply decodes — the reply's
// Meter hands it every sample, and the Hardware pane shows its choice as
// it changes — but the rank changes only here, between turns: switching
// it swaps (or first builds) the GRC compression of every block, the
// weights the decode goroutine is reading, and resets the KV cache, whose
// keys and values were projected at the old rank (session.useRank). Mid-
// reply that would race with the decode and throw its context away;
// between turns it costs one re-prefill of the conversation.
func (m *Model) thermalStep() tea.Cmd {
	if m.opts.Thermal == nil {
		return nil
	}
	d := m.opts.Thermal.Decide(time.Now())
	m.hw.Update(thermalMsg{d})
	if d.Rank == m.info.Rank {
		return nil
	}
	note := "thermal rank: " + d.Reason
	if during := decidedDuring(m.opts.Thermal.Log(), m.replyBegan, m.replyEnded); len(during) > 0 {
		note += " — decided while the reply decoded (" + during + "), applied now that it has ended"
	}
	m.chat.add(entryNotice, note)
	return m.setRank("rank", fmt.Sprint(d.Rank))
}

// decidedDuring lists the rank changes in log made from from to to, the
// last few of them, as "75 °C → 160, 90 °C → 64" ("" when none).
func decidedDuring(log []gpu.Decision, from, to time.Time) string {
	const shown = 3
	var parts []string
	n := 0
	for _, d := range log {
		if d.At.Before(from) || d.At.After(to) {
			continue
		}
		n++
		parts = append(parts, fmt.Sprintf("%.0f °C → %d", d.TempC, d.Rank))
	}
	if n > shown {
		return fmt.Sprintf("%d changes, the last %s", n, strings.Join(parts[n-shown:], ", "))
	}
	return strings.Join(parts, ", ")
}

// setDoneMsg reports a /set that ran (or finished) on the session.
type setDoneMsg struct {
	name, value string
	err         error
}

func (m *Model) onSetDone(msg setDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.chat.add(entryError, msg.err.Error())
		return nil
	}
	m.chat.add(entryInfo, fmt.Sprintf("set %s = %s", msg.name, msg.value))
	m.info = m.sess.Info() // num_ctx changes the context size, rank the Model pane
	m.model.Update(infoMsg{m.info})
	m.refreshContext()
	return nil
}

// cmdShow lists the model, then every setting from session.Knobs with its
// current value (as /set takes it back), then the compression in use and
// the system prompt.
func cmdShow(m *Model, _ string) tea.Cmd {
	s, i := m.sess.Settings(), m.sess.Info()
	knobs := session.Knobs()
	w := len("compression")
	for _, k := range knobs {
		w = max(w, ansi.StringWidth(k.Name))
	}
	var b strings.Builder
	line := func(label, format string, a ...any) {
		b.WriteString(padCells(label, w) + "  " + fmt.Sprintf(format, a...) + "\n")
	}
	line("model", "%s (%s, %s params, %s, %s)", i.Name, i.Arch, fmtCount(i.Params), i.WeightType, fmtBytes(i.FileBytes))
	if i.Experts != "" {
		line("experts", "%s; a token reads %s of the %s held", i.Experts, fmtBytes(i.TokenBytes), fmtBytes(i.FileBytes))
	}
	line("file", "%s", i.Path)
	line("mode", "%s", m.modeLabel())
	for _, k := range knobs {
		line(k.Name, "%s", k.Value(s, i))
	}
	if i.Rank > 0 {
		// What the rank setting built: under gp and mcr the mean rank,
		// and the bytes a token reads.
		line("compression", "%s, %s", rankLabel(i), i.RankSpec)
	}
	sys := s.System
	if sys == "" {
		sys = "(none)"
	}
	line("system", "%s", sys)
	m.chat.addListing(entryInfo, strings.TrimSuffix(b.String(), "\n"), w+2)
	return nil
}
