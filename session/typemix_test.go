package session

import (
	"math"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/internal/testkit/fixtures"
)

// TestInfoTypeMix: Info carries the file's types with their shares, most
// bytes first, and how many types its matrices use: two in a Q4_K_M file
// (Q4_K, and Q6_K for some blocks' attn_v and ffn_down and the embedding),
// one in a Q8_0 file, whose F32 norms are no matrix.
func TestInfoTypeMix(t *testing.T) {
	for _, c := range []struct {
		file     string
		matrices int
		types    []string
	}{
		{"kjv/kjv-q4_k_m.gguf", 2, []string{"Q4_K", "Q6_K", "F32"}},
		{"kjv/kjv-q8_0.gguf", 1, []string{"Q8_0", "F32"}},
	} {
		i := open(t, fixtures.Path(t, c.file), Options{Threads: 1, Ctx: 64}).Info()
		if i.MatrixTypes != c.matrices {
			t.Errorf("%s: %d matrix types, want %d", c.file, i.MatrixTypes, c.matrices)
		}
		var names []string
		var share float64
		var bytes int64
		for _, x := range i.Types {
			names = append(names, x.Type)
			share += x.Share
			bytes += x.Bytes
		}
		if !slices.Equal(names, c.types) {
			t.Errorf("%s: types %v, want %v", c.file, names, c.types)
		}
		if math.Abs(share-1) > 1e-9 || bytes != i.FileBytes {
			t.Errorf("%s: shares sum to %v, bytes to %d of %d", c.file, share, bytes, i.FileBytes)
		}
	}
}
