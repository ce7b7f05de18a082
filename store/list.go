package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/isagi-lab/isagi/engine/gguf"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Model is one file in the models directory, Paths.Models.
type Model struct {
	// Name is the file name without ".gguf" (or ".gguf.part"): what --model
	// accepts.
	Name string `json:"name"`
	// File is the file name; Path the full path.
	File string `json:"file"`
	Path string `json:"path"`
	// Size is the file's size in bytes (for an incomplete download, the
	// bytes received so far).
	Size int64 `json:"size"`
	// Arch is general.architecture, e.g. "llama" or "qwen2".
	Arch string `json:"arch,omitempty"`
	// Quant is the quantisation: general.file_type in llama.cpp's naming
	// (e.g. "Q4_K_M"), or failing that the type holding most of the
	// weights' elements.
	Quant string `json:"quant,omitempty"`
	// Params is the total number of elements over all tensors.
	Params uint64 `json:"params,omitempty"`
	// Incomplete marks a partial download (a .part file): run the same
	// `isagi pull` again to resume it. Its header is not read.
	Incomplete bool `json:"incomplete,omitempty"`
	// Err is set when the file could not be read as a GGUF model.
	Err string `json:"error,omitempty"`
}

// List returns the models in p.Models, sorted by name: every *.gguf file
// with its header summarised, and every *.gguf.part file marked Incomplete.
// A missing directory is an empty list. A file whose header cannot be read is
// listed with Err set rather than failing the whole listing.
func (p Paths) List() ([]Model, error) {
	dir, err := p.modelsDir()
	if err != nil {
		return nil, err
	}
	return ListDir(dir)
}

// ListDir is List for an explicit directory.
func ListDir(dir string) ([]Model, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Model
	for _, e := range ents {
		name := e.Name()
		lower := strings.ToLower(name)
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case strings.HasSuffix(lower, ".gguf"+PartSuffix):
			m := Model{Name: name[:len(name)-len(".gguf"+PartSuffix)], File: name, Path: p, Incomplete: true}
			if info, err := e.Info(); err == nil {
				m.Size = info.Size()
			}
			out = append(out, m)
		case strings.HasSuffix(lower, ".gguf"):
			out = append(out, Inspect(p))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return !out[i].Incomplete && out[j].Incomplete
	})
	return out, nil
}

// Inspect summarises one GGUF file. Errors are reported in Model.Err.
func Inspect(path string) Model {
	base := filepath.Base(path)
	m := Model{Name: strings.TrimSuffix(strings.TrimSuffix(base, ".gguf"), ".GGUF"), File: base, Path: path}
	st, err := os.Stat(path)
	if err != nil {
		m.Err = err.Error()
		return m
	}
	m.Size = st.Size()
	f, err := gguf.Open(path)
	if err != nil {
		m.Err = err.Error()
		return m
	}
	defer f.Close()
	if a, err := f.Architecture(); err == nil {
		m.Arch = a
	}
	m.Quant = Quantisation(f)
	for i := range f.Tensors {
		m.Params += f.Tensors[i].Elements()
	}
	return m
}

// Quantisation names a file's quantisation: general.file_type in
// llama.cpp's naming (llama_ftype) when present and known, else the tensor
// type holding the most elements among tensors of two or more dimensions
// (the weight matrices), else "".
func Quantisation(f *gguf.File) string {
	if ft, err := f.Uint32("general.file_type"); err == nil {
		if s, ok := fileTypeNames[ft]; ok {
			return s
		}
	}
	elems := map[tensor.Type]uint64{}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if len(ti.Dims) >= 2 {
			elems[ti.Type] += ti.Elements()
		}
	}
	var best tensor.Type
	var most uint64
	for t, n := range elems {
		if n > most || (n == most && t < best) {
			best, most = t, n
		}
	}
	if most == 0 {
		return ""
	}
	return best.String()
}

// fileTypeNames maps llama.cpp's enum llama_ftype (general.file_type) to
// the names llama-quantize uses.
var fileTypeNames = map[uint32]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
	10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
	16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
	22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
	28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
	37: "TQ2_0", 38: "MXFP4_MOE",
}

// HumanBytes formats a byte count for people: "1.23 GiB", "456.78 MiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// HumanParams formats a parameter count: "135M", "1.24B", "260K".
func HumanParams(n uint64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
