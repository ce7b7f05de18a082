// Command synthgguf writes a llama-shaped GGUF with random weights for speed
// comparisons (scripts/bench-peer.sh): the same file is then timed by isagi
// and by llama.cpp.
//
//	go run ./engine/internal/synth/synthgguf [-random] [-layers N] SHAPE TYPE OUT.gguf
//
// SHAPE is smollm2-135m, llama-1b, llama-3b, llama-8b, or the mixtures of
// experts qwen3moe-30b-a3b and mixtral; -layers keeps the first N of its
// layers (a Mixtral-shaped file is 26 GB at all 32). TYPE is a matrix
// type this engine can encode (F32, F16, Q8_0, …). Other types are made from
// the F16 file with llama.cpp's llama-quantize, so that their layout is
// llama.cpp's own. With -random the matrices are random encoded blocks of
// any computable type, and Q4_K_M is accepted (Q4_K, the embedding in Q6_K):
// instant at 8B parameters, for timing where values do not matter (the GPU
// device check).
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/isagi-lab/isagi/engine/internal/synth"
	"github.com/isagi-lab/isagi/engine/tensor"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "synthgguf:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	shapes := synth.Shapes()
	var o synth.Options
	if len(args) > 0 && args[0] == "-random" {
		o.Random, args = true, args[1:]
	}
	layers := 0
	if len(args) > 1 && args[0] == "-layers" {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("-layers %q: want a positive number", args[1])
		}
		layers, args = n, args[2:]
	}
	if len(args) == 3 && o.Random && strings.EqualFold(args[1], "q4_k_m") {
		o.Mixed, args[1] = true, "Q4_K"
	}
	if len(args) != 3 {
		names := make([]string, 0, len(shapes))
		for n := range shapes {
			names = append(names, n)
		}
		slices.Sort(names)
		return fmt.Errorf("usage: synthgguf [-random] [-layers N] SHAPE TYPE OUT.gguf (SHAPE: %s)", strings.Join(names, ", "))
	}
	shape, ok := shapes[args[0]]
	if !ok {
		return fmt.Errorf("unknown shape %q", args[0])
	}
	var typ tensor.Type
	found := false
	for _, t := range tensor.ComputableTypes() {
		if strings.EqualFold(t.String(), args[1]) {
			typ, found = t, true
		}
	}
	if !found {
		return fmt.Errorf("unknown tensor type %q (one of %s)", args[1], tensor.ComputableNames())
	}
	if layers > 0 {
		shape.Layers = min(layers, shape.Layers)
	}
	return synth.WriteWith(args[2], shape, typ, o)
}
