package backend

import (
	"strings"
	"testing"
)

// TestKVType: names round-trip, and a SmolLM2-135M head (64 values) takes
// 256, 128 and 68 bytes as f32, f16 and q8_0.
func TestKVType(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  KVType
		row  int
	}{{"f32", KVF32, 256}, {"F16", KVF16, 128}, {"q8_0", KVQ8_0, 68}} {
		typ, err := ParseKVType(c.name)
		if err != nil || typ != c.typ {
			t.Fatalf("ParseKVType(%q) = %v, %v", c.name, typ, err)
		}
		if got := typ.RowBytes(64); got != c.row {
			t.Errorf("%s: a head of 64 values takes %d bytes, want %d", typ, got, c.row)
		}
		if err := typ.CheckHeadDim(64); err != nil {
			t.Errorf("%s: heads of 64: %v", typ, err)
		}
		if back, _ := ParseKVType(typ.String()); back != typ {
			t.Errorf("%s does not parse back", typ)
		}
	}
	if _, err := ParseKVType("q4_0"); err == nil || !strings.Contains(err.Error(), "f32, f16 or q8_0") {
		t.Errorf("ParseKVType(q4_0): %v", err)
	}
	if err := KVQ8_0.CheckHeadDim(48); err == nil || !strings.Contains(err.Error(), "blocks of 32") {
		t.Errorf("q8_0 with heads of 48: %v", err)
	}
	if KVType(7).String() != "KVType(7)" || KVType(7).CheckHeadDim(64) == nil {
		t.Error("an unknown type is named or accepted as a known one")
	}
}
