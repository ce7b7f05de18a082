package base

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TypeCount is how many of a file's tensors are stored in one type, and
// their bytes.
type TypeCount struct {
	Type    tensor.Type
	Tensors int
	Bytes   uint64
}

// CountTypes counts f's tensors by type, most bytes first (the type of the
// bulk of the weights leads), ties by type id. It reads the header only.
func CountTypes(f *gguf.File) []TypeCount {
	at := map[tensor.Type]int{}
	var out []TypeCount
	for _, ti := range f.Tensors {
		i, ok := at[ti.Type]
		if !ok {
			i = len(out)
			at[ti.Type] = i
			out = append(out, TypeCount{Type: ti.Type})
		}
		out[i].Tensors++
		out[i].Bytes += ti.Size
	}
	slices.SortFunc(out, func(a, b TypeCount) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Type, b.Type)
	})
	return out
}

// TypeSummary names every type with its tensor count: "Q4_K ×38, Q6_K ×5,
// F32 ×13".
func TypeSummary(types []TypeCount) string {
	if len(types) == 0 {
		return "none (no tensors)"
	}
	parts := make([]string, len(types))
	for i, c := range types {
		parts[i] = fmt.Sprintf("%s ×%d", c.Type, c.Tensors)
	}
	return strings.Join(parts, ", ")
}

// Uncomputable is the part of types this build has no kernel for.
func Uncomputable(types []TypeCount) []TypeCount {
	var out []TypeCount
	for _, c := range types {
		if !c.Type.Computable() {
			out = append(out, c)
		}
	}
	return out
}

// CannotRun says in words which of types this build cannot run, and if
// any, which types it can, so the user knows what quantisation to fetch.
func CannotRun(types []TypeCount) string {
	bad := Uncomputable(types)
	if len(bad) == 0 {
		return "nothing: this build has a kernel for every type here"
	}
	return fmt.Sprintf("%s (this build runs %s)", TypeSummary(bad), tensor.ComputableNames())
}
