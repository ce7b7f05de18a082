package base

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/session"
)

// DraftFlags are speculative decoding's flags (docs/speculative.md), shared
// by run and bench.
type DraftFlags struct {
	Draft  string  // --draft: ngram, rank:K[,slots][,alloc], flow:FILE[,…] or off
	N      int     // --draft-n: tokens drafted per step; 0 picks them live
	Online bool    // --online-basis
	Share  float64 // --online-share
}

// Register registers --draft, --draft-n, --online-basis and --online-share.
func (d *DraftFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&d.Draft, "draft", "off", "speculative decoding: draft with ngram (prompt lookup), rank:K[,slots][,alloc] (this model under a rank-K GRC of the slots, qkv by default, alloc uniform, gp or mcr) or flow:FILE[,bits=N][,gate=X][,gen=N][,ngram] (a flow map of this model's greedy continuations of FILE's lines), or off")
	fs.IntVar(&d.N, "draft-n", 0, "with --draft: tokens drafted per step, 1…16; 0 picks them live from the measured acceptance and turns drafting off when it would be slower")
	fs.BoolVar(&d.Online, "online-basis", false, "with --draft rank:K: update the drafter's bases from its rejections (Oja's rule; kept in memory, never written to the cache)")
	fs.Float64Var(&d.Share, "online-share", generate.DefaultLearnShare, "with --online-basis: the most of the time learning may take; 1 learns before every draft (to measure its effect on α, whatever it costs)")
}

// Spec parses the flags: nil when speculation is off.
func (d *DraftFlags) Spec() (*session.DraftSpec, error) {
	ds, err := session.ParseDraft(d.Draft)
	if err != nil {
		return nil, UsageError{Err: fmt.Errorf("--draft: %w", err)}
	}
	if d.N < 0 || d.N > generate.MaxGamma {
		return nil, Usagef("--draft-n %d: want 0 (live) or 1…%d", d.N, generate.MaxGamma)
	}
	if ds == nil && (d.N != 0 || d.Online) {
		return nil, Usagef("--draft-n and --online-basis need --draft")
	}
	if d.Online && ds.Rank == 0 {
		return nil, Usagef("--online-basis updates a compressed drafter: use --draft rank:K")
	}
	if !(d.Share > 0 && d.Share <= 1) {
		return nil, Usagef("--online-share %v: want a share of the time in (0, 1]", d.Share)
	}
	if d.Share != generate.DefaultLearnShare && !d.Online {
		return nil, Usagef("--online-share needs --online-basis")
	}
	return ds, nil
}

// Knobs are the flags as session settings (run --session).
func (d *DraftFlags) Knobs() [][2]string {
	online := "off"
	if d.Online {
		online = "on"
	}
	n := "auto"
	if d.N > 0 {
		n = strconv.Itoa(d.N)
	}
	return [][2]string{{"draft", d.Draft}, {"draft_n", n}, {"online_basis", online}}
}

// Drafted is a drafter made from the flags, with what reports need of it.
type Drafted struct {
	Opts    generate.SpecOptions
	Model   *generate.ModelDrafter // nil for the n-gram drafter
	Cleanup func()
}

// Drafter builds the drafter the flags ask for, verifying on st with
// sampling p: the n-gram drafter, a flow map hooked on st, or a second State of m (on st's
// backend: the two take turns) under a GRC read from the shared cache
// or built. nil when speculation is off.
func (mf *ModelFlags) Drafter(d *DraftFlags, f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State, p sample.Params) (*Drafted, error) {
	ds, err := d.Spec()
	if err != nil || ds == nil {
		return nil, err
	}
	if ds.NGram {
		return &Drafted{Opts: generate.SpecOptions{Drafter: generate.NewNGramDrafter(), Gamma: d.N}, Cleanup: func() {}}, nil
	}
	if ds.Flow != nil {
		fd, remove, err := session.NewFlowDrafter(context.Background(), m, tok, st, ds.Flow)
		if err != nil {
			return nil, fmt.Errorf("--draft %s: %w", d.Draft, err)
		}
		return &Drafted{Opts: generate.SpecOptions{Drafter: fd, Gamma: d.N}, Cleanup: remove}, nil
	}
	// MCR calibrates on the built-in text, as /set draft does.
	g, err := mf.buildGRC(f, tok, m, st, session.GRCRequest{Rank: ds.Rank, Slots: ds.Slots, Alloc: ds.Alloc}, false)
	if err != nil {
		return nil, fmt.Errorf("--draft %s: %w", d.Draft, err)
	}
	// The drafter's cache stores what the verifier's does (--kv-type).
	dst, err := m.NewStateWith(st.Cap(), st.Backend(), model.StateOptions{KV: st.KVType()})
	if err != nil {
		return nil, err
	}
	md, remove, err := session.NewCompressedDrafter(m, st, dst, g, p, d.Online)
	if err != nil {
		return nil, fmt.Errorf("--draft %s: %w", d.Draft, err)
	}
	out := &Drafted{Opts: generate.SpecOptions{Drafter: md, Gamma: d.N}, Model: md, Cleanup: func() {}}
	if remove != nil {
		out.Cleanup = remove
	}
	if d.Online {
		if err := md.SetLearnShare(d.Share); err != nil {
			return nil, fmt.Errorf("--online-share: %w", err)
		}
	}
	return out, nil
}

// PrintSpec writes one line on what speculative decoding did.
func PrintSpec(w io.Writer, s generate.SpecStats, updates int) {
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
