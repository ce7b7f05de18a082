package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/store"
)

func cmdInspect(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showTensors := fs.Bool("tensors", false, "list every tensor (default: a summary by type)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: isagi inspect [--tensors] MODEL.gguf

Prints the GGUF version; every tensor type in the file with its count, and
which of them this build cannot run (read from the header: no weights are
loaded); every metadata key (arrays as type and length); and the tensors: a
count and size per type, or with --tensors one line each (name, type, shape
innermost first, bytes).

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), `
Example:
  isagi inspect --tensors ~/models/SmolLM2-135M-Instruct-Q8_0.gguf
`)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return argsError(fs, "inspect needs exactly one model file, got %d arguments", fs.NArg())
	}
	f, err := gguf.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()

	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "file\t%s\n", f.Path)
	fmt.Fprintf(w, "gguf version\t%d\n", f.Version)
	fmt.Fprintf(w, "alignment\t%d\n", f.Alignment)
	fmt.Fprintf(w, "data offset\t%d\n", f.DataOffset)
	// Whether this build can run the file comes first, from the header
	// alone, so the user learns it before any long metadata or a load.
	types := countTypes(f)
	fmt.Fprintf(w, "tensor types\t%s\n", typeSummary(types))
	fmt.Fprintf(w, "cannot run\t%s\n", cannotRun(types))
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
	fmt.Fprintf(w, "\ntensors\t%d, %s of data, %.2f M elements\n", len(f.Tensors), humanBytes(total), float64(elems)/1e6)
	byID := slices.Clone(types)
	slices.SortFunc(byID, func(a, b typeCount) int { return cmp.Compare(a.Type, b.Type) })
	for _, c := range byID {
		fmt.Fprintf(w, "  %s\t%d tensors, %s\n", c.Type, c.Tensors, humanBytes(c.Bytes))
	}
	if *showTensors {
		fmt.Fprintln(w)
		for _, ti := range f.Tensors {
			dims := make([]string, len(ti.Dims))
			for i, d := range ti.Dims {
				dims[i] = fmt.Sprint(d)
			}
			fmt.Fprintf(w, "  %s\t%s\t[%s]\t%s\n", ti.Name, ti.Type, strings.Join(dims, ", "), humanBytes(ti.Size))
		}
	}
	return w.Flush()
}

func humanBytes(n uint64) string { return store.HumanBytes(int64(n)) }

// typeCount is how many of a file's tensors are stored in one type, and
// their bytes.
type typeCount struct {
	Type    tensor.Type
	Tensors int
	Bytes   uint64
}

// countTypes counts f's tensors by type, most bytes first (the type of the
// bulk of the weights leads), ties by type id. It reads the header only.
func countTypes(f *gguf.File) []typeCount {
	at := map[tensor.Type]int{}
	var out []typeCount
	for _, ti := range f.Tensors {
		i, ok := at[ti.Type]
		if !ok {
			i = len(out)
			at[ti.Type] = i
			out = append(out, typeCount{Type: ti.Type})
		}
		out[i].Tensors++
		out[i].Bytes += ti.Size
	}
	slices.SortFunc(out, func(a, b typeCount) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
	return out
}

// typeSummary names every type with its tensor count: "Q4_K ×38, Q6_K ×5,
// F32 ×13".
func typeSummary(types []typeCount) string {
	if len(types) == 0 {
		return "none (no tensors)"
	}
	parts := make([]string, len(types))
	for i, c := range types {
		parts[i] = fmt.Sprintf("%s ×%d", c.Type, c.Tensors)
	}
	return strings.Join(parts, ", ")
}

// uncomputable is the part of types this build has no kernel for.
func uncomputable(types []typeCount) []typeCount {
	var out []typeCount
	for _, c := range types {
		if !c.Type.Computable() {
			out = append(out, c)
		}
	}
	return out
}

// cannotRun says in words which of types this build cannot run, and if
// any, which types it can, so the user knows what quantisation to fetch.
func cannotRun(types []typeCount) string {
	bad := uncomputable(types)
	if len(bad) == 0 {
		return "nothing: this build has a kernel for every type here"
	}
	return fmt.Sprintf("%s (this build runs %s)", typeSummary(bad), tensor.ComputableNames())
}
