package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// slashCommand is one /command. run gets the text after the name, trimmed.
type slashCommand struct {
	name, args, help string
	idle             bool // needs the engine: refused while a reply streams
	run              func(m *Model, arg string) tea.Cmd
}

// setNames are the /set parameters the engine accepts.
const setNames = "temperature top_p top_k min_p repeat_penalty seed num_ctx max_tokens rank slots alloc snipe ogd_alpha"

// commands is the slash-command table; the help overlay is generated from it.
func commands() []slashCommand {
	return []slashCommand{
		{name: "/help", help: "show keys and commands", run: cmdHelp},
		{name: "/clear", help: "forget the conversation", idle: true, run: cmdClear},
		{name: "/system", args: "TEXT", help: "set the system prompt", idle: true, run: cmdSystem},
		{name: "/set", args: "NAME VALUE", help: "change a setting: temperature top_p top_k min_p", idle: true, run: cmdSet},
		{name: "", help: "  repeat_penalty seed num_ctx max_tokens rank slots"},
		{name: "", help: "  alloc snipe ogd_alpha"},
		{name: "/show", help: "list settings and model info", idle: true, run: cmdShow},
		{name: "/snipe", args: "[NAME on|off]", help: "Snipe projectors: list, or switch one", idle: true, run: cmdSnipe},
		{name: "/calibrate", help: "build this model's geometry profile (esc cancels)", idle: true, run: cmdCalibrate},
		{name: "/save", args: "[FILE]", help: "save the session (.miku); then after every turn", idle: true, run: cmdSave},
		{name: "/save!", args: "FILE", help: "save over a file that is not this session's", idle: true, run: cmdSaveOver},
		{name: "/load", args: "FILE", help: "load a saved session", idle: true, run: cmdLoad},
		{name: "/bye", help: "quit", run: cmdBye},
	}
}

// runCommand dispatches a line that starts with "/".
func (m *Model) runCommand(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	for _, c := range commands() {
		if c.name == "" || c.name != strings.ToLower(name) {
			continue
		}
		if c.idle && !m.gate(c.name) {
			m.chat.add(entryError, m.status)
			return nil
		}
		return c.run(m, arg)
	}
	m.chat.add(entryError, fmt.Sprintf("unknown command %s — /help lists the commands", name))
	return nil
}

func cmdHelp(m *Model, _ string) tea.Cmd {
	m.help.show = true
	return nil
}

func cmdClear(m *Model, _ string) tea.Cmd {
	m.engine.Clear()
	m.chat.clear()
	m.chat.add(entryInfo, "conversation cleared")
	m.refreshContext()
	return nil
}

func cmdSystem(m *Model, arg string) tea.Cmd {
	if arg == "" {
		cur := m.engine.Settings().System
		if cur == "" {
			cur = "(none)"
		}
		m.chat.add(entryInfo, "system prompt: "+cur+"\nusage: /system TEXT")
		return nil
	}
	m.engine.SetSystem(arg)
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
	if len(f) != 2 {
		m.chat.add(entryError, "usage: /set NAME VALUE, NAME one of: "+setNames)
		return nil
	}
	if f[0] == "rank" || f[0] == "slots" || f[0] == "alloc" {
		return m.setRank(f[0], f[1])
	}
	return m.onSetDone(setDoneMsg{name: f[0], value: f[1], err: m.engine.Set(f[0], f[1])})
}

// RankBuilder is implemented by engines whose compression knobs can report
// progress and be cancelled (*session.Session does); others are set with
// Engine.Set and cannot be stopped.
type RankBuilder interface {
	SetCtx(ctx context.Context, name, value string, progress func(done, total int)) error
}

// setRank changes a compression knob (rank, slots, alloc) as a job:
// building a compression decomposes every block, seconds to minutes on a
// large model. The status line shows the blocks done; esc cancels and
// changes nothing.
func (m *Model) setRank(name, value string) tea.Cmd {
	e := m.engine
	return m.startJob("building the "+name+" "+value+" compression", true, func(ctx context.Context, progress func(string)) tea.Msg {
		var err error
		if rb, ok := e.(RankBuilder); ok {
			err = rb.SetCtx(ctx, name, value, func(done, total int) {
				progress(fmt.Sprintf("%d/%d blocks", done, total))
			})
		} else {
			err = e.Set(name, value)
		}
		if errors.Is(err, context.Canceled) {
			err = errors.New("cancelled — the compression did not change")
		}
		return setDoneMsg{name: name, value: value, err: err}
	})
}

// thermalStep asks the thermal controller for a rank after a turn and
// starts the switch when it differs from the current one.
func (m *Model) thermalStep() tea.Cmd {
	if m.opts.Thermal == nil {
		return nil
	}
	d := m.opts.Thermal.Decide(time.Now())
	if d.Rank == m.info.Rank {
		return nil
	}
	m.chat.add(entryNotice, "thermal rank: "+d.Reason)
	return m.setRank("rank", fmt.Sprint(d.Rank))
}

// setDoneMsg reports a /set that ran (or finished) on the engine.
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
	m.info = m.engine.Info() // num_ctx changes the context size, rank the Model pane
	m.model.info = m.info
	m.refreshContext()
	return nil
}

func cmdShow(m *Model, _ string) tea.Cmd {
	s := m.engine.Settings()
	i := m.info
	sys := s.System
	if sys == "" {
		sys = "(none)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model        %s (%s, %s params, %s, %s)\n", i.Name, i.Arch, fmtCount(i.Params), i.WeightType, fmtBytes(i.FileBytes))
	fmt.Fprintf(&b, "file         %s\n", i.Path)
	fmt.Fprintf(&b, "mode         %s\n", m.modeLabel())
	fmt.Fprintf(&b, "num_ctx      %d\n", i.ContextSize)
	fmt.Fprintf(&b, "temperature  %g\n", s.Temperature)
	fmt.Fprintf(&b, "top_k        %d\n", s.TopK)
	fmt.Fprintf(&b, "top_p        %g\n", s.TopP)
	fmt.Fprintf(&b, "min_p        %g\n", s.MinP)
	fmt.Fprintf(&b, "repeat_penalty %g\n", s.RepeatPenalty)
	fmt.Fprintf(&b, "seed         %d\n", s.Seed)
	fmt.Fprintf(&b, "max_tokens   %d\n", s.MaxTokens)
	info := m.engine.Info()
	fmt.Fprintf(&b, "rank         %s\n", rankLabel(info))
	if info.Rank > 0 {
		fmt.Fprintf(&b, "slots        %s (/set slots qkv|qkv,o,ffn · /set alloc uniform|gp|mcr)\n", info.RankSpec)
	}
	if s.Snipe != "" {
		fmt.Fprintf(&b, "snipe        %s\n", s.Snipe)
	}
	if s.OGDAlpha > 0 {
		fmt.Fprintf(&b, "ogd_alpha    %g\n", s.OGDAlpha)
	}
	fmt.Fprintf(&b, "system       %s", sys)
	m.chat.add(entryInfo, b.String())
	return nil
}

func cmdBye(m *Model, _ string) tea.Cmd {
	return m.quit()
}
