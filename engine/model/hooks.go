package model

import (
	"fmt"
	"math"
	"reflect"

	"github.com/isagi-lab/isagi/engine/backend"
)

// Hooks let the geometry stack read and steer the residual stream (and the
// expert map read a mixture of experts' routing, and the KV evaluation the
// attention's queries). A hook is any value implementing one or more of
// BlockHook, NormHook, LogitsHook, QueryHook and RouteHook (moe.go);
// State.AddHook registers it for every position the state computes, prompt
// (prefill) and generated (decode) alike, in position order within each
// layer. Hooks run on the goroutine that calls Forward, never concurrently
// with each other, and must not retain the slices they are given.
//
// With no hook registered the forward pass only tests three slice lengths
// per layer, so an unhooked model runs at full speed. A BlockHook declares
// what it needs so that a device backend moves only that: LayerHook names
// the layers it reads (it is called only there, and the rows of other
// layers stay on the device), and ReadOnlyHook says it does not write
// (its rows are copied to the host and never back). After a layer, the
// rows are copied to the host once for all the hooks that read it, and
// back once if any of them may have written. A hook whose writes are an
// affine map (AffineHook: Snipe's projector, a Safe OGD step) has the
// backend apply it where the rows are (backend.Affiner), so its writes
// cost no copy (affine.go).

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

// QueryHook sees every layer's queries as the attention reads them, before
// it attends: q holds n rows of Heads·hd values (RoPE applied; hd is the
// head size, or r when the KV cache is stored in a projection, the basis
// the cached keys are in) for positions pos…pos+n−1, and scale is what the
// attention multiplies q·k by. It must not modify q. The attention-based
// KV scorers (engine/kvpress's SnapKV and H2O, isagi eval kv) read them;
// nothing else needs them, so with no QueryHook the attention pays one
// length test per layer.
type QueryHook interface {
	Queries(layer, pos int, q []float32, n int, scale float32)
}

// LayerHook is optionally implemented by a BlockHook that reads only some
// layers: the forward pass then hands it (and a device backend copies back)
// the residual stream only after those layers. A BlockHook without it sees
// every layer.
type LayerHook interface {
	HookLayers() []int
}

// ReadOnlyHook is optionally implemented by a BlockHook that can promise
// to leave the residual stream as it found it: while ReadOnly reports
// true, the forward pass does not write the rows it handed the hook back
// to the backend (a device backend's copy stays as it was), so the hook
// must not modify them. It is asked at every layer the hook is called, so
// a hook that writes only sometimes (a monitor whose projectors may be
// off) says so each time. A BlockHook without it is a writer.
type ReadOnlyHook interface {
	ReadOnly() bool
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
	route  []RouteHook
	query  []QueryHook
	// at[l] is the block hooks called after layer l, in the order they
	// were registered: worked out when a hook comes or goes, so that a
	// layer nobody reads costs one length test.
	at [][]blockHook
}

// blockHook is a block hook as one layer calls it.
type blockHook struct {
	h  BlockHook
	ro ReadOnlyHook // nil: the hook writes
	af AffineHook   // nil: the hook's writes run on the host only
}

// atLayer reports whether a block hook reads layer l.
func (h *hookSet) atLayer(l int) bool { return l < len(h.at) && len(h.at[l]) > 0 }

// add registers b at the layers it reads, of layers.
func (h *hookSet) add(b BlockHook, layers int) {
	e := blockHook{h: b}
	e.ro, _ = b.(ReadOnlyHook)
	e.af, _ = b.(AffineHook)
	if len(h.at) < layers {
		h.at = append(h.at, make([][]blockHook, layers-len(h.at))...)
	}
	lh, ok := b.(LayerHook)
	if !ok {
		for l := range h.at {
			h.at[l] = append(h.at[l], e)
		}
		return
	}
	seen := make([]bool, len(h.at))
	for _, l := range lh.HookLayers() {
		// Layers the model does not have are never reached; a layer
		// named twice is still called once.
		if l >= 0 && l < len(h.at) && !seen[l] {
			seen[l] = true
			h.at[l] = append(h.at[l], e)
		}
	}
}

// drop unregisters x from every layer.
func (h *hookSet) drop(x any) {
	for l, hs := range h.at {
		out := hs[:0]
		for _, e := range hs {
			if any(e.h) != x {
				out = append(out, e)
			}
		}
		clear(hs[len(out):])
		h.at[l] = out
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
	r, isR := h.(RouteHook)
	q, isQ := h.(QueryHook)
	if !isB && !isN && !isL && !isR && !isQ {
		return nil, fmt.Errorf("model: %T implements no hook interface (BlockHook, NormHook, LogitsHook, RouteHook, QueryHook)", h)
	}
	if isQ {
		s.hooks.query = append(s.hooks.query, q)
	}
	if isR {
		s.hooks.route = append(s.hooks.route, r)
	}
	if isB {
		s.hooks.block = append(s.hooks.block, b)
		s.hooks.add(b, len(s.m.layers))
	}
	if isN {
		s.hooks.norm = append(s.hooks.norm, n)
	}
	if isL {
		s.hooks.logits = append(s.hooks.logits, l)
	}
	return func() {
		s.hooks.drop(h)
		s.hooks.block = removeHook(s.hooks.block, h)
		s.hooks.norm = removeHook(s.hooks.norm, h)
		s.hooks.logits = removeHook(s.hooks.logits, h)
		s.hooks.route = removeHook(s.hooks.route, h)
		s.hooks.query = removeHook(s.hooks.query, h)
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
	for _, x := range h.route {
		if r, ok := x.(RewindHook); ok && !inList(h.block, x) && !inList(h.norm, x) && !inList(h.logits, x) {
			r.Rewind(pos)
		}
	}
	for _, x := range h.query {
		if r, ok := x.(RewindHook); ok && !inList(h.block, x) && !inList(h.norm, x) && !inList(h.logits, x) && !inList(h.route, x) {
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

// queries hands layer l's n query rows in q (positions pos…) to the
// QueryHooks, with the attention's scale (0 in the options: 1/√headDim, as
// the backends read it).
func (h *hookSet) queries(b backend.Backend, l, pos int, q backend.Buffer, n int, scale float32, headDim int) {
	if scale == 0 {
		scale = float32(1 / math.Sqrt(float64(headDim)))
	}
	rows := b.Host(q, 0, n)
	for _, x := range h.query {
		x.Queries(l, pos, rows, n, scale)
	}
}
