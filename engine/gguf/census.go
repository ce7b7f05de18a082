package gguf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Census is a file's tensor types by layer and file-wide. It is read from
// the tensor infos alone — no tensor data, no kernels — so it describes a
// file whose types this build cannot compute as well as one it can: what
// an importance-matrix or "dynamic" quantisation put where (unsloth's UD
// files give the expert stacks IQ1_S/IQ2_XXS/IQ3_S and the attention
// Q8_0, say).
type Census struct {
	// Layers are the blocks (tensors named blk.N.…), in N order. A file
	// that skips a block has no entry for it.
	Layers []LayerCensus
	// Other holds the tensors outside the blocks (token_embd, output,
	// output_norm, rope_freqs, …); its Layer is -1.
	Other LayerCensus
	// Types is every type of the file with its tensors and bytes, most
	// bytes first, ties by type id.
	Types []TypeBytes
	// Tensors and Bytes are the file's totals.
	Tensors int
	Bytes   uint64
}

// LayerCensus is one block's types.
type LayerCensus struct {
	Layer int // N of blk.N, or -1 for the tensors outside the blocks
	// Slots are the layer's matrices (tensors of two or more dimensions)
	// by slot (attn_q, ffn_down, ffn_gate_exps, ffn_gate_inp for the
	// router, token_embd, …) in a fixed order: attention, router, dense
	// feed-forward, expert stacks, shared experts, then any other slot by
	// name. A slot whose tensors have two types has two entries.
	Slots []SlotType
	// Types is every tensor of the layer by type, vectors (norms,
	// biases) included, most bytes first.
	Types []TypeBytes
}

// SlotType is the type of one matrix slot and what it holds.
type SlotType struct {
	// Slot is the tensor's name without blk.N. and .weight. A stack of
	// experts, one 3-D tensor or (older files) one 2-D tensor per expert
	// (blk.N.ffn_gate.E.weight), is its stack's slot, ffn_gate_exps.
	Slot    string
	Type    tensor.Type
	Tensors int
	Bytes   uint64
}

// TypeBytes is how many tensors, and bytes, use one type.
type TypeBytes struct {
	Type    tensor.Type
	Tensors int
	Bytes   uint64
}

// Share is t's part of total bytes, from 0 to 1 (0 when total is 0).
func (t TypeBytes) Share(total uint64) float64 {
	if total == 0 {
		return 0
	}
	return float64(t.Bytes) / float64(total)
}

// Census groups f's tensors by layer and type. It reads the header only.
func (f *File) Census() *Census {
	return CensusOf(f.Tensors)
}

// CensusOf is the census of a list of tensor infos (a File's Tensors).
func CensusOf(tensors []TensorInfo) *Census {
	c := &Census{Other: LayerCensus{Layer: -1}}
	// Where each layer, and each layer's slot and type, sits in its list:
	// a hostile file's many tensors cost a map lookup each, not a search.
	layerAt := map[int]int{}
	type slotKey struct {
		layer int // -1: Other
		slot  string
		typ   tensor.Type
	}
	slotAt := map[slotKey]int{}
	typeAt := map[slotKey]int{} // slot ""
	fileAt := map[tensor.Type]int{}
	for i := range tensors {
		ti := &tensors[i]
		c.Tensors++
		c.Bytes += ti.Size
		c.Types = tally(c.Types, fileAt, ti.Type, 1, ti.Size)
		L, li, rest := &c.Other, -1, ti.Name
		if n, r, ok := blockOf(ti.Name); ok {
			j, seen := layerAt[n]
			if !seen {
				j = len(c.Layers)
				layerAt[n] = j
				c.Layers = append(c.Layers, LayerCensus{Layer: n})
			}
			L, li, rest = &c.Layers[j], j, r
		}
		k := slotKey{layer: li, typ: ti.Type}
		j, seen := typeAt[k]
		if !seen {
			j = len(L.Types)
			typeAt[k] = j
			L.Types = append(L.Types, TypeBytes{Type: ti.Type})
		}
		L.Types[j].Tensors++
		L.Types[j].Bytes += ti.Size
		if slot, ok := slotOf(rest, len(ti.Dims)); ok {
			k.slot = slot
			j, seen := slotAt[k]
			if !seen {
				j = len(L.Slots)
				slotAt[k] = j
				L.Slots = append(L.Slots, SlotType{Slot: slot, Type: ti.Type})
			}
			L.Slots[j].Tensors++
			L.Slots[j].Bytes += ti.Size
		}
	}
	slices.SortFunc(c.Layers, func(a, b LayerCensus) int { return cmp.Compare(a.Layer, b.Layer) })
	for i := range c.Layers {
		c.Layers[i].sort()
	}
	c.Other.sort()
	sortTypes(c.Types)
	return c
}

// tally adds tensors and bytes to type t's entry of ts, at[t] its index.
func tally(ts []TypeBytes, at map[tensor.Type]int, t tensor.Type, tensors int, bytes uint64) []TypeBytes {
	i, ok := at[t]
	if !ok {
		i = len(ts)
		at[t] = i
		ts = append(ts, TypeBytes{Type: t})
	}
	ts[i].Tensors += tensors
	ts[i].Bytes += bytes
	return ts
}

// MatrixTypes are the types the file's matrices use (vectors — norms and
// biases, usually F32 — left out), most matrix bytes first. More than one
// means the file mixes quantisations.
func (c *Census) MatrixTypes() []tensor.Type {
	var t []TypeBytes
	at := map[tensor.Type]int{}
	for _, L := range append(slices.Clip(c.Layers), c.Other) {
		for _, s := range L.Slots {
			t = tally(t, at, s.Type, s.Tensors, s.Bytes)
		}
	}
	sortTypes(t)
	out := make([]tensor.Type, len(t))
	for i := range t {
		out[i] = t[i].Type
	}
	return out
}

// Span is a run of consecutive layers whose slots use the same types: the
// compact form of a census, one row for a uniform file's blocks.
type Span struct {
	First, Last int // layer numbers, inclusive
	// Slots are the first layer's slots with Tensors and Bytes summed over
	// the span; Types likewise.
	Slots []SlotType
	Types []TypeBytes
}

// Spans compacts the census's layers: consecutive layers (N, N+1, …)
// whose slot names and types agree are one span.
func (c *Census) Spans() []Span {
	var out []Span
	var at map[tensor.Type]int // the last span's Types index
	for _, L := range c.Layers {
		if n := len(out); n > 0 && out[n-1].Last+1 == L.Layer && samePattern(out[n-1].Slots, L.Slots) {
			s := &out[n-1]
			s.Last = L.Layer
			for i := range s.Slots {
				s.Slots[i].Tensors += L.Slots[i].Tensors
				s.Slots[i].Bytes += L.Slots[i].Bytes
			}
			for _, t := range L.Types {
				s.Types = tally(s.Types, at, t.Type, t.Tensors, t.Bytes)
			}
			continue
		}
		at = map[tensor.Type]int{}
		var types []TypeBytes
		for _, t := range L.Types {
			types = tally(types, at, t.Type, t.Tensors, t.Bytes)
		}
		out = append(out, Span{First: L.Layer, Last: L.Layer, Slots: slices.Clone(L.Slots), Types: types})
	}
	for i := range out {
		sortTypes(out[i].Types)
	}
	return out
}

// Label names the span's layers: "blk 7", "blk 0–23".
func (s Span) Label() string {
	if s.First == s.Last {
		return fmt.Sprintf("blk %d", s.First)
	}
	return fmt.Sprintf("blk %d–%d", s.First, s.Last)
}

// Bytes is the span's tensor bytes.
func (s Span) Bytes() uint64 {
	var n uint64
	for _, t := range s.Types {
		n += t.Bytes
	}
	return n
}

// Pattern says in one line which type each slot uses, a family whose
// slots share one type in one word: "attn Q8_0, ffn_gate_exps IQ2_XXS,
// ffn_up_exps IQ2_XXS, ffn_down_exps IQ3_S".
func Pattern(slots []SlotType) string {
	// Each slot's types, in slot order ("Q4_K+Q8_0" for a slot whose
	// experts differ).
	var names, types []string
	for _, s := range slots {
		if n := len(names); n > 0 && names[n-1] == s.Slot {
			types[n-1] += "+" + s.Type.String()
			continue
		}
		names, types = append(names, s.Slot), append(types, s.Type.String())
	}
	var parts []string
	for i := 0; i < len(names); {
		fam := familyOf(names[i])
		j := i + 1
		for j < len(names) && fam != "" && familyOf(names[j]) == fam {
			j++
		}
		uniform := j-i > 1
		for k := i + 1; k < j; k++ {
			uniform = uniform && types[k] == types[i]
		}
		switch {
		case uniform:
			parts = append(parts, fam+" "+types[i])
		default:
			for k := i; k < j; k++ {
				name := names[k]
				if name == "ffn_gate_inp" {
					name = "router"
				}
				parts = append(parts, name+" "+types[k])
			}
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

// slotOrder is the order slots are listed in; a slot not here follows
// them by name. The index is the rank.
var slotOrder = [...]string{
	"token_embd", "output",
	"attn_q", "attn_k", "attn_v", "attn_qkv", "attn_output",
	"ffn_gate_inp",
	"ffn_gate", "ffn_up", "ffn_down",
	"ffn_gate_exps", "ffn_up_exps", "ffn_gate_up_exps", "ffn_down_exps",
	"ffn_gate_inp_shexp", "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp",
}

// familyOf is the word a pattern uses for a slot's family when all its
// slots share a type ("" for a slot that stands alone).
func familyOf(slot string) string {
	switch slot {
	case "attn_q", "attn_k", "attn_v", "attn_qkv", "attn_output":
		return "attn"
	case "ffn_gate", "ffn_up", "ffn_down":
		return "ffn"
	case "ffn_gate_exps", "ffn_up_exps", "ffn_gate_up_exps", "ffn_down_exps":
		return "ffn_exps"
	case "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp":
		return "ffn_shexp"
	}
	return ""
}

func slotRank(slot string) int {
	if i := slices.Index(slotOrder[:], slot); i >= 0 {
		return i
	}
	return len(slotOrder)
}

// blockOf splits "blk.N.rest" into N and rest.
func blockOf(name string) (int, string, bool) {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(rest, ".")
	if !ok || num == "" || num[0] == '+' || num[0] == '-' {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, rest, true
}

// slotOf is the matrix slot of a tensor named rest (its name after
// blk.N.): false for a vector (a norm, a bias) or a name that is not a
// weight.
func slotOf(rest string, dims int) (string, bool) {
	slot, ok := strings.CutSuffix(rest, ".weight")
	if !ok || dims < 2 {
		return "", false
	}
	// The per-expert tensors of older mixture-of-experts files
	// (ffn_gate.E) are their stack's slot.
	if base, e, ok := strings.Cut(slot, "."); ok {
		if _, err := strconv.Atoi(e); err == nil && (base == "ffn_gate" || base == "ffn_up" || base == "ffn_down") {
			return base + "_exps", true
		}
	}
	return slot, true
}

func sortTypes(ts []TypeBytes) {
	slices.SortFunc(ts, func(a, b TypeBytes) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
}

func (L *LayerCensus) sort() {
	slices.SortStableFunc(L.Slots, func(a, b SlotType) int {
		if c := cmp.Compare(slotRank(a.Slot), slotRank(b.Slot)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Slot, b.Slot); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
	sortTypes(L.Types)
}

// samePattern reports whether two layers' slots have the same names and
// types in the same order.
func samePattern(a, b []SlotType) bool {
	return slices.EqualFunc(a, b, func(x, y SlotType) bool { return x.Slot == y.Slot && x.Type == y.Type })
}

// Mix is the file-wide types with their share of the bytes, most first:
// "IQ2_XXS 71% · Q8_0 18% · IQ3_S 9% · F32 2%". A type under half a
// percent is "<1%", so no type present reads as none.
func (c *Census) Mix() string {
	parts := make([]string, len(c.Types))
	for i, t := range c.Types {
		parts[i] = t.Type.String() + " " + Percent(t.Share(c.Bytes))
	}
	return strings.Join(parts, " · ")
}

// Percent writes a share from 0 to 1 as a whole percentage, "<1%" for a
// share above 0 that rounds to 0.
func Percent(share float64) string {
	p := math.Round(share * 100)
	if p == 0 && share > 0 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}
