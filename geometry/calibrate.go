package geometry

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/snipe"
	"github.com/isagi-lab/isagi/teh"
	"github.com/isagi-lab/isagi/ugt"
)

// Options steer calibration. Start from DefaultOptions.
type Options struct {
	// Layer is the probe block (0-based); negative means the last block,
	// the spec's default (docs/mechanisms.md §5).
	Layer int
	// SnipeLayer is ℓ_s, the first block whose output a projector edits;
	// negative means Layer, where the basis and μ were measured (a
	// projector built from one layer's statistics is only exact there).
	SnipeLayer int
	// K is the basis rank; 0 picks min(64, prompts−1, d).
	K int
	// Refine runs the Stiefel refinement of the basis (ugt.Refine).
	Refine bool
	// Budget is the benign collateral a projector may cost (0.02 = 2 %
	// more cross-entropy); MaxCoords caps its coordinates.
	Budget    float64
	MaxCoords int
	// MaxForbidden caps a gauge's forbidden coordinates; calibration picks
	// the count in 1…MaxForbidden that separates best.
	MaxForbidden int
	// BenignTokens caps the benign text scored for collateral: every
	// greedy step scores it once, so it sets calibration time.
	BenignTokens int
	// GaugePosition is where the TEH gauges read a prompt: GaugeMean,
	// GaugeLast, or "" for GaugeLast when the source renders chat turns
	// (Source.Chat) and GaugeMean otherwise. On the chat fixture the
	// last token separates held-out harmful from benign prompts far
	// better (docs/geometry.md).
	GaugePosition string
}

// DefaultOptions are the spec's defaults.
func DefaultOptions() Options {
	return Options{Layer: -1, SnipeLayer: -1, Budget: 0.02, MaxCoords: 20, MaxForbidden: 8, BenignTokens: 1024}
}

// Progress is told what calibration is doing: a stage name, and how far
// through it (done of total steps).
type Progress func(stage string, done, total int)

// labelled are the calibration states, one row per prompt.
type labelled struct {
	zones  *mat.Dense   // zone prompts
	zoneOf []int        // zone index of each zone row
	harm   []*mat.Dense // per category
	benign []*mat.Dense // per category
}

// Calibrate builds src's geometry profile from the prompt set's training
// split: hidden states at the probe layer, the UGT basis, the memory gate
// (COGGate), each category's forbidden coordinates and ROC threshold, and
// its Snipe projector chosen greedily under the collateral budget. It is deterministic for a model,
// prompt set and options.
func Calibrate(ctx context.Context, src Source, set *prompts.Set, opt Options, progress Progress) (*Profile, error) {
	start := time.Now()
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if len(set.Categories) > MaxCategories {
		return nil, fmt.Errorf("geometry: %d categories, at most %d", len(set.Categories), MaxCategories)
	}
	r, err := newRunner(src)
	if err != nil {
		return nil, err
	}
	m := src.Model
	p := &Profile{Format: ProfileFormat, D: m.Dim, Layer: opt.Layer, SnipeLayer: opt.SnipeLayer, GaugePosition: opt.GaugePosition}
	switch p.GaugePosition {
	case "":
		p.GaugePosition = GaugeMean
		if src.Chat {
			p.GaugePosition = GaugeLast
		}
	case GaugeMean, GaugeLast:
	default:
		return nil, fmt.Errorf("geometry: gauge position %q, want %q or %q", opt.GaugePosition, GaugeMean, GaugeLast)
	}
	if p.Layer < 0 {
		p.Layer = m.Layers - 1
	}
	if p.SnipeLayer < 0 {
		p.SnipeLayer = p.Layer
	}
	if p.Layer >= m.Layers || p.SnipeLayer >= m.Layers {
		return nil, fmt.Errorf("geometry: layer %d/%d: the model has blocks 0…%d", p.Layer, p.SnipeLayer, m.Layers-1)
	}
	if opt.Budget <= 0 || opt.MaxCoords <= 0 || opt.MaxForbidden <= 0 || opt.BenignTokens <= 0 {
		return nil, fmt.Errorf("geometry: budget, max coordinates, max forbidden and benign tokens must be positive")
	}

	// 1. Hidden states of every training prompt.
	var zonePrompts []string
	var zoneOf []int
	for zi, z := range set.Zones {
		zonePrompts = append(zonePrompts, z.Train...)
		for range z.Train {
			zoneOf = append(zoneOf, zi)
		}
	}
	total := len(zonePrompts)
	for _, c := range set.Categories {
		total += 2 * len(c.Train)
	}
	done := 0
	tick := func() { done++; progress("hidden states", done, total) }
	var lab labelled
	var tokens int
	// The gauges' states: the means, or each prompt's last token.
	var gZones *mat.Dense
	var gHarm, gBenign []*mat.Dense
	pick := func(mean, last *mat.Dense) *mat.Dense {
		if p.GaugeAtLast() {
			return last
		}
		return mean
	}
	var zl *mat.Dense
	lab.zones, zl, tokens, err = r.statesAt(ctx, zonePrompts, p.Layer, nil, tick)
	if err != nil {
		return nil, err
	}
	gZones = pick(lab.zones, zl)
	lab.zoneOf = zoneOf
	p.Stats.Tokens += tokens
	for _, c := range set.Categories {
		var harm, benign []string
		for _, pr := range c.Train {
			harm = append(harm, pr.Harm)
			benign = append(benign, pr.Benign)
		}
		h, hl, n1, err := r.statesAt(ctx, harm, p.Layer, nil, tick)
		if err != nil {
			return nil, err
		}
		b, bl, n2, err := r.statesAt(ctx, benign, p.Layer, nil, tick)
		if err != nil {
			return nil, err
		}
		lab.harm, lab.benign = append(lab.harm, h), append(lab.benign, b)
		gHarm, gBenign = append(gHarm, pick(h, hl)), append(gBenign, pick(b, bl))
		p.Stats.Tokens += n1 + n2
	}
	p.Stats.Prompts = total

	// 2. The UGT basis over all of them.
	all := stack(append([]*mat.Dense{lab.zones}, append(slices.Clone(lab.harm), lab.benign...)...)...)
	k := opt.K
	if k <= 0 {
		k = min(64, total-1, m.Dim)
	}
	progress("basis", 0, 1)
	basis, err := ugt.Fit(all, k)
	if err != nil {
		return nil, fmt.Errorf("geometry: basis: %w", err)
	}
	if opt.Refine {
		before, after, err := ugt.Refine(basis, lab.zones, lab.zoneOf, len(set.Zones), ugt.RefineOptions{Steps: 50, StepSize: 0.05})
		if err != nil {
			return nil, fmt.Errorf("geometry: refining the basis: %w", err)
		}
		p.Refined, p.RefineBefore, p.RefineAfter = true, before, after
	}
	progress("basis", 1, 1)
	p.K, p.Mu, p.B, p.Singular = basis.K, basis.Mu, basis.B, basis.Singular
	cents, err := ugt.Centroids(basis, lab.zones, lab.zoneOf, len(set.Zones))
	if err != nil {
		return nil, fmt.Errorf("geometry: zone centroids: %w", err)
	}
	for zi, z := range set.Zones {
		p.Zones = append(p.Zones, Zone{Name: z.Name, Prompts: len(z.Train), Centroid: slices.Clone(cents.RawRowView(zi))})
	}

	// 2b. The memory gate, from the same states and the zone prompts'
	// repeat variants.
	texts := slices.Clone(zonePrompts)
	for _, c := range set.Categories {
		for _, pr := range c.Train {
			texts = append(texts, pr.Harm)
		}
	}
	for _, c := range set.Categories {
		for _, pr := range c.Train {
			texts = append(texts, pr.Benign)
		}
	}
	if p.COG, err = calibrateGate(ctx, r, p, texts, all, len(zonePrompts), progress); err != nil {
		return nil, err
	}

	// 3. Per category: scores, gauge, direction. The Snipe scores and
	// direction are from the mean states, where the projectors were
	// designed; the gauge is from the gauge position's states.
	zoneRows := rows(gZones)
	var allHarm, allBenign [][]float64
	for ci, c := range set.Categories {
		harm, benign := rows(lab.harm[ci]), rows(lab.benign[ci])
		zh, err := coords(basis, harm)
		if err != nil {
			return nil, err
		}
		zb, err := coords(basis, benign)
		if err != nil {
			return nil, err
		}
		scores, err := snipe.Scores(zh, zb)
		if err != nil {
			return nil, fmt.Errorf("geometry: %s: %w", c.Name, err)
		}
		dir, err := snipe.Direction(harm, benign)
		if err != nil {
			return nil, fmt.Errorf("geometry: %s: %w", c.Name, err)
		}
		order := snipe.Order(scores)
		gh, gb := harm, benign
		if p.GaugeAtLast() {
			gh, gb = rows(gHarm[ci]), rows(gBenign[ci])
			zgh, err := coords(basis, gh)
			if err != nil {
				return nil, err
			}
			zgb, err := coords(basis, gb)
			if err != nil {
				return nil, err
			}
			gs, err := snipe.Scores(zgh, zgb)
			if err != nil {
				return nil, fmt.Errorf("geometry: %s gauge: %w", c.Name, err)
			}
			order = snipe.Order(gs)
		}
		// Negatives: the matched benign prompts and every zone prompt, so
		// that τ is free of false positives on ordinary requests too.
		neg := append(slices.Clone(gb), zoneRows...)
		g, err := pickGauge(p, order, gh, neg, opt.MaxForbidden)
		if err != nil {
			return nil, fmt.Errorf("geometry: %s: %w", c.Name, err)
		}
		p.Categories = append(p.Categories, Category{Name: c.Name, Gauge: g, Scores: scores, Direction: dir})
		allHarm = append(allHarm, gh...)
		allBenign = append(allBenign, gb...)
	}
	var union []int
	for _, c := range p.Categories {
		union = append(union, c.Gauge.Forbidden...)
	}
	slices.Sort(union)
	union = slices.Compact(union)
	p.Overall.Forbidden = union
	if len(union) > 0 {
		sub, err := teh.NewSubspace(p.B, p.Mu, union)
		if err != nil {
			return nil, fmt.Errorf("geometry: overall gauge: %w", err)
		}
		roc, err := teh.Calibrate(scoreAll(sub, allHarm), scoreAll(sub, append(allBenign, zoneRows...)))
		if err != nil {
			return nil, fmt.Errorf("geometry: overall gauge: %w", err)
		}
		p.Overall.ROC = roc
	}

	// 4. Snipe: each category's projector, greedy under the budget.
	benignSeqs, nBenign, err := tokenizeBudget(src, set.Benign.Train, opt.BenignTokens, r.st.Cap())
	if err != nil {
		return nil, err
	}
	p.Stats.BenignTokens = nBenign
	p.Stats.Budget, p.Stats.MaxCoords = opt.Budget, opt.MaxCoords
	progress("benign baseline", 0, 1)
	sc, err := newScorer(ctx, r, p, benignSeqs)
	if err != nil {
		return nil, err
	}
	base, err := sc.crossEntropy(ctx, nil)
	if err != nil {
		return nil, err
	}
	p.Stats.BaselineCE = base
	progress("benign baseline", 1, 1)
	for ci, c := range set.Categories {
		cat := &p.Categories[ci]
		harmPrompts := make([]string, len(c.Train))
		for i, pr := range c.Train {
			harmPrompts[i] = pr.Harm
		}
		ev := &snipeEval{
			ctx: ctx, r: r, p: p, dir: cat.Direction, prompts: harmPrompts,
			harm: rows(lab.harm[ci]), benign: sc, baseCE: base,
		}
		step := 0
		eval := func(cs []int) (float64, float64, error) {
			step++
			progress("snipe "+c.Name, step, opt.MaxCoords)
			return ev.measure(cs)
		}
		sel, err := snipe.Select(snipe.Order(cat.Scores), eval, opt.Budget, opt.MaxCoords)
		if err != nil {
			return nil, fmt.Errorf("geometry: snipe %s: %w", c.Name, err)
		}
		cat.Snipe = Snipe{Coords: sel.Coords, Reduction: sel.Reduction, Collateral: sel.Collateral, StoppedBy: sel.StoppedBy}
		for _, s := range sel.Steps {
			cat.Snipe.Steps = append(cat.Snipe.Steps, SnipeStep{Coords: s.Coords, Reduction: s.Reduction, Collateral: s.Collateral})
		}
		progress("snipe "+c.Name, opt.MaxCoords, opt.MaxCoords)
	}
	// What the user is shown of a projector must be measured on prompts it
	// was not selected on.
	rep, err := EvaluateSnipe(ctx, src, p, set, opt.BenignTokens, func(stage string, done, total int) {
		progress("held-out "+stage, done, total)
	})
	if err != nil {
		return nil, fmt.Errorf("geometry: held-out projector check: %w", err)
	}
	for i, r := range rep.Categories {
		if len(p.Categories[i].Snipe.Coords) > 0 {
			p.Categories[i].Snipe.HeldOut = &SnipeMeasure{Reduction: r.Reduction, Collateral: r.Collateral}
		}
	}
	if src.Decode != nil && src.Stop != nil {
		if err := heldoutRefusals(ctx, src, p, set, progress); err != nil {
			return nil, fmt.Errorf("geometry: held-out refusals: %w", err)
		}
	}
	p.Stats.Seconds = time.Since(start).Seconds()
	if err := p.validate(m.Layers); err != nil {
		return nil, fmt.Errorf("geometry: calibration produced a bad profile: %w", err)
	}
	return p, nil
}

// pickGauge chooses a gauge's forbidden coordinates: the top n of the
// Snipe order for the n in 1…maxN whose ROC is best (fewest false positives,
// then best F1, then fewest coordinates).
func pickGauge(p *Profile, order []int, harm, benign [][]float64, maxN int) (Gauge, error) {
	var best Gauge
	found := false
	for n := 1; n <= min(maxN, len(order)); n++ {
		cs := slices.Clone(order[:n])
		sub, err := teh.NewSubspace(p.B, p.Mu, cs)
		if err != nil {
			return Gauge{}, err
		}
		roc, err := teh.Calibrate(scoreAll(sub, harm), scoreAll(sub, benign))
		if err != nil {
			return Gauge{}, err
		}
		if !found || roc.FPR < best.ROC.FPR || (roc.FPR == best.ROC.FPR && roc.F1 > best.ROC.F1) {
			best, found = Gauge{Forbidden: cs, ROC: roc}, true
		}
	}
	if !found {
		return Gauge{}, fmt.Errorf("no coordinates to gauge")
	}
	return best, nil
}

// snipeEval measures one candidate projector: the drop of the category's
// probe score on its harm prompts, and the relative rise of cross-entropy
// on the benign text, both with the projector in the forward pass.
type snipeEval struct {
	ctx     context.Context
	r       *runner
	p       *Profile
	dir     []float64
	prompts []string
	harm    [][]float64 // states without a projector
	benign  *scorer
	baseCE  float64
}

// scorer measures cross-entropy on the benign text with a projector. When
// the projector acts at the last block only, it keeps that block's output
// once and rescores it with the classifier alone — the blocks are not run
// again for every greedy step (several times faster; the same figures).
type scorer struct {
	r      *runner
	p      *Profile
	seqs   [][]int32
	states [][]float32 // last-block outputs, when the fast path applies
}

func newScorer(ctx context.Context, r *runner, p *Profile, seqs [][]int32) (*scorer, error) {
	sc := &scorer{r: r, p: p, seqs: seqs}
	if p.SnipeLayer == r.src.Model.Layers-1 {
		var err error
		if sc.states, err = r.lastStates(ctx, seqs); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// crossEntropy is the mean next-token cross-entropy with the projector Q
// applied at blocks ≥ ℓ_s (nil: none).
func (sc *scorer) crossEntropy(ctx context.Context, q *mat.Dense) (float64, error) {
	var hook *projHook
	if q != nil {
		hook = newProjHook(sc.p.SnipeLayer, q, sc.p.Mu)
	}
	if sc.states != nil {
		return sc.r.crossEntropyLast(ctx, sc.seqs, sc.states, hook)
	}
	var hooks []any
	if hook != nil {
		hooks = append(hooks, hook)
	}
	return sc.r.crossEntropy(ctx, sc.seqs, hooks)
}

func (e *snipeEval) measure(cs []int) (reduction, collateral float64, err error) {
	proj, err := snipe.NewProjector(e.p.B, e.p.Mu, cs)
	if err != nil {
		return 0, 0, err
	}
	var after [][]float64
	if e.p.SnipeLayer == e.p.Layer {
		// The projector is affine, so the mean over a prompt's tokens of
		// projected states is the projected mean: no forward pass needed
		// when it acts exactly where the probe reads.
		for _, h := range e.harm {
			x := slices.Clone(h)
			proj.Apply(x)
			after = append(after, x)
		}
	} else {
		H, _, err := e.r.states(e.ctx, e.prompts, e.p.Layer, []any{newProjHook(e.p.SnipeLayer, proj.Q, e.p.Mu)}, nil)
		if err != nil {
			return 0, 0, err
		}
		after = rows(H)
	}
	reduction = probeReduction(e.dir, e.p.Mu, e.harm, after)
	ce, err := e.benign.crossEntropy(e.ctx, proj.Q)
	if err != nil {
		return 0, 0, err
	}
	return reduction, (ce - e.baseCE) / e.baseCE, nil
}

// probeReduction is (before − after)/|before| of the mean probe score.
func probeReduction(dir, mu []float64, before, after [][]float64) float64 {
	var b, a float64
	for i := range before {
		b += snipe.ProbeScore(dir, mu, before[i])
		a += snipe.ProbeScore(dir, mu, after[i])
	}
	if b == 0 {
		return 0
	}
	return (b - a) / math.Abs(b)
}

// tokenizeBudget tokenises passages until about budget tokens, each cut to
// maxLen (the scoring state's window).
func tokenizeBudget(src Source, passages []string, budget, maxLen int) ([][]int32, int, error) {
	var seqs [][]int32
	n := 0
	for _, t := range passages {
		if n >= budget {
			break
		}
		ids, err := src.Text(t)
		if err != nil {
			return nil, 0, fmt.Errorf("geometry: benign text: %w", err)
		}
		if len(ids) > maxLen {
			ids = ids[:maxLen]
		}
		if len(ids) < 2 {
			continue
		}
		seqs = append(seqs, ids)
		n += len(ids) - 1
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("geometry: the benign text set is empty")
	}
	return seqs, n, nil
}

func coords(b *ugt.Basis, hs [][]float64) ([][]float64, error) {
	out := make([][]float64, len(hs))
	for i, h := range hs {
		z, err := b.Coords(h, nil)
		if err != nil {
			return nil, err
		}
		out[i] = z
	}
	return out, nil
}

func scoreAll(s *teh.Subspace, hs [][]float64) []float64 {
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = s.Score(h)
	}
	return out
}

// stack concatenates matrices with the same column count by rows.
func stack(ms ...*mat.Dense) *mat.Dense {
	n, d := 0, 0
	for _, m := range ms {
		r, c := m.Dims()
		n, d = n+r, c
	}
	out := mat.NewDense(n, d, nil)
	i := 0
	for _, m := range ms {
		r, _ := m.Dims()
		for j := range r {
			out.SetRow(i, m.RawRowView(j))
			i++
		}
	}
	return out
}
