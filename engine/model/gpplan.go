package model

import (
	"context"
	"fmt"
	"strings"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// GRCSlots is a set of slot groups to compress (docs/mechanisms.md §2).
type GRCSlots uint8

// The slot groups. Each has one basis per block: Q/K/V share a joint Gram
// over the attention input, O has its own over the attention output, FFN
// gate and up share one over the FFN input, and GRCFFN also compresses FFN
// down by truncated SVD.
const (
	GRCQKV GRCSlots = 1 << iota
	GRCO
	GRCFFN
)

// GRCAllSlots is every slot group.
const GRCAllSlots = GRCQKV | GRCO | GRCFFN

// ParseGRCSlots reads a slot set: a comma-separated list of qkv, o and ffn
// ("qkv", "qkv,o,ffn"), or all.
func ParseGRCSlots(s string) (GRCSlots, error) {
	if strings.TrimSpace(s) == "all" {
		return GRCAllSlots, nil
	}
	var set GRCSlots
	for _, f := range strings.Split(s, ",") {
		var b GRCSlots
		switch strings.TrimSpace(f) {
		case "qkv":
			b = GRCQKV
		case "o":
			b = GRCO
		case "ffn":
			b = GRCFFN
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
func (s GRCSlots) String() string {
	var parts []string
	for _, g := range []struct {
		b    GRCSlots
		name string
	}{{GRCQKV, "qkv"}, {GRCO, "o"}, {GRCFFN, "ffn"}} {
		if s&g.b != 0 {
			parts = append(parts, g.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

func (s GRCSlots) valid() error {
	if s == 0 || s&^GRCAllSlots != 0 {
		return fmt.Errorf("model: slot set %#x is not a non-empty set of qkv, o and ffn", uint8(s))
	}
	return nil
}

// GRCSlot is one weight matrix of a block.
type GRCSlot uint8

// The seven compressible matrices of a block.
const (
	SlotQ GRCSlot = iota
	SlotK
	SlotV
	SlotO
	SlotGate
	SlotUp
	SlotDown
)

func (s GRCSlot) String() string {
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
func (s GRCSlot) MarshalText() ([]byte, error) {
	if s > SlotDown {
		return nil, fmt.Errorf("model: no slot %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a slot's name.
func (s *GRCSlot) UnmarshalText(b []byte) error {
	for v := SlotQ; v <= SlotDown; v++ {
		if v.String() == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("model: unknown slot %q", b)
}

// GRCAlloc is how ranks are spread over blocks.
type GRCAlloc uint8

// The allocations: the same rank everywhere (Paper 1), GP's spectrum score
// with a floor (Paper 2 §4), MCR's phase profile from calibration hidden
// states (Paper 6 §2).
const (
	GRCUniform GRCAlloc = iota
	GRCGP
	GRCMCR
)

// ParseGRCAlloc reads uniform, gp or mcr.
func ParseGRCAlloc(s string) (GRCAlloc, error) {
	switch s {
	case "uniform":
		return GRCUniform, nil
	case "gp":
		return GRCGP, nil
	case "mcr":
		return GRCMCR, nil
	}
	return 0, fmt.Errorf("allocation %q: want uniform, gp or mcr", s)
}

func (a GRCAlloc) String() string {
	switch a {
	case GRCUniform:
		return "uniform"
	case GRCGP:
		return "gp"
	case GRCMCR:
		return "mcr"
	}
	return fmt.Sprintf("alloc%d", uint8(a))
}

// GRCSpec is what a user asks for; with the model it determines a GRC, so
// its Key names the cache file.
type GRCSpec struct {
	Slots GRCSlots
	Alloc GRCAlloc
	// K is every block's rank (uniform), or the mean rank (GP, MCR).
	K int
	// Floor and Max bound the per-block rank under GP and MCR: 0 means the
	// defaults, k_floor = ⌈0.55·Dim⌉ (Paper 2 §4: small models collapse
	// below about 0.4·d) and k_max = Dim. Uniform takes neither.
	Floor, Max int
	// Calib identifies MCR's calibration tokens (CalibrationID).
	Calib string
}

// DefaultGRCFloor is k_floor = ⌈0.55·Dim⌉.
func (m *Model) DefaultGRCFloor() int { return (55*m.Dim + 99) / 100 }

// ResolveGRCSpec checks a spec against the model and fills in the default
// floor and cap.
func (m *Model) ResolveGRCSpec(sp GRCSpec) (GRCSpec, error) {
	if err := sp.Slots.valid(); err != nil {
		return sp, err
	}
	if sp.K < 1 || sp.K > m.Dim {
		return sp, fmt.Errorf("model: GRC rank %d outside 1…%d (the embedding width)", sp.K, m.Dim)
	}
	switch sp.Alloc {
	case GRCUniform:
		if sp.Floor != 0 || sp.Max != 0 || sp.Calib != "" {
			return sp, fmt.Errorf("model: uniform rank takes no floor, cap or calibration (they are for gp and mcr)")
		}
		return sp, nil
	case GRCGP, GRCMCR:
	default:
		return sp, fmt.Errorf("model: unknown GRC allocation %d", sp.Alloc)
	}
	if sp.Floor == 0 {
		sp.Floor = m.DefaultGRCFloor()
	}
	if sp.Max == 0 {
		sp.Max = m.Dim
	}
	if sp.Floor < 1 || sp.Floor > sp.Max || sp.Max > m.Dim {
		return sp, fmt.Errorf("model: GRC rank bounds [%d, %d] outside 1…%d", sp.Floor, sp.Max, m.Dim)
	}
	if sp.Alloc == GRCMCR {
		if sp.Calib == "" || strings.Trim(sp.Calib, "0123456789abcdef") != "" || len(sp.Calib) > 64 {
			return sp, fmt.Errorf("model: MCR needs a calibration id (hex), got %q", sp.Calib)
		}
	} else if sp.Calib != "" {
		return sp, fmt.Errorf("model: gp takes no calibration (it is for mcr)")
	}
	return sp, nil
}

// Key names the spec in a cache file name: the slot set ("qkv",
// "qkv+o+ffn") for uniform rank, then for GP and MCR the allocation and
// its bounds, and MCR's calibration id. Resolve the spec first.
func (sp GRCSpec) Key() string {
	k := strings.ReplaceAll(sp.Slots.String(), ",", "+")
	switch sp.Alloc {
	case GRCGP:
		k += fmt.Sprintf("-gp-f%d-m%d", sp.Floor, sp.Max)
	case GRCMCR:
		k += fmt.Sprintf("-mcr-f%d-m%d-c%s", sp.Floor, sp.Max, sp.Calib)
	}
	return k
}

// GRCPlan is a resolved spec with every block's rank.
type GRCPlan struct {
	GRCSpec
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
}

// Plan resolves a spec into per-block ranks. GP decomposes every block
// first (progress and cancellation as in Decompose); MCR needs variance,
// the per-layer hidden-state variance from LayerVariance over the
// calibration text that spec.Calib names.
func (gb *GRCBuilder) Plan(ctx context.Context, spec GRCSpec, variance []float64, progress func(done, total int)) (GRCPlan, error) {
	m := gb.m
	sp, err := m.ResolveGRCSpec(spec)
	if err != nil {
		return GRCPlan{}, err
	}
	if sp.Slots != gb.slots {
		return GRCPlan{}, fmt.Errorf("model: a spec for slots %s given to a builder for %s", sp.Slots, gb.slots)
	}
	L := len(m.layers)
	plan := GRCPlan{GRCSpec: sp, Quantum: 1}
	var a grc.Allocation
	switch sp.Alloc {
	case GRCUniform:
		plan.Ranks = make([]int, L)
		for l := range plan.Ranks {
			plan.Ranks[l] = sp.K
		}
	case GRCGP:
		if err := gb.Decompose(ctx, progress); err != nil {
			return GRCPlan{}, err
		}
		scores := make([]float64, L)
		for l, b := range gb.blocks {
			for _, d := range b.gram {
				if d != nil {
					scores[l] += grc.EffectiveRank(d.Spectrum)
				}
			}
			if b.svd != nil {
				scores[l] += grc.EffectiveRank(b.svd.Spectrum)
			}
		}
		plan.Quantum = m.grcQuantum(sp.Slots)
		a, err = grc.GP(scores, sp.K, grc.Bounds{Floor: sp.Floor, Max: sp.Max, Quantum: plan.Quantum})
	case GRCMCR:
		if len(variance) != L {
			return GRCPlan{}, fmt.Errorf("model: MCR needs the hidden-state variance of all %d blocks, got %d", L, len(variance))
		}
		plan.Quantum = m.grcQuantum(sp.Slots)
		a, err = grc.MCR(variance, sp.K, grc.Bounds{Floor: sp.Floor, Max: sp.Max, Quantum: plan.Quantum}, grc.DefaultMCR())
		for _, p := range a.Phases {
			plan.Phases = append(plan.Phases, p.String())
		}
	}
	if err != nil {
		return GRCPlan{}, fmt.Errorf("model: %s allocation: %w", sp.Alloc, err)
	}
	if sp.Alloc != GRCUniform {
		plan.Ranks = a.Ranks
		if q := plan.Quantum; q > 1 {
			plan.Notes = append(plan.Notes, fmt.Sprintf("ranks in steps of %d so the projected rows stay whole Q8_0 blocks (bounds %d…%d)",
				q, (sp.Floor+q-1)/q*q, sp.Max/q*q))
		}
		for _, n := range a.Notes {
			plan.Notes = append(plan.Notes, sp.Alloc.String()+": "+n)
		}
	}
	plan.Notes = append(plan.Notes, m.groupNotes(plan)...)
	return plan, nil
}

// groupNotes says which groups are lossless or stored below the block's
// rank, so that no rank is clamped silently.
func (m *Model) groupNotes(plan GRCPlan) []string {
	var notes []string
	for _, g := range groupsOf(plan.Slots) {
		_, _, in, rows := m.groupInfo(g, 0)
		lossless, capped := 0, 0
		for _, r := range plan.Ranks {
			k := m.groupK(g, r)
			if k < r {
				capped++
			}
			if m.groupLossless(g, k) {
				lossless++
			}
		}
		if capped > 0 {
			notes = append(notes, fmt.Sprintf("%s: stored at rank %d (its input width) in %d blocks", groupName(g), min(in, rows), capped))
		}
		if lossless > 0 {
			notes = append(notes, fmt.Sprintf("%s: lossless in %d of %d blocks (k ≥ min(out, in) = %d)", groupName(g), lossless, len(plan.Ranks), min(in, rows)))
		}
	}
	return notes
}

// grcQuantum is the rank step of GP and MCR plans: 32 when a compressed
// matrix would be stored as Q8_0 (its rows must be whole 32-value blocks,
// else it falls back to F16, nearly twice the bytes), 1 otherwise.
func (m *Model) grcQuantum(slots GRCSlots) int {
	if m.Dim%tensor.QK != 0 {
		return 1
	}
	for l := range m.layers {
		for _, g := range groupsOf(slots) {
			ws, _, _, _ := m.groupInfo(g, l)
			if grcStorage(ws[0].Type, tensor.QK) == tensor.Q8_0 {
				return tensor.QK
			}
		}
	}
	return 1
}
