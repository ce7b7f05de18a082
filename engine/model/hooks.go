package model

import (
	"fmt"
	"reflect"
	"slices"
)

// Hooks let the geometry stack read and steer the residual stream. A hook is
// any value implementing one or more of BlockHook, NormHook and LogitsHook;
// State.AddHook registers it for every position the state computes, prompt
// (prefill) and generated (decode) alike, in position order within each
// layer. Hooks run on the goroutine that calls Forward, never concurrently
// with each other, and must not retain the slices they are given.
//
// With no hook registered the forward pass only tests three slice lengths
// per layer, so an unhooked model runs at full speed. A BlockHook that
// implements LayerHook is called only at the layers it names, so that a
// device backend copies back only those rows.

// BlockHook sees the residual stream after each transformer block.
type BlockHook interface {
	// AfterBlock is called for every layer and position with x, the residual
	// stream (length Dim) after the layer's attention and feed-forward
	// updates. It may modify x in place: later layers, the KV entries they
	// write and the logits all see the change.
	AfterBlock(layer, pos int, x []float32)
}

// NormHook sees the final hidden state: the residual stream after the output
// RMSNorm, which is what the classifier reads. It must not modify h.
type NormHook interface {
	AfterNorm(pos int, h []float32)
}

// LogitsHook sees the logits of each position whose logits are computed
// (the last position of every Forward call, or all of them when asked). It
// must not modify logits.
type LogitsHook interface {
	Logits(pos int, logits []float32)
}

// LayerHook is optionally implemented by a BlockHook that reads only some
// layers: the forward pass then hands it (and a device backend copies back)
// the residual stream only after those layers. A BlockHook without it sees
// every layer.
type LayerHook interface {
	HookLayers() []int
}

// RewindHook is optionally implemented by a hook that keeps something per
// position (a running mean, a peak): State.Truncate(n) calls Rewind(n) so
// that it forgets what it saw at positions n and later. A speculative
// verifier computes drafted positions and then forgets the rejected ones;
// without Rewind a gauge would count tokens the conversation never had.
// A hook registered under several interfaces is told once.
type RewindHook interface {
	Rewind(pos int)
}

type hookSet struct {
	block  []BlockHook
	norm   []NormHook
	logits []LogitsHook
	// layers[l] counts the block hooks that read layer l; all counts those
	// that read every layer.
	layers []int
	all    int
}

// atLayer reports whether a block hook reads layer l.
func (h *hookSet) atLayer(l int) bool {
	return h.all > 0 || (l < len(h.layers) && h.layers[l] > 0)
}

// count adds d to the layers b reads.
func (h *hookSet) count(b BlockHook, d int) {
	lh, ok := b.(LayerHook)
	if !ok {
		h.all += d
		return
	}
	for _, l := range lh.HookLayers() {
		if l < 0 {
			continue
		}
		for len(h.layers) <= l {
			h.layers = append(h.layers, 0)
		}
		h.layers[l] += d
	}
}

// AddHook registers h, which must implement at least one hook interface,
// and returns a function that removes it again.
func (s *State) AddHook(h any) (remove func(), err error) {
	if h == nil || !reflect.TypeOf(h).Comparable() {
		return nil, fmt.Errorf("model: hook %T must be a comparable value, such as a pointer", h)
	}
	b, isB := h.(BlockHook)
	n, isN := h.(NormHook)
	l, isL := h.(LogitsHook)
	if !isB && !isN && !isL {
		return nil, fmt.Errorf("model: %T implements no hook interface (BlockHook, NormHook, LogitsHook)", h)
	}
	if isB {
		s.hooks.block = append(s.hooks.block, b)
		s.hooks.count(b, 1)
	}
	if isN {
		s.hooks.norm = append(s.hooks.norm, n)
	}
	if isL {
		s.hooks.logits = append(s.hooks.logits, l)
	}
	return func() {
		if isB && slices.Contains(s.hooks.block, b) {
			s.hooks.count(b, -1)
		}
		s.hooks.block = removeHook(s.hooks.block, h)
		s.hooks.norm = removeHook(s.hooks.norm, h)
		s.hooks.logits = removeHook(s.hooks.logits, h)
	}, nil
}

// rewind tells every RewindHook that positions from pos on are forgotten,
// once per hook: a hook in several lists is told from the first.
func (h *hookSet) rewind(pos int) {
	for _, b := range h.block {
		if r, ok := b.(RewindHook); ok {
			r.Rewind(pos)
		}
	}
	for _, n := range h.norm {
		if r, ok := n.(RewindHook); ok && !inList(h.block, n) {
			r.Rewind(pos)
		}
	}
	for _, l := range h.logits {
		if r, ok := l.(RewindHook); ok && !inList(h.block, l) && !inList(h.norm, l) {
			r.Rewind(pos)
		}
	}
}

// inList reports whether x is registered in hs.
func inList[T any](hs []T, x any) bool {
	for _, h := range hs {
		if any(h) == x {
			return true
		}
	}
	return false
}

func removeHook[T any](hs []T, h any) []T {
	out := hs[:0]
	for _, x := range hs {
		if any(x) != h {
			out = append(out, x)
		}
	}
	clear(hs[len(out):])
	return out
}
