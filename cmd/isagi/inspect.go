package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/store"
)

func cmdInspect(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showTensors := fs.Bool("tensors", false, "list every tensor (default: a summary by type)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: isagi inspect [--tensors] MODEL.gguf

Prints the GGUF version, every metadata key (arrays as type and length), and
the tensors: a count and size per type, or with --tensors one line each
(name, type, shape innermost first, bytes).

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
	fmt.Fprintf(w, "\nmetadata (%d keys)\t\n", len(f.KV))
	for _, kv := range f.KV {
		fmt.Fprintf(w, "  %s\t%s\n", kv.Key, kv.Value)
	}

	var total, elems uint64
	byType := map[tensor.Type][2]uint64{}
	for _, ti := range f.Tensors {
		total += ti.Size
		elems += ti.Elements()
		c := byType[ti.Type]
		byType[ti.Type] = [2]uint64{c[0] + 1, c[1] + ti.Size}
	}
	fmt.Fprintf(w, "\ntensors\t%d, %s of data, %.2f M elements\n", len(f.Tensors), humanBytes(total), float64(elems)/1e6)
	types := make([]tensor.Type, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	for _, t := range types {
		fmt.Fprintf(w, "  %s\t%d tensors, %s\n", t, byType[t][0], humanBytes(byType[t][1]))
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
