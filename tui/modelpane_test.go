package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/isagi-lab/isagi/engine/grc"
	"github.com/isagi-lab/isagi/session"
)

// TestModelPaneNamesTheDevice: on a device backend the pane names the
// device (its kernels are its own), on the CPU the kernels and threads.
func TestModelPaneNamesTheDevice(t *testing.T) {
	for _, c := range []struct {
		info session.Info
		want string
	}{
		{session.Info{Backend: "cuda NVIDIA H100 80GB HBM3 (sm_90)"}, "device  NVIDIA H100 80GB HBM3 (sm_90)"},
		{session.Info{Backend: "cpu avx2 × 2 threads", Kernels: "avx2", Threads: 2}, "cpu     avx2 × 2 threads"},
	} {
		p := modelPane{info: c.info}
		got := ansi.Strip(strings.Join(p.lines(), "\n"))
		if !strings.Contains(got, c.want) {
			t.Errorf("model pane for %q:\n%s\nwant a line %q", c.info.Backend, got, c.want)
		}
	}
}

// TestModelPaneShowsCompressionFigures: ρ, the groups' k95, the
// mechanisms in use, the detected depth-sink block and the stream's
// intrinsic dimension are on the pane when the compression has them.
func TestModelPaneShowsCompressionFigures(t *testing.T) {
	info := session.Info{
		Rank: 128, RankSpec: "qkv uniform", BytesBefore: 1 << 20, BytesAfter: 1 << 19,
		RankSlots:  []grc.SlotSummary{{Slot: grc.SlotQ, MinK: 128, MaxK: 128, MeanEnergy: 0.91, MeanRho: 2.25, MeanK95: 140}},
		Mechanisms: []string{"gauge", "sink channels 8"},
		Depth:      &grc.Depth{Sink: 5, Detected: true, IntrinsicDim: []int{71, 76, 81, 86, 89, 92}},
		KVRank:     16, HeadDim: 32, KVEntryBefore: 6144, KVEntryAfter: 3072, KVSaved: 3 << 20,
	}
	p := modelPane{info: info}
	got := ansi.Strip(strings.Join(p.lines(), "\n"))
	for _, want := range []string{"91.0% ρ2.2 k95 140", "gauge · sink channels 8", "block 5 of 6 (detected)", "71–92 by block (PCA-95)", "16 of 32 per head · 6.0 KiB→3.0 KiB/pos · 3.0 MiB saved"} {
		if !strings.Contains(got, want) {
			t.Errorf("model pane:\n%s\nwant %q", got, want)
		}
	}
}

// TestModelPaneShowsExperts: a mixture of experts says how many and how
// wide, and what a token reads of what is held; a dense model shows no
// experts line.
func TestModelPaneShowsExperts(t *testing.T) {
	moe := modelPane{info: session.Info{Experts: "128 (8 per token, 768 wide)", TokenBytes: 2 << 30, FileBytes: 17 << 30}}
	got := ansi.Strip(strings.Join(moe.lines(), "\n"))
	for _, want := range []string{"experts 128 (8 per token, 768 wide)", "a token reads 2.00 GiB"} {
		if !strings.Contains(strings.Join(strings.Fields(got), " "), want) {
			t.Errorf("model pane:\n%s\nwant %q", got, want)
		}
	}
	dense := modelPane{info: session.Info{FileBytes: 1 << 30}}
	if got := ansi.Strip(strings.Join(dense.lines(), "\n")); strings.Contains(got, "experts") {
		t.Errorf("a dense model's pane:\n%s\nshows experts", got)
	}
}

// TestModelPaneShowsTypeMix: a file whose matrices mix types (an
// importance-matrix or "dynamic" quantisation) shows each type's share of
// the bytes, wrapped to the side column so none is cut off; a file of one
// matrix type shows none.
func TestModelPaneShowsTypeMix(t *testing.T) {
	ud := session.Info{WeightType: "IQ2_XXS", MatrixTypes: 3, Types: []session.TypeShare{
		{Type: "IQ2_XXS", Share: 0.714}, {Type: "Q8_0", Share: 0.181}, {Type: "IQ3_S", Share: 0.09}, {Type: "F32", Share: 0.015},
	}}
	p := modelPane{info: ud}
	lines := p.lines()
	var mix []string
	for k, l := range lines {
		l = ansi.Strip(l)
		if w := ansi.StringWidth(l); w > sideWidth-4 {
			t.Errorf("line %q is %d wide, the pane %d", l, w, sideWidth-4)
		}
		if strings.HasPrefix(l, "mix ") {
			mix = append(mix, l)
			for _, c := range lines[k+1:] {
				if c = ansi.Strip(c); !strings.HasPrefix(c, "        ") {
					break
				}
				mix = append(mix, c)
			}
		}
	}
	for k := range mix {
		mix[k] = strings.Join(strings.Fields(mix[k]), " ")
	}
	got := strings.Join(mix, " · ") // a wrap falls between two types
	if want := "mix IQ2_XXS 71% · Q8_0 18% · IQ3_S 9% · F32 2%"; got != want {
		t.Errorf("model pane:\n%s\nmix reads %q, want %q", ansi.Strip(strings.Join(lines, "\n")), got, want)
	}
	if len(mix) < 2 {
		t.Errorf("mix on %d line, want it wrapped: %q", len(mix), mix)
	}
	one := session.Info{WeightType: "Q8_0", MatrixTypes: 1, Types: []session.TypeShare{{Type: "Q8_0", Share: 0.99}, {Type: "F32", Share: 0.01}}}
	p = modelPane{info: one}
	if got := ansi.Strip(strings.Join(p.lines(), "\n")); strings.Contains(got, "mix") {
		t.Errorf("a one-type file's pane:\n%s\nshows a mix", got)
	}
	if got := percent(0.004); got != "<1%" {
		t.Errorf("percent(0.004) = %q", got)
	}
}
