// Package inspect is `isagi inspect`: a GGUF file's metadata, tensor
// types and tensors.
package inspect

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/internal/cli/base"
)

// Main is `isagi inspect`: a GGUF file's metadata, tensor types and tensors.
func Main(env base.Env, args []string) error {
	fs := env.FlagSet("inspect", usageHead, usageTail)
	showTensors := fs.Bool("tensors", false, "list every tensor (default: a summary by type)")
	if err := env.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return base.ArgsError(fs, "inspect needs exactly one model file, got %d arguments", fs.NArg())
	}
	f, err := gguf.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()

	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "file\t%s\n", f.Path)
	fmt.Fprintf(w, "gguf version\t%d\n", f.Version)
	fmt.Fprintf(w, "alignment\t%d\n", f.Alignment)
	fmt.Fprintf(w, "data offset\t%d\n", f.DataOffset)
	// Whether this build can run the file comes first, from the header
	// alone, so the user learns it before any long metadata or a load.
	types := base.CountTypes(f)
	fmt.Fprintf(w, "tensor types\t%s\n", base.TypeSummary(types))
	fmt.Fprintf(w, "cannot run\t%s\n", base.CannotRun(types))
	if arch, err := f.Architecture(); err == nil && !model.SupportsArchitecture(arch) {
		fmt.Fprintf(w, "architecture\t%s cannot run (this build runs %s)\n", arch, strings.Join(model.Architectures(), ", "))
	}
	fmt.Fprintf(w, "\nmetadata (%d keys)\t\n", len(f.KV))
	for _, kv := range f.KV {
		fmt.Fprintf(w, "  %s\t%s\n", kv.Key, kv.Value)
	}

	var total, elems uint64
	for _, ti := range f.Tensors {
		total += ti.Size
		elems += ti.Elements()
	}
	fmt.Fprintf(w, "\ntensors\t%d, %s of data, %.2f M elements\n", len(f.Tensors), base.HumanBytes(total), float64(elems)/1e6)
	byID := slices.Clone(types)
	slices.SortFunc(byID, func(a, b base.TypeCount) int { return cmp.Compare(a.Type, b.Type) })
	for _, c := range byID {
		fmt.Fprintf(w, "  %s\t%d tensors, %s\n", c.Type, c.Tensors, base.HumanBytes(c.Bytes))
	}
	printCensus(w, f.Census())
	if *showTensors {
		fmt.Fprintln(w)
		for _, ti := range f.Tensors {
			dims := make([]string, len(ti.Dims))
			for i, d := range ti.Dims {
				dims[i] = fmt.Sprint(d)
			}
			fmt.Fprintf(w, "  %s\t%s\t[%s]\t%s\n", ti.Name, ti.Type, strings.Join(dims, ", "), base.HumanBytes(ti.Size))
		}
	}
	return w.Flush()
}

// printCensus writes the types by layer: the file-wide mix, then one row
// per run of blocks whose matrices use the same types (an importance-matrix
// or "dynamic" quantisation gives some slots or blocks more bits), then
// the tensors outside the blocks. It reads the header only, so a file
// this build cannot run is described as fully as one it can.
func printCensus(w io.Writer, c *gguf.Census) {
	fmt.Fprintf(w, "\ntypes by layer\t%s\n", c.Mix())
	for _, s := range c.Spans() {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", s.Label(), base.HumanBytes(s.Bytes()), rowPattern(s.Slots))
	}
	if len(c.Other.Types) > 0 {
		var n uint64
		for _, t := range c.Other.Types {
			n += t.Bytes
		}
		fmt.Fprintf(w, "  outside blocks\t%s\t%s\n", base.HumanBytes(n), rowPattern(c.Other.Slots))
	}
}

// rowPattern is a row's slots, or what it holds when it has no matrix.
func rowPattern(slots []gguf.SlotType) string {
	if len(slots) == 0 {
		return "no matrices (norms, biases)"
	}
	return gguf.Pattern(slots)
}

// usageHead and usageTail frame the flags in `isagi inspect --help`.
const (
	usageHead = `Usage: isagi inspect [--tensors] MODEL.gguf

Prints the GGUF version; every tensor type in the file with its count, and
which of them this build cannot run (read from the header: no weights are
loaded); every metadata key (arrays as type and length); the tensors: a
count and size per type; the types by layer: each type's share of the bytes
and, for every run of blocks whose matrices use the same types, which type
each matrix slot uses (a family sharing one type in one word: "attn Q8_0,
ffn_gate_exps IQ2_XXS, ..."); and with --tensors every tensor, one line each
(name, type, shape innermost first, bytes).

Flags:
`
	usageTail = `
Example:
  isagi inspect --tensors ~/models/SmolLM2-135M-Instruct-Q8_0.gguf
`
)
