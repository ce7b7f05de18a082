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
	"github.com/isagi-lab/isagi/engine/sample"
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
// (docs/speculative.md): "ngram" (prompt lookup) or "rank:K[,slots][,alloc]"
// (the same model under a rank-K GRC of the slots, qkv by default, with
// the rank spread uniformly or by gp or mcr, as /set rank's plans).
type DraftSpec struct {
	NGram bool
	Rank  int
	Slots grc.Slots
	Alloc grc.Alloc
}

// ParseDraft reads "off" (or ""), "ngram" or "rank:K[,slots][,alloc]",
// e.g. "rank:64", "rank:128,qkv,ffn" or "rank:192,all,gp". The rank is
// checked against a model later (ResolveGRC).
func ParseDraft(s string) (*DraftSpec, error) {
	switch s {
	case "", "off":
		return nil, nil
	case "ngram", "n-gram", "lookup":
		return &DraftSpec{NGram: true}, nil
	}
	rest, ok := strings.CutPrefix(s, "rank:")
	if !ok {
		return nil, fmt.Errorf("want off, ngram or rank:K[,slots][,alloc] (e.g. rank:64, rank:128,qkv,ffn or rank:192,all,gp), got %q", s)
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
	if n.OnlineBasis && (d == nil || d.NGram) {
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
	if d.NGram {
		drafter = generate.NewNGramDrafter()
	} else {
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
