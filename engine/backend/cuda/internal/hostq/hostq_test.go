package hostq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestDecodersMatchEngine decodes random rows of every type with the
// kernels' decoders and with engine/tensor's, and wants the same bits: the
// two are written independently (32-weight units against whole blocks).
func TestDecodersMatchEngine(t *testing.T) {
	if !Available {
		t.Skip("built without cgo: the host harness of the kernels' decoders needs a C compiler")
	}
	const cols = 512
	for _, typ := range tensor.ComputableTypes() { // every type the CPU engine computes with
		if BlockBytes(typ) == 0 {
			// No kernel decodes it: the backend refuses such a matrix in
			// a sentence (cuda's TestMatrixRefusesUnsupported… tests).
			t.Logf("%v: no CUDA decoder", typ)
			continue
		}
		if BlockBytes(typ) != typ.BlockBytes() || BlockLen(typ) != typ.BlockLen() {
			t.Errorf("%v: kernels say blocks of %d weights in %d bytes, the engine %d in %d", typ, BlockLen(typ), BlockBytes(typ), typ.BlockLen(), typ.BlockBytes())
			continue
		}
		for trial := range 20 {
			row := make([]byte, cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, row, uint64(trial), 0.05); err != nil {
				t.Fatal(err)
			}
			want := make([]float32, cols)
			if err := tensor.Dequantize(typ, want, row); err != nil {
				t.Fatalf("%v: engine: %v", typ, err)
			}
			got, err := DecodeRow(typ, row, cols)
			if err != nil {
				t.Fatalf("%v: %v", typ, err)
			}
			elems := DecodeElems(typ, row, cols)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
					t.Fatalf("%v trial %d: weight %d (unit %d) decodes to %g, the engine's to %g", typ, trial, i, i/32, got[i], want[i])
				}
				if math.Float32bits(elems[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(elems[i])) && math.IsNaN(float64(want[i]))) {
					t.Fatalf("%v trial %d: weight %d (unit %d, element %d) decodes alone to %g, the engine's to %g", typ, trial, i, i/32, i%32, elems[i], want[i])
				}
			}
		}
	}
}

// TestUnknownType: a type the kernels do not decode is an error, not zeros.
func TestUnknownType(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	// Q8_K is an activation format: no weight file holds it, and no kernel
	// will decode it.
	if _, err := DecodeRow(tensor.Q8_K, make([]byte, 1024), 256); err == nil {
		t.Fatal("Q8_K decoded; the kernels have no decoder for it")
	}
}

// TestRowProduct runs the product kernels' lane function warp by warp on
// the host, with the launch shapes the kernels use (decode: 1 row of x, 4
// weights a lane, 2 steps; prefill: 8 rows, 4, 1), and compares each
// output with a float64 product of the engine's decoded weights: every
// weight and every activation must be counted once, by the right lane.
func TestRowProduct(t *testing.T) {
	if !Available {
		t.Skip("built without cgo")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, typ := range tensor.ComputableTypes() {
		for _, cols := range []int{512, 1280, 72, 36} {
			if cols%typ.BlockLen() != 0 {
				continue
			}
			row := make([]byte, cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, row, uint64(cols), 0.05); err != nil {
				t.Fatal(err)
			}
			w := make([]float32, cols)
			if err := tensor.Dequantize(typ, w, row); err != nil {
				t.Fatal(err)
			}
			for _, shape := range [][4]int{{1, 4, 4, 4}, {8, 4, 1, 1}, {1, 4, 2, 1}} {
				for _, n := range []int{1, 5, 13} {
					x := make([]float32, n*cols)
					for i := range x {
						x[i] = float32(r.NormFloat64())
					}
					got := RowProduct(typ, row, cols, x, n, shape[0], shape[1], shape[2], shape[3])
					for i := range n {
						var ref, mag float64
						for c := range cols {
							p := float64(w[c]) * float64(x[i*cols+c])
							ref += p
							mag += math.Abs(p)
						}
						// Written so that a NaN (a type de_elem does not know) fails.
						if e := math.Abs(float64(got[i])-ref) / (mag + 1e-30); !(e <= 1e-5) {
							t.Fatalf("%v, %d columns, shape %v, row %d of %d: %g, want %g (relative error %.2g)", typ, cols, shape, i, n, got[i], ref, e)
						}
					}
				}
			}
		}
	}
}

// FuzzDecoders decodes arbitrary bytes as rows of every type the kernels
// decode, whole units and one weight at a time, and wants engine/tensor's
// bits: every index, sign and scale pattern a file could hold, a NaN,
// infinite or subnormal scale included (NaN for NaN, whatever its payload).
// The seeds run with go test; go test -fuzz FuzzDecoders explores.
func FuzzDecoders(f *testing.F) {
	if !Available {
		f.Skip("built without cgo")
	}
	var types []tensor.Type
	for _, typ := range tensor.ComputableTypes() {
		if BlockBytes(typ) != 0 {
			types = append(types, typ)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 2 * len(types) {
		seed := make([]byte, 4*292)
		for j := range seed {
			seed[j] = byte(r.Uint32())
		}
		f.Add(seed, uint8(i))
	}
	nan := make([]byte, 4*292)
	for j := range nan {
		nan[j] = 0x7e // f16 0x7e7e is a NaN wherever a scale lands
	}
	f.Add(nan, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		typ := types[int(which)%len(types)]
		nb := len(data) / typ.BlockBytes()
		if typ.BlockLen() == 1 {
			nb -= nb % 32 // plain floats: whole units only
		}
		cols := nb * typ.BlockLen()
		if cols%32 != 0 || cols == 0 {
			return
		}
		row := data[:nb*typ.BlockBytes()]
		want := make([]float32, cols)
		if err := tensor.Dequantize(typ, want, row); err != nil {
			t.Fatalf("%v: engine: %v", typ, err)
		}
		got, err := DecodeRow(typ, row, cols)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		elems := DecodeElems(typ, row, cols)
		same := func(a, b float32) bool {
			return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
		}
		for i := range want {
			if !same(got[i], want[i]) || !same(elems[i], want[i]) {
				t.Fatalf("%v: weight %d (unit %d) decodes to %g (alone %g), the engine's to %g", typ, i, i/32, got[i], elems[i], want[i])
			}
		}
	})
}
