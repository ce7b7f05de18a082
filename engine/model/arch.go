package model

import (
	"math"
	"strings"

	"github.com/isagi-lab/isagi/engine/backend"
)

// arch is what one architecture is made of: its block (the equations of
// one transformer layer, written in its own file: llama.go, gemma.go), and
// what the loader and the configuration need to know that the file does
// not say. Adding an architecture adds an entry here and a block function;
// the other architectures' blocks are untouched.
type arch struct {
	// block runs layer l over the state's n rows at positions pos0…:
	// x += attention(x), x += FFN(x), in the architecture's own way.
	block func(s *State, l, n, pos0 int)
	// ropeNeox: llama.cpp's choice of rotation per architecture, which the
	// file does not store: llama rotates adjacent pairs (rope type NORM),
	// qwen2/qwen3/gemma the two halves of each head (NEOX).
	ropeNeox bool
	// qkNorm: RMSNorm over each head of Q and K before RoPE (qwen3, gemma3).
	qkNorm bool
	// postNorms: RMSNorm of the attention and FFN outputs before they are
	// added to the residual stream (gemma2, gemma3).
	postNorms bool
	// gemma: embeddings scaled by √Dim, the classifier always the token
	// embedding.
	gemma bool
	// fused: Q, K and V in one attn_qkv matrix and FFN gate and up in one
	// ffn_up (gate rows first), which the loader splits into views (phi3).
	fused bool
	// swaPeriod is the default of Config.SWAPeriod: in every period of
	// layers all but the last slide (gemma2: 2, gemma3: 6); 0 for none.
	swaPeriod int
	// localRopeBase is the default of Config.RopeLocalBase (gemma3: 10000).
	localRopeBase float64
	// queryScale, when set, is the attention's score factor for a config
	// (gemma: 1/√key_length, but 1/√(Dim/Heads) for the 27B models).
	queryScale func(c *Config) float32
	// moe: every file of the architecture has mixture-of-experts blocks
	// (qwen3moe, gpt-oss); llama has them when its file says so (Mixtral).
	moe bool
	// ffnPerUsed: without expert_feed_forward_length an expert's width is
	// feed_forward_length / expert_used_count (qwen3moe), else
	// feed_forward_length itself (llama).
	ffnPerUsed bool
	// route is how the mixture-of-experts blocks choose and weigh their
	// experts, and moeAct their activation.
	route  routeSpec
	moeAct moeAct
}

// routeSpec is an architecture's expert choice as llama.cpp's
// build_moe_ffn takes it: the gating function and whether the chosen
// weights are normalised to sum to one.
type routeSpec struct {
	gating backend.Gating
	norm   bool
}

// moeAct is the activation of the experts' gate and up products.
type moeAct uint8

const (
	actSwiGLU    moeAct = iota // silu(g)·u
	actSwiGLUOAI               // gpt-oss's clamped form (backend.Experts.SwiGLUOAI)
)

// gemma2Scale and gemma3Scale follow gemma_pytorch's query_pre_attn_scalar,
// which the files do not store: the head size, except for the 27B models
// (46 and 62 layers), whose queries are scaled by Dim/Heads.
func gemma2Scale(c *Config) float32 { return gemmaScale(c, 46) }
func gemma3Scale(c *Config) float32 { return gemmaScale(c, 62) }

func gemmaScale(c *Config, layers27B int) float32 {
	d := c.HeadDim
	if c.Layers == layers27B {
		d = c.Dim / c.Heads
	}
	return float32(1 / math.Sqrt(float64(d)))
}

// lookupArch is a switch rather than a map so the table cannot be mutated.
func lookupArch(name string) (arch, bool) {
	switch name {
	case "llama":
		return arch{block: llamaBlock, route: routeSpec{backend.GateSoftmax, true}}, true
	case "qwen2":
		return arch{block: llamaBlock, ropeNeox: true}, true
	case "qwen3":
		return arch{block: llamaBlock, ropeNeox: true, qkNorm: true}, true
	case "qwen3moe":
		return arch{block: llamaBlock, ropeNeox: true, qkNorm: true, moe: true, ffnPerUsed: true, route: routeSpec{backend.GateSoftmax, true}}, true
	case "gemma2":
		return arch{block: gemmaBlock, ropeNeox: true, postNorms: true, gemma: true, swaPeriod: 2, queryScale: gemma2Scale}, true
	case "gemma3":
		return arch{block: gemmaBlock, ropeNeox: true, qkNorm: true, postNorms: true, gemma: true,
			swaPeriod: 6, localRopeBase: 10000, queryScale: gemma3Scale}, true
	case "phi3":
		// phi3 files store a sliding window too, which llama.cpp reads and
		// does not apply: every layer attends to every position.
		return arch{block: llamaBlock, ropeNeox: true, fused: true}, true
	}
	return arch{}, false
}

// Architectures lists the general.architecture values this engine runs.
func Architectures() []string {
	return []string{"llama", "qwen2", "qwen3", "qwen3moe", "gemma2", "gemma3", "phi3"}
}

// SupportsArchitecture reports whether name is one of Architectures.
func SupportsArchitecture(name string) bool {
	_, ok := lookupArch(name)
	return ok
}

func supportedArchs() string { return strings.Join(Architectures(), ", ") }
