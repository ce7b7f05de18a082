package tensor

import (
	"slices"
	"strings"
	"testing"
)

// TestComputableTypes: the list is exactly the computable types of the
// table, in id order, and always includes the plain floats and the types
// the engine has computed since its first kernels; types without a kernel
// here (Q8_1, integers) are never in it.
func TestComputableTypes(t *testing.T) {
	got := ComputableTypes()
	if !slices.IsSorted(got) {
		t.Errorf("not in id order: %v", got)
	}
	for id := range Type(64) {
		if id.Computable() != slices.Contains(got, id) {
			t.Errorf("%s: Computable() = %v, listed = %v", id, id.Computable(), slices.Contains(got, id))
		}
	}
	for _, want := range []Type{F32, F16, BF16, Q4_0, Q8_0, Q4_K, Q5_K, Q6_K} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	for _, never := range []Type{Q8_1, I32} {
		if slices.Contains(got, never) {
			t.Errorf("%s listed as computable", never)
		}
	}
	// A fresh slice each call: a caller's edit must not leak into the next.
	got[0] = Q8_1
	if ComputableTypes()[0] == Q8_1 {
		t.Error("ComputableTypes returns shared storage")
	}
}

// TestComputableNames: the names are ComputableTypes' own, in its order.
func TestComputableNames(t *testing.T) {
	var want []string
	for _, ty := range ComputableTypes() {
		want = append(want, ty.String())
	}
	if got := ComputableNames(); got != strings.Join(want, ", ") || !strings.HasPrefix(got, "F32, F16, ") {
		t.Errorf("ComputableNames() = %q, want %q", got, strings.Join(want, ", "))
	}
}
