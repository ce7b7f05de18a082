package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// kvnniCases are the row counts and widths the VNNI decode kernels are
// checked on: odd and even row counts (rows go in pairs, an odd last row
// alone), one super-block and many.
var kvnniCases = struct{ rows, cols []int }{
	rows: []int{1, 2, 3, 5, 16, 33},
	cols: []int{256, 512, 2048, 4096},
}

// TestKVNNIDecodeMatchesAVX2: on a CPU with AVX-512 VNNI, the VNNI decode
// kernel of each K-quant type gives the AVX2 kernel's results bit for bit.
// Among the activations are a block of zeros, one so tiny that it falls
// below actTiny and quantises to zeros as well, and one with a NaN; random
// weights cover every code and scale bit pattern.
func TestKVNNIDecodeMatchesAVX2(t *testing.T) {
	if !hasZMM {
		t.Skip("no AVX-512 VNNI")
	}
	var rows [typeSlots]rowsFn
	useKVNNIDots(&rows)
	avx2 := map[Type]rowsFn{Q4_K: rowsQ4KAsm, Q6_K: rowsQ6KAsm}
	rng := rand.New(rand.NewPCG(61, 62))
	for typ, ref := range avx2 {
		if rows[typ] == nil {
			continue
		}
		for _, cols := range kvnniCases.cols {
			for _, n := range kvnniCases.rows {
				w := randomWeights(rng, typ, n, cols)
				for variant := range 4 {
					x := randomVec(rng, cols)
					switch variant {
					case 1:
						clear(x[32:64])
						for i := cols - 32; i < cols; i++ {
							x[i] *= 1e-38
						}
					case 2:
						x[cols/2+5] = float32(math.NaN())
					case 3:
						for i := range x {
							x[i] *= 1e4
						}
					}
					var buf actBuf
					buf.ensure(1, cols)
					a := buf.row(0, cols)
					quantizeAct(a, x)
					got, want := make([]float32, n), make([]float32, n)
					rows[typ](w, nil, a, got)
					ref(w, nil, a, want)
					for r := range n {
						if math.Float32bits(got[r]) != math.Float32bits(want[r]) &&
							!(math.IsNaN(float64(got[r])) && math.IsNaN(float64(want[r]))) {
							t.Fatalf("%s %d×%d variant %d row %d: vnni %g, avx2 %g", typ, n, cols, variant, r, got[r], want[r])
						}
					}
				}
			}
		}
	}
}
