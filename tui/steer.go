package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/session"
)

// Steerer is implemented by sessions that steer the residual stream with
// control vectors (*session.Steering is): the TUI offers /steer only when
// its session has it. Vectors are set through Session.Set("steer", …).
type Steerer interface {
	// Uses is the steering in use.
	Uses() []session.SteerUse
	// Names lists the vectors of the steering directory.
	Names() []string
}

// steering is the session's steering part, if it has one.
func (f features) steering() (Steerer, bool) {
	return part[Steerer](f.sess, func(p parted) any { return p.Steering() })
}

// steerCommands are the steering's.
func steerCommands() []slashCommand {
	return []slashCommand{
		{name: "/steer", args: "[NAME SCALE [A-B] | NAME off | off]", help: "steering vectors: list, or add one at a scale on layers A–B", idle: true, run: cmdSteer},
	}
}

// steerEffect is what the turn before a change of steering read, so that
// the next turn's readout can be shown beside it: the effect of the
// change, measured on the conversation itself.
type steerEffect struct {
	armed   bool   // a change waits for its first turn
	change  string // the steering set, as /steer wrote it
	had     bool   // a turn before the change to compare with
	gauged  bool
	prompt  float32 // its prompt's overall TEH reading
	refused bool
}

// readout is one turn's: whether it was gauged, the prompt's overall TEH
// reading, and whether the reply is a refusal (Heretic's markers).
func readout(t session.Turn) (gauged bool, prompt float32, refused bool) {
	if t.Geometry != nil {
		gauged, prompt = true, t.Geometry.Prompt.Overall
	}
	return gauged, prompt, geometry.IsRefusal(t.Text)
}

// cmdSteer: "/steer" lists the steering and the vectors at hand, "/steer
// NAME SCALE [A-B]" adds NAME (or sets its scale), "/steer NAME off"
// removes it, "/steer off" removes them all. The next reply is followed by
// its TEH prompt reading and refusal beside the last reply's before the
// change.
func cmdSteer(m *Model, arg string) tea.Cmd {
	sp, ok := m.parts.steering()
	if !ok {
		m.chat.add(entryError, "this engine cannot steer")
		return nil
	}
	f := strings.Fields(arg)
	uses := sp.Uses()
	usage := "usage: /steer NAME SCALE [A-B] · /steer NAME off · /steer off"
	switch {
	case len(f) == 0:
		var b strings.Builder
		if len(uses) == 0 {
			b.WriteString("steering: off")
		} else {
			b.WriteString("steering: " + session.FormatSteer(uses))
		}
		if names := sp.Names(); len(names) > 0 {
			b.WriteString("\nvectors: " + strings.Join(names, ", "))
		}
		if g, ok := m.parts.geometry(); ok && g.Profile() != nil {
			b.WriteString("\nprofile categories: " + strings.Join(g.Profile().CategoryNames(), ", "))
		}
		b.WriteString("\n" + usage + " (a vector is a file, NAME.gguf in the data directory's steer/, or a profile category; isagi steer make builds one)")
		m.chat.add(entryInfo, b.String())
		return nil
	case len(f) == 1 && f[0] == "off":
		uses = nil
	case len(f) == 2 && f[1] == "off":
		uses = without(uses, f[0])
	case len(f) == 2 || len(f) == 3 || len(f) == 4:
		scale, err := strconv.ParseFloat(f[1], 32)
		if err != nil {
			m.chat.add(entryError, fmt.Sprintf("/steer %s: the scale %q is not a number — %s", f[0], f[1], usage))
			return nil
		}
		u := session.SteerUse{Vector: f[0], Scale: float32(scale)}
		if len(f) > 2 {
			layers := strings.Join(f[2:], "-")
			a, b, ok := strings.Cut(layers, "-")
			start, e1 := strconv.Atoi(a)
			end, e2 := strconv.Atoi(b)
			if !ok || e1 != nil || e2 != nil || start < 0 || end < start {
				m.chat.add(entryError, fmt.Sprintf("/steer %s: layers are A-B with 0 ≤ A ≤ B, not %q", f[0], layers))
				return nil
			}
			u.Start, u.End = start, end
		}
		uses = append(without(uses, f[0]), u)
	default:
		m.chat.add(entryError, usage)
		return nil
	}
	value := session.FormatSteer(uses)
	if value == "" {
		value = "off"
	}
	if err := m.sess.Set("steer", value); err != nil {
		m.chat.add(entryError, err.Error())
		return nil
	}
	fx := steerEffect{armed: true, change: value}
	if t := m.lastTurn; t != nil {
		fx.had = true
		fx.gauged, fx.prompt, fx.refused = readout(*t)
	}
	m.steerFx = fx
	m.chat.add(entryInfo, "steering: "+value+" — the conversation is read again with it at the next message; its effect is shown after the reply")
	return nil
}

func without(uses []session.SteerUse, name string) []session.SteerUse {
	out := uses[:0:0]
	for _, u := range uses {
		if u.Vector != name {
			out = append(out, u)
		}
	}
	return out
}

// steerNotice is the readout of the first turn after a change of
// steering beside the turn before it, or "" when no change waits.
func (m *Model) steerNotice(t session.Turn) string {
	fx := &m.steerFx
	if !fx.armed {
		return ""
	}
	fx.armed = false
	gauged, prompt, refused := readout(t)
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	s := "steering " + fx.change + ": refusal " + yes(refused)
	if fx.had {
		s += " (before: " + yes(fx.refused) + ")"
	}
	if gauged {
		s += fmt.Sprintf(" · TEH prompt %.0f %%", 100*prompt)
		if fx.had && fx.gauged {
			s += fmt.Sprintf(" (before: %.0f %%)", 100*fx.prompt)
		}
	}
	return s
}
