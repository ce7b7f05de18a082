// Package model is the llama-family transformer: it reads a model's
// hyper-parameters and weights from a GGUF file and runs the forward pass —
// prefill as matrix×matrix over the prompt, then decode token by token —
// over a KV cache, exposing the residual stream to hooks.
//
// The pass is written once against engine/backend: a State holds its
// buffers, KV cache and weights on one backend (the CPU backend by
// default), and every operation is one backend call. Each block's slots
// (Q/K/V, O, gate/up, down) are linears set per State: the dense weights,
// or a projection and projected weights (SetProjections; engine/grc builds
// them, this package only runs them).
//
// One file per concern: config.go (hyper-parameters), arch.go (the
// per-architecture differences), load.go (weights), forward.go (the pass
// and the State), project.go (the weights as blocks, projected slots),
// hooks.go.
package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/gguf"
)

// ErrUnknownArchitecture is wrapped by Load for a general.architecture this
// engine has no forward pass for.
var ErrUnknownArchitecture = errors.New("unknown model architecture")

// ErrContextFull is returned by Forward when the tokens would run past the
// KV cache: the caller must reset or start a new state.
var ErrContextFull = errors.New("context window is full")

// Config holds a model's hyper-parameters, read from GGUF metadata.
type Config struct {
	Arch      string  // general.architecture
	Name      string  // general.name, if any
	Dim       int     // embedding_length: the residual stream's width
	Layers    int     // block_count
	Heads     int     // attention.head_count
	KVHeads   int     // attention.head_count_kv (GQA); Heads when absent
	HeadDim   int     // attention.key_length, else Dim/Heads
	FFN       int     // feed_forward_length
	Vocab     int     // rows of token_embd
	CtxLen    int     // context_length the model was trained with
	RopeDim   int     // rope.dimension_count: leading dims of each head that rotate
	RopeBase  float64 // rope.freq_base
	RopeNeox  bool    // rotate (x[i], x[i+RopeDim/2]) instead of adjacent pairs
	Eps       float32 // attention.layer_norm_rms_epsilon
	TiedEmbed bool    // no output.weight: logits use token_embd

	// AttnSoftCap and LogitSoftCap, when positive, bound the attention
	// scores and the final logits smoothly: z ← cap·tanh(z/cap) (gemma2's
	// attn_logit_softcapping, final_logit_softcapping).
	AttnSoftCap, LogitSoftCap float32
	// SlidingWindow is the span of the sliding-window layers
	// (attention.sliding_window), 0 when every layer sees every position.
	SlidingWindow int
	// SWAPeriod says which layers slide: in every SWAPeriod layers, all
	// but the last (attention.sliding_window_pattern, else the
	// architecture's: gemma2 2, gemma3 6); 0 when none do.
	SWAPeriod int
	// SWAAll: every layer slides (attention.sliding_window_pattern 0 in a
	// file of an architecture with sliding layers, as llama.cpp's
	// set_swa_pattern(0) reads it).
	SWAAll bool
	// RopeLocalBase is the RoPE base of the sliding layers, which rotate
	// without linear scaling (rope.freq_base_swa, else gemma3's 10000);
	// 0: the same as the others.
	RopeLocalBase float64
	// RopeOrigCtx is the context the model was trained at before its RoPE
	// was stretched (rope.scaling.original_context_length; CtxLen when
	// absent): a LongRoPE model (phi3) uses its long factors in a State
	// whose window exceeds it, its short ones otherwise, as llama.cpp does.
	RopeOrigCtx int
	// RopeScale multiplies the rotated pairs (rope.scaling.attn_factor;
	// 1 when absent).
	RopeScale float32
	// RopePosScale multiplies the positions the angles are taken at:
	// linear RoPE scaling, 1/rope.scaling.factor (1 when absent, and
	// when rope.scaling.type is none, as llama.cpp never scales then).
	RopePosScale float32

	// Experts is expert_count: the experts of each mixture-of-experts
	// feed-forward block, 0 for a dense model.
	Experts int
	// ExpertsUsed is expert_used_count: the experts each token runs.
	ExpertsUsed int
	// ExpertFFN is one expert's hidden width
	// (expert_feed_forward_length; else feed_forward_length for llama's
	// Mixtral files, FFN/ExpertsUsed for qwen3moe, as llama.cpp reads
	// them).
	ExpertFFN int
	// LeadingDense is leading_dense_block_count: the first layers that
	// keep a dense feed-forward block (DeepSeek, GLM); 0 for the others.
	LeadingDense int
	// ExpertWeightsScale multiplies the chosen experts' weights
	// (expert_weights_scale); 0 when absent, which means 1.
	ExpertWeightsScale float32
	// RopeYaRN, when non-nil, is the model's YaRN (rope.scaling.type
	// yarn), which every layer's RoPE carries, RopePosScale being its
	// frequency scale. Its fields are what llama.cpp passes ggml's
	// rope_ext (llama-context.cpp): ExtFactor rope.scaling.yarn_ext_factor
	// (1 when absent or negative), BetaFast and BetaSlow
	// rope.scaling.yarn_beta_fast and _slow (32 and 1), OrigCtx
	// RopeOrigCtx, and AttnFactor, with f = 1/RopePosScale and
	// get_mscale(f, m) = 1 + 0.1·m·ln f (1 for f ≤ 1):
	//
	//	get_mscale(f, 1) / get_mscale(f, L) / (1 + 0.1·ln f) · RopeScale
	//
	// where L is rope.scaling.yarn_log_multiplier (the middle factor
	// absent when L is 0 or missing). rope_yarn multiplies the magnitude
	// by 1 + 0.1·ln f again, which the division cancels: the rotation's
	// magnitude is get_mscale(f, 1)/get_mscale(f, L)·RopeScale. With
	// ExtFactor 0, AttnFactor is rope.scaling.yarn_attn_factor (1)
	// times RopeScale. llama.cpp reads the yarn_* keys only for the
	// architectures that use them (grok, mistral3, deepseek2); converters
	// write them only when the model's configuration names them.
	RopeYaRN *backend.YaRN
}

// IsMoE reports whether the model's feed-forward blocks are mixtures of
// experts (after its LeadingDense dense layers).
func (c *Config) IsMoE() bool { return c.Experts > 0 }

// MoELayer reports whether layer l's feed-forward block is a mixture of
// experts.
func (c *Config) MoELayer(l int) bool { return c.Experts > 0 && l >= c.LeadingDense && l < c.Layers }

// QDim is the width of the query projection (Heads·HeadDim).
func (c *Config) QDim() int { return c.Heads * c.HeadDim }

// KVDim is the width of one position's key (and value) vector.
func (c *Config) KVDim() int { return c.KVHeads * c.HeadDim }

func readConfig(f *gguf.File) (Config, error) {
	arch, err := f.Architecture()
	if err != nil {
		return Config{}, err
	}
	spec, ok := lookupArch(arch)
	if !ok {
		return Config{}, fmt.Errorf("model: %s: %w %q (supported: %s)", f.Path, ErrUnknownArchitecture, arch, supportedArchs())
	}
	c := Config{Arch: arch, RopeNeox: spec.ropeNeox}
	c.Name, _ = f.String("general.name")
	key := func(k string) string { return arch + "." + k }
	need := func(k string, dst *int) error {
		v, err := f.Uint32(key(k))
		if err != nil {
			return err
		}
		if v == 0 || v > 1<<24 {
			return fmt.Errorf("model: %s: %s = %d is out of range", f.Path, key(k), v)
		}
		*dst = int(v)
		return nil
	}
	for _, r := range []struct {
		k   string
		dst *int
	}{
		{"embedding_length", &c.Dim},
		{"block_count", &c.Layers},
		{"feed_forward_length", &c.FFN},
		{"attention.head_count", &c.Heads},
		{"context_length", &c.CtxLen},
	} {
		if err := need(r.k, r.dst); err != nil {
			return Config{}, err
		}
	}
	c.KVHeads = c.Heads
	if _, ok := f.Lookup(key("attention.head_count_kv")); ok {
		if err := need("attention.head_count_kv", &c.KVHeads); err != nil {
			return Config{}, err
		}
	}
	if c.Heads%c.KVHeads != 0 {
		return Config{}, fmt.Errorf("model: %s: %d query heads cannot share %d KV heads evenly", f.Path, c.Heads, c.KVHeads)
	}
	c.HeadDim = c.Dim / c.Heads
	if _, ok := f.Lookup(key("attention.key_length")); ok {
		if err := need("attention.key_length", &c.HeadDim); err != nil {
			return Config{}, err
		}
	} else if c.Dim%c.Heads != 0 {
		return Config{}, fmt.Errorf("model: %s: embedding length %d is not a multiple of %d heads", f.Path, c.Dim, c.Heads)
	}
	c.RopeDim = c.HeadDim
	if _, ok := f.Lookup(key("rope.dimension_count")); ok {
		if err := need("rope.dimension_count", &c.RopeDim); err != nil {
			return Config{}, err
		}
	}
	if c.RopeDim > c.HeadDim || c.RopeDim%2 != 0 {
		return Config{}, fmt.Errorf("model: %s: rope dimension %d must be even and at most the head size %d", f.Path, c.RopeDim, c.HeadDim)
	}
	c.RopeBase = 10000
	if _, ok := f.Lookup(key("rope.freq_base")); ok {
		b, err := f.Float32(key("rope.freq_base"))
		if err != nil {
			return Config{}, err
		}
		if !(b > 1) {
			return Config{}, fmt.Errorf("model: %s: rope.freq_base %g must exceed 1", f.Path, b)
		}
		c.RopeBase = float64(b)
	}
	c.Eps = 1e-5
	if _, ok := f.Lookup(key("attention.layer_norm_rms_epsilon")); ok {
		e, err := f.Float32(key("attention.layer_norm_rms_epsilon"))
		if err != nil {
			return Config{}, err
		}
		if !(e > 0 && e < 1) {
			return Config{}, fmt.Errorf("model: %s: rms epsilon %g is out of range", f.Path, e)
		}
		c.Eps = e
	}
	for _, r := range []struct {
		k   string
		dst *float32
	}{{"attn_logit_softcapping", &c.AttnSoftCap}, {"final_logit_softcapping", &c.LogitSoftCap}} {
		if _, ok := f.Lookup(key(r.k)); !ok {
			continue
		}
		v, err := f.Float32(key(r.k))
		if err != nil {
			return Config{}, err
		}
		if !(v >= 0 && v < 1e6) {
			return Config{}, fmt.Errorf("model: %s: %s = %g is out of range", f.Path, key(r.k), v)
		}
		*r.dst = v
	}
	if _, ok := f.Lookup(key("attention.sliding_window")); ok {
		// 0 is allowed: Phi-4 says so to turn the window off.
		v, err := f.Uint32(key("attention.sliding_window"))
		if err != nil {
			return Config{}, err
		}
		c.SlidingWindow = int(min(v, 1<<30))
	}
	c.SWAPeriod, c.RopeLocalBase = spec.swaPeriod, spec.localRopeBase
	if _, ok := f.Lookup(key("attention.sliding_window_pattern")); ok {
		v, err := f.Uint32(key("attention.sliding_window_pattern"))
		switch {
		case err != nil:
			return Config{}, err
		case v == 0 && spec.swaPeriod > 0:
			c.SWAAll = true
		default:
			if err := need("attention.sliding_window_pattern", &c.SWAPeriod); err != nil {
				return Config{}, err
			}
		}
	}
	if _, ok := f.Lookup(key("rope.freq_base_swa")); ok {
		b, err := f.Float32(key("rope.freq_base_swa"))
		if err != nil {
			return Config{}, err
		}
		if !(b > 1) {
			return Config{}, fmt.Errorf("model: %s: rope.freq_base_swa %g must exceed 1", f.Path, b)
		}
		c.RopeLocalBase = float64(b)
	}
	c.RopeOrigCtx = c.CtxLen
	if _, ok := f.Lookup(key("rope.scaling.original_context_length")); ok {
		if err := need("rope.scaling.original_context_length", &c.RopeOrigCtx); err != nil {
			return Config{}, err
		}
	}
	if err := readRopeScaling(f, &c, key); err != nil {
		return Config{}, err
	}
	if err := readExperts(f, &c, spec, key); err != nil {
		return Config{}, err
	}
	return c, nil
}

// readExperts reads the mixture-of-experts keys: an architecture that is
// always a mixture (qwen3moe, gpt-oss) needs expert_count and
// expert_used_count; llama is one when its file has expert_count (Mixtral).
func readExperts(f *gguf.File, c *Config, spec arch, key func(string) string) error {
	u32 := func(k string, dst *int, lo, hi int) (bool, error) {
		if _, ok := f.Lookup(key(k)); !ok {
			return false, nil
		}
		v, err := f.Uint32(key(k))
		if err != nil {
			return false, err
		}
		if int64(v) < int64(lo) || int64(v) > int64(hi) {
			return false, fmt.Errorf("model: %s: %s = %d is out of range (%d to %d)", f.Path, key(k), v, lo, hi)
		}
		*dst = int(v)
		return true, nil
	}
	has, err := u32("expert_count", &c.Experts, 0, 1<<16)
	if err != nil {
		return err
	}
	if !has || c.Experts == 0 {
		if spec.moe {
			return fmt.Errorf("model: %s: a %s model needs %s (its number of experts)", f.Path, c.Arch, key("expert_count"))
		}
		c.Experts = 0
		return nil
	}
	if has, err := u32("expert_used_count", &c.ExpertsUsed, 1, c.Experts); err != nil {
		return err
	} else if !has {
		return fmt.Errorf("model: %s: %s says %d experts but %s (the experts each token runs) is missing", f.Path, key("expert_count"), c.Experts, key("expert_used_count"))
	}
	c.ExpertFFN = c.FFN
	if spec.ffnPerUsed {
		c.ExpertFFN = c.FFN / c.ExpertsUsed
	}
	if _, err := u32("expert_feed_forward_length", &c.ExpertFFN, 1, 1<<24); err != nil {
		return err
	}
	if _, err := u32("leading_dense_block_count", &c.LeadingDense, 0, c.Layers); err != nil {
		return err
	}
	if _, ok := f.Lookup(key("expert_weights_scale")); ok {
		v, err := f.Float32(key("expert_weights_scale"))
		if err != nil {
			return err
		}
		if !(v >= 0 && v < 1e4) {
			return fmt.Errorf("model: %s: %s = %g is out of range", f.Path, key("expert_weights_scale"), v)
		}
		c.ExpertWeightsScale = v
	}
	var shared int
	if _, err := u32("expert_shared_count", &shared, 0, 1<<16); err != nil {
		return err
	}
	if shared > 0 {
		return fmt.Errorf("model: %s: shared experts (%s = %d) are not supported yet", f.Path, key("expert_shared_count"), shared)
	}
	return nil
}

// readRopeScaling reads the RoPE scaling keys into c (its RopeOrigCtx
// already read): linear scaling's factor, the magnitude, and YaRN's
// parameters as llama.cpp's llama_context computes them from the keys.
func readRopeScaling(f *gguf.File, c *Config, key func(string) string) error {
	// opt reads an optional float key, def when absent; ok says whether a
	// value is in range, and want how, in the error.
	opt := func(k string, def float32, ok func(float32) bool, want string) (float32, error) {
		if _, present := f.Lookup(key(k)); !present {
			return def, nil
		}
		v, err := f.Float32(key(k))
		if err != nil {
			return 0, err
		}
		if !ok(v) {
			return 0, fmt.Errorf("model: %s: %s = %g is out of range: it must be %s", f.Path, key(k), v, want)
		}
		return v, nil
	}
	scaling := "linear" // llama.cpp's default
	if _, ok := f.Lookup(key("rope.scaling.type")); ok {
		t, err := f.String(key("rope.scaling.type"))
		if err != nil {
			return err
		}
		if t != "" {
			scaling = t
		}
	}
	c.RopePosScale = 1
	if _, ok := f.Lookup(key("rope.scaling.factor")); ok {
		if scaling != "linear" && scaling != "none" && scaling != "yarn" {
			return fmt.Errorf("model: %s: RoPE scaling %q is not supported (linear and yarn are)", f.Path, scaling)
		}
		v, err := opt("rope.scaling.factor", 0, func(v float32) bool { return v >= 0 && v < 1e4 }, "at least 0 and below 10000")
		if err != nil {
			return err
		}
		if scaling == "yarn" && v > 0 && v < 1 {
			// rope_yarn's magnitude 1 + 0.1·ln f turns negative below
			// e^−10, and YaRN is a stretch: f < 1 has no use.
			return fmt.Errorf("model: %s: %s = %g is below 1, which YaRN cannot use", f.Path, key("rope.scaling.factor"), v)
		}
		if v > 0 && scaling != "none" {
			c.RopePosScale = 1 / v
		}
	}
	var err error
	if c.RopeScale, err = opt("rope.scaling.attn_factor", 1, func(v float32) bool { return v > 0 && v < 100 }, "positive and below 100"); err != nil {
		return err
	}
	if scaling != "yarn" {
		return nil
	}
	y := &backend.YaRN{OrigCtx: c.RopeOrigCtx}
	positive := func(v float32) bool { return v > 0 && v < 1e4 }
	const positiveRange = "positive and below 10000"
	for _, r := range []struct {
		k   string
		dst *float32
		def float32
		ok  func(float32) bool
		rng string
	}{
		// A negative ext_factor is llama.cpp's "not set".
		{"rope.scaling.yarn_ext_factor", &y.ExtFactor, -1, func(v float32) bool { return v <= 1 && v > -1e4 }, "at most 1 (negative: unset)"},
		{"rope.scaling.yarn_attn_factor", &y.AttnFactor, 1, positive, positiveRange},
		{"rope.scaling.yarn_beta_fast", &y.BetaFast, 32, positive, positiveRange},
		{"rope.scaling.yarn_beta_slow", &y.BetaSlow, 1, positive, positiveRange},
	} {
		if *r.dst, err = opt(r.k, r.def, r.ok, r.rng); err != nil {
			return err
		}
	}
	logMul, err := opt("rope.scaling.yarn_log_multiplier", 0, func(v float32) bool { return v >= 0 && v < 100 }, "at least 0 and below 100")
	if err != nil {
		return err
	}
	if y.ExtFactor < 0 {
		y.ExtFactor = 1
	}
	if y.ExtFactor != 0 {
		// llama-context.cpp, in float32 as there: the magnitude YaRN wants,
		// divided by the 1 + 0.1·ln f that ggml's rope_yarn multiplies in.
		factor := 1 / c.RopePosScale
		mscale := func(scale, m float32) float32 {
			if scale <= 1 {
				return 1
			}
			return 0.1*m*float32(math.Log(float64(scale))) + 1
		}
		y.AttnFactor = mscale(factor, 1)
		if logMul != 0 {
			y.AttnFactor = mscale(factor, 1) / mscale(factor, logMul)
		}
		y.AttnFactor *= 1 / (1 + 0.1*float32(math.Log(float64(factor))))
	}
	y.AttnFactor *= c.RopeScale
	c.RopeYaRN = y
	return nil
}
