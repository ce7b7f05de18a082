package session

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"
)

// The expert map (README, "Using it"; docs/serve.md, isagi.experts): on a mixture-of-experts
// model, which experts each MoE layer chose for every token, kept by a
// route hook on the conversation's state (routes.go); and the expert_off
// setting, which switches experts off in every state of the session.

// ExpertWindow is how many of the last positions the expert map covers.
const ExpertWindow = 64

// ErrNoExperts is the expert map and expert_off on a dense model.
var ErrNoExperts = errors.New("this model has no experts: it is a dense model, not a mixture of experts")

// Experts is the expert map part of a Session: the routing record of the
// conversation's state and the experts switched off.
type Experts struct {
	s      *Session
	log    *routeLog // nil for a dense model
	remove func()    // unregisters log from the state
	// record says the routing is recorded (on unless a caller turned it
	// off: a server records only for the requests that ask).
	record bool
}

// newExperts is the expert part of s, recording.
func newExperts(s *Session) *Experts { return &Experts{s: s, record: true} }

// ExpertRef names one expert of one MoE layer; Layer −1 is that expert in
// every MoE layer.
type ExpertRef struct{ Layer, Expert int }

// String is the form expert_off takes: "12:37", "*:37".
func (r ExpertRef) String() string {
	if r.Layer < 0 {
		return "*:" + strconv.Itoa(r.Expert)
	}
	return strconv.Itoa(r.Layer) + ":" + strconv.Itoa(r.Expert)
}

// ExpertRoute is one MoE layer's routing of one token: the experts chosen,
// highest first, and their mixing weights.
type ExpertRoute struct {
	Layer   int
	Experts []int32
	Weights []float32
}

// ExpertMap is the expert map of the last tokens (Experts.Map).
type ExpertMap struct {
	// Layers are the MoE layers (block indices); Experts each one's
	// experts, Used how many a token uses (k).
	Layers        []int
	Experts, Used int
	// Window is the most positions the map covers (ExpertWindow), Tokens
	// how many it covers now: the last positions the conversation's state
	// computed, prompt and reply alike.
	Window, Tokens int
	// Fired[i*Experts+e] is the share of those positions whose routing at
	// Layers[i] chose expert e (a row sums to Used).
	Fired []float32
	// Pos is the last position computed (−1: none yet) and Current its
	// routing, one entry per MoE layer.
	Pos     int
	Current []ExpertRoute
	// Entropy is the routing entropy of Current in bits, the mean over
	// the MoE layers of the entropy of each layer's mixing weights
	// normalised to sum to one (0: one expert carries the token; at most
	// MaxEntropy = log2 Used, the chosen experts weighed evenly).
	// MeanEntropy is the same over the window's positions.
	Entropy, MeanEntropy, MaxEntropy float64
	// Off lists the experts switched off (expert_off).
	Off []ExpertRef
}

// ExpertWeight is one expert's weight in a token's routing.
type ExpertWeight struct {
	Layer, Expert int
	Weight        float32
}

// Top is the n experts that weigh most in Current, over every MoE layer,
// heaviest first (ties: the lower layer, then the lower id).
func (m *ExpertMap) Top(n int) []ExpertWeight {
	var all []ExpertWeight
	for _, r := range m.Current {
		for j, e := range r.Experts {
			all = append(all, ExpertWeight{Layer: r.Layer, Expert: int(e), Weight: r.Weights[j]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Weight != b.Weight {
			return a.Weight > b.Weight
		}
		if a.Layer != b.Layer {
			return a.Layer < b.Layer
		}
		return a.Expert < b.Expert
	})
	return all[:min(n, len(all))]
}

// ExpertCounts are the conversation's routing counts (Experts.Counts).
type ExpertCounts struct {
	Layers        []int
	Experts, Used int
	// Tokens is how many positions are counted: those the conversation's
	// state holds, prompt and replies, each once however often it was
	// computed (a rewind, a speculative draft rejected, forget theirs).
	Tokens int
	// Counts[i*Experts+e] is how many of them chose expert e at Layers[i].
	Counts []int64
}

// ExpertCount is one expert's count.
type ExpertCount struct {
	Layer, Expert int
	Count         int64
}

// Top is the n experts of MoE layer i chosen most often, most first (ties:
// the lower id); experts never chosen are left out.
func (c *ExpertCounts) Top(i, n int) []ExpertCount {
	row := c.Counts[i*c.Experts:][:c.Experts]
	var out []ExpertCount
	for e, v := range row {
		if v > 0 {
			out = append(out, ExpertCount{Layer: c.Layers[i], Expert: e, Count: v})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	return out[:min(n, len(out))]
}

// Overall is the n (layer, expert) pairs chosen most often in the
// conversation, most first (ties: the lower layer, then the lower id).
func (c *ExpertCounts) Overall(n int) []ExpertCount {
	var out []ExpertCount
	for i := range c.Layers {
		out = append(out, c.Top(i, c.Experts)...)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	return out[:min(n, len(out))]
}

// Unused is how many (layer, expert) pairs no counted position chose.
func (c *ExpertCounts) Unused() int {
	n := 0
	for _, v := range c.Counts {
		if v == 0 {
			n++
		}
	}
	return n
}

// MoE reports whether the model is a mixture of experts.
func (xp *Experts) MoE() bool { return xp.s.m != nil && xp.s.m.IsMoE() }

// attach gives the conversation's state (a new one: a resize, a fork) the
// routing record, emptied, when the model has experts and recording is
// on.
func (xp *Experts) attach() error {
	s := xp.s
	layers, experts, used := moeShape(s.m)
	if len(layers) == 0 {
		return nil
	}
	if xp.log == nil {
		xp.log = newRouteLog(s.m.Layers, layers, experts, used, ExpertWindow)
	}
	xp.log.Rewind(0)
	xp.remove = nil
	if !xp.record {
		return nil
	}
	remove, err := addRouteHook(s.st, xp.log)
	if err != nil {
		return fmt.Errorf("session: the expert map: %w", err)
	}
	xp.remove = remove
	return nil
}

// Record turns the routing record on or off (it is on from the start).
// Off, the forward pass reports no routing (nothing to copy off a
// device); on again, the map and the counts start from the positions
// computed from then on.
func (xp *Experts) Record(on bool) error {
	if on == xp.record {
		return nil
	}
	xp.record = on
	if !on {
		if xp.remove != nil {
			xp.remove()
		}
		xp.remove = nil
		if xp.log != nil {
			xp.log.Rewind(0)
		}
		return nil
	}
	return xp.attach()
}

// recording reports whether routing is being recorded.
func (xp *Experts) recording() bool { return xp.log != nil && xp.remove != nil }

// Map fills m with the expert map of the last ExpertWindow positions,
// reusing its slices. On a dense model it returns ErrNoExperts.
func (xp *Experts) Map(m *ExpertMap) error {
	r := xp.log
	if r == nil {
		return ErrNoExperts
	}
	L := len(r.layers)
	m.Layers = append(m.Layers[:0], r.layers...)
	m.Experts, m.Used, m.Window = r.experts, r.k, ExpertWindow
	m.MaxEntropy = math.Log2(float64(max(r.k, 1)))
	m.Fired = slices.Grow(m.Fired[:0], L*r.experts)[:L*r.experts]
	clear(m.Fired)
	m.Off = xp.off(m.Off[:0])
	m.Pos, m.Tokens, m.Entropy, m.MeanEntropy = -1, 0, 0, 0
	m.Current = m.Current[:0]
	if !xp.recording() {
		return nil
	}
	last := r.last()
	var hSum float64
	for p := last; p >= 0 && p > last-r.rows() && m.Tokens < ExpertWindow; p-- {
		if !r.held(p) {
			continue
		}
		var h float64
		for i := range r.layers {
			ids, ws := r.at(i, p)
			for _, e := range ids {
				if e >= 0 && int(e) < r.experts {
					m.Fired[i*r.experts+int(e)]++
				}
			}
			h += entropy(ws)
		}
		h /= float64(L)
		if m.Pos < 0 {
			m.Pos, m.Entropy = p, h
			for i, l := range r.layers {
				ids, ws := r.at(i, p)
				m.Current = append(m.Current, ExpertRoute{Layer: l, Experts: slices.Clone(ids), Weights: slices.Clone(ws)})
			}
		}
		hSum += h
		m.Tokens++
	}
	if m.Tokens > 0 {
		m.MeanEntropy = hSum / float64(m.Tokens)
		for j := range m.Fired {
			m.Fired[j] /= float32(m.Tokens)
		}
	}
	return nil
}

// RouteAt appends to dst the routing of position pos, one entry per MoE
// layer, its slices fresh; nil when pos is no longer among the last
// positions recorded (or nothing is recorded). The routing of the token
// the logits at pos chose is the routing at pos: Event.Pos.
func (xp *Experts) RouteAt(pos int, dst []ExpertRoute) []ExpertRoute {
	r := xp.log
	if r == nil || !xp.recording() || !r.held(pos) {
		return nil
	}
	for i, l := range r.layers {
		ids, ws := r.at(i, pos)
		dst = append(dst, ExpertRoute{Layer: l, Experts: slices.Clone(ids), Weights: slices.Clone(ws)})
	}
	return dst
}

// Counts is how often each expert of each MoE layer was chosen over the
// positions the conversation's state holds. On a dense model it returns
// ErrNoExperts.
func (xp *Experts) Counts() (ExpertCounts, error) {
	r := xp.log
	if r == nil {
		return ExpertCounts{}, ErrNoExperts
	}
	c := ExpertCounts{Layers: slices.Clone(r.layers), Experts: r.experts, Used: r.k, Counts: slices.Clone(r.counts)}
	if len(r.layers) > 0 && r.k > 0 {
		var first int64
		for _, v := range r.counts[:r.experts] {
			first += v
		}
		c.Tokens = int(first) / r.k
	}
	return c, nil
}

// off appends the experts switched off, as the setting names them.
func (xp *Experts) off(dst []ExpertRef) []ExpertRef {
	refs, _ := parseExpertOff(xp.s.set.ExpertOff, "")
	return append(dst, refs...)
}

// CheckOff returns the value the expert_off setting keeps for value (a
// list in its canonical order, "" for none), or the error that setting
// gives: a server checks a request's list before it applies it.
func (xp *Experts) CheckOff(value string) (string, error) {
	refs, err := parseExpertOff(value, "")
	if err == nil {
		err = xp.check(refs)
	}
	if err != nil {
		return "", err
	}
	return formatExpertOff(refs), nil
}

// check holds refs to the model (checkOff).
func (xp *Experts) check(refs []ExpertRef) error {
	layers, experts, used := moeShape(xp.s.m)
	return checkOff(refs, xp.s.m.Layers, layers, experts, used)
}

// checkOff holds refs to a model of blocks blocks whose MoE layers are
// layers, with experts experts of which a token uses used: layers it has,
// MoE ones, experts in range, and at least used experts left on in every
// layer.
func checkOff(refs []ExpertRef, blocks int, layers []int, experts, used int) error {
	if len(refs) == 0 {
		return nil
	}
	if len(layers) == 0 {
		return ErrNoExperts
	}
	for _, r := range refs {
		switch {
		case r.Layer >= blocks:
			return fmt.Errorf("layer %d: the model has %d layers (0…%d)", r.Layer, blocks, blocks-1)
		case r.Layer >= 0 && !slices.Contains(layers, r.Layer):
			return fmt.Errorf("layer %d is a dense layer: it has no experts", r.Layer)
		case r.Expert >= experts:
			return fmt.Errorf("expert %d: each layer has %d experts (0…%d)", r.Expert, experts, experts-1)
		}
	}
	for _, l := range layers {
		if n := len(expandOff(refs, l)); experts-n < used {
			return fmt.Errorf("layer %d would keep %d experts on, fewer than the %d each token uses", l, experts-n, used)
		}
	}
	return nil
}

// use switches off the experts the settings name, and on again the
// others, in every state of the session: the conversation's and the
// speculative drafter's (so that it drafts what the verifier will do).
func (xp *Experts) use(n Settings) error {
	s := xp.s
	refs, err := parseExpertOff(n.ExpertOff, "")
	if err != nil {
		return err
	}
	if err := xp.check(refs); err != nil {
		return err
	}
	layers, _, _ := moeShape(s.m)
	if len(layers) == 0 {
		return nil
	}
	for _, st := range []*model.State{s.st, s.dr.state()} {
		if st == nil {
			continue
		}
		if err := reconcileOff(st, layers, refs); err != nil {
			return fmt.Errorf("session: expert_off: %w", err)
		}
	}
	return nil
}

// reconcileOff makes st's switched-off experts those refs name: the ones
// to switch on first, so that a layer never dips below k meanwhile.
func reconcileOff(st *model.State, layers []int, refs []ExpertRef) error {
	want := map[ExpertRef]bool{}
	for _, l := range layers {
		for _, e := range expandOff(refs, l) {
			want[ExpertRef{l, e}] = true
		}
	}
	have := map[ExpertRef]bool{}
	for _, r := range stateOff(st) {
		if r.Layer < 0 {
			for _, l := range layers {
				have[ExpertRef{l, r.Expert}] = true
			}
			continue
		}
		have[r] = true
	}
	for _, r := range sortedRefs(have) {
		if !want[r] {
			if err := setExpertOff(st, r.Layer, r.Expert, false); err != nil {
				return err
			}
		}
	}
	for _, r := range sortedRefs(want) {
		if !have[r] {
			if err := setExpertOff(st, r.Layer, r.Expert, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedRefs(set map[ExpertRef]bool) []ExpertRef {
	out := make([]ExpertRef, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sortRefs(out)
	return out
}

func sortRefs(refs []ExpertRef) {
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Layer != refs[j].Layer {
			return refs[i].Layer < refs[j].Layer
		}
		return refs[i].Expert < refs[j].Expert
	})
}

// expandOff is the experts refs switch off in MoE layer l, ascending.
func expandOff(refs []ExpertRef, l int) []int {
	var out []int
	for _, r := range refs {
		if (r.Layer == l || r.Layer < 0) && !slices.Contains(out, r.Expert) {
			out = append(out, r.Expert)
		}
	}
	slices.Sort(out)
	return out
}

// parseExpertOff reads expert_off's value: none (or off), or a comma list
// of L:E (expert E of block L) and *:E (expert E of every MoE layer). An
// entry may start with + or -: the list then changes current (the value
// in force) instead of replacing it, + adding and - removing (an entry
// without a sign adds). The result is sorted, each expert once.
func parseExpertOff(value, current string) ([]ExpertRef, error) {
	value = strings.TrimSpace(value)
	if value == "" || value == "none" || value == "off" {
		return nil, nil
	}
	set := map[ExpertRef]bool{}
	entries := strings.Split(value, ",")
	relative := false
	for _, e := range entries {
		if e = strings.TrimSpace(e); strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") {
			relative = true
		}
	}
	if relative {
		cur, err := parseExpertOff(current, "")
		if err != nil {
			return nil, err
		}
		for _, r := range cur {
			set[r] = true
		}
	}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		remove := strings.HasPrefix(e, "-")
		e = strings.TrimLeft(e, "+-")
		ls, es, ok := strings.Cut(e, ":")
		if !ok {
			return nil, fmt.Errorf("want none, or LAYER:EXPERT entries separated by commas (12:37, *:37 for every layer), got %q", e)
		}
		r := ExpertRef{Layer: -1}
		if ls = strings.TrimSpace(ls); ls != "*" {
			l, err := strconv.Atoi(ls)
			if err != nil || l < 0 {
				return nil, fmt.Errorf("%q: the layer must be a block number or *", e)
			}
			r.Layer = l
		}
		x, err := strconv.Atoi(strings.TrimSpace(es))
		if err != nil || x < 0 {
			return nil, fmt.Errorf("%q: the expert must be a number from 0", e)
		}
		r.Expert = x
		if remove {
			delete(set, r)
		} else {
			set[r] = true
		}
	}
	return sortedRefs(set), nil
}

// formatExpertOff is the value expert_off shows and saves: "none" or the
// sorted list.
func formatExpertOff(refs []ExpertRef) string {
	if len(refs) == 0 {
		return ""
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// expertKnobs are the expert map's settings.
func expertKnobs() []Knob {
	return []Knob{{
		Name: "expert_off", Values: "none|L:E,…", Help: "experts off: L:E, *:E every layer, +/- edits",
		Value: func(s Settings, _ Info) string {
			if s.ExpertOff == "" {
				return "none"
			}
			return s.ExpertOff
		},
		set: func(s *Session, n *Settings, value string) error {
			refs, err := parseExpertOff(value, n.ExpertOff)
			if err != nil {
				return err
			}
			if err := s.xp.check(refs); err != nil {
				return err
			}
			n.ExpertOff = formatExpertOff(refs)
			return nil
		},
	}}
}
