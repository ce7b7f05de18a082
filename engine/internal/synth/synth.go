// Package synth writes llama-shaped GGUF models with random weights, so
// that benchmarks can run at the shapes users run (SmolLM2-135M, 1B)
// without shipping real weights. The weights are deterministic (a fixed
// seed), normal with std 0.02, and every norm is 1.
package synth

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Shape is a llama model's dimensions.
type Shape struct {
	Dim, Layers, Heads, KVHeads, FFN, Vocab int
	// HeadDim is each head's width when it is not Dim/Heads (Qwen3's 128
	// at Dim 2048, 32 heads); 0 means Dim/Heads.
	HeadDim int
	// Experts, when positive, makes every feed-forward block a mixture of
	// that many experts of ExpertFFN hidden units, ExpertsUsed of them run
	// per token; FFN is then unused.
	Experts, ExpertsUsed, ExpertFFN int
	// Arch is general.architecture: "llama" when empty; "qwen3moe" adds
	// its per-head Q/K norms.
	Arch string
}

// Qwen3MoE30B is Qwen3-30B-A3B's shape (qwen3moe): 48 layers of 128
// experts of 768, 8 per token, over a 2048-wide stream with 32 query heads
// of 128 and 4 KV heads; about 3.3 B of its 30.5 B weights run per token.
func Qwen3MoE30B() Shape {
	return Shape{Arch: "qwen3moe", Dim: 2048, Layers: 48, Heads: 32, KVHeads: 4, HeadDim: 128, FFN: 6144,
		Vocab: 151936, Experts: 128, ExpertsUsed: 8, ExpertFFN: 768}
}

// Mixtral is Mixtral-8x7B's shape (llama with experts): 32 layers of 8
// experts of 14336, 2 per token.
func Mixtral() Shape {
	return Shape{Dim: 4096, Layers: 32, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 32000, Experts: 8, ExpertsUsed: 2, ExpertFFN: 14336}
}

func (s Shape) arch() string {
	if s.Arch == "" {
		return "llama"
	}
	return s.Arch
}

func (s Shape) headDim() int {
	if s.HeadDim > 0 {
		return s.HeadDim
	}
	return s.Dim / s.Heads
}

// SmolLM2 is SmolLM2-135M's shape: the small model users run first.
func SmolLM2() Shape {
	return Shape{Dim: 576, Layers: 30, Heads: 9, KVHeads: 3, FFN: 1536, Vocab: 49152}
}

// Llama1B is a Llama-3.2-1B-like shape with a 32,000-token vocabulary (the
// shape the performance comparisons in docs/performance.md use).
func Llama1B() Shape {
	return Shape{Dim: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192, Vocab: 32000}
}

// Llama3B is Llama-3.2-3B's shape.
func Llama3B() Shape {
	return Shape{Dim: 3072, Layers: 28, Heads: 24, KVHeads: 8, FFN: 8192, Vocab: 128256}
}

// Llama8B is Llama-3.1-8B's shape.
func Llama8B() Shape {
	return Shape{Dim: 4096, Layers: 32, Heads: 32, KVHeads: 8, FFN: 14336, Vocab: 128256}
}

// Shapes names the shapes Write knows, for command lines.
func Shapes() map[string]Shape {
	return map[string]Shape{"smollm2-135m": SmolLM2(), "llama-1b": Llama1B(), "llama-3b": Llama3B(), "llama-8b": Llama8B(),
		"qwen3moe-30b-a3b": Qwen3MoE30B(), "mixtral": Mixtral()}
}

// Options vary what Write makes.
type Options struct {
	// Random fills the matrices with random encoded blocks
	// (tensor.FillRandom) instead of quantising random floats: instant at
	// any size, for speed measurements, where the values do not matter.
	Random bool
	// Mixed makes a Q4_K_M-like file from a K-quant typ: the embedding in
	// Q6_K, the other matrices in typ, and matrices whose rows are not a
	// multiple of 256 in Q5_0 (llama.cpp's fallback for Q4_K).
	Mixed bool
}

// Write writes a llama GGUF of shape s whose matrices are of type typ
// (norms stay F32) to path.
func Write(path string, s Shape, typ tensor.Type) error { return WriteWith(path, s, typ, Options{}) }

// WriteWith is Write with options.
func WriteWith(path string, s Shape, typ tensor.Type, o Options) error {
	if s.Heads <= 0 || s.KVHeads <= 0 || (s.HeadDim == 0 && s.Dim%s.Heads != 0) {
		return fmt.Errorf("synth: shape %+v has no whole head width", s)
	}
	a := s.arch()
	if a != "llama" && a != "qwen3moe" {
		return fmt.Errorf("synth: architecture %q (llama or qwen3moe)", a)
	}
	var w gguf.Writer
	var err error
	kv := func(k string, v gguf.Value) {
		if err == nil {
			err = w.AddKV(k, v)
		}
	}
	kv("general.architecture", gguf.String(a))
	kv("general.name", gguf.String("synthetic"))
	// Room for the long-context benchmarks (decode at a depth of 8K tokens,
	// scripts/bench-peer.sh): a runtime sizes its cache from the context it
	// is asked for, not from this window.
	kv(a+".context_length", gguf.Uint32(16384))
	kv(a+".embedding_length", gguf.Uint32(uint32(s.Dim)))
	kv(a+".block_count", gguf.Uint32(uint32(s.Layers)))
	kv(a+".feed_forward_length", gguf.Uint32(uint32(s.FFN)))
	kv(a+".attention.head_count", gguf.Uint32(uint32(s.Heads)))
	kv(a+".attention.head_count_kv", gguf.Uint32(uint32(s.KVHeads)))
	if s.HeadDim > 0 {
		kv(a+".attention.key_length", gguf.Uint32(uint32(s.HeadDim)))
		kv(a+".attention.value_length", gguf.Uint32(uint32(s.HeadDim)))
	}
	kv(a+".rope.freq_base", gguf.Float32(100000))
	kv(a+".attention.layer_norm_rms_epsilon", gguf.Float32(1e-5))
	if s.Experts > 0 {
		kv(a+".expert_count", gguf.Uint32(uint32(s.Experts)))
		kv(a+".expert_used_count", gguf.Uint32(uint32(s.ExpertsUsed)))
		kv(a+".expert_feed_forward_length", gguf.Uint32(uint32(s.ExpertFFN)))
	}
	// A placeholder SentencePiece vocabulary (the stories260K fixture's
	// form: control tokens, byte tokens, then numbered pieces) so that
	// loaders that insist on a tokenizer, this engine's and llama.cpp's,
	// open the file.
	toks := make([]string, s.Vocab)
	types := make([]int32, s.Vocab)
	for i := range toks {
		switch {
		case i < 3:
			toks[i], types[i] = [...]string{"<unk>", "<s>", "</s>"}[i], [...]int32{2, 3, 3}[i]
		case i < 3+256:
			toks[i], types[i] = fmt.Sprintf("<0x%02X>", i-3), 6
		default:
			toks[i], types[i] = fmt.Sprintf("tok_%d", i), 1
		}
	}
	kv("tokenizer.ggml.model", gguf.String("llama"))
	kv("tokenizer.ggml.tokens", gguf.Array(toks))
	kv("tokenizer.ggml.scores", gguf.Array(make([]float32, s.Vocab)))
	kv("tokenizer.ggml.token_type", gguf.Array(types))
	kv("tokenizer.ggml.bos_token_id", gguf.Uint32(1))
	kv("tokenizer.ggml.eos_token_id", gguf.Uint32(2))
	kv("tokenizer.ggml.unknown_token_id", gguf.Uint32(0))
	rng := rand.New(rand.NewPCG(1, 1))
	var vals []float32
	add := func(name string, t tensor.Type, dims ...uint64) {
		if err != nil {
			return
		}
		n := int(dims[0])
		if len(dims) > 1 {
			for _, d := range dims[1:] {
				n *= int(d)
			}
			if o.Mixed && name == "token_embd.weight" {
				t = tensor.Q6_K
			}
			if t.BlockLen() == 256 && dims[0]%256 != 0 {
				t = tensor.Q5_0
			}
		}
		if o.Random && len(dims) > 1 {
			var size uint64
			if size, err = t.TensorBytes(dims); err != nil {
				return
			}
			data := make([]byte, size)
			if err = tensor.FillRandom(t, data, uint64(len(name))*7919+size, 0.0005); err != nil {
				return
			}
			err = w.AddTensor(name, t, dims, data)
			return
		}
		if cap(vals) < n {
			vals = make([]float32, n)
		}
		v := vals[:n]
		for i := range v {
			if len(dims) == 1 {
				v[i] = 1
			} else {
				v[i] = float32(rng.NormFloat64() * 0.02)
			}
		}
		var size uint64
		if size, err = t.TensorBytes(dims); err != nil {
			return
		}
		data := make([]byte, size)
		if err = tensor.Quantize(t, data, v); err != nil {
			return
		}
		err = w.AddTensor(name, t, dims, data)
	}
	hd := uint64(s.headDim())
	d, qd, kvd, f := uint64(s.Dim), hd*uint64(s.Heads), hd*uint64(s.KVHeads), uint64(s.FFN)
	add("token_embd.weight", typ, d, uint64(s.Vocab))
	add("output_norm.weight", tensor.F32, d)
	for l := range s.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", tensor.F32, d)
		add(p+"attn_q.weight", typ, d, qd)
		add(p+"attn_k.weight", typ, d, kvd)
		add(p+"attn_v.weight", typ, d, kvd)
		if a == "qwen3moe" {
			add(p+"attn_q_norm.weight", tensor.F32, hd)
			add(p+"attn_k_norm.weight", tensor.F32, hd)
		}
		add(p+"attn_output.weight", typ, qd, d)
		add(p+"ffn_norm.weight", tensor.F32, d)
		if s.Experts > 0 {
			E, ef := uint64(s.Experts), uint64(s.ExpertFFN)
			add(p+"ffn_gate_inp.weight", tensor.F32, d, E)
			add(p+"ffn_gate_exps.weight", typ, d, ef, E)
			add(p+"ffn_up_exps.weight", typ, d, ef, E)
			add(p+"ffn_down_exps.weight", typ, ef, d, E)
			continue
		}
		add(p+"ffn_gate.weight", typ, d, f)
		add(p+"ffn_up.weight", typ, d, f)
		add(p+"ffn_down.weight", typ, f, d)
	}
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if _, err := w.WriteTo(fh); err != nil {
		fh.Close()
		return fmt.Errorf("synth: writing %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("synth: writing %s: %w", path, err)
	}
	return nil
}
