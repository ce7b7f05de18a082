package base

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tokenizer"
	"github.com/isagi-lab/isagi/session"
	"github.com/isagi-lab/isagi/store"
)

// MechFlags are Compression II's flags (docs/grc.md), on run, ppl and
// bench: each needs --rank, and ppl and bench report every one given off
// and on in the same run (Variants).
type MechFlags struct {
	Gauge, SinkBypass, KVProj bool
	SinkChannels              int
}

// register adds the flags to fs.
func (mf *MechFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&mf.Gauge, "gauge", false, "with --rank: fold the norms' |γ| into Q/K/V and gate/up before truncating (exact; the error weighted as the model reads)")
	fs.IntVar(&mf.SinkChannels, "sink-channels", 0, "with --rank: keep the T heaviest input channels of Q/K/V and gate/up exact, truncating the rest at rank K−T")
	fs.BoolVar(&mf.SinkBypass, "sink-bypass", false, "with --rank: positions whose residual norm exceeds μ+3σ (over --calib) run every block on the dense weights")
	fs.BoolVar(&mf.KVProj, "kv-proj", false, "with --rank: store K and V in a basis of the rank's share of each head, so the KV cache shrinks with the rank")
}

// any reports whether a mechanism is on.
func (mf MechFlags) any() bool {
	return mf.Gauge || mf.SinkBypass || mf.KVProj || mf.SinkChannels != 0
}

// apply writes the mechanisms into a request.
func (mf MechFlags) apply(req *session.GRCRequest) {
	req.Gauge, req.SinkChannels, req.SinkBypass = mf.Gauge, mf.SinkChannels, mf.SinkBypass
}

// Variant is one configuration ppl and bench compare: the compression the
// flags ask for with some of its mechanisms off.
type Variant struct {
	// Label names it: "rank K" (the compression alone, every mechanism
	// off), "+gauge", "+sink-channels 8", …, "all"; "dense" for Dense.
	Label string
	req   session.GRCRequest
	mech  MechFlags
	// dense is the model without compression (Dense).
	dense bool
}

// Dense is the variant without compression: the baseline ppl scores the
// variants against.
func Dense() Variant { return Variant{Label: "dense", dense: true} }

// Variants lists what ppl and bench measure in one run when mechanisms
// are given: the compression with every mechanism off, then each given
// mechanism alone, then (when more than one is given) all of them — the
// configuration the flags ask for is the last. nil without mechanisms.
func (mf *ModelFlags) Variants() ([]Variant, error) {
	req, err := mf.grcRequest()
	if err != nil || req == nil || !mf.Mech.any() {
		return nil, err
	}
	off := *req
	off.Gauge, off.SinkChannels, off.SinkBypass = false, 0, false
	if off.Alloc != grc.AllocMCR {
		off.CalibText = ""
	}
	with := func(label string, m MechFlags) Variant {
		v := Variant{Label: label, req: off, mech: m}
		m.apply(&v.req)
		if m.SinkBypass {
			v.req.CalibText = req.CalibText
		}
		return v
	}
	vs := []Variant{with(fmt.Sprintf("rank %d", req.Rank), MechFlags{})}
	given := 0
	if mf.Mech.Gauge {
		vs, given = append(vs, with("+gauge", MechFlags{Gauge: true})), given+1
	}
	if t := mf.Mech.SinkChannels; t != 0 {
		vs, given = append(vs, with(fmt.Sprintf("+sink-channels %d", t), MechFlags{SinkChannels: t})), given+1
	}
	if mf.Mech.SinkBypass {
		vs, given = append(vs, with("+sink-bypass", MechFlags{SinkBypass: true})), given+1
	}
	if mf.Mech.KVProj {
		vs, given = append(vs, with("+kv-proj", MechFlags{KVProj: true})), given+1
	}
	if given > 1 {
		vs = append(vs, with("all", mf.Mech))
	}
	return vs, nil
}

// UseVariant switches st to variant v's compression (built or read from
// the cache as --rank's is) and KV layout, or to the dense model for
// Dense. The compression is reported on mf.Log the first time a variant
// is used only: bench switches between them every round, and sixteen
// copies of the same lines buried its table.
func (mf *ModelFlags) UseVariant(f *gguf.File, tok *tokenizer.Tokenizer, m *model.Model, st *model.State, v Variant) error {
	if v.dense {
		if err := grc.Use(st, nil); err != nil {
			return fmt.Errorf("GRC: %w", err)
		}
		return mf.useKVProj(m, st, nil, false, true)
	}
	if mf.reported == nil {
		mf.reported = map[string]bool{}
	}
	quiet := mf.reported[v.Label]
	mf.reported[v.Label] = true
	g, err := mf.buildGRC(f, tok, m, st, v.req, quiet)
	if err != nil {
		return err
	}
	if err := grc.Use(st, g); err != nil {
		return fmt.Errorf("GRC: %w", err)
	}
	return mf.useKVProj(m, st, g, v.mech.KVProj, quiet)
}

// useKVProj stores st's K and V in the rank's share of each head (on:
// grc.KVRank of g's rank, grc.KVProjectionFor), or as the model has them
// (off). Either way the state is emptied when its layout changes. The
// projection is reported on mf.Log unless quiet.
func (mf *ModelFlags) useKVProj(m *model.Model, st *model.State, g *grc.Compression, on, quiet bool) error {
	if !on {
		if err := st.SetKVProjection(nil); err != nil {
			return fmt.Errorf("--kv-proj: %w", err)
		}
		return nil
	}
	r := grc.KVRank(m.HeadDim, g.K, m.Dim)
	if p := st.KVProjection(); p != nil && p.Rank() == r {
		return nil
	}
	p, err := grc.KVProjectionFor(m, r)
	if err != nil {
		return fmt.Errorf("--kv-proj: %w", err)
	}
	if err := st.SetKVProjection(p); err != nil {
		return fmt.Errorf("--kv-proj: %w", err)
	}
	if quiet || mf.Log == nil {
		return nil
	}
	before, after := p.ValuesPerToken()
	fmt.Fprintf(mf.Log, "isagi: KV projection: %d of %d values per KV head, %s → %s per position\n",
		r, m.HeadDim, store.HumanBytes(int64(before)*4), store.HumanBytes(int64(after)*4))
	return nil
}

// Knobs are the session settings the mechanism flags stand for (run
// --session sets the ones given on its command line), kv_proj last: the
// rank sizes it.
func (mf MechFlags) Knobs() [][2]string {
	return [][2]string{
		{"gauge", onOff(mf.Gauge)}, {"sink_channels", strconv.Itoa(mf.SinkChannels)},
		{"sink_bypass", onOff(mf.SinkBypass)}, {"kv_proj", onOff(mf.KVProj)},
	}
}

// onOff is a switch as the session's on/off settings take it.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// Figures is one line of what a compression measured that its String
// leaves out: each slot's mean Eckart–Young excess ρ and its group's k95,
// the depth-sink block, the stream's intrinsic dimension per block and
// the bypass's thresholds; "" when it has none.
func Figures(g *grc.Compression) string {
	var parts []string
	var rho, dim []string
	for _, s := range g.Summary() {
		if s.MeanRho > 0 {
			rho = append(rho, fmt.Sprintf("%s %.2f", s.Slot, s.MeanRho))
		}
		if s.MeanK95 > 0 {
			dim = append(dim, fmt.Sprintf("%s %.0f", s.Slot, s.MeanK95))
		}
	}
	if len(rho) > 0 {
		parts = append(parts, "ρ "+strings.Join(rho, " "))
	}
	if len(dim) > 0 {
		parts = append(parts, "k95 "+strings.Join(dim, " "))
	}
	if d := g.Depth; d != nil {
		how := "detected"
		if !d.Detected {
			how = "⌊2L/3⌋, none detected"
		}
		parts = append(parts, fmt.Sprintf("depth sink block %d (%s); stream PCA-95 by block %v", d.Sink, how, d.IntrinsicDim))
	}
	if g.Bypass != nil {
		parts = append(parts, fmt.Sprintf("bypass ‖h‖ above %.4g", g.Bypass))
	}
	return strings.Join(parts, "; ")
}
