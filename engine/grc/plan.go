package grc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/model"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Slots is a set of slot groups to compress (docs/mechanisms.md §2).
type Slots uint8

// The slot groups. Each has one basis per block: Q/K/V share a joint Gram
// over the attention input, O has its own over the attention output, FFN
// gate and up share one over the FFN input, and FFN also compresses FFN
// down by truncated SVD.
const (
	QKV Slots = 1 << iota
	O
	FFN
)

// AllSlots is every slot group.
const AllSlots = QKV | O | FFN

// ParseSlots reads a slot set: a comma-separated list of qkv, o and ffn
// ("qkv", "qkv,o,ffn"), or all.
func ParseSlots(s string) (Slots, error) {
	if strings.TrimSpace(s) == "all" {
		return AllSlots, nil
	}
	var set Slots
	for _, f := range strings.Split(s, ",") {
		var b Slots
		switch strings.TrimSpace(f) {
		case "qkv":
			b = QKV
		case "o":
			b = O
		case "ffn":
			b = FFN
		default:
			return 0, fmt.Errorf("slot set %q: want a comma-separated list of qkv, o and ffn, or all", s)
		}
		if set&b != 0 {
			return 0, fmt.Errorf("slot set %q names %s twice", s, strings.TrimSpace(f))
		}
		set |= b
	}
	return set, nil
}

// String is the canonical form: "qkv", "o", "ffn" in that order, comma-separated.
func (s Slots) String() string {
	var parts []string
	for _, g := range []struct {
		b    Slots
		name string
	}{{QKV, "qkv"}, {O, "o"}, {FFN, "ffn"}} {
		if s&g.b != 0 {
			parts = append(parts, g.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

func (s Slots) valid() error {
	if s == 0 || s&^AllSlots != 0 {
		return fmt.Errorf("grc: slot set %#x is not a non-empty set of qkv, o and ffn", uint8(s))
	}
	return nil
}

// Slot is one weight matrix of a block.
type Slot uint8

// The seven compressible matrices of a block.
const (
	SlotQ Slot = iota
	SlotK
	SlotV
	SlotO
	SlotGate
	SlotUp
	SlotDown
)

func (s Slot) String() string {
	switch s {
	case SlotQ:
		return "q"
	case SlotK:
		return "k"
	case SlotV:
		return "v"
	case SlotO:
		return "o"
	case SlotGate:
		return "gate"
	case SlotUp:
		return "up"
	case SlotDown:
		return "down"
	}
	return fmt.Sprintf("slot%d", uint8(s))
}

// MarshalText writes the slot's name (cache metadata stays readable).
func (s Slot) MarshalText() ([]byte, error) {
	if s > SlotDown {
		return nil, fmt.Errorf("grc: no slot %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a slot's name.
func (s *Slot) UnmarshalText(b []byte) error {
	for v := SlotQ; v <= SlotDown; v++ {
		if v.String() == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("grc: unknown slot %q", b)
}

// Alloc is how ranks are spread over blocks.
type Alloc uint8

// The allocations: the same rank everywhere (Paper 1), GP's spectrum score
// with a floor (Paper 2 §4), MCR's phase profile from calibration hidden
// states (Paper 6 §2).
const (
	AllocUniform Alloc = iota
	AllocGP
	AllocMCR
)

// ParseAlloc reads uniform, gp or mcr.
func ParseAlloc(s string) (Alloc, error) {
	switch s {
	case "uniform":
		return AllocUniform, nil
	case "gp":
		return AllocGP, nil
	case "mcr":
		return AllocMCR, nil
	}
	return 0, fmt.Errorf("allocation %q: want uniform, gp or mcr", s)
}

func (a Alloc) String() string {
	switch a {
	case AllocUniform:
		return "uniform"
	case AllocGP:
		return "gp"
	case AllocMCR:
		return "mcr"
	}
	return fmt.Sprintf("alloc%d", uint8(a))
}

// Spec is what a user asks for; with the model it determines a GRC, so
// its Key names the cache file.
type Spec struct {
	Slots Slots
	Alloc Alloc
	// K is every block's rank (uniform), or the mean rank (GP, MCR).
	K int
	// Floor and Max bound the per-block rank under GP and MCR: 0 means the
	// defaults, k_floor = ⌈0.55·Dim⌉ (Paper 2 §4: small models collapse
	// below about 0.4·d) and k_max = Dim. Uniform takes neither.
	Floor, Max int
	// Calib identifies the calibration tokens (CalibrationID) of what
	// depends on them: MCR's ranks and the sink bypass's thresholds.
	Calib string
	// Gauge folds |γ| of the norm a group reads into its matrices before
	// truncation (Gauge; Q/K/V and gate/up only).
	Gauge bool
	// SinkChannels is T: each Q/K/V and gate/up group keeps its T heaviest
	// input channels exact (SinkChannels) and truncates the rest at rank
	// k − T, so a block's stored width stays k.
	SinkChannels int
	// SinkBypass runs positions whose residual stream is an outlier
	// (‖h‖ > μ + 3σ over the calibration text) on the dense weights.
	SinkBypass bool
}

// DefaultFloor is k_floor = ⌈0.55·Dim⌉.
func DefaultFloor(m *model.Model) int { return (55*m.Dim + 99) / 100 }

// Resolve checks a spec against the model and fills in the default
// floor and cap.
func Resolve(m *model.Model, sp Spec) (Spec, error) {
	if err := sp.Slots.valid(); err != nil {
		return sp, err
	}
	if n := expertBlocks(m, sp.Slots); n == m.Layers && sp.Slots&^FFN == 0 {
		return sp, fmt.Errorf("grc: slots %s compress nothing in this model: its %d blocks are mixtures of experts, whose experts stay dense (compress qkv or o)", sp.Slots, n)
	}
	if sp.K < 1 || sp.K > m.Dim {
		return sp, fmt.Errorf("grc: GRC rank %d outside 1…%d (the embedding width)", sp.K, m.Dim)
	}
	if sp.Gauge && sp.Slots&(QKV|FFN) == 0 {
		return sp, fmt.Errorf("grc: the gauge applies to qkv and ffn, not to slots %s", sp.Slots)
	}
	if sp.SinkChannels != 0 && sp.Slots&(QKV|FFN) == 0 {
		return sp, fmt.Errorf("grc: sink channels apply to qkv and ffn, not to slots %s", sp.Slots)
	}
	if sp.SinkChannels < 0 || sp.SinkChannels >= min(sp.K, m.Dim) {
		return sp, fmt.Errorf("grc: %d sink channels leave no room at rank %d (want 0…%d)", sp.SinkChannels, sp.K, sp.K-1)
	}
	wantCalib := sp.Alloc == AllocMCR || sp.SinkBypass
	if wantCalib {
		if sp.Calib == "" || strings.Trim(sp.Calib, "0123456789abcdef") != "" || len(sp.Calib) > 64 {
			return sp, fmt.Errorf("grc: MCR and the sink bypass need a calibration id (hex), got %q", sp.Calib)
		}
	} else if sp.Calib != "" {
		return sp, fmt.Errorf("grc: calibration is for mcr and the sink bypass, not %s alone", sp.Alloc)
	}
	switch sp.Alloc {
	case AllocUniform:
		if sp.Floor != 0 || sp.Max != 0 {
			return sp, fmt.Errorf("grc: uniform rank takes no floor or cap (they are for gp and mcr)")
		}
		return sp, nil
	case AllocGP, AllocMCR:
	default:
		return sp, fmt.Errorf("grc: unknown GRC allocation %d", sp.Alloc)
	}
	if sp.Floor == 0 {
		sp.Floor = DefaultFloor(m)
	}
	if sp.Max == 0 {
		sp.Max = m.Dim
	}
	if sp.Floor < 1 || sp.Floor > sp.Max || sp.Max > m.Dim {
		return sp, fmt.Errorf("grc: GRC rank bounds [%d, %d] outside 1…%d", sp.Floor, sp.Max, m.Dim)
	}
	if sp.SinkChannels >= sp.Floor {
		return sp, fmt.Errorf("grc: %d sink channels leave no room at the floor rank %d", sp.SinkChannels, sp.Floor)
	}
	return sp, nil
}

// Key names the spec in a cache file name: the slot set ("qkv",
// "qkv+o+ffn") for uniform rank, then for GP and MCR the allocation and
// its bounds, then "-gauge", "-sc<T>" and "-sb" for the mechanisms on,
// and the calibration id when MCR or the bypass read one. Resolve the
// spec first.
func (sp Spec) Key() string {
	k := strings.ReplaceAll(sp.Slots.String(), ",", "+")
	switch sp.Alloc {
	case AllocGP:
		k += fmt.Sprintf("-gp-f%d-m%d", sp.Floor, sp.Max)
	case AllocMCR:
		k += fmt.Sprintf("-mcr-f%d-m%d", sp.Floor, sp.Max)
	}
	if sp.Gauge {
		k += "-gauge"
	}
	if sp.SinkChannels > 0 {
		k += fmt.Sprintf("-sc%d", sp.SinkChannels)
	}
	if sp.SinkBypass {
		k += "-sb"
	}
	if sp.Calib != "" {
		k += "-c" + sp.Calib
	}
	return k
}

// Plan is a resolved spec with every block's rank.
type Plan struct {
	Spec
	Ranks []int
	// Quantum is the step the allocation moved ranks in (32 keeps
	// projected rows whole Q8_0 blocks on quantised models; 1 otherwise).
	Quantum int
	// Phases is MCR's label per block ("mix", "compress", "refine").
	Phases []string
	// Notes say what the plan had to decide: bounds that bit, a flat
	// profile that fell back to uniform, slots that are lossless or stored
	// at their input width.
	Notes []string
	// Profile is the calibration pass the plan was made with (nil: none):
	// BuildPlan detects the depth-sink block from it and takes the sink
	// bypass's thresholds and the layers' intrinsic dimension.
	Profile *Profile
}

// Plan resolves a spec into per-block ranks. GP decomposes every block
// first (progress and cancellation as in Decompose); MCR and the sink
// bypass need prof, the calibration pass (LayerProfile) over the text that
// spec.Calib names. Without them prof may be nil; given, it is kept in the
// plan for BuildPlan (depth-sink detection, intrinsic dimension).
func (gb *Builder) Plan(ctx context.Context, spec Spec, prof *Profile, progress func(done, total int)) (Plan, error) {
	m := gb.m
	sp, err := Resolve(m, spec)
	if err != nil {
		return Plan{}, err
	}
	if sp.Slots != gb.slots {
		return Plan{}, fmt.Errorf("grc: a spec for slots %s given to a builder for %s", sp.Slots, gb.slots)
	}
	L := m.Layers
	plan := Plan{Spec: sp, Quantum: 1, Profile: prof}
	if prof != nil && len(prof.Variance) != L {
		return Plan{}, fmt.Errorf("grc: a calibration profile of %d blocks for a model of %d", len(prof.Variance), L)
	}
	if sp.SinkBypass && prof == nil {
		return Plan{}, fmt.Errorf("grc: the sink bypass needs the calibration pass")
	}
	v := variantOf(sp)
	var a Allocation
	switch sp.Alloc {
	case AllocUniform:
		plan.Ranks = make([]int, L)
		for l := range plan.Ranks {
			plan.Ranks[l] = sp.K
		}
	case AllocGP:
		if err := gb.decomposeAll(ctx, v, progress); err != nil {
			return Plan{}, err
		}
		// A mixture of experts leaves its expert blocks' ffn and down
		// dense: score every block on the groups all of them compress,
		// so that a leading dense block does not outscore the others by
		// having two more groups.
		ffn := expertBlocks(m, sp.Slots) == 0
		scores := make([]float64, L)
		for l, b := range gb.blocks {
			for g := range 3 {
				if d := b.dec(g, v); d != nil && (g < 2 || ffn) {
					scores[l] += EffectiveRank(d.Spectrum)
				}
			}
			if b.svd != nil && ffn {
				scores[l] += EffectiveRank(b.svd.Spectrum)
			}
		}
		plan.Quantum = quantum(m, sp.Slots)
		a, err = GP(scores, sp.K, Bounds{Floor: sp.Floor, Max: sp.Max, Quantum: plan.Quantum})
	case AllocMCR:
		if prof == nil {
			return Plan{}, fmt.Errorf("grc: MCR needs the hidden-state variance of all %d blocks", L)
		}
		plan.Quantum = quantum(m, sp.Slots)
		a, err = MCR(prof.Variance, sp.K, Bounds{Floor: sp.Floor, Max: sp.Max, Quantum: plan.Quantum}, DefaultMCR())
		for _, p := range a.Phases {
			plan.Phases = append(plan.Phases, p.String())
		}
	}
	if err != nil {
		return Plan{}, fmt.Errorf("grc: %s allocation: %w", sp.Alloc, err)
	}
	if sp.Alloc != AllocUniform {
		plan.Ranks = a.Ranks
		if q := plan.Quantum; q > 1 {
			plan.Notes = append(plan.Notes, fmt.Sprintf("ranks in steps of %d so the projected rows stay whole Q8_0 blocks (bounds %d…%d)",
				q, (sp.Floor+q-1)/q*q, sp.Max/q*q))
		}
		for _, n := range a.Notes {
			plan.Notes = append(plan.Notes, sp.Alloc.String()+": "+n)
		}
	}
	plan.Notes = append(plan.Notes, groupNotes(m, plan)...)
	return plan, nil
}

// groupNotes says which groups are lossless or stored below the block's
// rank, so that no rank is clamped silently.
func groupNotes(m *model.Model, plan Plan) []string {
	var notes []string
	if n := expertBlocks(m, plan.Slots); n > 0 {
		notes = append(notes, fmt.Sprintf("ffn, down: experts stay dense in the %d of %d blocks that are mixtures of experts (their attention compresses)", n, len(plan.Ranks)))
	} else if m.IsMoE() {
		notes = append(notes, "experts stay dense (GRC compresses attention and dense feed-forward blocks, not experts)")
	}
	for _, g := range groupsOf(plan.Slots) {
		_, _, in, rows := groupInfo(m, g, 0)
		lossless, capped, blocks := 0, 0, 0
		for l, r := range plan.Ranks {
			if !slices.Contains(layerGroups(m, plan.Slots, l), g) {
				continue
			}
			blocks++
			k := groupK(m, g, r)
			if k < r {
				capped++
			}
			if groupLossless(m, g, k) {
				lossless++
			}
		}
		if capped > 0 {
			notes = append(notes, fmt.Sprintf("%s: stored at rank %d (its input width) in %d blocks", groupName(g), min(in, rows), capped))
		}
		if lossless > 0 {
			notes = append(notes, fmt.Sprintf("%s: lossless in %d of %d blocks (k ≥ min(out, in) = %d)", groupName(g), lossless, blocks, min(in, rows)))
		}
	}
	return notes
}

// quantum is the rank step of GP and MCR plans: 32 when a compressed
// matrix would be stored as Q8_0 (its rows must be whole 32-value blocks,
// else it falls back to F16, nearly twice the bytes), 1 otherwise.
func quantum(m *model.Model, slots Slots) int {
	if m.Dim%tensor.QK != 0 {
		return 1
	}
	for l := range m.Layers {
		for _, g := range layerGroups(m, slots, l) {
			ws, _, _, _ := groupInfo(m, g, l)
			if grcStorage(ws[0].Type, tensor.QK) == tensor.Q8_0 {
				return tensor.QK
			}
		}
	}
	return 1
}
