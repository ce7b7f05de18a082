package grc

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/model"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// CacheFormat versions what a GRC cache file holds. Files written
// before the GP slots (same number, four matrices per block, no depth-sink
// check) are refused by FromCache and rebuilt, like any other mismatch.
const CacheFormat = 1

// grcMeta is a cache file's knobs: what it holds and how it was planned.
type grcMeta struct {
	Format  int       `json:"format"`
	K       int       `json:"k"`
	Slots   string    `json:"slots"`
	Alloc   string    `json:"alloc"`
	Floor   int       `json:"floor,omitempty"`
	Max     int       `json:"max,omitempty"`
	Calib   string    `json:"calib,omitempty"`
	Ranks   []int     `json:"ranks"`
	Quantum int       `json:"quantum"`
	Phases  []string  `json:"phases,omitempty"`
	Notes   []string  `json:"notes,omitempty"`
	Blocks  int       `json:"blocks"`
	Stats   []Block   `json:"stats"`
	Types   []uint32  `json:"types"` // per section
	Check   Check     `json:"check"`
	Gauge   bool      `json:"gauge,omitempty"`
	Sink    int       `json:"sink_channels,omitempty"`
	Bypass  []float32 `json:"bypass,omitempty"`
	Depth   *Depth    `json:"depth,omitempty"`
}

// matrices lists a layer's compressed matrices in cache order: per group
// (qkv, o, ffn, down) its basis, then its projected weights.
func (l *grcLayer) matrices() []*tensor.Matrix {
	var out []*tensor.Matrix
	for gi := range 4 {
		if g := *l.group(gi); g != nil {
			out = append(out, g.in)
			out = append(out, g.out...)
		}
	}
	return out
}

// CacheBlob is one matrix of a cached GRC: a name and its bytes in their
// tensor type. The container that holds them (a .miku file, with the
// model's identity and times) is the caller's: the engine does not know it.
type CacheBlob struct {
	Name string
	Data []byte
}

// CacheSections encodes g for a cache file: its knobs (JSON) and one blob
// per matrix.
func (g *Compression) CacheSections() (knobs []byte, sections []CacheBlob, err error) {
	p := g.Plan
	meta := grcMeta{
		Format: CacheFormat, K: p.K, Slots: p.Slots.String(), Alloc: p.Alloc.String(),
		Floor: p.Floor, Max: p.Max, Calib: p.Calib, Ranks: p.Ranks, Quantum: p.Quantum,
		Phases: p.Phases, Notes: p.Notes, Blocks: len(g.layers), Stats: g.Blocks, Check: g.Check,
		Gauge: p.Gauge, Sink: p.SinkChannels, Bypass: g.Bypass, Depth: g.Depth,
	}
	for l := range g.layers {
		for i, m := range g.layers[l].matrices() {
			meta.Types = append(meta.Types, uint32(m.Type))
			sections = append(sections, CacheBlob{Name: fmt.Sprintf("b%d.%d", l, i), Data: m.Data})
		}
	}
	knobs, err = json.Marshal(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("grc: encoding a GRC: %w", err)
	}
	return knobs, sections, nil
}

// FromCache decodes a cache file's knobs and sections into the GRC that
// spec asks for. Anything that does not match — another format, slot set,
// allocation, rank, bounds or calibration; a shape this model cannot run;
// a basis that fails the depth-sink check (Verify) — is an error, and
// the caller rebuilds: a cache is never used on trust.
func FromCache(m *model.Model, spec Spec, knobs []byte, sections []CacheBlob) (*Compression, error) {
	sp, err := Resolve(m, spec)
	if err != nil {
		return nil, err
	}
	var meta grcMeta
	if err := json.Unmarshal(knobs, &meta); err != nil {
		return nil, fmt.Errorf("grc: GRC cache knobs: %w", err)
	}
	if meta.Format != CacheFormat || meta.Slots != sp.Slots.String() || meta.Alloc != sp.Alloc.String() ||
		meta.K != sp.K || meta.Floor != sp.Floor || meta.Max != sp.Max || meta.Calib != sp.Calib ||
		meta.Gauge != sp.Gauge || meta.Sink != sp.SinkChannels {
		return nil, fmt.Errorf("grc: GRC cache holds format %d, slots %q, %s rank %d [%d, %d] %q gauge %v sink channels %d; want format %d, slots %q, %s rank %d [%d, %d] %q gauge %v sink channels %d",
			meta.Format, meta.Slots, meta.Alloc, meta.K, meta.Floor, meta.Max, meta.Calib, meta.Gauge, meta.Sink,
			CacheFormat, sp.Slots, sp.Alloc, sp.K, sp.Floor, sp.Max, sp.Calib, sp.Gauge, sp.SinkChannels)
	}
	if sp.SinkBypass != (meta.Bypass != nil) || meta.Bypass != nil && len(meta.Bypass) != m.Layers {
		return nil, fmt.Errorf("grc: GRC cache has %d bypass thresholds, want them %v for %d blocks", len(meta.Bypass), sp.SinkBypass, m.Layers)
	}
	for _, t := range meta.Bypass {
		if !(t >= 0) || math.IsInf(float64(t), 0) {
			return nil, fmt.Errorf("grc: GRC cache holds a bypass threshold of %g", t)
		}
	}
	if d := meta.Depth; d != nil && (len(d.IntrinsicDim) != m.Layers || d.Sink < 0 || d.Sink >= m.Layers) {
		return nil, fmt.Errorf("grc: GRC cache's depth profile does not fit %d blocks", m.Layers)
	}
	plan := Plan{Spec: sp, Ranks: meta.Ranks, Quantum: meta.Quantum, Phases: meta.Phases, Notes: meta.Notes}
	if err := checkRanks(m, plan); err != nil {
		return nil, fmt.Errorf("grc: GRC cache: %w", err)
	}
	if meta.Blocks != m.Layers || len(meta.Stats) != m.Layers {
		return nil, fmt.Errorf("grc: GRC cache has %d blocks, the model %d", meta.Blocks, m.Layers)
	}
	g := &Compression{K: sp.K, Plan: plan, Check: meta.Check, Bypass: meta.Bypass, Depth: meta.Depth}
	next := 0
	for l := range m.Layers {
		r := plan.Ranks[l]
		var gl grcLayer
		blk := Block{Rank: r}
		stats := meta.Stats[l].Slots
		for _, gi := range layerGroups(m, sp.Slots, l) {
			ws, names, in, _ := groupInfo(m, gi, l)
			k := groupK(m, gi, r)
			shapes := [][2]int{{k, in}}
			for _, w := range ws {
				shapes = append(shapes, [2]int{w.Rows, k})
			}
			var mats []*tensor.Matrix
			for _, sh := range shapes {
				if next >= len(sections) || next >= len(meta.Types) {
					return nil, fmt.Errorf("grc: GRC cache ends at block %d", l)
				}
				mm, err := tensor.NewMatrix(tensor.Type(meta.Types[next]), sh[0], sh[1], sections[next].Data)
				if err != nil {
					return nil, fmt.Errorf("grc: GRC cache block %d %s: %w", l, groupName(gi), err)
				}
				mats = append(mats, mm)
				g.BytesAfter += int64(len(mm.Data))
				next++
			}
			*gl.group(gi) = &grcGroup{k: k, in: mats[0], out: mats[1:]}
			g.maxK = max(g.maxK, k)
			for _, w := range ws {
				g.BytesBefore += int64(len(w.Data))
			}
			for _, name := range names {
				i := len(blk.Slots)
				if i >= len(stats) || stats[i].Slot != name {
					return nil, fmt.Errorf("grc: GRC cache block %d lists other slots than %s", l, sp.Slots)
				}
				st := stats[i]
				st.K, st.Lossless = k, groupLossless(m, gi, k)
				blk.Slots = append(blk.Slots, st)
			}
		}
		if len(blk.Slots) != len(stats) {
			return nil, fmt.Errorf("grc: GRC cache block %d lists other slots than %s", l, sp.Slots)
		}
		g.layers = append(g.layers, gl)
		g.Blocks = append(g.Blocks, blk)
	}
	if next != len(sections) || next != len(meta.Types) {
		return nil, fmt.Errorf("grc: GRC cache has %d sections, the plan %d", len(sections), next)
	}
	g.Energy = qkvEnergy(g.Blocks)
	if err := Verify(m, g); err != nil {
		return nil, err
	}
	return g, nil
}
