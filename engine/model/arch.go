package model

import "strings"

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
	// embedding, sliding-window layers in a period (swaPeriod: layer l
	// slides unless (l+1) % swaPeriod == 0; gemma2's period 2 makes the
	// even layers slide).
	gemma     bool
	swaPeriod int
}

// lookupArch is a switch rather than a map so the table cannot be mutated.
func lookupArch(name string) (arch, bool) {
	switch name {
	case "llama":
		return arch{block: llamaBlock}, true
	case "qwen2":
		return arch{block: llamaBlock, ropeNeox: true}, true
	case "qwen3":
		return arch{block: llamaBlock, ropeNeox: true, qkNorm: true}, true
	case "gemma2":
		return arch{block: gemmaBlock, ropeNeox: true, postNorms: true, gemma: true, swaPeriod: 2}, true
	}
	return arch{}, false
}

func supportedArchs() string {
	return strings.Join([]string{"llama", "qwen2", "qwen3", "gemma2"}, ", ")
}
