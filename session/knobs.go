package session

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
)

// Knob describes one setting that Set (and the TUI's /set) changes. The
// table returned by Knobs is the only list of settings: Set parses with it,
// its "unknown setting" error lists it, and the TUI's /set usage, help and
// /show are generated from it, so they cannot drift apart.
type Knob struct {
	Name    string   // as Set and /set take it
	Aliases []string // other spellings Set accepts (ollama's and short ones)
	Values  string   // the values it accepts, for usage lines: "0…1", "off|1…width"
	Help    string   // one line: what it does
	// Build says that setting it may build a GRC compression (seconds to
	// minutes on a large model): callers that can should run it with
	// SetCtx, showing progress and offering to cancel.
	Build bool
	// Value is the current value, read from the settings and the model
	// info, written in a form Set accepts back unchanged.
	Value func(Settings, Info) string
	// set parses value, validates it and writes it into n, the settings
	// SetCtx then applies; it may act on the session first (num_ctx
	// resizes the window, snipe switches projectors).
	set func(s *Session, n *Settings, value string) error
}

// Knobs returns the settings table, in the order usage lines list them. It
// builds a fresh slice on every call, so callers may keep or reorder it.
func Knobs() []Knob {
	f32 := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	parse32 := func(value string) (float32, error) {
		v, err := strconv.ParseFloat(value, 32)
		return float32(v), err
	}
	// float32Knob is a sampler parameter: the range is checked by
	// sample.Params.Validate when the settings are applied, so the
	// message names the sampler's rule.
	float32Knob := func(name, values, help string, field func(*Settings) *float32, aliases ...string) Knob {
		return Knob{
			Name: name, Aliases: aliases, Values: values, Help: help,
			Value: func(s Settings, _ Info) string { return f32(*field(&s)) },
			set: func(_ *Session, n *Settings, value string) error {
				v, err := parse32(value)
				*field(n) = v
				return err
			},
		}
	}
	return append([]Knob{
		float32Knob("temperature", "≥0", "sampling temperature; 0 is greedy",
			func(s *Settings) *float32 { return &s.Temperature }, "temp"),
		float32Knob("top_p", "0…1", "nucleus: keep this much probability; 1 is off",
			func(s *Settings) *float32 { return &s.TopP }),
		{
			Name: "top_k", Values: "≥0", Help: "keep the K likeliest tokens; 0 is off",
			Value: func(s Settings, _ Info) string { return strconv.Itoa(s.TopK) },
			set: func(_ *Session, n *Settings, value string) (err error) {
				n.TopK, err = strconv.Atoi(value)
				return err
			},
		},
		float32Knob("min_p", "0…1", "drop tokens below this × the top one; 0 is off",
			func(s *Settings) *float32 { return &s.MinP }),
		float32Knob("repeat_penalty", "≥0", "penalise tokens already seen; 1 is off",
			func(s *Settings) *float32 { return &s.RepeatPenalty }),
		{
			Name: "seed", Values: "0…2^64-1", Help: "random seed; fix it to repeat a reply",
			Value: func(s Settings, _ Info) string { return strconv.FormatUint(s.Seed, 10) },
			set: func(_ *Session, n *Settings, value string) (err error) {
				n.Seed, err = strconv.ParseUint(value, 10, 64)
				return err
			},
		},
		{
			Name: "num_ctx", Values: "16…model's", Help: "context window in tokens (cache rebuilt)",
			Value: func(_ Settings, i Info) string { return strconv.Itoa(i.ContextSize) },
			set: func(s *Session, _ *Settings, value string) error {
				c, err := strconv.Atoi(value)
				if err != nil {
					return err
				}
				if c < 16 || c > s.m.CtxLen {
					return fmt.Errorf("the model allows 16 to %d tokens", s.m.CtxLen)
				}
				// The new state has no compression installed: resize
				// forgets the one in use, so that apply installs it again.
				return s.resize(c)
			},
		},
		{
			Name: "max_tokens", Aliases: []string{"num_predict"}, Values: "≥1", Help: "most tokens in one reply",
			Value: func(s Settings, _ Info) string { return strconv.Itoa(s.MaxTokens) },
			set: func(_ *Session, n *Settings, value string) (err error) {
				if n.MaxTokens, err = strconv.Atoi(value); err == nil && n.MaxTokens < 1 {
					err = errors.New("must be at least 1")
				}
				return err
			},
		},
		{
			Name: "rank", Values: "off|1…width", Help: "GRC: compress the slots to this rank", Build: true,
			Value: func(s Settings, _ Info) string {
				if s.Rank == 0 {
					return "off"
				}
				return strconv.Itoa(s.Rank)
			},
			set: func(s *Session, n *Settings, value string) (err error) {
				if value == "off" || value == "0" {
					n.Rank = 0
					n.KVProj = false // sized by the rank: nothing to size it without one
					return nil
				}
				if n.Rank, err = strconv.Atoi(value); err == nil && (n.Rank < 1 || n.Rank > s.m.Dim) {
					err = fmt.Errorf("want off or 1…%d (the embedding width)", s.m.Dim)
				}
				return err
			},
		},
		{
			Name: "slots", Values: "qkv,o,ffn|all", Help: "what GRC compresses (any of qkv, o, ffn)", Build: true,
			Value: func(s Settings, _ Info) string {
				if s.Slots == "" {
					return grc.QKV.String()
				}
				return s.Slots
			},
			set: func(_ *Session, n *Settings, value string) error {
				sl, err := grc.ParseSlots(value)
				if err == nil {
					n.Slots = sl.String()
				}
				return err
			},
		},
		{
			Name: "alloc", Values: "uniform|gp|mcr", Help: "how GRC spreads the rank over blocks", Build: true,
			Value: func(s Settings, _ Info) string {
				if s.Alloc == "" {
					return grc.AllocUniform.String()
				}
				return s.Alloc
			},
			set: func(_ *Session, n *Settings, value string) error {
				a, err := grc.ParseAlloc(value)
				if err == nil {
					n.Alloc = a.String()
				}
				return err
			},
		},
		{
			Name: "snipe", Values: "off|CAT,…", Help: "Snipe projectors on (needs a profile)",
			Value: func(s Settings, _ Info) string {
				if s.Snipe == "" {
					return "off"
				}
				return s.Snipe
			},
			set: func(s *Session, n *Settings, value string) error {
				// Switched here rather than in apply alone: without a
				// profile apply keeps the list waiting, but a user who
				// types /set snipe must hear that nothing is loaded.
				if err := s.gm.useSnipe(value); err != nil {
					return err
				}
				n.Snipe = strings.Join(parseSnipe(value), ",")
				return nil
			},
		},
		{
			Name: "steer", Values: "off|NAME[:S],…", Help: "steering vectors (llama.cpp's control vectors)",
			Value: func(s Settings, _ Info) string {
				if s.Steer == "" {
					return "off"
				}
				return s.Steer
			},
			set: func(s *Session, n *Settings, value string) error {
				uses, err := ParseSteer(value)
				if err != nil {
					return err
				}
				spec := FormatSteer(uses)
				if err := s.sr.Check(spec); err != nil {
					return err
				}
				n.Steer = spec
				return nil
			},
		},
		{
			Name: "format", Values: "off|json|FILE", Help: "hold replies to JSON, a schema or a GBNF",
			Value: func(s Settings, _ Info) string {
				if s.Format == "" {
					return "off"
				}
				return s.Format
			},
			set: func(s *Session, n *Settings, value string) error {
				spec := strings.TrimSpace(value)
				if spec == "off" {
					spec = ""
				}
				if _, err := ReadFormat(spec); err != nil {
					return err
				}
				n.Format = spec
				return nil
			},
		},
		{
			Name: "ogd_alpha", Aliases: []string{"alpha"}, Values: "off|0…0.5", Help: "Safe OGD exploration step (needs a profile)",
			Value: func(s Settings, _ Info) string {
				if s.OGDAlpha == 0 {
					return "off"
				}
				return strconv.FormatFloat(s.OGDAlpha, 'g', -1, 64)
			},
			set: func(s *Session, n *Settings, value string) (err error) {
				if n.OGDAlpha, err = parseAlpha(value); err == nil && n.OGDAlpha > 0 && s.gm.Profile() == nil {
					err = ErrNoGeometry
				}
				return err
			},
		},
		{
			Name: "memory", Values: "on|off", Help: "serve repeated questions from memory",
			Value: func(s Settings, _ Info) string { return onOff(!s.MemoryOff) },
			set: func(_ *Session, n *Settings, value string) error {
				on, err := parseOnOff(value)
				if err == nil {
					n.MemoryOff = !on
				}
				return err
			},
		},
		{
			Name: "draft", Aliases: []string{"speculative"}, Values: "ngram|rank:K", Build: true,
			Help: "speculative decoding (also off, flow:FILE)",
			Value: func(s Settings, _ Info) string {
				if s.Draft == "" {
					return "off"
				}
				return s.Draft
			},
			set: func(_ *Session, n *Settings, value string) error {
				d, err := ParseDraft(value)
				if err != nil {
					return err
				}
				n.Draft = d.String()
				if d == nil {
					n.Draft = ""
					n.OnlineBasis = false // it has nothing to update without a drafter
				} else if d.NGram {
					n.OnlineBasis = false
				}
				return nil
			},
		},
		{
			Name: "draft_n", Aliases: []string{"gamma"}, Values: "auto|1…16", Help: "tokens drafted per step (γ)",
			Value: func(s Settings, _ Info) string {
				if s.DraftN == 0 {
					return "auto"
				}
				return strconv.Itoa(s.DraftN)
			},
			set: func(_ *Session, n *Settings, value string) (err error) {
				if value == "auto" || value == "0" {
					n.DraftN = 0
					return nil
				}
				if n.DraftN, err = strconv.Atoi(value); err == nil && (n.DraftN < 1 || n.DraftN > generate.MaxGamma) {
					err = fmt.Errorf("want auto or 1…%d", generate.MaxGamma)
				}
				return err
			},
		},
		{
			Name: "online_basis", Values: "on|off", Help: "drafter learns from its rejections",
			Value: func(s Settings, _ Info) string { return onOff(s.OnlineBasis) },
			set: func(_ *Session, n *Settings, value string) error {
				on, err := parseOnOff(value)
				if err != nil {
					return err
				}
				if d, _ := ParseDraft(n.Draft); on && (d == nil || d.NGram) {
					return ErrOnlineNeedsRank
				}
				n.OnlineBasis = on
				return nil
			},
		},
	}, slices.Concat(mechanismKnobs(), kvKnobs(), expertKnobs())...)
}

// onOff is a switch as the on/off knobs show it.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// parseOnOff reads an on/off knob's value.
func parseOnOff(value string) (bool, error) {
	switch value {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, errors.New("want on or off")
}

// LookupKnob finds a setting by its name or an alias.
func LookupKnob(name string) (Knob, bool) {
	for _, k := range Knobs() {
		if k.Name == name {
			return k, true
		}
		for _, a := range k.Aliases {
			if a == name {
				return k, true
			}
		}
	}
	return Knob{}, false
}

// KnobNames are the settings' names in table order (aliases left out).
func KnobNames() []string {
	var out []string
	for _, k := range Knobs() {
		out = append(out, k.Name)
	}
	return out
}

// unknownSetting is the error for a name no knob has: it lists the names,
// and suggests the closest one when a typo is the likely cause.
func unknownSetting(name string) error {
	names := strings.Join(KnobNames(), ", ")
	if near := nearestKnob(name); near != "" {
		return fmt.Errorf("unknown setting %q (did you mean %s?) — one of: %s", name, near, names)
	}
	return fmt.Errorf("unknown setting %q — one of: %s", name, names)
}

// nearestKnob is the knob name (or alias) within edit distance 2 of name,
// ignoring case, the closest first and the table's order breaking ties;
// "" when none is that close. Two edits catch the usual slips (a missing
// or doubled letter, two letters swapped, "top-p" for "top_p") without
// suggesting unrelated short names.
func nearestKnob(name string) string {
	name = strings.ToLower(name)
	best, bestD := "", 3
	for _, k := range Knobs() {
		for _, cand := range append([]string{k.Name}, k.Aliases...) {
			if d := editDistance(name, cand); d < bestD {
				best, bestD = k.Name, d
			}
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent runes count
// one each.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// checkLoaded checks the settings a session file holds against the ranges
// Set enforces, for the knobs whose range nothing else checks when the
// settings are applied (the sampler's, the KV cache's and GRC's slots and
// allocation are checked there). A file is anyone's to edit: a
// "max_tokens": -100 there would otherwise run replies unbounded, which
// /set refuses. The error names the knob and the value as /set would.
func (s *Session) checkLoaded(n Settings) error {
	bad := func(name string, v any, why string) error {
		return fmt.Errorf("%s %v: %s", name, v, why)
	}
	switch {
	case n.MaxTokens < 1:
		return bad("max_tokens", n.MaxTokens, "must be at least 1")
	case n.Rank < 0 || n.Rank > s.m.Dim:
		return bad("rank", n.Rank, fmt.Sprintf("want off or 1…%d (the embedding width)", s.m.Dim))
	case n.SinkChannels < 0:
		return bad("sink_channels", n.SinkChannels, "want 0 or more")
	case n.DraftN < 0 || n.DraftN > generate.MaxGamma:
		return bad("draft_n", n.DraftN, fmt.Sprintf("want auto or 1…%d", generate.MaxGamma))
	case n.OGDAlpha < 0 || n.OGDAlpha > 0.5:
		return bad("ogd_alpha", n.OGDAlpha, "want off or 0…0.5")
	}
	if n.ExpertOff != "" {
		refs, err := parseExpertOff(n.ExpertOff, "")
		if err == nil {
			err = s.xp.check(refs)
		}
		if err != nil {
			return fmt.Errorf("expert_off %q: %w", n.ExpertOff, err)
		}
	}
	if n.Steer != "" {
		if _, err := ParseSteer(n.Steer); err != nil {
			return fmt.Errorf("steer %q: %w", n.Steer, err)
		}
	}
	if n.Draft != "" {
		if _, err := ParseDraft(n.Draft); err != nil {
			return fmt.Errorf("draft %q: %w", n.Draft, err)
		}
	}
	return nil
}
