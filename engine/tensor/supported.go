package tensor

import "strings"

// ComputableTypes lists, in ggml id order, the types this build can
// dequantise and multiply — the ones a model's matrices may be stored in.
// It is read from the type table, so error messages and reports that quote
// it stay true as kernels are added. The slice is new on every call; the
// caller may keep or change it.
func ComputableTypes() []Type {
	var out []Type
	for t := range Type(len(typeTable)) {
		if t.Computable() {
			out = append(out, t)
		}
	}
	return out
}

// ComputableNames is ComputableTypes as one comma-separated list of ggml
// names ("F32, F16, Q4_0, …"), for the messages that tell a user which
// quantisations would load.
func ComputableNames() string {
	ts := ComputableTypes()
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
