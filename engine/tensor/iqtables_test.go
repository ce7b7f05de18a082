package tensor

import (
	"encoding/json"
	"os"
	"testing"
)

// TestIQTables: the generated codebooks and sign tables hold exactly the
// values of the quants2 fixture's iq-tables.json, table by table.
func TestIQTables(t *testing.T) {
	raw, err := os.ReadFile("../../../shared/fixtures/quants2/iq-tables.json")
	if err != nil {
		t.Fatalf("the quants2 fixture's iq-tables.json: %v", err)
	}
	var doc struct {
		Tables map[string]struct {
			Values []uint64 `json:"values"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	u64 := func(a []uint64) []uint64 { return a }
	u32 := func(a []uint32) []uint64 {
		out := make([]uint64, len(a))
		for i, v := range a {
			out[i] = uint64(v)
		}
		return out
	}
	u8 := func(a []uint8) []uint64 {
		out := make([]uint64, len(a))
		for i, v := range a {
			out[i] = uint64(v)
		}
		return out
	}
	ours := map[string][]uint64{
		"kmask_iq2xs": u8(kmask_iq2xs[:]), "ksigns_iq2xs": u8(ksigns_iq2xs[:]),
		"iq2xxs_grid": u64(iq2xxs_grid[:]), "iq2xs_grid": u64(iq2xs_grid[:]), "iq2s_grid": u64(iq2s_grid[:]),
		"iq3xxs_grid": u32(iq3xxs_grid[:]), "iq3s_grid": u32(iq3s_grid[:]), "iq1s_grid": u64(iq1s_grid[:]),
	}
	if len(ours) != len(doc.Tables) {
		t.Fatalf("the JSON has %d tables, the engine %d", len(doc.Tables), len(ours))
	}
	for name, want := range doc.Tables {
		got, ok := ours[name]
		if !ok {
			t.Errorf("no table %s in the engine", name)
			continue
		}
		if len(got) != len(want.Values) {
			t.Errorf("%s: %d values, want %d", name, len(got), len(want.Values))
			continue
		}
		for i := range got {
			if got[i] != want.Values[i] {
				t.Errorf("%s[%d] = %#x, want %#x", name, i, got[i], want.Values[i])
				break
			}
		}
	}
}
