package session

import (
	"fmt"
	"math"
	"strconv"

	"github.com/isagi-lab/isagi/engine/generate"
	"github.com/isagi-lab/isagi/engine/kvpress"
)

// Token-level KV eviction (docs/kv.md). With kv_keep below 1 the session's
// KV cache holds about kv_keep of the positions the conversation has run
// (generate.EvictCap entries), and the conversation runs to the whole
// window (num_ctx) without dropping turns: after each prefill, and every
// Interval entries past the budget during decoding, the scorer (kv_scorer)
// picks what every layer's KV head keeps.

// KVStatus is what the KV pane shows.
type KVStatus struct {
	On     bool    // eviction is on
	Scorer string  // kvpress.Kind's name
	Keep   float64 // the share of positions kept (1 when off)
	// Entries is the cache's size in entries, Window the positions the
	// conversation may run to (num_ctx).
	Entries, Window int
	// Positions run so far, entries Kept in the cache now, and Evicted
	// since the conversation's cache was last emptied.
	Positions, Kept, Evicted int
	// Budget is what an eviction now would keep: ⌈Keep · Positions⌉ (the
	// cache runs up to generate.DefaultEvictInterval past it).
	Budget int
	// EntryBytes is one entry's keys and values over every layer (f32).
	EntryBytes int
	// SavedBytes is the memory not allocated against a cache of the whole
	// window: (Window − Entries) · EntryBytes.
	SavedBytes int64
	// Drift is how far the mean key has moved since the conversation's
	// first eviction: ‖μ − μ₀‖/‖μ₀‖, averaged over every layer's KV head,
	// as of the last eviction (0 before a second one).
	Drift float64
	// Evictions counts the evictions since the eviction was turned on.
	Evictions int
}

// kvState is the session's eviction: the scorer, and the mean keys it
// tracks for the drift figure. Its Choose runs inside model.State.Evict.
type kvState struct {
	pol       kvpress.Policy
	mu0, mu   []float32 // per layer·KV head, HeadDim each
	acc       []float64 // Mean's scratch
	kvHeads   int       // per layer
	heads     int       // layers · kvHeads
	drift     float64
	evictions int
}

// choose is the model.Chooser: the policy's choice, and the mean key
// tracked on the way.
func (k *kvState) choose(layer, head int, keys []float32, n, hd int, pos []int32, keep []int32) {
	lg := layer*k.kvHeads + head
	if len(k.mu) < (lg+1)*hd {
		k.mu = append(k.mu, make([]float32, (lg+1)*hd-len(k.mu))...)
	}
	if len(k.acc) < hd {
		k.acc = make([]float64, hd)
	}
	mu := k.mu[lg*hd : (lg+1)*hd]
	kvpress.Mean(keys, n, hd, mu, k.acc)
	k.pol.Choose(keys, n, hd, pos, keep)
	if lg == k.heads-1 { // the eviction's last head: its means are all in
		k.evictions++
		k.settle()
	}
}

// settle updates the drift after an eviction.
func (k *kvState) settle() {
	if k.mu0 == nil || len(k.mu0) != len(k.mu) {
		k.mu0 = append(k.mu0[:0], k.mu...)
		k.drift = 0
		return
	}
	hd := len(k.mu) / max(1, k.heads)
	var sum float64
	count := 0
	for h := 0; h*hd < len(k.mu) && hd > 0; h++ {
		var d, n float64
		for i := h * hd; i < (h+1)*hd; i++ {
			x := float64(k.mu[i] - k.mu0[i])
			d += x * x
			n += float64(k.mu0[i]) * float64(k.mu0[i])
		}
		if n > 0 {
			sum += math.Sqrt(d / n)
			count++
		}
	}
	if count > 0 {
		k.drift = sum / float64(count)
	}
}

// evicting says whether a keep share turns eviction on.
func evicting(keep float64) bool { return keep > 0 && keep < 1 }

// parseKeep reads kv_keep: off, or a share in [0.01, 1] (1 is off).
func parseKeep(value string) (float64, error) {
	if value == "off" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || v < 0.01 || v > 1 {
		return 0, fmt.Errorf("want off or a share of the positions to keep, 0.01…1")
	}
	if v == 1 {
		return 0, nil
	}
	return v, nil
}

// kvKnobs are the eviction's two settings.
func kvKnobs() []Knob {
	return []Knob{
		{
			Name: "kv_keep", Values: "off|0.01…1", Help: "KV eviction: share of positions kept",
			Value: func(s Settings, _ Info) string {
				if !evicting(s.KVKeep) {
					return "off"
				}
				return strconv.FormatFloat(s.KVKeep, 'g', -1, 64)
			},
			set: func(s *Session, n *Settings, value string) (err error) {
				if n.KVKeep, err = parseKeep(value); err != nil {
					return err
				}
				if evicting(n.KVKeep) && !s.st.CanEvict() {
					return fmt.Errorf("%s cannot evict KV entries", s.b.Name())
				}
				return nil
			},
		},
		{
			Name: "kv_scorer", Values: "NAME", Help: "eviction's scorer: manifold, keydiff, …",
			Value: func(s Settings, _ Info) string { return scorerName(s.KVScorer) },
			set: func(_ *Session, n *Settings, value string) error {
				k, err := kvpress.ParseKind(value)
				if err == nil {
					n.KVScorer = k.String()
				}
				return err
			},
		},
	}
}

// scorerName is the scorer a setting names, manifold by default.
func scorerName(s string) string {
	if s == "" {
		return kvpress.Manifold.String()
	}
	return s
}

// kvEntries is the cache size, in entries, of a window under keep.
func kvEntries(keep float64, window int) int {
	if !evicting(keep) {
		return window
	}
	return generate.EvictCap(keep, window)
}
