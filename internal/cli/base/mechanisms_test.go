package base

import (
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/grc"
)

// TestFigures: the stderr line names ρ and k95 per slot (ρ only where it
// is defined), the depth sink and how it was found, and the bypass's
// thresholds; a compression without figures has no line.
func TestFigures(t *testing.T) {
	g := &grc.Compression{
		Blocks: []grc.Block{{Slots: []grc.SlotStat{{Slot: grc.SlotQ, Rho: 1.5, K95: 10}, {Slot: grc.SlotK, K95: 12}}}},
		Depth:  &grc.Depth{Sink: 0, Detected: false, IntrinsicDim: []int{7}},
		Bypass: []float32{0},
	}
	got := Figures(g)
	for _, want := range []string{"ρ q 1.50;", "k95 q 10 k 12", "depth sink block 0 (⌊2L/3⌋, none detected)", "[7]", "bypass ‖h‖ above [0]"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "ρ q 1.50 k") {
		t.Errorf("an undefined ρ is shown: %q", got)
	}
	if f := Figures(&grc.Compression{}); f != "" {
		t.Errorf("no figures, line %q", f)
	}
}

// TestVariants: the variants are the rank with every mechanism off
// (labelled by the rank, not "off", which read as no compression), each
// given one alone, then all; without mechanisms there are none, and a
// mechanism without --rank is refused.
func TestVariants(t *testing.T) {
	mf := ModelFlags{Rank: "64", Slots: "qkv", Alloc: "uniform", Mech: MechFlags{Gauge: true, SinkChannels: 4, KVProj: true}}
	vs, err := mf.Variants()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if got := strings.Join(labels, ", "); got != "rank 64, +gauge, +sink-channels 4, +kv-proj, all" {
		t.Errorf("variants %q", got)
	}
	if last := vs[len(vs)-1]; !last.req.Gauge || last.req.SinkChannels != 4 || !last.mech.KVProj || vs[0].req.Gauge || vs[0].mech.KVProj {
		t.Errorf("all %+v, off %+v", last, vs[0])
	}
	mf.Mech = MechFlags{}
	if vs, err := mf.Variants(); vs != nil || err != nil {
		t.Errorf("no mechanisms: %v, %v", vs, err)
	}
	mf = ModelFlags{Rank: "off", Slots: "qkv", Alloc: "uniform", Mech: MechFlags{SinkBypass: true}}
	if _, err := mf.Variants(); err == nil || !strings.Contains(err.Error(), "need --rank") {
		t.Errorf("a mechanism without --rank: %v", err)
	}
}
