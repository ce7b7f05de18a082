package gguf

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// checkCensus holds a census to what it must be of any file: every tensor
// counted once in the file-wide types and once in a layer's, the spans
// covering the layers in order, and the patterns printable.
func checkCensus(t *testing.T, f *File) *Census {
	t.Helper()
	c := f.Census()
	var bytes uint64
	for i := range f.Tensors {
		bytes += f.Tensors[i].Size
	}
	if c.Tensors != len(f.Tensors) || c.Bytes != bytes {
		t.Fatalf("census totals %d tensors, %d bytes; file has %d, %d", c.Tensors, c.Bytes, len(f.Tensors), bytes)
	}
	sum := func(ts []TypeBytes) (n int, b uint64) {
		for _, x := range ts {
			n, b = n+x.Tensors, b+x.Bytes
		}
		return n, b
	}
	if n, b := sum(c.Types); n != c.Tensors || b != c.Bytes {
		t.Fatalf("file-wide types sum to %d tensors, %d bytes", n, b)
	}
	n, b := sum(c.Other.Types)
	for i, L := range c.Layers {
		if i > 0 && c.Layers[i-1].Layer >= L.Layer {
			t.Fatalf("layers out of order: %d then %d", c.Layers[i-1].Layer, L.Layer)
		}
		ln, lb := sum(L.Types)
		n, b = n+ln, b+lb
	}
	if n != c.Tensors || b != c.Bytes {
		t.Fatalf("layers sum to %d tensors, %d bytes", n, b)
	}
	next := 0
	var spanBytes uint64
	for _, s := range c.Spans() {
		if s.First > s.Last || next >= len(c.Layers) || c.Layers[next].Layer != s.First {
			t.Fatalf("span %s does not start at the next layer", s.Label())
		}
		next += s.Last - s.First + 1
		spanBytes += s.Bytes()
		_ = Pattern(s.Slots)
	}
	if next != len(c.Layers) {
		t.Fatalf("spans cover %d of %d layers", next, len(c.Layers))
	}
	if _, ob := sum(c.Other.Types); spanBytes+ob != c.Bytes {
		t.Fatalf("spans and the rest hold %d bytes of %d", spanBytes+ob, c.Bytes)
	}
	_ = c.MatrixTypes()
	return c
}

// matrixCounts counts the census's matrices by type name.
func matrixCounts(c *Census) map[string]int {
	out := map[string]int{}
	for _, L := range append(slices.Clip(c.Layers), c.Other) {
		for _, s := range L.Slots {
			out[s.Type.String()] += s.Tensors
		}
	}
	return out
}

// TestCensusQuants2: the census of every importance-matrix file counts its
// matrices as llama.cpp's quantize log did (quants2/README.md), though no
// IQ type is computable here: the census reads the header only.
func TestCensusQuants2(t *testing.T) {
	for file, want := range map[string]map[string]int{
		"kjv-iq1_s.gguf":   {"IQ1_S": 30, "IQ2_XXS": 6, "Q2_K": 6, "Q5_K": 1},
		"kjv-iq1_m.gguf":   {"IQ1_M": 30, "IQ2_XXS": 6, "Q2_K": 6, "Q5_K": 1},
		"kjv-iq2_xxs.gguf": {"IQ2_XXS": 36, "Q2_K": 6, "Q5_K": 1},
		"kjv-iq2_xs.gguf":  {"IQ2_XS": 36, "Q2_K": 6, "Q5_K": 1},
		"kjv-iq2_s.gguf":   {"IQ2_XS": 30, "IQ3_S": 12, "Q5_K": 1},
		"kjv-iq2_m.gguf":   {"IQ2_S": 30, "IQ3_S": 12, "Q5_K": 1},
		"kjv-iq3_xxs.gguf": {"IQ3_XXS": 24, "IQ2_S": 12, "IQ3_S": 6, "Q5_K": 1},
		"kjv-iq3_xs.gguf":  {"IQ3_XXS": 22, "IQ3_S": 20, "Q6_K": 1},
		"kjv-iq3_s.gguf":   {"IQ3_S": 42, "Q6_K": 1},
		"kjv-iq3_m.gguf":   {"IQ3_S": 30, "Q4_K": 12, "Q6_K": 1},
		"kjv-tq1_0.gguf":   {"TQ1_0": 42, "Q6_K": 1},
		"kjv-tq2_0.gguf":   {"TQ2_0": 42, "Q6_K": 1},
	} {
		f, err := Open(fixture(t, "quants2/"+file))
		if err != nil {
			t.Fatal(err)
		}
		c := checkCensus(t, f)
		f.Close()
		if got := matrixCounts(c); !maps.Equal(got, want) {
			t.Errorf("%s: matrices by type %v, want %v", file, got, want)
		}
		if len(c.Layers) != 6 {
			t.Errorf("%s: %d layers, want 6", file, len(c.Layers))
		}
		// The 13 vectors are the 12 blocks' norms and output_norm, all F32.
		if last := c.Types[len(c.Types)-1]; last.Type != tensor.F32 || last.Tensors != 13 {
			t.Errorf("%s: smallest type %v, want F32 ×13", file, last)
		}
	}
}

// TestCensusIQ2M: the spans and patterns of kjv-iq2_m, whose blocks all
// give attn_v and attn_output IQ3_S and every other matrix IQ2_S, and whose
// tied embedding is Q5_K.
func TestCensusIQ2M(t *testing.T) {
	f, err := Open(fixture(t, "quants2/kjv-iq2_m.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := checkCensus(t, f)
	spans := c.Spans()
	if len(spans) != 1 || spans[0].Label() != "blk 0–5" {
		t.Fatalf("spans %+v, want one, blk 0–5", spans)
	}
	if got, want := Pattern(spans[0].Slots), "attn_q IQ2_S, attn_k IQ2_S, attn_v IQ3_S, attn_output IQ3_S, ffn IQ2_S"; got != want {
		t.Errorf("pattern %q, want %q", got, want)
	}
	if got, want := Pattern(c.Other.Slots), "token_embd Q5_K"; got != want {
		t.Errorf("outside the blocks %q, want %q", got, want)
	}
	if got := fmt.Sprint(c.MatrixTypes()); got != "[IQ2_S Q5_K IQ3_S]" {
		t.Errorf("matrix types %s", got)
	}
	// 1.26 MiB IQ2_S, 704 KiB Q5_K, 247.5 KiB IQ3_S, 13 KiB F32 of 2.20 MiB.
	if got, want := c.Mix(), "IQ2_S 57% · Q5_K 31% · IQ3_S 11% · F32 1%"; got != want {
		t.Errorf("mix %q, want %q", got, want)
	}
	// Each block: 5 IQ2_S matrices, 2 IQ3_S, 2 F32 norms.
	for _, L := range c.Layers {
		got := map[tensor.Type]int{}
		for _, x := range L.Types {
			got[x.Type] = x.Tensors
		}
		if !maps.Equal(got, map[tensor.Type]int{tensor.IQ2_S: 5, tensor.IQ3_S: 2, tensor.F32: 2}) {
			t.Errorf("blk %d: %v", L.Layer, got)
		}
	}
}

// synthTensor is one tensor of a synthetic file.
type synthTensor struct {
	name string
	typ  tensor.Type
	dims []uint64
}

// synthFile writes tensors (zero data) with the Writer and parses them back.
func synthFile(t *testing.T, ts []synthTensor) *File {
	t.Helper()
	var w Writer
	for _, x := range ts {
		n, err := x.typ.TensorBytes(x.dims)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(x.name, x.typ, x.dims, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := Parse("synth.gguf", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dynamicQuant is a small "dynamic" mixture-of-experts file as unsloth's
// UD files mix types: Q8_0 attention and router, IQ2_XXS gate and up
// expert stacks with IQ3_S down stacks, except block 3, whose down stack is
// IQ4_NL; the last block holds its experts as per-expert 2-D tensors
// (older files), Q5_1. Tensors are in no particular order, as a file may
// have them.
func dynamicQuant(t *testing.T) *File {
	const D, F, E = 256, 256, 16
	ts := []synthTensor{{"output.weight", tensor.Q8_0, []uint64{D, 64}}}
	for n := range 5 {
		p := fmt.Sprintf("blk.%d.", n)
		down := tensor.IQ3_S
		if n == 3 {
			down = tensor.IQ4_NL
		}
		ts = append(ts,
			synthTensor{p + "ffn_down_exps.weight", down, []uint64{F, D, E}},
			synthTensor{p + "attn_q.weight", tensor.Q8_0, []uint64{D, D}},
			synthTensor{p + "attn_k.weight", tensor.Q8_0, []uint64{D, 64}},
			synthTensor{p + "attn_v.weight", tensor.Q8_0, []uint64{D, 64}},
			synthTensor{p + "attn_output.weight", tensor.Q8_0, []uint64{D, D}},
			synthTensor{p + "attn_norm.weight", tensor.F32, []uint64{D}},
			synthTensor{p + "ffn_gate_inp.weight", tensor.Q8_0, []uint64{D, E}},
			synthTensor{p + "attn_q.bias", tensor.F32, []uint64{D}},
		)
		if n < 4 {
			ts = append(ts,
				synthTensor{p + "ffn_gate_exps.weight", tensor.IQ2_XXS, []uint64{D, F, E}},
				synthTensor{p + "ffn_up_exps.weight", tensor.IQ2_XXS, []uint64{D, F, E}},
			)
			continue
		}
		for e := range E {
			for _, k := range []string{"gate", "up"} {
				ts = append(ts, synthTensor{fmt.Sprintf("%sffn_%s.%d.weight", p, k, e), tensor.Q5_1, []uint64{D, F}})
			}
		}
	}
	ts = append(ts,
		synthTensor{"token_embd.weight", tensor.Q8_0, []uint64{D, 64}},
		synthTensor{"output_norm.weight", tensor.F32, []uint64{D}},
	)
	return synthFile(t, ts)
}

// TestCensusDynamic: a mixed file's spans break where a slot changes type,
// expert stacks (3-D, or per expert) are their slot, and the file-wide
// types carry bytes and shares.
func TestCensusDynamic(t *testing.T) {
	f := dynamicQuant(t)
	c := checkCensus(t, f)
	var rows []string
	for _, s := range c.Spans() {
		rows = append(rows, s.Label()+": "+Pattern(s.Slots))
	}
	want := []string{
		"blk 0–2: attn Q8_0, router Q8_0, ffn_gate_exps IQ2_XXS, ffn_up_exps IQ2_XXS, ffn_down_exps IQ3_S",
		"blk 3: attn Q8_0, router Q8_0, ffn_gate_exps IQ2_XXS, ffn_up_exps IQ2_XXS, ffn_down_exps IQ4_NL",
		"blk 4: attn Q8_0, router Q8_0, ffn_gate_exps Q5_1, ffn_up_exps Q5_1, ffn_down_exps IQ3_S",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("spans:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if got, want := Pattern(c.Other.Slots), "token_embd Q8_0, output Q8_0"; got != want {
		t.Errorf("outside the blocks %q, want %q", got, want)
	}
	// Block 4's per-expert tensors: 16 per stack, one slot each.
	for _, s := range c.Layers[4].Slots {
		if s.Slot == "ffn_gate_exps" && (s.Tensors != 16 || s.Type != tensor.Q5_1) {
			t.Errorf("blk 4 gate experts %+v, want 16 Q5_1 tensors", s)
		}
	}
	// The bytes: an IQ2_XXS stack is 256×256×16 weights at 66 bytes per 256.
	stack := uint64(256 * 16 * 66)
	byType := map[tensor.Type]TypeBytes{}
	for _, x := range c.Types {
		byType[x.Type] = x
	}
	if got := byType[tensor.IQ2_XXS]; got.Tensors != 8 || got.Bytes != 8*stack {
		t.Errorf("IQ2_XXS %+v, want 8 tensors, %d bytes", got, 8*stack)
	}
	if c.Types[0].Type != tensor.IQ2_XXS {
		t.Errorf("most bytes in %s, want IQ2_XXS", c.Types[0].Type)
	}
	var share float64
	for _, x := range c.Types {
		share += x.Share(c.Bytes)
	}
	if share < 0.999999 || share > 1.000001 {
		t.Errorf("shares sum to %v", share)
	}
	if got := fmt.Sprint(c.MatrixTypes()); got != "[IQ2_XXS IQ3_S Q5_1 Q8_0 IQ4_NL]" {
		t.Errorf("matrix types %s", got)
	}
	// Spans carry their layers' bytes: blk 0–2 holds three blocks'.
	var three uint64
	for _, L := range c.Layers[:3] {
		for _, x := range L.Types {
			three += x.Bytes
		}
	}
	if s := c.Spans()[0]; s.Bytes() != three || s.Slots[0].Tensors != 3 {
		t.Errorf("span blk 0–2: %d bytes, attn_q ×%d; want %d bytes, ×3", s.Bytes(), s.Slots[0].Tensors, three)
	}
}

// TestCensusNames: names that only look like blocks stay outside them,
// vectors are no slot, and a mixed stack names both types.
func TestCensusNames(t *testing.T) {
	f := synthFile(t, []synthTensor{
		{"blk.x.attn_q.weight", tensor.F32, []uint64{4, 4}},
		{"blk.-1.attn_q.weight", tensor.F32, []uint64{4, 4}},
		{"blk.99999999999999999999.attn_q.weight", tensor.F32, []uint64{4, 4}},
		{"blk.7.ffn_norm.weight", tensor.F32, []uint64{4}},
		{"blk.7.ffn_up.0.weight", tensor.Q8_0, []uint64{32, 2}},
		{"blk.7.ffn_up.1.weight", tensor.Q4_0, []uint64{32, 2}},
		{"blk.7.ffn_up.x.weight", tensor.Q4_0, []uint64{32, 2}},
		{"blk.7.attn_q.scale", tensor.F32, []uint64{4, 4}},
	})
	c := checkCensus(t, f)
	if len(c.Layers) != 1 || c.Layers[0].Layer != 7 {
		t.Fatalf("layers %+v, want blk 7 alone", c.Layers)
	}
	if got, want := Pattern(c.Layers[0].Slots), "ffn_up_exps Q4_0+Q8_0, ffn_up.x Q4_0"; got != want {
		t.Errorf("blk 7 %q, want %q", got, want)
	}
	if len(c.Other.Types) != 1 || c.Other.Types[0].Tensors != 3 {
		t.Errorf("outside the blocks %+v, want the 3 look-alikes", c.Other.Types)
	}
	// 272, 72 and 68 of 412 bytes.
	if got, want := c.Mix(), "F32 66% · Q4_0 17% · Q8_0 17%"; got != want {
		t.Errorf("mix %q, want %q", got, want)
	}
	if got := Percent(0.004); got != "<1%" {
		t.Errorf("Percent(0.004) = %q", got)
	}
	if got := fmt.Sprint(c.Spans()[0].Label()); got != "blk 7" {
		t.Errorf("label %q", got)
	}
}
