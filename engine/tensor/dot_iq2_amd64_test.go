package tensor

import "testing"

// TestIQ2SignRuns: entry i of the kernels' sign table is ksigns_iq2xs[i]
// bit by bit, 0xff for a set bit and 0x01 for a clear one.
func TestIQ2SignRuns(t *testing.T) {
	for i, e := range iq2SignRuns {
		for j := range 8 {
			want := byte(0x01)
			if ksigns_iq2xs[i]&kmask_iq2xs[j] != 0 {
				want = 0xff
			}
			if got := byte(e >> (8 * j)); got != want {
				t.Fatalf("entry %d byte %d: %#02x, want %#02x", i, j, got, want)
			}
		}
	}
}
