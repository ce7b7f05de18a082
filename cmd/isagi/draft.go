package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/session"
)

// draftFlags are speculative decoding's flags (docs/speculative.md), shared
// by run and bench.
type draftFlags struct {
	draft  string
	n      int
	online bool
	share  float64
}

func (d *draftFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.draft, "draft", "off", "speculative decoding: draft with ngram (prompt lookup) or rank:K[,slots][,alloc] (this model under a rank-K GRC of the slots, qkv by default, alloc uniform, gp or mcr), or off")
	fs.IntVar(&d.n, "draft-n", 0, "with --draft: tokens drafted per step, 1…16; 0 picks them live from the measured acceptance and turns drafting off when it would be slower")
	fs.BoolVar(&d.online, "online-basis", false, "with --draft rank:K: update the drafter's bases from its rejections (Oja's rule; kept in memory, never written to the cache)")
	fs.Float64Var(&d.share, "online-share", generate.DefaultLearnShare, "with --online-basis: the most of the time learning may take; 1 learns before every draft (to measure its effect on α, whatever it costs)")
}

// spec parses the flags: nil when speculation is off.
func (d *draftFlags) spec() (*session.DraftSpec, error) {
	ds, err := session.ParseDraft(d.draft)
	if err != nil {
		return nil, usageError{fmt.Errorf("--draft: %w", err)}
	}
	if d.n < 0 || d.n > generate.MaxGamma {
		return nil, usagef("--draft-n %d: want 0 (live) or 1…%d", d.n, generate.MaxGamma)
	}
	if ds == nil && (d.n != 0 || d.online) {
		return nil, usagef("--draft-n and --online-basis need --draft")
	}
	if d.online && ds.NGram {
		return nil, usagef("--online-basis updates a compressed drafter: use --draft rank:K")
	}
	if !(d.share > 0 && d.share <= 1) {
		return nil, usagef("--online-share %v: want a share of the time in (0, 1]", d.share)
	}
	if d.share != generate.DefaultLearnShare && !d.online {
		return nil, usagef("--online-share needs --online-basis")
	}
	return ds, nil
}

// knobs are the flags as session settings (run --session).
func (d *draftFlags) knobs() [][2]string {
	online := "off"
	if d.online {
		online = "on"
	}
	n := "auto"
	if d.n > 0 {
		n = strconv.Itoa(d.n)
	}
	return [][2]string{{"draft", d.draft}, {"draft_n", n}, {"online_basis", online}}
}

// drafted is a drafter made from the flags, with what reports need of it.
type drafted struct {
	opts    generate.SpecOptions
	model   *generate.ModelDrafter // nil for the n-gram drafter
	cleanup func()
}

// drafter builds the drafter the flags ask for, verifying on st with
// sampling p: the n-gram drafter, or a second State of m (on st's
// backend: the two take turns) under a GRC read from the shared cache
// or built. nil when speculation is off.
func (mf *modelFlags) drafter(d *draftFlags, f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State, p sample.Params) (*drafted, error) {
	ds, err := d.spec()
	if err != nil || ds == nil {
		return nil, err
	}
	if ds.NGram {
		return &drafted{opts: generate.SpecOptions{Drafter: generate.NewNGramDrafter(), Gamma: d.n}, cleanup: func() {}}, nil
	}
	// MCR calibrates on the built-in text, as /set draft does.
	g, err := mf.buildGRC(f, tok, m, st, session.GRCRequest{Rank: ds.Rank, Slots: ds.Slots, Alloc: ds.Alloc})
	if err != nil {
		return nil, fmt.Errorf("--draft %s: %w", d.draft, err)
	}
	dst, err := m.NewStateOn(st.Cap(), st.Backend())
	if err != nil {
		return nil, err
	}
	if err := grc.Use(dst, g); err != nil {
		return nil, fmt.Errorf("--draft %s: %w", d.draft, err)
	}
	md, err := generate.NewModelDrafter(dst, p, fmt.Sprintf("rank %d %s", g.K, g.Plan.Slots))
	if err != nil {
		return nil, err
	}
	out := &drafted{opts: generate.SpecOptions{Drafter: md, Gamma: d.n}, model: md, cleanup: func() {}}
	if d.online {
		o, err := grc.NewOnline(m, g, session.OnlineEta0)
		if err != nil {
			return nil, fmt.Errorf("--online-basis: %w", err)
		}
		if out.cleanup, err = md.Learn(st, o); err != nil {
			return nil, fmt.Errorf("--online-basis: %w", err)
		}
		if err := md.SetLearnShare(d.share); err != nil {
			return nil, fmt.Errorf("--online-share: %w", err)
		}
	}
	return out, nil
}

// printSpec writes one line on what speculative decoding did.
func printSpec(w io.Writer, s generate.SpecStats, updates int) {
	if s.Drafter == "" {
		return
	}
	fmt.Fprintf(w, "speculative: %s drafter, %d verifier steps, %d drafted, %d accepted (α %.2f), %.2f tokens per step, γ %d",
		s.Drafter, s.Steps, s.Drafted, s.Accepted, s.AcceptRate(), s.TokensPerStep(), s.Gamma)
	if s.Measured > 0 {
		fmt.Fprintf(w, ", %.2f× plain decoding", s.Measured)
	}
	if updates > 0 {
		fmt.Fprintf(w, ", online basis moved %d times", updates)
	}
	fmt.Fprintln(w)
	if s.Note != "" {
		fmt.Fprintln(w, "speculative:", s.Note)
	}
}
