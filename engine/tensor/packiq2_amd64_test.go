package tensor

import (
	"encoding/binary"
	"fmt"

	"math/bits"
	"math/rand/v2"
	"testing"
)

// packedIQ2 is one packed IQ2 layout's packer and kernels, for the tests.
type packedIQ2 struct {
	set       string // "vnni" or "avx2"
	typ       Type
	bb, block int // the file's super-block bytes, the packed group's
	pack      func(dst, src []byte, nsb, g0, g1 int)
	rows      packedRowsFn
	gemm4     packedGemm4Fn
}

// packedIQ2Types are the packed IQ2 layouts this CPU runs: the VNNI ones
// (VBMI lookups) and the AVX2 ones.
func packedIQ2Types() []packedIQ2 {
	var s []packedIQ2
	if hasIQZ {
		s = append(s,
			packedIQ2{"vnni", IQ2_XXS, iq2xxsBytes, packIQ2XXSBlockBytes, packIQ2XXS, rowsPackedIQ2XXS, gemm4PackedIQ2XXS},
			packedIQ2{"vnni", IQ2_XS, iq2xsBytes, packIQ2XSBlockBytes, packIQ2XS, rowsPackedIQ2XS, gemm4PackedIQ2XS})
	}
	if hasAVX2 {
		s = append(s,
			packedIQ2{"avx2", IQ2_XXS, iq2xxsBytes, 2 * packIQ2XXSA8Bytes, packIQ2XXSAVX2, rowsPackedIQ2XXSAVX2, gemm4PackedIQ2XXSAVX2},
			packedIQ2{"avx2", IQ2_XS, iq2xsBytes, 2 * packIQ2NA8Bytes(9), packIQ2XSAVX2, rowsPackedIQ2XSAVX2, gemm4PackedIQ2XSAVX2},
			packedIQ2{"avx2", IQ2_S, iq2sBytes, 2 * packIQ2NA8Bytes(10), packIQ2SAVX2, rowsPackedIQ2SAVX2, gemm4PackedIQ2SAVX2})
	}
	return s
}

// TestPackedIQ2Grids proves the packed kernels' tables against the grids:
// IQ2_XXS's and IQ2_XS's codes and the levels, which give every weight of
// every grid entry, with either sign and whatever the other position's
// sign in the same index byte, as 43 ± its magnitude. For IQ2_XS it does
// what the kernels do (packiq2_amd64.s): the table of the index's bit 8,
// the byte of its low seven bits, and for bit 7 the VGF2P8AFFINEQB
// matrix of iq2xA (copied here) that moves entry e + 128's codes into
// entry e's place, before the sign bits overwrite theirs.
func TestPackedIQ2Grids(t *testing.T) {
	// The sign bit of each weight position in its index byte (packiq2_amd64.s).
	signBit := [8]uint{0, 1, 2, 3, 4, 5, 0, 1}
	levels := func(name string, i, p int, m int, code byte) {
		t.Helper()
		for s := range 4 {
			idx := code&^(1<<signBit[p]|1<<signBit[p^1]) | byte(s&1)<<signBit[p] | byte(s>>1)<<signBit[p^1]
			want := 43 + m
			if s&1 != 0 {
				want = 43 - m
			}
			if got := iq2xxsLevels[64*(p%6)+int(idx&63)]; int(got) != want {
				t.Fatalf("%s grid %d position %d sign %d: level %d, want %d", name, i, p, s&1, got, want)
			}
		}
	}
	for i, g := range iq2xxs_grid {
		for p := range 8 {
			code := iq2xxsCodes[256*(p/2)+i]
			if code&(1<<signBit[p]|1<<signBit[p^1]) != 0 {
				t.Fatalf("iq2xxsCodes[%d] = %#x sets a sign bit", 256*(p/2)+i, code)
			}
			levels("IQ2_XXS", i, p, int(byte(g>>(8*p))), code)
		}
	}
	affine := func(m uint64, x byte) byte {
		var y byte
		for i := range 8 {
			y |= byte(bits.OnesCount8(byte(m>>(8*(7-i)))&x)&1) << i
		}
		return y
	}
	iq2xA := [4]uint64{0x0000408001020000, 0x0408000040800000, 0x1020408000000000, 0x0000408001020000}
	for i, g := range iq2xs_grid {
		for p := range 8 {
			k := p / 2
			code := iq2xsCodes[256*k+128*(i>>8)+i&127]
			if i&128 != 0 {
				code = affine(iq2xA[k], code)
			}
			levels("IQ2_XS", i, p, int(byte(g>>(8*p))), code)
		}
	}
}

// TestPackedIQ2 checks the packed IQ2_XXS and IQ2_XS kernels bit for bit:
// the decode kernel against the type's GGUF-layout AVX2 kernel row by row
// (the packed layout keeps its arithmetic, packiq2.go), the four-token
// kernel against the decode kernel per token, over one to nine
// super-blocks a row and one to three groups (odd counts run the decode
// kernel's single-group loop), and both close to the float64 dot of the
// dequantised row. The packer writes into a buffer full of 0xff, so that a
// byte it fails to set shows. The extreme cases set every grid index to
// the entry of the largest magnitudes, every scale bit, every sign bit in
// one super-block of three and none in the others, and every activation
// to +1 or −1 (codes ±127), where the integer sums are largest; the NaN
// case gives one row a NaN scale.
func TestPackedIQ2(t *testing.T) {
	if len(packedIQ2Types()) == 0 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups int
		extreme      float32
		nan          bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, 0, false})
		}
	}
	shapes = append(shapes, shape{768, 3, 1, false}, shape{512, 2, -1, false}, shape{512, 2, 0, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, c := range shapes {
		for _, pt := range packedIQ2Types() {
			t.Run(fmt.Sprintf("%s/%s/%dx%d/extreme=%v/nan=%v", pt.set, pt.typ, c.groups*16, c.cols, c.extreme, c.nan), func(t *testing.T) {
				testPackedIQ2(t, rng, pt, kg.rows[pt.typ], c.cols, c.groups, c.extreme, c.nan)
			})
		}
	}
}

// iq2Extreme sets an IQ2_XXS, IQ2_XS or IQ2_S super-block's codes to their
// largest: the grid entry of the largest magnitudes (43 each in IQ2_XS's
// and IQ2_S's grids; IQ2_XXS's has no such entry), all signs set
// (negative) or clear, scales 15.
func iq2Extreme(typ Type, blk []byte, neg bool) {
	le := binary.LittleEndian
	switch typ {
	case IQ2_XXS:
		idx := iq2Largest(iq2xxs_grid[:])
		for g := range 8 {
			q := blk[2+8*g:]
			for l := range 4 {
				q[l] = byte(idx)
			}
			s := uint32(0)
			if neg {
				s = 0x7f | 0x7f<<7 | 0x7f<<14 | 0x7f<<21
			}
			le.PutUint32(q[4:], s|15<<28)
		}
	case IQ2_XS:
		idx := iq2Largest(iq2xs_grid[:])
		for r := range 32 {
			s := uint16(0)
			if neg {
				s = 0x7f << 9
			}
			le.PutUint16(blk[2+2*r:], uint16(idx)|s)
		}
		for g := range 8 {
			blk[66+g] = 0xff
		}
	case IQ2_S:
		idx := iq2Largest(iq2s_grid[:])
		h := byte(idx >> 8)
		for r := range 32 {
			blk[2+r] = byte(idx)
			blk[34+r] = 0
			if neg {
				blk[34+r] = 0xff
			}
		}
		for g := range 8 {
			blk[66+g] = h | h<<2 | h<<4 | h<<6
			blk[74+g] = 0xff
		}
	}
}

// iq2Largest is the index of grid's entry of the largest sum of bytes.
func iq2Largest(grid []uint64) int {
	best, bs := 0, 0
	for i, g := range grid {
		s := 0
		for k := range 8 {
			s += int(byte(g >> (8 * k)))
		}
		if s > bs {
			best, bs = i, s
		}
	}
	return best
}

// testPackedIQ2 is one case of TestPackedIQ2: gguf the type's GGUF-layout
// kernel; extreme, when not 0, the sign of every activation.
func testPackedIQ2(t *testing.T, rng *rand.Rand, pt packedIQ2, gguf rowsFn, cols, groups int, extreme float32, nan bool) {
	typ, bb := pt.typ, pt.bb
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, typ, rows, cols)
	x := randomVec(rng, 4*cols)
	if extreme != 0 {
		for b := 0; b < len(data); b += bb {
			iq2Extreme(typ, data[b:b+bb], b/bb%3 == 0)
			binary.LittleEndian.PutUint16(data[b:], F32ToF16(0.5))
		}
		for i := range x {
			x[i] = extreme
		}
	}
	rb := nsb * bb
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+bb*(nsb-1):], 0x7e00)
	}
	p := packFilled(pt.pack, data, nsb, groups, pt.block)
	checkPackedKernels(t, typ, gguf, pt.rows, pt.gemm4, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackedIQ2Matrix: Kernels.Pack packs an IQ2_XXS, IQ2_XS or IQ2_S matrix of
// at least one group on each kernel set that packs it (VNNI on or off: its
// leading Rows&^15 rows, Data left alone, the file's bytes a row and
// super-block or its AVX2 layout's), MatVec gives the
// unpacked matrix's numbers bit for bit on every row, and MatMul gives each
// token what MatVec gives it, through the packed prefill kernel, the
// padded group of three, the decode kernel for a tail of tokens and the
// GGUF-layout kernels for the tail rows; a NaN input shows in its token's
// outputs only.
func TestPackedIQ2Matrix(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	pool := NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(83, 84))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(pool, true, vnni)
		for _, typ := range []Type{IQ2_XXS, IQ2_XS, IQ2_S} {
			if k.prows[typ] == nil {
				continue
			}
			for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}} {
				checkPackedMatrix(t, k, rng, typ, c.rows, c.cols)
			}
		}
	}
}

// BenchmarkIQ2Triad is decode of IQ2_XXS and IQ2_XS against the STREAM
// triad of the same run, GGUF layout ("old") and packed ("new"), as
// BenchmarkTQTriad (packtq_amd64_test.go). Run with -benchtime=Nx.
func BenchmarkIQ2Triad(b *testing.B) { benchTriadTypes(b, IQ2_XXS, IQ2_XS) }

// BenchmarkPackedIQ2 times IQ2_XXS's and IQ2_XS's kernels, each packed
// layout the CPU runs against the GGUF layout (benchPackedOn).
func BenchmarkPackedIQ2(b *testing.B) {
	for _, pt := range packedIQ2Types() {
		b.Run(pt.set+"/"+pt.typ.String(), func(b *testing.B) {
			benchPackedOn(b, pt.typ, pt.bb, pt.block, pt.pack, pt.rows, pt.gemm4)
		})
	}
}
