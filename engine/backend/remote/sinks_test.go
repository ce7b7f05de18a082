package remote

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
)

// TestAttendRefusesMisplacedSinks: sinks that do not hold one value per
// query head, or that live on another server than the layer's cache (the
// graph reads them there), are refused in one sentence before anything is
// recorded, and the backend then reports it (Failer).
func TestAttendRefusesMisplacedSinks(t *testing.T) {
	a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 8}
	for _, c := range []struct {
		sinks *vector
		want  string
	}{
		{&vector{s: 0, n: 3}, "attention sinks of 3 values for 4 heads"},
		{&vector{s: 1, n: 4}, "layer 0's attention sinks are on server 1 and its KV cache on server 0"},
	} {
		b := new(Backend)
		out, q := &buffer{rows: 1, width: 32}, &buffer{rows: 1, width: 32}
		b.Attend(out, q, &kv{layers: 1, ctx: 16, a: a, srv: []int{0}}, 0, 0, 1, backend.AttendOptions{Sinks: c.sinks})
		if b.err == nil || !strings.Contains(b.err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", *c.sinks, b.err, c.want)
		}
	}
}
