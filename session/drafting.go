package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/regfile"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
)

// Drafting is the speculative decoding part of a Session.
type Drafting struct {
	s           *Session
	drafter     *generate.ModelDrafter // the compressed drafter, or nil
	draftRemove func()                 // removes its hooks on the state (online basis)
	draftKey    string                 // the speculation settings in force ("": off)
}

// newDrafting is the drafting part of s, with speculation off.
func newDrafting(s *Session) *Drafting { return &Drafting{s: s} }

// OnlineEta0 is the online basis's step size η₀ (Paper 6 §5): η_t = η₀/√t.
const OnlineEta0 = 0.01

// DraftSpec is a speculative drafter as a user names it
// (docs/speculative.md): "ngram" (prompt lookup), "rank:K[,slots][,alloc]"
// (the same model under a rank-K GRC of the slots, qkv by default, with
// the rank spread uniformly or by gp or mcr, as /set rank's plans) or
// "flow:FILE[,…]" (a flow map calibrated on FILE).
type DraftSpec struct {
	NGram bool
	Rank  int
	Slots grc.Slots
	Alloc grc.Alloc
	Flow  *FlowDraft
}

// FlowDraft is the flow-map drafter's settings (docs/speculative.md "The
// flow-map drafter"): "flow:FILE[,bits=N][,gate=X][,gen=N][,ngram]".
type FlowDraft struct {
	// File holds the calibration: one prompt per non-empty line.
	File string
	// Bits is the principal directions of a cell (1…32, default 16).
	Bits int
	// Gate is the confidence a draft needs, in (0, 1] (default 0.5).
	Gate float64
	// Gen is the greedy tokens the model continues each line with, whose
	// path the map learns (default 64); 0 learns the lines as written.
	Gen int
	// NGram falls back to n-gram lookup where the map drafts nothing.
	NGram bool
}

// Flow-map defaults (FlowDraft).
const (
	DefaultFlowGen = 64
	maxFlowGen     = 1024
	// maxFlowText bounds the calibration file.
	maxFlowText = 16 << 20
)

// parseFlow reads what follows "flow:". The file name is everything
// before the first comma.
func parseFlow(rest string) (*FlowDraft, error) {
	file, opts, more := strings.Cut(rest, ",")
	if file == "" {
		return nil, fmt.Errorf("flow:FILE wants a calibration file, got %q", "flow:"+rest)
	}
	f := &FlowDraft{File: file, Bits: generate.DefaultFlowBits, Gate: generate.DefaultFlowGate, Gen: DefaultFlowGen}
	if !more {
		return f, nil
	}
	for _, o := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(o, "=")
		var err error
		switch k {
		case "ngram":
			if v != "" {
				err = errors.New("takes no value")
			}
			f.NGram = true
		case "bits":
			if f.Bits, err = strconv.Atoi(v); err == nil && (f.Bits < 1 || f.Bits > generate.MaxFlowBits) {
				err = fmt.Errorf("want 1…%d", generate.MaxFlowBits)
			}
		case "gate":
			if f.Gate, err = strconv.ParseFloat(v, 64); err == nil && !(f.Gate > 0 && f.Gate <= 1) {
				err = errors.New("want a share in (0, 1]")
			}
		case "gen":
			if f.Gen, err = strconv.Atoi(v); err == nil && (f.Gen < 0 || f.Gen > maxFlowGen) {
				err = fmt.Errorf("want 0…%d tokens", maxFlowGen)
			}
		default:
			err = errors.New("unknown option (bits=N, gate=X, gen=N or ngram)")
		}
		if err != nil {
			return nil, fmt.Errorf("flow option %q: %w", o, err)
		}
	}
	return f, nil
}

// String is the form parseFlow reads, defaults left out.
func (f *FlowDraft) String() string {
	s := "flow:" + f.File
	if f.Bits != generate.DefaultFlowBits {
		s += ",bits=" + strconv.Itoa(f.Bits)
	}
	if f.Gate != generate.DefaultFlowGate {
		s += ",gate=" + strconv.FormatFloat(f.Gate, 'g', -1, 64)
	}
	if f.Gen != DefaultFlowGen {
		s += ",gen=" + strconv.Itoa(f.Gen)
	}
	if f.NGram {
		s += ",ngram"
	}
	return s
}

// ParseDraft reads "off" (or ""), "ngram", "rank:K[,slots][,alloc]" or
// "flow:FILE[,bits=N][,gate=X][,gen=N][,ngram]", e.g. "rank:64",
// "rank:128,qkv,ffn", "rank:192,all,gp" or "flow:calib.txt,ngram". The
// rank is checked against a model later (ResolveGRC), the file when the
// map is built.
func ParseDraft(s string) (*DraftSpec, error) {
	switch s {
	case "", "off":
		return nil, nil
	case "ngram", "n-gram", "lookup":
		return &DraftSpec{NGram: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "flow:"); ok {
		f, err := parseFlow(rest)
		if err != nil {
			return nil, err
		}
		return &DraftSpec{Flow: f}, nil
	}
	rest, ok := strings.CutPrefix(s, "rank:")
	if !ok {
		return nil, fmt.Errorf("want off, ngram, rank:K[,slots][,alloc] (e.g. rank:64, rank:128,qkv,ffn or rank:192,all,gp) or flow:FILE[,bits=N][,gate=X][,gen=N][,ngram], got %q", s)
	}
	k, list, _ := strings.Cut(rest, ",")
	d := &DraftSpec{Slots: grc.QKV, Alloc: grc.AllocUniform}
	var err error
	if d.Rank, err = strconv.Atoi(k); err != nil || d.Rank < 1 {
		return nil, fmt.Errorf("rank:K wants a positive rank, got %q", k)
	}
	// The last word may be an allocation; the rest is the slot set.
	if i := strings.LastIndex(list, ","); list != "" {
		last := list[i+1:]
		if a, err := grc.ParseAlloc(last); err == nil {
			d.Alloc = a
			list = list[:max(i, 0)]
		}
	}
	if list != "" {
		if d.Slots, err = grc.ParseSlots(list); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// String is the form ParseDraft reads.
func (d *DraftSpec) String() string {
	switch {
	case d == nil:
		return "off"
	case d.NGram:
		return "ngram"
	case d.Flow != nil:
		return d.Flow.String()
	}
	s := fmt.Sprintf("rank:%d", d.Rank)
	if d.Slots != grc.QKV || d.Alloc != grc.AllocUniform {
		s += "," + d.Slots.String()
	}
	if d.Alloc != grc.AllocUniform {
		s += "," + d.Alloc.String()
	}
	return s
}

// ErrOnlineNeedsRank refuses the online basis without a compressed drafter.
var ErrOnlineNeedsRank = errors.New("the online basis updates a compressed drafter's bases: set draft rank:K first")

// draftKey names the speculation settings in force, so that apply
// rebuilds the drafter only when they change.
func draftKey(n Settings) string {
	if n.Draft == "" || n.Draft == "off" {
		return ""
	}
	return fmt.Sprintf("%s γ%d online=%v", n.Draft, n.DraftN, n.OnlineBasis)
}

// use installs the drafter the settings ask for on the session's
// generator (or none). A compressed drafter is a second State of the same
// model, sharing the worker pool (drafter and verifier take turns), run
// through a GRC of its rank built as /set rank builds one (from the cache
// when it is there; progress and ctx as for a rank). The online basis
// lives in this session only: the cached compression is never changed.
func (dr *Drafting) use(ctx context.Context, n Settings, progress func(done, total int)) error {
	s := dr.s
	key := draftKey(n)
	if key == dr.draftKey {
		return nil
	}
	d, err := ParseDraft(n.Draft)
	if err != nil {
		return err
	}
	if n.OnlineBasis && (d == nil || d.Rank == 0) {
		return ErrOnlineNeedsRank
	}
	if n.DraftN < 0 || n.DraftN > generate.MaxGamma {
		return fmt.Errorf("draft_n %d outside 0…%d (0 chooses γ live)", n.DraftN, generate.MaxGamma)
	}
	if d == nil {
		dr.stop()
		dr.draftKey = ""
		return s.gen.SetSpeculation(generate.SpecOptions{})
	}
	// The new drafter is built whole before the old one goes: a build that
	// fails or is cancelled (esc during /set draft) leaves the old one
	// running as it was.
	var (
		drafter generate.Drafter
		md      *generate.ModelDrafter
		remove  func()
	)
	switch {
	case d.NGram:
		drafter = generate.NewNGramDrafter()
	case d.Flow != nil:
		// The map hooks the conversation's state; it is built on a
		// scratch state that takes turns with it on this goroutine.
		fd, rm, err := NewFlowDrafter(ctx, s.m, s.tok, s.st, d.Flow)
		if err != nil {
			return err
		}
		drafter, remove = fd, rm
	default:
		job, err := ResolveGRC(s.m, s.tok, GRCRequest{Rank: d.Rank, Slots: d.Slots, Alloc: d.Alloc})
		if err != nil {
			return err
		}
		g, err := s.comp.get(ctx, job, progress)
		if err != nil {
			return err
		}
		// The drafter runs on the session's backend: it alternates with
		// the conversation's state on this goroutine, never beside it.
		// It holds every position (it does not evict).
		st, err := s.m.NewStateWith(s.st.MaxPos(), s.b, model.StateOptions{KV: s.kvType})
		if err != nil {
			return err
		}
		if md, remove, err = dr.newDrafter(st, g, n.OnlineBasis); err != nil {
			st.Close()
			return err
		}
		drafter = md
	}
	if err := s.gen.SetSpeculation(generate.SpecOptions{Drafter: drafter, Gamma: n.DraftN}); err != nil {
		if remove != nil {
			remove()
		}
		if md != nil {
			md.State().Close()
		}
		return err
	}
	dr.stop()
	dr.drafter, dr.draftRemove, dr.draftKey = md, remove, key
	return nil
}

// newDrafter makes st, compressed by g, a drafter, learning online when
// asked; remove then takes its hooks off the conversation's state.
func (dr *Drafting) newDrafter(st *model.State, g *grc.Compression, online bool) (md *generate.ModelDrafter, remove func(), err error) {
	s := dr.s
	return NewCompressedDrafter(s.m, s.st, st, g, s.gen.Params(), online)
}

// NewCompressedDrafter makes st — a second State of model m — compressed by
// g, the speculative drafter of the verifier's state, sampling with p.
// With online, the drafter's bases learn from the verifier's rejections
// (the online basis, η₀ = OnlineEta0); remove then takes its hooks off the
// verifier (nil without online). The one way a compressed drafter is
// built: /set draft and isagi run|bench --draft.
func NewCompressedDrafter(m *model.Model, verifier, st *model.State, g *grc.Compression, p sample.Params, online bool) (md *generate.ModelDrafter, remove func(), err error) {
	if err := grc.Use(st, g); err != nil {
		return nil, nil, err
	}
	md, err = generate.NewModelDrafter(st, p, fmt.Sprintf("rank %d %s", g.K, g.Plan.Slots))
	if err != nil {
		return nil, nil, err
	}
	if online {
		o, err := grc.NewOnline(m, g, OnlineEta0)
		if err != nil {
			return nil, nil, fmt.Errorf("the online basis: %w", err)
		}
		if remove, err = md.Learn(verifier, o); err != nil {
			return nil, nil, fmt.Errorf("the online basis: %w", err)
		}
	}
	return md, remove, nil
}

// stop drops the compressed drafter, its hooks on the verifier and
// what its state bound.
func (dr *Drafting) stop() {
	if dr.draftRemove != nil {
		dr.draftRemove()
	}
	if dr.drafter != nil {
		dr.drafter.State().Close()
	}
	dr.drafter, dr.draftRemove = nil, nil
}

// state is the compressed drafter's state, nil without one.
func (dr *Drafting) state() *model.State {
	if dr.drafter == nil {
		return nil
	}
	return dr.drafter.State()
}

// reset stops the drafter when the session's state is replaced (resize):
// its cache and its hooks belong to the old state, and the next apply
// makes a new one.
func (dr *Drafting) reset() {
	dr.stop()
	dr.draftKey = ""
}

// setParams gives the drafter the session's new sampling parameters (a
// no-op without a drafter).
func (dr *Drafting) setParams(p sample.Params) error {
	if dr.drafter == nil {
		return nil
	}
	return dr.drafter.SetParams(p)
}

// Speculation is what speculative decoding did in the last reply (zero
// when it is off), and how often the online basis has moved the drafter.
func (dr *Drafting) Speculation() (generate.SpecStats, int) {
	s := dr.s
	if s.gen == nil {
		return generate.SpecStats{}, 0
	}
	updates := 0
	if dr.drafter != nil {
		updates = dr.drafter.Updates()
	}
	return s.gen.Speculation(), updates
}

// NewFlowDrafter builds the flow map f asks for on model m and makes it
// the speculative drafter of the verifier's state: every non-empty line of
// f.File is tokenised as a prompt (BOS as the model wants it) and run on a
// scratch state of the verifier's backend, with the model's greedy
// continuation of f.Gen tokens, or as written when f.Gen is 0; the map
// learns where the model went. The continuation runs on past
// end-of-generation tokens, as isagi bench decodes (a reply that stops
// there never asks the map about what follows). remove
// takes the drafter's hook off the verifier. The one way a flow drafter
// is built: /set draft and isagi run|bench --draft.
func NewFlowDrafter(ctx context.Context, m *model.Model, tok *tokenizer.Tokenizer, verifier *model.State, f *FlowDraft) (fd *generate.FlowDrafter, remove func(), err error) {
	text, err := regfile.ReadRegular(f.File, maxFlowText)
	if err != nil {
		return nil, nil, fmt.Errorf("flow map: %w", err)
	}
	var lines [][]int32
	for _, l := range strings.Split(string(text), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		ids, err := tok.Encode(l, tokenizer.EncodeOptions{AddSpecial: true})
		if err != nil {
			return nil, nil, fmt.Errorf("flow map: %s: %w", f.File, err)
		}
		lines = append(lines, ids)
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("flow map: %s has no text to calibrate on (one prompt per line)", f.File)
	}
	st, err := m.NewStateWith(verifier.Cap(), verifier.Backend(), model.StateOptions{KV: verifier.KVType()})
	if err != nil {
		return nil, nil, fmt.Errorf("flow map: %w", err)
	}
	defer st.Close()
	b, err := generate.NewFlowBuilder(st, generate.FlowOptions{Bits: f.Bits})
	if err != nil {
		return nil, nil, fmt.Errorf("flow map: %w", err)
	}
	for _, ids := range lines {
		if f.Gen == 0 {
			err = b.AddText(ids)
		} else {
			err = b.AddGenerated(ctx, ids, f.Gen, nil)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("flow map: %s: %w", f.File, err)
		}
	}
	fm, err := b.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("flow map: %s: %w", f.File, err)
	}
	var fb generate.Drafter
	if f.NGram {
		fb = generate.NewNGramDrafter()
	}
	if fd, err = generate.NewFlowDrafter(fm, f.Gate, fb); err != nil {
		return nil, nil, fmt.Errorf("flow map: %w", err)
	}
	if remove, err = fd.Attach(verifier); err != nil {
		return nil, nil, fmt.Errorf("flow map: %w", err)
	}
	return fd, remove, nil
}
