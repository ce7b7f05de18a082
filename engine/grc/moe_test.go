package grc

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// openMoE writes and opens a tiny mixture-of-experts llama: three blocks,
// the first leadingDense of them dense, the others four experts of 32,
// two per token.
func openMoE(t testing.TB, leadingDense int) *model.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "moe.gguf")
	s := synth.Shape{Dim: 64, Layers: 3, Heads: 4, KVHeads: 2, FFN: 96, Vocab: 300,
		Experts: 4, ExpertsUsed: 2, ExpertFFN: 32, LeadingDense: leadingDense}
	if err := synth.Write(path, s, tensor.F32); err != nil {
		t.Fatal(err)
	}
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if !m.IsMoE() || m.MoELayer(0) != (leadingDense == 0) || !m.MoELayer(2) {
		t.Fatalf("config %+v", m.Config)
	}
	return m
}

// TestGRCMixtureOfExperts: on a model whose later blocks are mixtures of
// experts, every slot set builds; the experts' blocks keep their
// feed-forward dense (no ffn or down group) while their attention and
// the dense block's feed-forward compress; the plan's notes and the
// one-line report say so; at full rank the compressed model's logits are
// the dense model's; a cached copy loads and verifies; GP allocates; and
// online bases run over it.
func TestGRCMixtureOfExperts(t *testing.T) {
	m := openMoE(t, 1)
	gb, err := NewBuilder(m, AllSlots)
	if err != nil {
		t.Fatal(err)
	}
	g := buildSpec(t, gb, Spec{Slots: AllSlots, K: m.Dim}, nil)
	for l, gl := range g.layers {
		dense := !m.MoELayer(l)
		if gl.qkv == nil || gl.o == nil || (gl.ffn != nil) != dense || (gl.down != nil) != dense {
			t.Fatalf("block %d (experts %v): groups qkv %v o %v ffn %v down %v", l, !dense, gl.qkv != nil, gl.o != nil, gl.ffn != nil, gl.down != nil)
		}
		want := 4 // q, k, v, o
		if dense {
			want = 7
		}
		if len(g.Blocks[l].Slots) != want {
			t.Fatalf("block %d lists %d slots, want %d", l, len(g.Blocks[l].Slots), want)
		}
	}
	if !slices.ContainsFunc(g.Plan.Notes, func(n string) bool { return strings.Contains(n, "experts stay dense in the 2 of 3 blocks") }) {
		t.Errorf("plan notes %q do not say the experts stay dense", g.Plan.Notes)
	}
	if s := g.String(); !strings.Contains(s, "experts stay dense in 2 of 3 blocks") || !strings.Contains(s, "gate 1.000 (lossless)") {
		t.Errorf("report %q", s)
	}
	for _, s := range g.Summary() {
		want := 3
		if s.Slot >= SlotGate {
			want = 1
		}
		if s.Blocks != want || s.Lossless != want {
			t.Errorf("slot %s: compressed in %d blocks, lossless in %d, want %d", s.Slot, s.Blocks, s.Lossless, want)
		}
	}

	// Full rank loses nothing, the experts' blocks included.
	prompt := []int32{1, 40, 270, 9, 133, 61}
	logits := func(g *Compression) []float32 {
		s, err := m.NewStateOn(32, testBackend())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := Use(s, g); err != nil {
			t.Fatal(err)
		}
		out := make([]float32, len(prompt)*m.Vocab)
		if err := s.Forward(prompt, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	dense, full := logits(nil), logits(g)
	var d float64
	for i := range dense {
		d = max(d, math.Abs(float64(dense[i]-full[i])))
	}
	if d > 1e-4 {
		t.Fatalf("full-rank GRC moves the logits by %g", d)
	}
	low := buildSpec(t, gb, Spec{Slots: AllSlots, K: 8}, nil)
	if slices.Equal(logits(low), dense) {
		t.Fatal("rank 8 left the logits unchanged: the test could not tell a compressed block from a dense one")
	}
	if low.BytesAfter >= low.BytesBefore {
		t.Errorf("rank 8: %d bytes after, %d before", low.BytesAfter, low.BytesBefore)
	}

	// The cache round trip keeps the same groups and passes the check.
	knobs, sections, err := low.CacheSections()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromCache(m, low.Plan.Spec, knobs, sections)
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != low.String() || back.layers[1].ffn != nil || back.layers[0].ffn == nil {
		t.Fatalf("from the cache: %s, want %s", back, low)
	}

	// GP scores the blocks on the groups all of them compress.
	gp := buildSpec(t, gb, Spec{Slots: AllSlots, Alloc: AllocGP, K: 40, Floor: 16}, nil)
	if len(gp.Plan.Ranks) != m.Layers || gp.layers[2].ffn != nil {
		t.Fatalf("gp plan %v", gp.Plan.Ranks)
	}

	// The online bases learn the groups there are.
	o, err := NewOnline(m, low, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, m.Dim)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	for range OnlineMinRejections {
		o.Add(2, x)
		o.Reject()
	}
	if !o.Update() || o.Version(2) == 0 {
		t.Fatal("an online update moved no basis of the experts' block")
	}
	if bp := o.Block(2); bp.QKV == nil || bp.FFN != nil || bp.Down != nil || o.Err() != nil {
		t.Fatalf("online block 2: %+v, %v", bp, o.Err())
	}
}

// TestGRCMixtureOfExpertsFFNOnly: ffn alone compresses the dense blocks
// only, with the depth-sink check moved to the nearest of them; on a
// model with no dense block it is refused with a reason, while qkv still
// builds and its notes say the experts stay dense.
func TestGRCMixtureOfExpertsFFNOnly(t *testing.T) {
	m := openMoE(t, 1)
	gb, err := NewBuilder(m, FFN)
	if err != nil {
		t.Fatal(err)
	}
	g := buildSpec(t, gb, Spec{Slots: FFN, K: 16}, nil)
	if g.Check.Layer != 0 || g.Check.Group != "ffn" {
		t.Fatalf("check at block %d %s, want block 0 ffn (the only dense block)", g.Check.Layer, g.Check.Group)
	}
	if err := Verify(m, g); err != nil {
		t.Fatal(err)
	}

	all := openMoE(t, 0)
	gb, err = NewBuilder(all, FFN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gb.Plan(context.Background(), Spec{Slots: FFN, K: 16}, nil, nil); err == nil || !strings.Contains(err.Error(), "experts stay dense") {
		t.Fatalf("ffn on a model of experts only: %v", err)
	}
	gb, err = NewBuilder(all, QKV)
	if err != nil {
		t.Fatal(err)
	}
	q := buildSpec(t, gb, Spec{Slots: QKV, K: 16}, nil)
	if !slices.ContainsFunc(q.Plan.Notes, func(n string) bool { return strings.HasPrefix(n, "experts stay dense") }) {
		t.Errorf("qkv plan notes %q do not say the experts stay dense", q.Plan.Notes)
	}
}
