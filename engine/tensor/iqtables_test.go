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

// TestIQ1MWRuns: entry i of the AVX2 IQ1_M kernels' run table is the run of
// iq1s_grid[i&2047] as W = 8g + δ, δ = −1 where bit 11 of i is set (the δ
// sign bit of the run's qh nibble), else +1.
func TestIQ1MWRuns(t *testing.T) {
	for i, e := range iq1mWRuns {
		d := 1
		if i&2048 != 0 {
			d = -1
		}
		for j := range 8 {
			g := int(int8(byte(iq1s_grid[i&2047] >> (8 * j))))
			if got, want := int(int8(byte(e>>(8*j)))), 8*g+d; got != want {
				t.Fatalf("entry %d byte %d: %d, want %d", i, j, got, want)
			}
		}
	}
}

// TestIQ3XXSSigned: entry i of the AVX2 packed IQ3_XXS kernels' table is
// iq3xxs_grid[i&255] as bytes 62 + s·g, s = −1 for byte k where bit 8+k of
// i is set, else +1.
func TestIQ3XXSSigned(t *testing.T) { testIQ3Signed(t, iq3xxsSigned[:], iq3xxs_grid[:], 62) }

// TestIQ3SSigned: the same for IQ3_S: iq3s_grid[i&511], signs from bits
// 9…12 of i, bytes 16 + s·g.
func TestIQ3SSigned(t *testing.T) { testIQ3Signed(t, iq3sSigned[:], iq3s_grid[:], 16) }

func testIQ3Signed(t *testing.T, table, grid []uint32, o int) {
	if len(table) != 16*len(grid) {
		t.Fatalf("%d entries for a grid of %d", len(table), len(grid))
	}
	for i, e := range table {
		for k := range 4 {
			g := int(byte(grid[i%len(grid)] >> (8 * k)))
			if (i/len(grid))>>k&1 != 0 {
				g = -g
			}
			if got := int(byte(e >> (8 * k))); got != o+g {
				t.Fatalf("entry %d byte %d: %d, want %d", i, k, got, o+g)
			}
		}
	}
}
