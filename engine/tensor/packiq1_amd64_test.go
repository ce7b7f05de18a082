package tensor

import (
	"encoding/binary"
	"fmt"

	"math/rand/v2"
	"testing"
)

// TestPackedIQ1Table checks every entry of the packed IQ1 kernels' derived
// grid table against iq1s_grid: entry s·2048 + i holds 8g + 10 − 2s for
// each weight g of entry i.
func TestPackedIQ1Table(t *testing.T) {
	for s := range 2 {
		for i, u := range iq1s_grid {
			var want uint64
			for k := range 8 {
				want |= uint64(8*int(int8(u>>(8*k)))+10-2*s) << (8 * k)
			}
			if got := iq1pTabAt(2048*s + i); got != want {
				t.Fatalf("entry %d·2048+%d: %#x, want %#x", s, i, got, want)
			}
		}
	}
}

// iq1Packed describes one packed IQ1 layout for the tests.
type iq1Packed struct {
	set      string // "vnni" or "avx2"
	typ      Type
	bytes    int // GGUF super-block bytes
	pbytes   int // packed bytes of a group's super-block
	pack     func(dst, src []byte, nsb, g0, g1 int)
	rows     packedRowsFn
	gemm4    packedGemm4Fn
	extreme  func(blk []byte, neg bool) // every index and scale at its largest, the δ sign set or not
	setScale func(blk []byte, h uint16) // the super-block scale d
}

// iq1PackedTypes are the packed IQ1 layouts this CPU runs: the VNNI ones
// and the AVX2 ones.
func iq1PackedTypes() []iq1Packed {
	s := iq1SExtreme
	var t []iq1Packed
	if hasIQZ {
		t = append(t, iq1Packed{
			set: "vnni", typ: IQ1_S, bytes: iq1sBytes, pbytes: packIQ1SBlockBytes, pack: packIQ1S,
			rows: rowsPackedIQ1S, gemm4: gemm4PackedIQ1S, extreme: s,
			setScale: func(blk []byte, h uint16) { binary.LittleEndian.PutUint16(blk, h) },
		}, iq1PackedM())
	}
	if hasAVX2 {
		m := iq1PackedM()
		m.set, m.pbytes, m.pack, m.rows, m.gemm4 = "avx2", 2*packIQ1MA8Bytes, packIQ1MAVX2, rowsPackedIQ1MAVX2, gemm4PackedIQ1MAVX2
		t = append(t, iq1Packed{
			set: "avx2", typ: IQ1_S, bytes: iq1sBytes, pbytes: 2 * packIQ1SA8Bytes, pack: packIQ1SAVX2,
			rows: rowsPackedIQ1SAVX2, gemm4: gemm4PackedIQ1SAVX2, extreme: s,
			setScale: func(blk []byte, h uint16) { binary.LittleEndian.PutUint16(blk, h) },
		}, m)
	}
	return t
}

// iq1SExtreme sets an IQ1_S super-block's indices and scales to their
// largest, the δ sign set (neg) or clear.
func iq1SExtreme(blk []byte, neg bool) {
	for i := 2; i < 50; i++ {
		blk[i] = 0xff
	}
	if !neg {
		for j := range 8 {
			blk[35+2*j] = 0x7f
		}
	}
}

// iq1PackedM is packed IQ1_M's VNNI layout.
func iq1PackedM() iq1Packed {
	return iq1Packed{
		set: "vnni", typ: IQ1_M, bytes: iq1mBytes, pbytes: packIQ1MBlockBytes, pack: packIQ1M,
		rows: rowsPackedIQ1M, gemm4: gemm4PackedIQ1M,
		extreme: func(blk []byte, neg bool) {
			for i := range 56 {
				blk[i] = 0xff
			}
			if !neg {
				for i := 32; i < 48; i++ {
					blk[i] = 0x77
				}
			}
		},
		setScale: func(blk []byte, h uint16) {
			for k := range 4 {
				blk[49+2*k] = blk[49+2*k]&0x0f | byte(h>>(4*k))<<4
			}
		},
	}
}

// TestPackedIQ1 checks the packed IQ1_S and IQ1_M kernels bit for bit:
// the decode kernel against the type's GGUF-layout AVX2 kernel row by row
// (the packed layout keeps its arithmetic, packiq1.go), the four-token
// kernel against the decode kernel per token, over one to nine
// super-blocks a row and one to three groups, and both close to the
// float64 dot of the dequantised row. The packer writes into a buffer full
// of 0xff, so that a byte it fails to set shows. The extreme cases set
// every index and scale to its largest (grid entry 2047, all +1, scale 15)
// with the δ sign set or clear and every activation code to 127 or −127,
// where the integer sums are largest; the NaN case gives one row a NaN
// scale.
func TestPackedIQ1(t *testing.T) {
	if len(iq1PackedTypes()) == 0 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	type shape struct {
		cols, groups int
		extreme      int // 0 none, 1 δ > 0 and x > 0, 2 δ < 0 and x < 0
		nan          bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, 0, false})
		}
	}
	shapes = append(shapes, shape{768, 3, 1, false}, shape{512, 2, 2, false}, shape{512, 2, 0, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, c := range shapes {
		for _, k := range iq1PackedTypes() {
			t.Run(fmt.Sprintf("%s/%s/%dx%d/extreme=%d/nan=%v", k.set, k.typ, c.groups*16, c.cols, c.extreme, c.nan), func(t *testing.T) {
				testPackedIQ1(t, rng, k, kg.rows[k.typ], c.cols, c.groups, c.extreme, c.nan)
			})
		}
	}
}

// testPackedIQ1 is one case of TestPackedIQ1; gguf is the type's
// GGUF-layout kernel.
func testPackedIQ1(t *testing.T, rng *rand.Rand, k iq1Packed, gguf rowsFn, cols, groups, extreme int, nan bool) {
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, k.typ, rows, cols)
	x := randomVec(rng, 4*cols)
	if extreme != 0 {
		for b := 0; b < len(data); b += k.bytes {
			k.extreme(data[b:b+k.bytes], extreme == 2)
			k.setScale(data[b:b+k.bytes], F32ToF16(0.5))
		}
		for i := range x {
			x[i] = float32(3 - 2*extreme) // 1 or −1: codes ±127
		}
	}
	rb := nsb * k.bytes
	if nan {
		k.setScale(data[5*rb+k.bytes*(nsb-1):], 0x7e00)
	}
	p := packFilled(k.pack, data, nsb, groups, k.pbytes)
	checkPackedKernels(t, k.typ, gguf, k.rows, k.gemm4, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackedIQ1Matrix: Kernels.Pack packs an IQ1_S or IQ1_M matrix of at
// least one group on each kernel set that packs it (VNNI on or off: its
// leading Rows&^15 rows, Data left alone, the file's bytes a row and
// super-block or its AVX2 layout's), MatVec gives the
// unpacked matrix's numbers bit for bit on every row, and MatMul gives
// each token what MatVec gives it, through the packed prefill kernel, the
// padded group of three, the decode kernel for a tail of tokens and the
// GGUF-layout kernels for the tail rows; a NaN input shows in its token's
// outputs only.
func TestPackedIQ1Matrix(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	pool := NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(83, 84))
	for _, vnni := range []bool{true, false} {
		k := newKernelsVNNI(pool, true, vnni)
		for _, typ := range []Type{IQ1_S, IQ1_M} {
			if k.prows[typ] == nil {
				continue
			}
			for _, c := range []struct{ cols, rows int }{{256, 16}, {256, 79}, {768, 130}, {512, 33}} {
				checkPackedMatrix(t, k, rng, typ, c.rows, c.cols)
			}
		}
	}
}

// BenchmarkPackedIQ1 times the IQ1 kernels, each packed layout the CPU
// runs against the GGUF layout (benchPackedOn).
func BenchmarkPackedIQ1(b *testing.B) {
	for _, k := range iq1PackedTypes() {
		b.Run(k.set+"/"+k.typ.String(), func(b *testing.B) {
			benchPackedOn(b, k.typ, k.bytes, k.pbytes, k.pack, k.rows, k.gemm4)
		})
	}
}

// BenchmarkIQ1Triad is decode of IQ1_S and IQ1_M against the STREAM triad
// of the same run, GGUF layout ("old") and packed ("new"), as
// BenchmarkTQTriad (benchTriadTypes). Run with -benchtime=Nx.
func BenchmarkIQ1Triad(b *testing.B) { benchTriadTypes(b, IQ1_S, IQ1_M) }
