package grc

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Compression is a GRC compression of some of every block's weight matrices
// (docs/mechanisms.md §1–2). Each compressed group has a basis of its input
// (k×in, applied once: x̃ = Pᵀx) and projected weights W̃ = W P (out×k)
// that read x̃; FFN down is a truncated SVD in the same shape (x̃ = V_kᵀh,
// y = U_kΣ_k x̃). The matrices are stored no coarser than the weights they
// replace (see grcStorage). A State using it runs every compressed product
// through x̃; the others are untouched.
type Compression struct {
	// K is the requested rank: every block's under uniform allocation, the
	// mean the blocks share under GP or MCR (Plan.Ranks has each block's).
	K    int
	Plan Plan
	// Blocks is per block: its rank and, per compressed slot, the rank,
	// the energy kept and whether nothing is lost.
	Blocks []Block
	// Energy[l] is the share of ‖W‖²_F that block l keeps for Q, K, V
	// (1 for slots that are not compressed). Kept for the displays that
	// predate the other slots; Blocks has every slot.
	Energy [][3]float64
	// BytesBefore and BytesAfter are the weight bytes one token reads
	// through the compressed slots without and with the compression (every
	// basis included).
	BytesBefore, BytesAfter int64
	// Check is what a cache is verified against on load (Verify).
	Check Check
	// Depth is what the build's calibration pass found (nil: it ran none).
	Depth *Depth
	// Bypass is every block's sink-bypass threshold on ‖h‖ (Profile.Bypass),
	// nil when the bypass is off.
	Bypass []float32

	layers []grcLayer
	maxK   int
}

// Block is one block of a GRC.
type Block struct {
	Rank  int        `json:"rank"`
	Slots []SlotStat `json:"slots"`
}

// SlotStat is one compressed weight matrix of one block.
type SlotStat struct {
	Slot Slot `json:"slot"`
	// K is the rank the slot is stored at: the block's rank, or its group's
	// input width when that is smaller.
	K int `json:"k"`
	// Energy is ‖W P‖²_F / ‖W‖²_F (for FFN down, the kept share of Σσ²).
	Energy float64 `json:"energy"`
	// Lossless is set when K ≥ min(out, in) of the slot's group: the
	// compressed form loses nothing but rounding.
	Lossless bool `json:"lossless"`
	// Rho is the Eckart–Young excess (Paper 1 §10): the slot's error
	// under the group's shared basis over the least error any rank-K
	// approximation of the slot alone has, Σ_{i>K} σ_i². It is ≥ 1; 1
	// means the shared basis costs this slot nothing. 0 when it is not
	// defined: the slot alone fits in rank K (its bound is zero) or the
	// group is lossless. Under the gauge both errors are the γ-weighted
	// ones the gauge minimises.
	Rho float64 `json:"rho,omitempty"`
	// K95 is the group's intrinsic dimension: the fewest components of its
	// spectrum (the Gram the basis came from, or down's σ²) that hold 95 %
	// of the energy (Paper 2 §2).
	K95 int `json:"k95,omitempty"`
	// Exact is how many of the group's input channels are kept exact
	// (sink channels); its basis has K − Exact columns.
	Exact int `json:"exact,omitempty"`
}

// Check is the depth-sink spectrum (Paper 2 §5.1): the top eigenvalues
// of one group's Gram matrix at about two thirds of the depth, which a
// cached GRC must reproduce from this model's weights to be used.
type Check struct {
	Layer  int       `json:"layer"`
	Group  string    `json:"group"`
	Values []float64 `json:"values"`
}

// Depth is what a compression's calibration pass measured of the model's
// residual stream.
type Depth struct {
	// Sink is the depth-sink block detected (Profile.DepthSink), whose
	// spectrum the cache check reads; Detected is false when the profile
	// gave no answer and ⌊2L/3⌋ was kept.
	Sink     int  `json:"sink"`
	Detected bool `json:"detected"`
	// IntrinsicDim is the PCA-95 dimension of the stream after each block.
	IntrinsicDim []int `json:"intrinsic_dim"`
	// Positions is how many positions the dimension was measured over.
	Positions int `json:"positions"`
}

// grcGroup is one compressed group of a block: x̃ = in·x (k×inWidth), then
// one product per output matrix (out×k).
type grcGroup struct {
	k   int
	in  *tensor.Matrix
	out []*tensor.Matrix
}

type grcLayer struct {
	qkv, o, ffn, down *grcGroup
}

// group returns the layer's group g (0 qkv, 1 o, 2 ffn, 3 down).
func (l *grcLayer) group(g int) **grcGroup {
	switch g {
	case 0:
		return &l.qkv
	case 1:
		return &l.o
	case 2:
		return &l.ffn
	}
	return &l.down
}

// groupInfo describes group g of block l: its weight matrices in order,
// which slots they are, its input width and its rows together.
func groupInfo(m *model.Model, g, l int) (ws []*tensor.Matrix, slots []Slot, in, rows int) {
	L := m.Block(l)
	switch g {
	case 0:
		return []*tensor.Matrix{L.Q, L.K, L.V}, []Slot{SlotQ, SlotK, SlotV}, m.Dim, m.QDim() + 2*m.KVDim()
	case 1:
		return []*tensor.Matrix{L.O}, []Slot{SlotO}, m.QDim(), m.Dim
	case 2:
		return []*tensor.Matrix{L.Gate, L.Up}, []Slot{SlotGate, SlotUp}, m.Dim, 2 * m.FFN
	}
	return []*tensor.Matrix{L.Down}, []Slot{SlotDown}, m.FFN, m.Dim
}

// groupK is the rank group g is stored at for a block of rank r: the basis
// of an in-wide input has at most in columns, and an SVD at most
// min(rows, cols) values.
func groupK(m *model.Model, g, r int) int {
	_, _, in, rows := groupInfo(m, g, 0)
	if g == 3 {
		return min(r, in, rows)
	}
	return min(r, in)
}

// groupLossless reports whether group g at rank k keeps everything.
func groupLossless(m *model.Model, g, k int) bool {
	_, _, in, rows := groupInfo(m, g, 0)
	return k >= min(in, rows)
}

// groupsOf lists the groups a slot set compresses, in order.
func groupsOf(s Slots) []int {
	var gs []int
	if s&QKV != 0 {
		gs = append(gs, 0)
	}
	if s&O != 0 {
		gs = append(gs, 1)
	}
	if s&FFN != 0 {
		gs = append(gs, 2, 3)
	}
	return gs
}

// layerGroups lists the groups of block l that a slot set compresses: a
// mixture-of-experts block's feed-forward groups (gate/up and down) stay
// dense, since its experts are not one matrix each (docs/grc.md, "Mixtures
// of experts"); its attention groups compress as a dense block's do.
func layerGroups(m *model.Model, s Slots, l int) []int {
	gs := groupsOf(s)
	if !m.MoELayer(l) {
		return gs
	}
	out := gs[:0:0]
	for _, g := range gs {
		if g < 2 {
			out = append(out, g)
		}
	}
	return out
}

// expertBlocks counts the blocks whose feed-forward groups a slot set
// names but that stay dense: the mixture-of-experts blocks, when the set
// has ffn.
func expertBlocks(m *model.Model, s Slots) int {
	if s&FFN == 0 {
		return 0
	}
	n := 0
	for l := range m.Layers {
		if m.MoELayer(l) {
			n++
		}
	}
	return n
}

func groupName(g int) string {
	return [...]string{"qkv", "o", "ffn", "down"}[g]
}

// gpBlock is one block's decompositions (nil until made).
type gpBlock struct {
	// gram is qkv, o and ffn up+gate's Gram decompositions per variant
	// (o always under the plain one: no variant applies to it).
	gram map[variant]*[3]*Decomposition
	svd  *SVD // ffn down
	// spectra are each slot's σ² per variant, for ρ, made on first use.
	spectra map[variant]*[3][][]float64
}

// groupVariant is the variant group g is decomposed under: v for the
// groups that read a norm, the plain one for the others.
func groupVariant(g int, v variant) variant {
	if readsNorm(g) {
		return v
	}
	return variant{}
}

// dec returns block b's decomposition of group g under v, or nil.
func (b *gpBlock) dec(g int, v variant) *Decomposition {
	if d := b.gram[groupVariant(g, v)]; d != nil {
		return d[g]
	}
	return nil
}

// setDec records block b's decomposition of group g under v.
func (b *gpBlock) setDec(g int, v variant, d *Decomposition) {
	if b.gram == nil {
		b.gram = map[variant]*[3]*Decomposition{}
	}
	gv := groupVariant(g, v)
	if b.gram[gv] == nil {
		b.gram[gv] = new([3]*Decomposition)
	}
	b.gram[gv][g] = d
}

// Builder holds the decompositions of every block's compressed groups,
// made on first use and kept, so that a compression of any rank or
// allocation is a projection away (the rank knob moves between turns
// without solving again). It is not safe for concurrent use.
type Builder struct {
	m      *model.Model
	slots  Slots
	blocks []gpBlock
}

// NewQKVBuilder decomposes every block's Q/K/V Gram matrix (the slow
// part: O(d³) per block) and returns a builder for the qkv slot set.
func NewQKVBuilder(m *model.Model) (*Builder, error) {
	gb, err := NewBuilder(m, QKV)
	if err != nil {
		return nil, err
	}
	if err := gb.Decompose(context.Background(), nil); err != nil {
		return nil, err
	}
	return gb, nil
}

// NewBuilder returns a builder of m's compressions over a slot set. It does no work yet:
// Decompose, Plan and BuildPlan decompose the blocks they need, reporting
// progress and honouring cancellation.
func NewBuilder(m *model.Model, slots Slots) (*Builder, error) {
	if err := slots.valid(); err != nil {
		return nil, err
	}
	return &Builder{m: m, slots: slots, blocks: make([]gpBlock, m.Layers)}, nil
}

// Slots is the slot set the builder compresses.
func (gb *Builder) Slots() Slots { return gb.slots }

// Decompose makes every block's decompositions that are not made yet,
// calling progress(done, total) after each block. A cancelled ctx stops it
// between groups with ctx.Err(); blocks already done are kept.
func (gb *Builder) Decompose(ctx context.Context, progress func(done, total int)) error {
	return gb.decomposeAll(ctx, variant{}, progress)
}

// decomposeAll is Decompose under variant v.
func (gb *Builder) decomposeAll(ctx context.Context, v variant, progress func(done, total int)) error {
	for l := range gb.blocks {
		if err := gb.decompose(ctx, l, v); err != nil {
			return err
		}
		if progress != nil {
			progress(l+1, len(gb.blocks))
		}
	}
	return nil
}

// decompose makes block l's missing decompositions under variant v.
func (gb *Builder) decompose(ctx context.Context, l int, v variant) error {
	b := &gb.blocks[l]
	for _, g := range layerGroups(gb.m, gb.slots, l) {
		if (g < 3 && b.dec(g, v) != nil) || (g == 3 && b.svd != nil) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := prepare(gb.m, g, l, groupVariant(g, v))
		if err != nil {
			return err
		}
		if g == 3 {
			if b.svd, err = DecomposeSVD(p.x[0]); err != nil {
				return fmt.Errorf("grc: block %d FFN down: %w", l, err)
			}
			continue
		}
		d, err := Decompose(p.x)
		if err != nil {
			return fmt.Errorf("grc: block %d %s: %w", l, groupName(g), err)
		}
		b.setDec(g, v, d)
	}
	return nil
}

// slotSpectra returns the σ² of every matrix of group g of block l as its
// variant prepares them (gauged, sink channels not removed), for ρ.
func (gb *Builder) slotSpectra(p *prepared, g, l int, v variant) ([][]float64, error) {
	b := &gb.blocks[l]
	gv := groupVariant(g, v)
	if b.spectra == nil {
		b.spectra = map[variant]*[3][][]float64{}
	}
	if b.spectra[gv] == nil {
		b.spectra[gv] = new([3][][]float64)
	}
	if got := b.spectra[gv][g]; got != nil {
		return got, nil
	}
	out := make([][]float64, len(p.w))
	for i := range p.w {
		sp, err := slotSpectrum(p.gaugedFull(i))
		if err != nil {
			return nil, fmt.Errorf("grc: block %d %s: %w", l, groupName(g), err)
		}
		out[i] = sp
	}
	b.spectra[gv][g] = out
	return out, nil
}

// dequantGroup returns group g of block l as float32 slots.
func dequantGroup(m *model.Model, g, l int) ([]Matrix, error) {
	ws, _, _, _ := groupInfo(m, g, l)
	slots := make([]Matrix, len(ws))
	for i, w := range ws {
		f := make([]float32, w.Rows*w.Cols)
		if err := tensor.Dequantize(w.Type, f, w.Data); err != nil {
			return nil, fmt.Errorf("grc: block %d %s: %w", l, groupName(g), err)
		}
		slots[i] = Matrix{Rows: w.Rows, Cols: w.Cols, W: f}
	}
	return slots, nil
}

// BuildQKV computes a uniform rank-k compression of m's Q/K/V from the
// weights alone. k = Dim is lossless up to the storage's rounding.
func BuildQKV(m *model.Model, k int) (*Compression, error) {
	gb, err := NewBuilder(m, QKV)
	if err != nil {
		return nil, err
	}
	return gb.Build(k)
}

// Build projects every block onto its rank-k basis (uniform allocation over
// the builder's slot set).
func (gb *Builder) Build(k int) (*Compression, error) {
	plan, err := gb.Plan(context.Background(), Spec{Slots: gb.slots, K: k}, nil, nil)
	if err != nil {
		return nil, err
	}
	return gb.BuildPlan(context.Background(), plan, nil)
}

// BuildPlan builds the compression a plan describes, decomposing blocks as
// needed, calling progress(done, total) after each block. A cancelled ctx
// stops it between groups with ctx.Err().
func (gb *Builder) BuildPlan(ctx context.Context, plan Plan, progress func(done, total int)) (*Compression, error) {
	m := gb.m
	if plan.Slots != gb.slots {
		return nil, fmt.Errorf("grc: a plan for slots %s given to a builder for %s", plan.Slots, gb.slots)
	}
	if err := checkRanks(m, plan); err != nil {
		return nil, err
	}
	g := &Compression{K: plan.K, Plan: plan}
	v := variantOf(plan.Spec)
	for l := range m.Layers {
		if err := gb.decompose(ctx, l, v); err != nil {
			return nil, err
		}
		var gl grcLayer
		blk := Block{Rank: plan.Ranks[l]}
		for _, gi := range layerGroups(m, plan.Slots, l) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			grp, stats, err := gb.project(gi, l, plan.Ranks[l], v)
			if err != nil {
				return nil, err
			}
			*gl.group(gi) = grp
			blk.Slots = append(blk.Slots, stats...)
			g.maxK = max(g.maxK, grp.k)
			ws, _, _, _ := groupInfo(m, gi, l)
			for _, w := range ws {
				g.BytesBefore += int64(len(w.Data))
			}
			g.BytesAfter += int64(len(grp.in.Data))
			for _, w := range grp.out {
				g.BytesAfter += int64(len(w.Data))
			}
		}
		g.layers = append(g.layers, gl)
		g.Blocks = append(g.Blocks, blk)
		if progress != nil {
			progress(l+1, m.Layers)
		}
	}
	g.Energy = qkvEnergy(g.Blocks)
	g.Check = gb.check(plan)
	if p := plan.Profile; p != nil {
		sink, ok := p.DepthSink()
		if !ok {
			sink = g.Check.Layer
		}
		g.Depth = &Depth{Sink: sink, Detected: ok, IntrinsicDim: p.IntrinsicDim, Positions: p.IDPositions}
		if plan.SinkBypass {
			g.Bypass = p.Bypass()
		}
	}
	return g, nil
}

// project builds group gi of block l at rank r under variant v.
func (gb *Builder) project(gi, l, r int, v variant) (*grcGroup, []SlotStat, error) {
	m := gb.m
	ws, names, in, _ := groupInfo(m, gi, l)
	k := groupK(m, gi, r)
	lossless := groupLossless(m, gi, k)
	store := func(typ tensor.Type, rows, cols int, f []float32) (*tensor.Matrix, error) {
		mm, err := quantizeMatrix(typ, rows, cols, f)
		if err != nil {
			return nil, fmt.Errorf("grc: block %d %s: %w", l, groupName(gi), err)
		}
		return mm, nil
	}
	typ := func(cols int) tensor.Type { return grcStorage(ws[0].Type, cols) }
	grp := &grcGroup{k: k}
	var stats []SlotStat
	if gi == 3 {
		f := gb.blocks[l].svd
		a, b, err := f.Factors(k)
		if err != nil {
			return nil, nil, fmt.Errorf("grc: block %d FFN down: %w", l, err)
		}
		if grp.in, err = store(typ(in), k, in, b); err != nil {
			return nil, nil, err
		}
		out, err := store(typ(k), ws[0].Rows, k, a)
		if err != nil {
			return nil, nil, err
		}
		grp.out = []*tensor.Matrix{out}
		// A truncated SVD is the Eckart–Young optimum itself: ρ = 1.
		stats = append(stats, SlotStat{Slot: SlotDown, K: k, Energy: f.Energy(k), Lossless: lossless, K95: k95(f.Spectrum), Rho: rhoOf(1, lossless)})
		return grp, stats, nil
	}
	gv := groupVariant(gi, v)
	p, err := prepare(m, gi, l, gv)
	if err != nil {
		return nil, nil, err
	}
	dec := gb.blocks[l].dec(gi, v)
	t := len(p.chans)
	if t >= k {
		return nil, nil, fmt.Errorf("grc: block %d %s: %d sink channels leave no room in rank %d", l, groupName(gi), t, k)
	}
	b, err := dec.Basis(k - t)
	if err != nil {
		return nil, nil, fmt.Errorf("grc: block %d %s: %w", l, groupName(gi), err)
	}
	// x̃ = In·x: the basis reads the gauged input D⁻¹x (x = γ⊙n, so the
	// norm's γ is divided by s, the rescaling folded into it), then the
	// exact channels read x itself. Out = [X_rest·P, W[:, S]].
	inRows := make([]float32, k*in)
	kb := k - t
	for j := range kb {
		for i := range in {
			e := b.P[i*kb+j]
			if p.scale != nil {
				e /= p.scale[i]
			}
			inRows[j*in+i] = e
		}
	}
	for j, c := range p.chans {
		inRows[(kb+j)*in+c] = 1
	}
	if grp.in, err = store(typ(in), k, in, inRows); err != nil {
		return nil, nil, err
	}
	if p.scale != nil && grp.in.Type == tensor.Q8_0 && gaugedRoundingError(grp.in, inRows, p.scale) > gaugeQ8Tolerance {
		// 1/s spreads a basis row's entries over orders of magnitude, and
		// one Q8_0 scale per 32 of them can flatten the small ones: where
		// that costs more than Q8_0 costs a plain basis, F16 keeps each.
		if grp.in, err = store(tensor.F16, k, in, inRows); err != nil {
			return nil, nil, err
		}
	}
	var spectra [][]float64
	if !lossless {
		if spectra, err = gb.slotSpectra(p, gi, l, v); err != nil {
			return nil, nil, err
		}
	}
	kk := k95(dec.Spectrum)
	for i, w := range ws {
		x := p.x[i]
		xp := b.Project(x)
		out := make([]float32, w.Rows*k)
		full := p.gaugedFull(i)
		total := sumSquares(full.W)
		kept := sumSquares(xp)
		for r := range w.Rows {
			copy(out[r*k:r*k+kb], xp[r*kb:(r+1)*kb])
			for j, c := range p.chans {
				out[r*k+kb+j] = p.w[i].W[r*in+c]
				g := full.W[r*in+c]
				kept += float64(g) * float64(g)
			}
		}
		mm, err := store(typ(k), w.Rows, k, out)
		if err != nil {
			return nil, nil, err
		}
		grp.out = append(grp.out, mm)
		st := SlotStat{Slot: names[i], K: k, Energy: 1, Lossless: lossless, K95: kk, Exact: t}
		if total > 0 {
			st.Energy = min(kept/total, 1)
		}
		if !lossless {
			st.Rho = rhoOf(excess(total-kept, tailAbove(spectra[i], k), total), false)
		}
		stats = append(stats, st)
	}
	return grp, stats, nil
}

// gaugeQ8Tolerance is the relative error of a gauged basis stored as Q8_0
// above which it is stored as F16 instead: a few times what Q8_0's
// rounding costs an orthonormal basis (~0.4 %).
const gaugeQ8Tolerance = 0.01

// gaugedRoundingError is ‖(In_q − In)·D‖_F / ‖In·D‖_F: the rounding of the
// stored basis measured on the stream the gauge normalised (In·D = Pᵀ, so
// this is how far the stored rows are from the eigenvectors).
func gaugedRoundingError(q *tensor.Matrix, in []float32, scale []float32) float64 {
	row := make([]float32, q.Cols)
	var num, den float64
	for r := range q.Rows {
		if err := tensor.Dequantize(q.Type, row, q.Row(r)); err != nil {
			return math.Inf(1)
		}
		for c, v := range row {
			e := float64(v-in[r*q.Cols+c]) * float64(scale[c])
			num += e * e
			w := float64(in[r*q.Cols+c]) * float64(scale[c])
			den += w * w
		}
	}
	if den == 0 {
		return 0
	}
	return math.Sqrt(num / den)
}

// excess is ρ = err/bound, or 0 when the bound is (numerically) zero.
func excess(err, bound, total float64) float64 {
	if bound <= 1e-12*total || bound <= 0 {
		return 0
	}
	return max(err, 0) / bound
}

// rhoOf is ρ as a SlotStat holds it: 0 (undefined) for lossless groups.
func rhoOf(rho float64, lossless bool) float64 {
	if lossless {
		return 0
	}
	return rho
}

// quantizeMatrix stores rows×cols floats as a matrix of type typ.
func quantizeMatrix(typ tensor.Type, rows, cols int, f []float32) (*tensor.Matrix, error) {
	rb, err := typ.RowBytes(uint64(cols))
	if err != nil {
		return nil, err
	}
	data := make([]byte, int(rb)*rows)
	if err := tensor.Quantize(typ, data, f); err != nil {
		return nil, err
	}
	return tensor.NewMatrix(typ, rows, cols, data)
}

// qkvEnergy is the Q/K/V energies of every block (1 where not compressed).
func qkvEnergy(blocks []Block) [][3]float64 {
	out := make([][3]float64, len(blocks))
	for l, b := range blocks {
		out[l] = [3]float64{1, 1, 1}
		for _, s := range b.Slots {
			if s.Slot <= SlotV {
				out[l][s.Slot] = s.Energy
			}
		}
	}
	return out
}

// depthSink is the block whose spectrum verifies a cache: about two thirds
// of the way through the stack, where Paper 2 §5.1 found activations
// saturate in effective dimension on four models. Any block would catch a
// stale cache; this one follows the paper.
func depthSink(layers int) int { return min(2*layers/3, layers-1) }

// checkValues is how many top eigenvalues the depth-sink check compares.
const checkValues = 8

// check records the depth-sink spectrum of the plan's first group, at the
// block the calibration profile detects (Profile.DepthSink), or at ⌊2L/3⌋
// without one.
func (gb *Builder) check(plan Plan) Check {
	l := depthSink(len(gb.blocks))
	if plan.Profile != nil {
		if s, ok := plan.Profile.DepthSink(); ok {
			l = s
		}
	}
	l = compressedNear(gb.m, plan.Slots, l)
	gi := layerGroups(gb.m, plan.Slots, l)[0]
	v := variantOf(plan.Spec)
	k := basisK(gb.m, gi, plan.Ranks[l], v)
	c := Check{Layer: l, Group: groupName(gi)}
	b := &gb.blocks[l]
	for j := range min(checkValues, k) {
		if gi == 3 {
			c.Values = append(c.Values, b.svd.Sigma[j]*b.svd.Sigma[j])
		} else {
			d := b.dec(gi, v)
			c.Values = append(c.Values, d.Spectrum[j]*d.Scale)
		}
	}
	return c
}

// compressedNear is l when the slot set compresses a group of block l,
// else the nearest block where it does (the lower of two as near): under
// ffn alone a mixture of experts compresses only its leading dense
// blocks. Resolve refused a slot set that compresses no block.
func compressedNear(m *model.Model, s Slots, l int) int {
	for d := range m.Layers {
		for _, c := range []int{l - d, l + d} {
			if c >= 0 && c < m.Layers && len(layerGroups(m, s, c)) > 0 {
				return c
			}
		}
	}
	return l
}

// basisK is the number of basis columns group g has at block rank r under
// v: its stored rank less the channels kept exact.
func basisK(m *model.Model, g, r int, v variant) int {
	k := groupK(m, g, r)
	if readsNorm(g) {
		k -= min(v.sink, k-1)
	}
	return k
}

// Verify re-derives the depth-sink block's top eigenvalues from this
// model's weights and g's stored basis — the Rayleigh quotient Σ‖W p_j‖²
// of each stored basis row p_j, which equals λ_j when p_j is an
// eigenvector — and refuses a g whose basis does not fit the weights
// (another model, another builder, damage the checksums missed). It costs
// one block's products, not a decomposition.
func Verify(m *model.Model, g *Compression) error {
	c := g.Check
	gi := -1
	for i := range 4 {
		if groupName(i) == c.Group {
			gi = i
		}
	}
	if c.Layer < 0 || c.Layer >= len(g.layers) || gi < 0 || len(c.Values) == 0 {
		return fmt.Errorf("grc: GRC has no usable depth-sink check (%s at block %d)", c.Group, c.Layer)
	}
	for _, v := range c.Values { // NaN would pass every comparison below
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("grc: GRC depth-sink check holds %g", v)
		}
	}
	grp := *g.layers[c.Layer].group(gi)
	v := variantOf(g.Plan.Spec)
	if grp == nil || len(c.Values) > basisK(m, gi, grp.k, v) {
		return fmt.Errorf("grc: GRC check names %s at block %d, which is not compressed", c.Group, c.Layer)
	}
	// The basis rows are eigenvectors of the Gram of the group as its
	// variant prepared it (gauged, exact channels removed), stored as
	// P_jᵀ·D⁻¹ under the gauge: undo D to get them back.
	pr, err := prepare(m, gi, c.Layer, groupVariant(gi, v))
	if err != nil {
		return err
	}
	slots := pr.x
	p := make([]float32, grp.in.Cols)
	for j, want := range c.Values {
		if err := tensor.Dequantize(grp.in.Type, p, grp.in.Row(j)); err != nil {
			return fmt.Errorf("grc: GRC check: %w", err)
		}
		for i := range pr.scale {
			p[i] *= pr.scale[i]
		}
		var pp, r float64
		for _, v := range p {
			pp += float64(v) * float64(v)
		}
		for _, s := range slots {
			for i := range s.Rows {
				var dot float64
				for c, w := range s.W[i*s.Cols : (i+1)*s.Cols] {
					dot += float64(w) * float64(p[c])
				}
				r += dot * dot
			}
		}
		if pp > 0 {
			r /= pp
		}
		// A quantised basis row is off its eigenvector by ~0.3 %; the
		// Rayleigh quotient errs by the square of that, far inside 1e-3.
		if math.Abs(r-want) > 1e-3*c.Values[0] || math.IsNaN(r) {
			return fmt.Errorf("grc: GRC does not fit this model: block %d %s eigenvalue %d is %.6g from the weights, %.6g in the cache", c.Layer, c.Group, j, r, want)
		}
	}
	return nil
}

// checkRanks validates a plan's per-block ranks against the model.
func checkRanks(m *model.Model, plan Plan) error {
	if err := plan.Slots.valid(); err != nil {
		return err
	}
	if len(plan.Ranks) != m.Layers {
		return fmt.Errorf("grc: a GRC plan for %d blocks, the model has %d", len(plan.Ranks), m.Layers)
	}
	for l, r := range plan.Ranks {
		if r < 1 || r > m.Dim {
			return fmt.Errorf("grc: block %d: GRC rank %d outside 1…%d (the embedding width)", l, r, m.Dim)
		}
	}
	return nil
}

// Layers is the number of blocks g was built for (model.Projections).
func (g *Compression) Layers() int { return len(g.layers) }

// Block is block l's projected groups (model.Projections).
func (g *Compression) Block(l int) model.BlockProjections {
	gl := &g.layers[l]
	bp := model.BlockProjections{QKV: gl.qkv.projection(), O: gl.o.projection(), FFN: gl.ffn.projection(), Down: gl.down.projection()}
	if l < len(g.Bypass) {
		bp.Bypass = g.Bypass[l]
	}
	return bp
}

// projection is the group as the model runs it (nil when not compressed).
func (g *grcGroup) projection() *model.Projection {
	if g == nil {
		return nil
	}
	return &model.Projection{In: g.in, Out: g.out}
}

// Use runs s's products through g from its next Forward, or dense again
// when g is nil. (A nil *Compression passed to State.SetProjections
// directly would be a non-nil interface holding nil.)
func Use(s *model.State, g *Compression) error {
	if g == nil {
		return s.SetProjections(nil)
	}
	return s.SetProjections(g)
}

// Of is the compression a state's products run through, or nil when they
// run dense or through projections of another kind.
func Of(s *model.State) *Compression {
	g, _ := s.Projections().(*Compression)
	return g
}

// grcStorage picks how the projected matrices are stored: float32 for a
// float32 model (so that full rank is lossless), F16 for a 16-bit one, and
// Q8_0 for quantised models — finer than any of their 4–8-bit types, and
// the smallest that keeps the compression worth its bytes (F16 would make
// k = d/4 barely smaller than the Q8_0 weights it replaces). Rows whose
// length is not a multiple of 32 fall back to F16.
func grcStorage(weights tensor.Type, cols int) tensor.Type {
	switch weights {
	case tensor.F32:
		return tensor.F32
	case tensor.F16, tensor.BF16:
		return tensor.F16
	}
	if cols%tensor.QK != 0 {
		return tensor.F16
	}
	return tensor.Q8_0
}

// SlotSummary is one slot across the blocks, for display.
type SlotSummary struct {
	Slot       Slot
	MinK, MaxK int
	// MeanEnergy and MinEnergy are over the blocks.
	MeanEnergy, MinEnergy float64
	// Lossless counts the blocks where the slot loses nothing.
	Lossless int
	// MeanRho is the mean Eckart–Young excess over the blocks where it is
	// defined (SlotStat.Rho), 0 where it is nowhere; MeanK95 the mean
	// intrinsic dimension of the slot's group.
	MeanRho float64
	MeanK95 float64
	// Blocks is how many blocks compress the slot: all of them, but for
	// gate, up and down the dense feed-forward blocks only (a mixture of
	// experts' experts stay dense).
	Blocks int
}

// Summary is every compressed slot's ranks and energy over the blocks, in
// slot order (q, k, v, o, gate, up, down).
func (g *Compression) Summary() []SlotSummary {
	var out []SlotSummary
	for s := SlotQ; s <= SlotDown; s++ {
		sum := SlotSummary{Slot: s, MinEnergy: math.Inf(1), MinK: math.MaxInt}
		n, nr := 0, 0
		for _, b := range g.Blocks {
			for _, st := range b.Slots {
				if st.Slot != s {
					continue
				}
				n++
				sum.MinK, sum.MaxK = min(sum.MinK, st.K), max(sum.MaxK, st.K)
				sum.MeanEnergy += st.Energy
				sum.MinEnergy = min(sum.MinEnergy, st.Energy)
				sum.MeanK95 += float64(st.K95)
				if st.Rho > 0 {
					sum.MeanRho += st.Rho
					nr++
				}
				if st.Lossless {
					sum.Lossless++
				}
			}
		}
		if nr > 0 {
			sum.MeanRho /= float64(nr)
		}
		sum.Blocks = n
		if n > 0 {
			sum.MeanEnergy /= float64(n)
			sum.MeanK95 /= float64(n)
			out = append(out, sum)
		}
	}
	return out
}

// String is a one-line description: slots, allocation, rank, bytes and
// the energy each slot keeps.
func (g *Compression) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "GRC %s", g.Plan.Slots)
	if n := g.denseExperts(); n > 0 {
		fmt.Fprintf(&b, " (experts stay dense in %d of %d blocks)", n, len(g.layers))
	}
	if g.Plan.Alloc != AllocUniform {
		r := g.Plan.Ranks
		sum := 0
		for _, v := range r {
			sum += v
		}
		fmt.Fprintf(&b, " %s rank %d", g.Plan.Alloc, g.K)
		if mean := float64(sum) / float64(max(len(r), 1)); math.Abs(mean-float64(g.K)) >= 0.5 {
			fmt.Fprintf(&b, " (mean %.0f after the bounds)", mean)
		}
		fmt.Fprintf(&b, ", %d…%d per block", minOf(r), maxOf(r))
	} else {
		fmt.Fprintf(&b, " rank %d", g.K)
	}
	fmt.Fprintf(&b, ", weights %.2f× (%s → %s); energy kept", float64(g.BytesAfter)/float64(max(g.BytesBefore, 1)),
		mb(g.BytesBefore), mb(g.BytesAfter))
	for _, s := range g.Summary() {
		fmt.Fprintf(&b, " %s %.3f", s.Slot, s.MeanEnergy)
		if s.Lossless == s.Blocks {
			b.WriteString(" (lossless)")
		}
	}
	return b.String()
}

// denseExperts counts the blocks whose feed-forward groups the slot set
// names but that were not compressed: a mixture of experts' blocks.
func (g *Compression) denseExperts() int {
	if g.Plan.Slots&FFN == 0 {
		return 0
	}
	n := 0
	for _, l := range g.layers {
		if l.ffn == nil {
			n++
		}
	}
	return n
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

func minOf(r []int) int {
	m := math.MaxInt
	for _, v := range r {
		m = min(m, v)
	}
	return m
}

func maxOf(r []int) int {
	m := 0
	for _, v := range r {
		m = max(m, v)
	}
	return m
}
