package model

import "strings"

// archSpec is what differs between the llama-family architectures this
// engine runs; everything else (RMSNorm, GQA attention, SwiGLU) is shared.
// These follow llama.cpp's choice per architecture, which is not stored in
// the file: llama rotates adjacent pairs (rope type NORM), qwen2/qwen3 the
// two halves of each head (NEOX).
type archSpec struct {
	ropeNeox bool
	qkNorm   bool // qwen3: RMSNorm over each head of Q and K before RoPE
}

// lookupArch is a switch rather than a map so the table cannot be mutated.
func lookupArch(name string) (archSpec, bool) {
	switch name {
	case "llama":
		return archSpec{}, true
	case "qwen2":
		return archSpec{ropeNeox: true}, true
	case "qwen3":
		return archSpec{ropeNeox: true, qkNorm: true}, true
	}
	return archSpec{}, false
}

func supportedArchs() string { return strings.Join([]string{"llama", "qwen2", "qwen3"}, ", ") }
