package tensor

import (
	"encoding/binary"
	"fmt"

	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestPackedIQ2S checks the packed IQ2_S kernels bit for bit: the decode
// kernel against the GGUF-layout AVX2 kernel row by row (the packed layout
// keeps its arithmetic, packiq2s.go), the four-token kernel against the
// decode kernel per token, over one to nine super-blocks a row and one to
// three groups, and both close to the float64 dot of the dequantised row.
// The packer writes into a buffer full of 0xff, so that a byte it fails to
// set shows. The "all" case walks every one of the 1024 grid indices (so
// every entry of the kernels' derived grid is read); the extreme case
// gives every run the grid entry of the largest magnitudes, every scale 15
// and every activation code 127 or −127 (tokens alternate, and so do the
// runs' signs), where the integer sums are largest; the NaN case gives one
// row a NaN scale.
func TestPackedIQ2S(t *testing.T) {
	if !hasIQZ {
		t.Skip("no AVX-512 VNNI, GFNI, VBMI and BITALG")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups      int
		all, extreme, nan bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols: cols, groups: groups})
		}
	}
	shapes = append(shapes, shape{cols: 2304, groups: 3, all: true},
		shape{cols: 768, groups: 3, extreme: true}, shape{cols: 512, groups: 2, nan: true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, c := range shapes {
		t.Run(fmt.Sprintf("%dx%d/all=%v/extreme=%v/nan=%v", c.groups*16, c.cols, c.all, c.extreme, c.nan), func(t *testing.T) {
			testPackedIQ2S(t, rng, kg.rows[IQ2_S], c.cols, c.groups, c.all, c.extreme, c.nan)
		})
	}
}

// iq2sMaxEntry is the iq2s_grid index whose magnitudes sum largest.
func iq2sMaxEntry() int {
	best, bi := -1, 0
	for i, v := range iq2s_grid {
		s := 0
		for k := range 8 {
			s += int(byte(v >> (8 * k)))
		}
		if s > best {
			best, bi = s, i
		}
	}
	return bi
}

// setIQ2SIndex sets run r (0…31) of the IQ2_S super-block blk to grid
// index idx.
func setIQ2SIndex(blk []byte, r, idx int) {
	blk[2+r] = byte(idx)
	sh := 2 * uint(r%4)
	blk[66+r/4] = blk[66+r/4]&^(3<<sh) | byte(idx>>8)<<sh
}

func testPackedIQ2S(t *testing.T, rng *rand.Rand, gguf rowsFn, cols, groups int, all, extreme, nan bool) {
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, IQ2_S, rows, cols)
	x := randomVec(rng, 4*cols)
	switch {
	case all:
		for b, n := 0, 0; b < len(data); b += iq2sBytes {
			for r := range 32 {
				setIQ2SIndex(data[b:b+iq2sBytes], r, n%1024)
				n++
			}
		}
	case extreme:
		top := iq2sMaxEntry()
		for b := 0; b < len(data); b += iq2sBytes {
			blk := data[b : b+iq2sBytes]
			binary.LittleEndian.PutUint16(blk, F32ToF16(0.5))
			for r := range 32 {
				setIQ2SIndex(blk, r, top)
				blk[34+r] = byte(0xff * (r / 4 % 2)) // blocks alternate: all − / all +
			}
			for g := range 8 {
				blk[74+g] = 0xff
			}
		}
		for i := range x {
			x[i] = float32(1 - 2*(i/cols%2))
		}
	}
	rb := nsb * iq2sBytes
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+iq2sBytes*(nsb-1):], 0x7e00)
	}
	p := packFilled(packIQ2S, data, nsb, groups, packIQ2SBlockBytes)
	checkPackedKernels(t, IQ2_S, gguf, rowsPackedIQ2S, gemm4PackedIQ2S, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackIQ2SLayout checks packIQ2S's byte map against the layout's
// description directly: every file byte lands where packiq2s.go says, and
// the sign bytes of a run's rows 0…7 are the byte mask of the weights
// their gather holds.
func TestPackIQ2SLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	const nsb, groups = 2, 2
	data := randomWeights(rng, IQ2_S, groups*packRows, nsb*QKK)
	p := make([]byte, groups*nsb*packIQ2SBlockBytes)
	packIQ2S(p, data, nsb, 0, groups)
	ones := 0
	for g := range groups {
		for sb := range nsb {
			o := p[(g*nsb+sb)*packIQ2SBlockBytes:][:packIQ2SBlockBytes]
			for r := range packRows {
				blk := data[((g*packRows+r)*nsb+sb)*iq2sBytes:][:iq2sBytes]
				if o[2*r] != blk[0] || o[2*r+1] != blk[1] {
					t.Fatalf("group %d sb %d row %d: scale bytes", g, sb, r)
				}
				for run := range 32 {
					j, l := run/4, run%4
					if o[32+160*j+16*l+r] != blk[2+run] || o[32+160*j+64+16*l+r] != blk[34+run] {
						t.Fatalf("group %d sb %d row %d run %d: index or sign byte", g, sb, r, run)
					}
					ones += bits.OnesCount8(blk[34+run])
				}
				for j := range 8 {
					if o[32+160*j+128+r] != blk[66+j] || o[32+160*j+144+r] != blk[74+j] {
						t.Fatalf("group %d sb %d row %d block %d: qh or scale byte", g, sb, r, j)
					}
				}
			}
		}
	}
	if ones == 0 {
		t.Fatal("no sign bits in the random weights")
	}
}

// TestPackedIQ2SMatrix: Kernels.Pack packs an IQ2_S matrix of at least one
// group on the VNNI kernels (its leading Rows&^15 rows, Data left alone,
// 82 bytes a row and super-block), MatVec gives the unpacked matrix's
// numbers bit for bit on every row, and MatMul gives each token what
// MatVec gives it, through the packed prefill kernel, the padded group of
// three, the decode kernel for a tail of tokens and the GGUF-layout
// kernels for the tail rows; a NaN input shows in its token's outputs
// only.
func TestPackedIQ2SMatrix(t *testing.T) {
	if !hasIQZ {
		t.Skip("no AVX-512 VNNI, GFNI, VBMI and BITALG")
	}
	pool := NewPool(2)
	defer pool.Close()
	k := newKernelsVNNI(pool, true, true)
	rng := rand.New(rand.NewPCG(85, 86))
	for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}, {512, 33}} {
		cols, rows := c.cols, c.rows
		checkPackedMatrix(t, k, rng, IQ2_S, rows, cols)
	}
}

// BenchmarkIQ2STriad is IQ2_S decode, GGUF layout against packed, against
// the STREAM triad of the same run (benchTriadTypes, BenchmarkTQTriad).
// Run with -benchtime=Nx (N rounds).
func BenchmarkIQ2STriad(b *testing.B) { benchTriadTypes(b, IQ2_S) }
