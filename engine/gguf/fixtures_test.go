package gguf

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// stories260kKeys is the metadata of the stories260K fixtures in file
// order, as documented in shared/fixtures/stories260k/README.md. Arrays are
// checked separately.
func stories260kKeys(fileType uint32) []KV {
	return []KV{
		{"general.architecture", String("llama")},
		{"general.name", String("stories260K")},
		{"general.file_type", Uint32(fileType)},
		{"llama.vocab_size", Uint32(512)},
		{"llama.context_length", Uint32(512)},
		{"llama.embedding_length", Uint32(64)},
		{"llama.block_count", Uint32(5)},
		{"llama.feed_forward_length", Uint32(172)},
		{"llama.attention.head_count", Uint32(8)},
		{"llama.attention.head_count_kv", Uint32(4)},
		{"llama.rope.dimension_count", Uint32(8)},
		{"llama.rope.freq_base", Float32(10000)},
		{"llama.attention.layer_norm_rms_epsilon", Float32(1e-5)},
		{"tokenizer.ggml.model", String("llama")},
		{"tokenizer.ggml.tokens", Value{}},
		{"tokenizer.ggml.scores", Value{}},
		{"tokenizer.ggml.token_type", Value{}},
		{"tokenizer.ggml.bos_token_id", Uint32(1)},
		{"tokenizer.ggml.eos_token_id", Uint32(2)},
		{"tokenizer.ggml.unknown_token_id", Uint32(0)},
		{"tokenizer.ggml.add_bos_token", Bool(true)},
		{"tokenizer.ggml.add_eos_token", Bool(false)},
	}
}

type shape struct {
	name string
	dims []uint64
}

// llamaTensors lists a llama checkpoint's tensors in llama2c_to_gguf.py /
// kjv_export_gguf.py order: embedding, per-block weights, final norm, and
// (for stories260K) the explicit classifier.
func llamaTensors(blocks int, dim, kvDim, ffn, vocab uint64, withOutput bool) []shape {
	s := []shape{{"token_embd.weight", []uint64{dim, vocab}}}
	for n := range blocks {
		p := fmt.Sprintf("blk.%d.", n)
		s = append(s,
			shape{p + "attn_norm.weight", []uint64{dim}},
			shape{p + "attn_q.weight", []uint64{dim, dim}},
			shape{p + "attn_k.weight", []uint64{dim, kvDim}},
			shape{p + "attn_v.weight", []uint64{dim, kvDim}},
			shape{p + "attn_output.weight", []uint64{dim, dim}},
			shape{p + "ffn_norm.weight", []uint64{dim}},
			shape{p + "ffn_gate.weight", []uint64{dim, ffn}},
			shape{p + "ffn_down.weight", []uint64{ffn, dim}},
			shape{p + "ffn_up.weight", []uint64{dim, ffn}},
		)
	}
	s = append(s, shape{"output_norm.weight", []uint64{dim}})
	if withOutput {
		s = append(s, shape{"output.weight", []uint64{dim, vocab}})
	}
	return s
}

func TestStories260K(t *testing.T) {
	for _, c := range []struct {
		file     string
		fileType uint32
		matrix   tensor.Type // type of the 2-D tensors; norms are always F32
		size     int64
	}{
		{"stories260K-f32.gguf", 0, tensor.F32, 1186464},
		{"stories260K-f16.gguf", 1, tensor.F16, 602272},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := fixture(t, "stories260k/"+c.file)
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Version != 3 || f.Alignment != 32 || f.DataOffset != 15264 {
				t.Errorf("version %d alignment %d data offset %d, want 3, 32, 15264", f.Version, f.Alignment, f.DataOffset)
			}
			want := stories260kKeys(c.fileType)
			if len(f.KV) != len(want) {
				t.Fatalf("%d keys, want %d", len(f.KV), len(want))
			}
			for i, kv := range want {
				if f.KV[i].Key != kv.Key {
					t.Errorf("key %d is %q, want %q", i, f.KV[i].Key, kv.Key)
				} else if kv.Value.Type().valid() && !f.KV[i].Value.Equal(kv.Value) {
					t.Errorf("%s = %v, want %v", kv.Key, f.KV[i].Value, kv.Value)
				}
			}
			if arch, err := f.Architecture(); arch != "llama" || err != nil {
				t.Errorf("Architecture = %q, %v", arch, err)
			}

			// The placeholder vocabulary the README documents.
			tokens, err := f.Strings("tokenizer.ggml.tokens")
			if err != nil || len(tokens) != 512 {
				t.Fatalf("tokens: %d, %v", len(tokens), err)
			}
			for id, want := range map[int]string{0: "<unk>", 1: "<s>", 2: "</s>", 3: "<0x00>", 13: "<0x0A>", 258: "<0xFF>", 259: "tok_259", 511: "tok_511"} {
				if tokens[id] != want {
					t.Errorf("token %d = %q, want %q", id, tokens[id], want)
				}
			}
			scores, err := f.Float32s("tokenizer.ggml.scores")
			if err != nil || len(scores) != 512 || slices.ContainsFunc(scores, func(s float32) bool { return s != 0 }) {
				t.Errorf("scores: %d entries, %v; want 512 zeros", len(scores), err)
			}
			types, err := f.Int32s("tokenizer.ggml.token_type")
			if err != nil || len(types) != 512 || types[0] != 2 || types[1] != 3 || types[2] != 3 || types[3] != 6 || types[258] != 6 || types[259] != 1 || types[511] != 1 {
				t.Errorf("token types wrong: %v", err)
			}

			wantT := llamaTensors(5, 64, 32, 172, 512, true)
			if len(f.Tensors) != len(wantT) {
				t.Fatalf("%d tensors, want %d", len(f.Tensors), len(wantT))
			}
			end := uint64(0)
			for i, w := range wantT {
				ti := &f.Tensors[i]
				typ := c.matrix
				if len(w.dims) == 1 {
					typ = tensor.F32
				}
				if ti.Name != w.name || !slices.Equal(ti.Dims, w.dims) || ti.Type != typ {
					t.Errorf("tensor %d = %s %v %v, want %s %v %v", i, ti.Name, ti.Dims, ti.Type, w.name, w.dims, typ)
				}
				if ti.Offset%32 != 0 || uint64(len(f.TensorData(ti))) != ti.Size {
					t.Errorf("tensor %s: offset %d, %d bytes of data for size %d", ti.Name, ti.Offset, len(f.TensorData(ti)), ti.Size)
				}
				end = max(end, padTo(f.DataOffset+ti.Offset+ti.Size, 32))
			}
			if end != uint64(c.size) {
				t.Errorf("last tensor's padding ends at %d, file size %d", end, c.size)
			}
			// The classifier is written as an explicit copy of the embedding.
			emb, _ := f.Tensor("token_embd.weight")
			out, _ := f.Tensor("output.weight")
			if !bytes.Equal(f.TensorData(emb), f.TensorData(out)) {
				t.Error("output.weight differs from token_embd.weight; the fixture says they are a tied copy")
			}
		})
	}
}

func TestKJV(t *testing.T) {
	wantShapes := llamaTensors(6, 256, 128, 768, 4096, false)
	for _, c := range []struct {
		file   string
		counts map[tensor.Type]int
	}{
		{"kjv-f32.gguf", map[tensor.Type]int{tensor.F32: 56}},
		{"kjv-f16.gguf", map[tensor.Type]int{tensor.F16: 43, tensor.F32: 13}},
		{"kjv-q8_0.gguf", map[tensor.Type]int{tensor.Q8_0: 43, tensor.F32: 13}},
		{"kjv-q4_k_m.gguf", map[tensor.Type]int{tensor.Q4_K: 38, tensor.Q6_K: 5, tensor.F32: 13}},
		{"kjv-q4_k_s.gguf", map[tensor.Type]int{tensor.Q4_K: 38, tensor.Q5_K: 4, tensor.Q6_K: 1, tensor.F32: 13}},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := Open(fixture(t, "kjv/"+c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			counts := map[tensor.Type]int{}
			shapes := map[string][]uint64{}
			for i := range f.Tensors {
				ti := &f.Tensors[i]
				counts[ti.Type]++
				shapes[ti.Name] = ti.Dims
				if len(ti.Dims) == 1 && ti.Type != tensor.F32 {
					t.Errorf("norm %s is %v, want F32", ti.Name, ti.Type)
				}
				if uint64(len(f.TensorData(ti))) != ti.Size {
					t.Errorf("tensor %s: TensorData length %d, size %d", ti.Name, len(f.TensorData(ti)), ti.Size)
				}
			}
			if len(counts) != len(c.counts) {
				t.Errorf("type counts %v, want %v", counts, c.counts)
			}
			for typ, n := range c.counts {
				if counts[typ] != n {
					t.Errorf("%d × %v, want %d (all counts %v)", counts[typ], typ, n, counts)
				}
			}
			// The K-quant files were rewritten by llama.cpp in a different
			// tensor order, so compare by name: every file must hold exactly
			// these tensors with these shapes.
			if len(shapes) != len(wantShapes) {
				t.Errorf("%d tensors, want %d", len(shapes), len(wantShapes))
			}
			for _, w := range wantShapes {
				if !slices.Equal(shapes[w.name], w.dims) {
					t.Errorf("tensor %s has shape %v, want %v", w.name, shapes[w.name], w.dims)
				}
			}
			for _, k := range []string{"llama.block_count", "llama.embedding_length", "llama.vocab_size"} {
				if _, err := f.Uint32(k); err != nil {
					t.Error(err)
				}
			}
			if tokens, err := f.Strings("tokenizer.ggml.tokens"); err != nil || len(tokens) != 4096 {
				t.Errorf("tokens: %d, %v", len(tokens), err)
			}
		})
	}
}

func TestTokenizerFixtures(t *testing.T) {
	for _, c := range []struct {
		dir            string
		model          string
		tokens, merges int
		bos            uint32
	}{
		{"llama-spm", "llama", 3000, 0, 1},
		{"llama3-bpe", "gpt2", 128256, 280147, 128000},
		{"qwen3-bpe", "gpt2", 151936, 151387, 151643},
	} {
		t.Run(c.dir, func(t *testing.T) {
			f, err := Open(fixture(t, "tokenizers/"+c.dir+"/tokenizer.gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if len(f.Tensors) != 0 {
				t.Errorf("%d tensors in a tokenizer-only file", len(f.Tensors))
			}
			if m, err := f.String("tokenizer.ggml.model"); m != c.model || err != nil {
				t.Errorf("model %q, %v", m, err)
			}
			tokens, err := f.Strings("tokenizer.ggml.tokens")
			if err != nil || len(tokens) != c.tokens {
				t.Errorf("tokens: %d, %v; want %d", len(tokens), err, c.tokens)
			}
			if types, err := f.Int32s("tokenizer.ggml.token_type"); err != nil || len(types) != c.tokens {
				t.Errorf("token types: %d, %v", len(types), err)
			}
			if bos, err := f.Uint32("tokenizer.ggml.bos_token_id"); bos != c.bos || err != nil {
				t.Errorf("bos %d, %v", bos, err)
			}
			if c.merges > 0 {
				merges, err := f.Strings("tokenizer.ggml.merges")
				if err != nil || len(merges) != c.merges {
					t.Errorf("merges: %d, %v; want %d", len(merges), err, c.merges)
				}
			}
			if c.dir == "llama3-bpe" && (tokens[128000] != "<|begin_of_text|>" || tokens[1820] != "the") {
				t.Errorf("tokens[128000] = %q, tokens[1820] = %q", tokens[128000], tokens[1820])
			}
			if c.dir == "qwen3-bpe" && tokens[151645] != "<|im_end|>" {
				t.Errorf("tokens[151645] = %q", tokens[151645])
			}
		})
	}
}

// BenchmarkParse measures parsing the largest vocabulary fixture from
// memory: 128 256 tokens and 280 147 merges.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(fixture(b, "tokenizers/llama3-bpe/tokenizer.gguf"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("llama3", data); err != nil {
			b.Fatal(err)
		}
	}
}
