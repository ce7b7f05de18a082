package tensor

import (
	"encoding/binary"
	"fmt"

	"math/rand/v2"
	"testing"
)

// packedIQ3SSets are the packed IQ3_S layouts this CPU runs: the VNNI one
// (VBMI lookups) and the AVX2 one (signs folded into the index).
func packedIQ3SSets() []packedIQSet {
	var s []packedIQSet
	if hasIQZ {
		s = append(s, packedIQSet{"vnni", packIQ3S, packIQ3SBlockBytes, rowsPackedIQ3S, gemm4PackedIQ3S})
	}
	if hasAVX2 {
		s = append(s, packedIQSet{"avx2", packIQ3SAVX2, 2 * packIQ3SA8Bytes, rowsPackedIQ3SAVX2, gemm4PackedIQ3SAVX2})
	}
	return s
}

// TestPackedIQ3S checks the packed IQ3_S kernels (VNNI and AVX2, each
// where the CPU runs them) bit for bit: the decode
// kernel against the GGUF-layout AVX2 kernel row by row (the packed layouts
// keep its arithmetic, packiq3s.go), the four-token kernel against the
// decode kernel per token, over one to nine super-blocks a row and one to
// three groups (odd counts run the kernel's single-group loop), and both
// close to the float64 dot of the dequantised row. One case gives its rows
// every one of the 512 grid entries (iq3sCodes and the kernels' level
// tables checked through the kernels). The packer
// writes into a buffer full of 0xff, so that a byte it fails to set shows.
// The extreme case gives every weight the grid entry of the largest
// magnitudes, every sign bit set and every scale 15, with activation codes
// 127 (tokens 0, 1) and −127 (tokens 2, 3), where the integer sums are
// largest; the NaN case gives one row a NaN scale.
func TestPackedIQ3S(t *testing.T) {
	sets := packedIQ3SSets()
	if len(sets) == 0 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups      int
		extreme, nan, all bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, false, false, false})
		}
	}
	shapes = append(shapes, shape{768, 3, true, false, false}, shape{512, 2, false, true, false},
		shape{2304, 1, true, false, false}, shape{256, 1, false, false, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, set := range sets {
		for _, c := range shapes {
			t.Run(fmt.Sprintf("%s/%dx%d/extreme=%v/nan=%v/all=%v", set.name, c.groups*16, c.cols, c.extreme, c.nan, c.all), func(t *testing.T) {
				testPackedIQ3S(t, rng, set, kg.rows[IQ3_S], c.cols, c.groups, c.extreme, c.nan, c.all)
			})
		}
	}
}

// testPackedIQ3S is one case of TestPackedIQ3S for set, gguf IQ3_S's
// GGUF-layout kernel; all gives row r's entry e the grid index (64r + e) mod 512, so
// that sixteen rows meet each entry of the codebook twice.
func testPackedIQ3S(t *testing.T, rng *rand.Rand, set packedIQSet, gguf rowsFn, cols, groups int, extreme, nan, all bool) {
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, IQ3_S, rows, cols)
	if all {
		for r := range rows {
			for sb := range nsb {
				blk := data[(r*nsb+sb)*iq3sBytes:][:iq3sBytes]
				for e := range 64 {
					idx := (64*r + e) % 512
					blk[2+e] = byte(idx)
					blk[66+e/8] = blk[66+e/8]&^(1<<(e%8)) | byte(idx>>8)<<(e%8)
				}
			}
		}
	}
	x := randomVec(rng, 4*cols)
	if extreme {
		big, most := 0, 0
		for i, g := range iq3s_grid {
			if s := int(g&0xff + g>>8&0xff + g>>16&0xff + g>>24); s > most {
				big, most = i, s
			}
		}
		for b := 0; b < len(data); b += iq3sBytes {
			blk := data[b : b+iq3sBytes]
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			for e := range 64 {
				blk[2+e] = byte(big)
			}
			for j := range 8 {
				blk[66+j] = byte(-(big >> 8) & 0xff)
			}
			for i := 74; i < iq3sBytes; i++ {
				blk[i] = 0xff // every sign negative, every scale 15
			}
		}
		for i := range x {
			x[i] = 1
			if i >= 2*cols {
				x[i] = -1
			}
		}
	}
	rb := nsb * iq3sBytes
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+iq3sBytes*(nsb-1):], 0x7e00)
	}
	if extreme {
		var buf actBuf
		buf.ensure(1, cols)
		for tok := range 4 {
			a := buf.row(0, cols)
			quantizeAct(a, x[tok*cols:(tok+1)*cols])
			for i, q := range a.qs[:cols] {
				if q != 127 && q != -127 {
					t.Fatalf("token %d: activation code %d at %d, not ±127", tok, q, i)
				}
			}
		}
	}
	p := packFilled(set.pack, data, nsb, groups, set.blockBytes)
	checkPackedKernels(t, IQ3_S, gguf, set.rows, set.gemm4, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackedIQ3STables proves iq3sCodes against iq3s_grid: each entry's
// four levels k (magnitude 2k+1) at the bits the packed kernels read
// (packiq3s.go), and its sign bits free.
func TestPackedIQ3STables(t *testing.T) {
	lvl := [4][3]uint{{0, 1, 2}, {4, 5, 6}, {0, 1, 3}, {4, 5, 7}}
	for i, g := range iq3s_grid {
		c := [2]byte{iq3sCodes[i], iq3sCodes[512+i]}
		if c[0]&0x88 != 0 || c[1]&0x44 != 0 {
			t.Fatalf("entry %d: codes %#x %#x use a sign bit", i, c[0], c[1])
		}
		for w := range 4 {
			var k byte
			for b, at := range lvl[w] {
				k |= (c[w/2] >> at & 1) << b
			}
			if m := byte(g >> (8 * w)); 2*k+1 != m {
				t.Fatalf("entry %d weight %d: level %d, grid %d", i, w, k, m)
			}
		}
	}
}

// TestPackedIQ3SMatrix: Kernels.Pack packs an IQ3_S matrix of at least one
// group on the VNNI kernels where the CPU has them (its leading Rows&^15
// rows, Data left alone, 110 bytes a row and super-block) and on the AVX2
// ones (VNNI off: 122 bytes), MatVec gives the unpacked matrix's
// numbers bit for bit on every row, and MatMul gives each token what
// MatVec gives it, through the packed prefill kernel, the padded group of
// three, the decode kernel for a tail of tokens and the GGUF-layout kernels
// for the tail rows; a NaN input shows in its token's outputs only.
func TestPackedIQ3SMatrix(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	pool := NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(83, 84))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(pool, true, vnni)
		for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}, {512, 48}} {
			checkPackedMatrix(t, k, rng, IQ3_S, c.rows, c.cols)
		}
	}
}

// BenchmarkPackedIQ3S times IQ3_S's kernels, each packed layout the CPU
// runs against the GGUF layout (benchPackedOn).
func BenchmarkPackedIQ3S(b *testing.B) {
	for _, set := range packedIQ3SSets() {
		b.Run(set.name, func(b *testing.B) {
			benchPackedOn(b, IQ3_S, iq3sBytes, set.blockBytes, set.pack, set.rows, set.gemm4)
		})
	}
}

// BenchmarkIQ3STriad is IQ3_S decode, GGUF layout against packed, against
// the STREAM triad of the same run (benchTriadTypes). Run with
// -benchtime=Nx (N rounds).
func BenchmarkIQ3STriad(b *testing.B) { benchTriadTypes(b, IQ3_S) }
