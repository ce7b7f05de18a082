package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/isagi-lab/isagi/gpu"
	"github.com/isagi-lab/isagi/session"
)

// perfPane shows decode speed (live, with a sparkline of recent samples),
// time to first token and how full the context window is.
type perfPane struct {
	tokS       float64   // decode tok/s: live while streaming, else the last decoded turn's
	decoded    float64   // the last decoded turn's tok/s, kept through answers served from memory
	samples    []float64 // recent tok/s samples, one per frame while streaming and one per turn
	ttft       time.Duration
	prefillS   float64
	tokens     int
	used, lim  int
	generating bool
	spec       *session.SpecStats // the last turn's speculative decoding, or nil
	// served says the last reply was served from the living manifold's
	// memory: nothing was decoded, so it has no speed of its own. The pane
	// says so rather than "– tok/s", which reads as a fault.
	served bool
	// energy says there is GPU telemetry: only then is there a tokens per
	// joule line at all. tokJ and powerW are the last turn's (0: none).
	energy       bool
	tokJ, powerW float64
	// pre is the prompt's progress while a reply reads it (Total 0: not
	// reading one).
	pre session.Prefill
}

const maxSamples = 64

// Update follows the reply — live while it streams, its figures when it
// ends — and the context window's fill between replies.
func (p *perfPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case replyBeginMsg:
		p.begin()
	case streamMsg:
		p.pre = msg.prefill
		if msg.done {
			p.pre = session.Prefill{}
		}
		if msg.fresh {
			p.observe(msg.ev)
		}
		if msg.done {
			p.finish(msg.turn)
			p.measure(msg.turn.DecodeTokS, msg.power)
		}
	case contextMsg:
		p.used, p.lim = msg.used, msg.limit
	}
	return nil
}

func (p *perfPane) begin() {
	p.generating = true
	p.served = false
	p.tokS, p.ttft, p.tokens = 0, 0, 0
	p.tokJ, p.powerW = 0, 0
	p.pre = session.Prefill{}
}

// observe records a streaming event.
func (p *perfPane) observe(ev session.Event) {
	if ev.Tokens > 0 && p.ttft == 0 {
		p.ttft = ev.Elapsed
	}
	p.tokens = ev.Tokens
	if ev.TokPerSec > 0 {
		p.tokS = ev.TokPerSec
		p.push(ev.TokPerSec)
	}
}

func (p *perfPane) finish(t session.Turn) {
	p.generating = false
	if t.TimeToFirst > 0 {
		p.ttft = t.TimeToFirst
	}
	p.served = servedFromMemory(t)
	switch {
	case p.served:
		// Keep the last decoded speed: it is still what the model
		// decodes at, and the sparkline gets no sample for a reply
		// without tokens.
		p.tokS = p.decoded
	case t.DecodeTokS > 0:
		p.tokS, p.decoded = t.DecodeTokS, t.DecodeTokS
		p.push(t.DecodeTokS)
	}
	p.prefillS = t.PrefillTokS
	p.tokens = t.Tokens
	p.spec = t.Spec
}

// measure takes the turn's decode speed and the GPU's draw over its decode
// (the mean of the Meter's samples across the window, not one reading):
// tokens per joule. A turn without a decode or without a power reading
// leaves none.
func (p *perfPane) measure(tokS float64, w gpu.Window) {
	p.tokJ, p.powerW = 0, 0
	if v, ok := w.TokensPerJoule(tokS); ok {
		p.tokJ, p.powerW = v, w.MeanPowerW
	}
}

func (p *perfPane) push(v float64) {
	p.samples = append(p.samples, v)
	if len(p.samples) > maxSamples {
		p.samples = p.samples[len(p.samples)-maxSamples:]
	}
}

// servedFromMemory says t's answer came from the living manifold's
// memory rather than from decoding.
func servedFromMemory(t session.Turn) bool { return t.COG != nil && t.COG.Retrieved }

// servedLabel stands in for the speed of a reply served from memory.
const servedLabel = "served from memory"

// prefilling says a reply's prompt is being read: its progress is shown
// until the first token.
func (p *perfPane) prefilling() bool { return p.generating && p.pre.Total > 0 }

// prefillText is the prompt's progress on one line: "prefill
// 1,024/4,096 · 2,310 tok/s" (no speed before the first step is done).
func (p *perfPane) prefillText() string {
	s := "prefill " + thousands(p.pre.Done) + "/" + thousands(p.pre.Total)
	if p.pre.TokPerSec > 0 {
		s += " · " + thousands(int(p.pre.TokPerSec+0.5)) + " tok/s"
	}
	return s
}

// thousands writes n with its thousands separated by commas.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (p *perfPane) lines(w int) []string {
	if p.prefilling() {
		return p.prefillLines(w)
	}
	speed := "– tok/s"
	if p.tokS > 0 {
		speed = fmt.Sprintf("%.1f tok/s", p.tokS)
	}
	state := "decode"
	if p.generating {
		state = "live"
	}
	head := theme.Value.Bold(true).Render(speed) + " " + theme.Label.Render(state)
	if p.served {
		head = theme.Value.Bold(true).Render(servedLabel)
	}
	spark := sparkline(p.samples, w)
	if spark == "" {
		spark = theme.Dim.Render(strings.Repeat("·", min(w, 12)))
	} else {
		spark = theme.Spark.Render(spark)
	}
	out := []string{head, spark}
	if p.served && p.decoded > 0 {
		// The speed the heading no longer shows, so that it is not lost
		// to a reply that needed none.
		out = append(out, kv("last", fmt.Sprintf("%.1f tok/s decoded", p.decoded)))
	}
	out = append(out,
		kv("ttft", fmtDur(p.ttft)),
		kv("prefill", fmtRate(p.prefillS)),
		kv("context", p.context()))
	if p.energy {
		e := "–"
		if p.tokJ > 0 {
			e = gpu.FormatTokensPerJoule(p.tokJ) + fmt.Sprintf(" · %.0f W", p.powerW)
		}
		out = append(out, kv("energy", e))
	}
	return append(out, p.specLines()...)
}

// prefillLines are the pane while a prompt is read: how far (tokens and
// share) where the speed is, and the prefill's speed so far.
func (p *perfPane) prefillLines(w int) []string {
	pre := p.pre
	head := theme.Value.Bold(true).Render("prefill "+thousands(pre.Done)+"/"+thousands(pre.Total)) +
		" " + theme.Label.Render(fmt.Sprintf("%d%%", pre.Done*100/pre.Total))
	rate := "–"
	if pre.TokPerSec > 0 {
		rate = thousands(int(pre.TokPerSec+0.5)) + " tok/s"
	}
	spark := sparkline(p.samples, w)
	if spark == "" {
		spark = theme.Dim.Render(strings.Repeat("·", min(w, 12)))
	} else {
		spark = theme.Spark.Render(spark)
	}
	return []string{head, spark, kv("ttft", "–"), kv("prefill", rate), kv("context", p.context())}
}

// specLines describe the last turn's speculative decoding: the drafter,
// the acceptance rate α and γ, tokens per verifier step and the speed
// relative to plain decoding (measured, else the model's prediction) —
// or that it switched itself off because drafting cost more than it saved.
func (p *perfPane) specLines() []string {
	s := p.spec
	if s == nil {
		return nil
	}
	lines := []string{kv("draft", s.Drafter)}
	if s.Off && s.Steps == 0 {
		return append(lines, kv("spec", fmt.Sprintf("off: α %.2f, slower than plain", s.Alpha)))
	}
	lines = append(lines,
		kv("α · γ", fmt.Sprintf("%.2f · %d", s.AcceptRate(), s.Gamma)),
		kv("step", fmt.Sprintf("%.2f tok", s.TokensPerStep())))
	switch {
	case s.Measured > 0:
		lines = append(lines, kv("speed", fmt.Sprintf("%.2f× plain", s.Measured)))
	case s.Predicted > 0:
		lines = append(lines, kv("speed", fmt.Sprintf("%.2f× plain, predicted", s.Predicted)))
	}
	if s.Off {
		lines = append(lines, theme.Dim.Render("off now: drafting costs more than it saves"))
	}
	return lines
}

func (p *perfPane) context() string {
	if p.lim <= 0 {
		return fmt.Sprintf("%d tok", p.used)
	}
	return fmt.Sprintf("%d / %d (%d%%)", p.used, p.lim, p.used*100/p.lim)
}

// summary is the pane on one line for narrow terminals.
func (p *perfPane) summary() string {
	speed := "– tok/s"
	if p.tokS > 0 {
		speed = fmt.Sprintf("%.1f tok/s", p.tokS)
	}
	if p.prefilling() {
		return p.prefillText() + " · ctx " + p.context()
	}
	if p.served {
		// No time to first token either: nothing was decoded.
		return servedLabel + " · ctx " + p.context()
	}
	s := speed
	if sp := sparkline(p.samples, 8); sp != "" {
		s += " " + theme.Spark.Render(sp)
	}
	return s + " · ttft " + fmtDur(p.ttft) + " · ctx " + p.context()
}

var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last width values as block characters scaled from 0
// to their maximum ("" when there are none).
func sparkline(vals []float64, width int) string {
	if width <= 0 || len(vals) == 0 {
		return ""
	}
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	hi := 0.0
	for _, v := range vals {
		hi = max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if hi > 0 && v > 0 {
			i = int(v / hi * float64(len(sparkBlocks)-1))
			i = min(max(i, 0), len(sparkBlocks)-1)
		}
		b.WriteRune(sparkBlocks[i])
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

func fmtRate(r float64) string {
	if r <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f tok/s", r)
}

func kv(k, v string) string {
	return theme.Label.Render(fmt.Sprintf("%-8s", k)) + v
}
