package tensor

import (
	"encoding/binary"
	"fmt"

	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// packedTQSet is one set of packed TQ2_0 and TQ1_0 kernels.
type packedTQSet struct {
	name         string
	rows2, rows1 packedRowsFn
	gemm2, gemm1 packedGemm4Fn
}

// packedTQSets is the sets this CPU runs: the VNNI kernels with AVX-512
// VNNI and GFNI, the AVX2 ones with AVX2.
func packedTQSets() []packedTQSet {
	var s []packedTQSet
	if hasTQZ {
		s = append(s, packedTQSet{"vnni", rowsPackedTQ2, rowsPackedTQ1, gemm4PackedTQ2, gemm4PackedTQ1})
	}
	if hasAVX2 {
		s = append(s, packedTQSet{"avx2", rowsPackedTQ2AVX2, rowsPackedTQ1AVX2, gemm4PackedTQ2AVX2, gemm4PackedTQ1AVX2})
	}
	return s
}

// TestPackedTQ2 checks the packed TQ2_0 and TQ1_0 kernels (VNNI and AVX2,
// each where the CPU runs them) bit for bit:
// the decode kernel against the
// type's GGUF-layout AVX2 kernel row by row (the packed layout keeps its
// arithmetic, packtq.go), the four-token kernel against
// the decode kernel per token, over one to nine super-blocks a row and one
// to three groups (odd counts run the kernel's single-group loop), and
// both close to the float64 dot of the dequantised row. The packer writes
// into a buffer full of 0xff, so that a byte it fails to set shows. The
// extreme case sets every code byte to 0xff (TQ2_0 codes 3; for TQ1_0
// the largest sums of every trit plane) and every activation code to 127,
// where the integer sums are largest; the NaN case gives one row a NaN
// scale.
func TestPackedTQ2(t *testing.T) {
	sets := packedTQSets()
	if len(sets) == 0 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	type shape struct {
		cols, groups int
		extreme, nan bool
	}
	var shapes []shape
	for _, cols := range []int{256, 512, 768, 2304} {
		for _, groups := range []int{1, 2, 3} {
			shapes = append(shapes, shape{cols, groups, false, false})
		}
	}
	shapes = append(shapes, shape{768, 3, true, false}, shape{512, 2, false, true})
	kg := newKernelsVNNI(nil, true, false)
	defer kg.Close()
	for _, set := range sets {
		for _, c := range shapes {
			for _, typ := range []Type{TQ2_0, TQ1_0} {
				t.Run(fmt.Sprintf("%s/%s/%dx%d/extreme=%v/nan=%v", set.name, typ, c.groups*16, c.cols, c.extreme, c.nan), func(t *testing.T) {
					testPackedTQ(t, rng, typ, kg.rows[typ], set, c.cols, c.groups, c.extreme, c.nan)
				})
			}
		}
	}
}

// testPackedTQ is one case of TestPackedTQ2: typ TQ2_0 or TQ1_0, gguf its
// GGUF-layout kernel, set the packed kernels.
func testPackedTQ(t *testing.T, rng *rand.Rand, typ Type, gguf rowsFn, set packedTQSet, cols, groups int, extreme, nan bool) {
	bb, dOff, pack, blockBytes, rowsFn, gemm4 := tq2Bytes, 64, packTQ2, packTQ2BlockBytes, set.rows2, set.gemm2
	if typ == TQ1_0 {
		bb, dOff, pack, blockBytes, rowsFn, gemm4 = tq1Bytes, 52, packTQ1, packTQ1BlockBytes, set.rows1, set.gemm1
	}
	rows, nsb := groups*packRows, cols/QKK
	data := randomWeights(rng, typ, rows, cols)
	x := randomVec(rng, 4*cols)
	if extreme {
		for b := 0; b < len(data); b += bb {
			blk := data[b : b+bb]
			for i := range dOff {
				blk[i] = 0xff // TQ2_0: codes 3; TQ1_0: trits 2
			}
			binary.LittleEndian.PutUint16(blk[dOff:], F32ToF16(0.5))
		}
		for i := range x {
			x[i] = 1
		}
	}
	rb := nsb * bb
	if nan {
		binary.LittleEndian.PutUint16(data[5*rb+bb*(nsb-1)+dOff:], 0x7e00)
	}
	p := packFilled(pack, data, nsb, groups, blockBytes)
	checkPackedKernels(t, typ, gguf, rowsFn, gemm4, data, p, x, cols, groups, nanRowIf(nan))
}

// TestPackedTQ2Matrix: Kernels.Pack packs a TQ2_0 or TQ1_0 matrix of at
// least one group on the VNNI or the AVX2 kernels (its leading Rows&^15 rows, Data
// left alone, the file's bytes a row and super-block), MatVec gives the unpacked matrix's
// numbers bit for bit on every row, and MatMul gives each token what
// MatVec gives it, through the packed prefill kernel, the padded group of
// three, the decode kernel for a tail of tokens and the GGUF-layout kernels
// for the tail rows; a NaN input shows in its token's outputs only.
func TestPackedTQ2Matrix(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	pool := NewPool(2)
	defer pool.Close()
	// vnni true runs the VNNI kernels where the CPU has them, else the
	// AVX2 ones; vnni false the AVX2 ones.
	for _, vnni := range []bool{true, false} {
		if !vnni && !hasTQZ {
			continue // the same kernels as vnni true
		}
		k := newKernelsVNNI(pool, true, vnni)
		rng := rand.New(rand.NewPCG(73, 74))
		for _, c := range []struct {
			typ        Type
			cols, rows int
		}{{TQ2_0, 256, 16}, {TQ2_0, 256, 79}, {TQ2_0, 768, 130}, {TQ1_0, 256, 16}, {TQ1_0, 768, 79}, {TQ1_0, 256, 130}} {
			checkPackedMatrix(t, k, rng, c.typ, c.rows, c.cols)
		}
		k.Close()
	}
}

// BenchmarkPackedTQ2 times TQ2_0's and TQ1_0's kernels, packed against the
// GGUF layout (benchPacked), for each set of packed kernels the CPU runs.
func BenchmarkPackedTQ2(b *testing.B) {
	for _, set := range packedTQSets() {
		b.Run(set.name+"/TQ2_0", func(b *testing.B) {
			benchPackedOn(b, TQ2_0, tq2Bytes, packTQ2BlockBytes, packTQ2, set.rows2, set.gemm2)
		})
		b.Run(set.name+"/TQ1_0", func(b *testing.B) {
			benchPackedOn(b, TQ1_0, tq1Bytes, packTQ1BlockBytes, packTQ1, set.rows1, set.gemm1)
		})
	}
}

// BenchmarkTQTriad is decode of the ternary types against the STREAM triad
// of the same run, GGUF layout ("old") and packed ("new") alternated with
// the triad pass in every iteration, on one thread and on two: four
// 3072-column matrices of 128 MiB each (512 MiB, more than a pass can find
// in the VM's last-level cache), bandwidth counted in the file's bytes.
// Reported: the median share of the triad of each side ("old" and "new",
// with "new-lo"/"new-hi" the range of the new side's), and "x-old", the
// median ratio of the old time to the new (above 1 is faster).
// Run with -benchtime=Nx (N rounds).
func BenchmarkTQTriad(b *testing.B) { benchTriadTypes(b, TQ2_0, TQ1_0) }

// benchTriadTypes is BenchmarkTQTriad's measurement for any packed types:
// each type's decode, GGUF layout against packed, alternated with the
// STREAM triad pass, on one thread and on two.
func benchTriadTypes(b *testing.B, types ...Type) {
	const cols, mats = 3072, 4
	n := benchBytes / 4 / probeChunk * probeChunk
	pa, pb, pc := alignedF32(n), alignedF32(n), alignedF32(n)
	for i := range pa {
		pa[i], pb[i], pc[i] = 0, 1, 2
	}
	for _, typ := range types {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", typ, threads), func(b *testing.B) {
				pool := NewPool(threads)
				defer pool.Close()
				k := newKernelsVNNI(pool, true, true)
				probe := &triadTask{a: pa, b: pb, c: pc, s: 0.5}
				rb, _ := typ.RowBytes(cols)
				rows := benchBytes / int(rb) / packRows * packRows
				ws, ps := make([]*Matrix, mats), make([]*Matrix, mats)
				bytes := 0
				for i := range ws {
					rng := rand.New(rand.NewPCG(uint64(i), uint64(typ)))
					w, err := NewMatrix(typ, rows, cols, randomWeights(rng, typ, rows, cols))
					if err != nil {
						b.Fatal(err)
					}
					ws[i] = w
					ps[i] = k.Pack(w)
					if ps[i] == w {
						b.Skipf("%s: no packed kernels on this CPU", typ)
					}
					bytes += len(w.Data)
				}
				x := randomVec(rand.New(rand.NewPCG(5, 6)), cols)
				y := make([]float32, rows)
				pass := func(ms []*Matrix) float64 {
					t0 := time.Now()
					for _, m := range ms {
						k.MatVec(y, m, x)
					}
					return time.Since(t0).Seconds()
				}
				triad := func() float64 {
					t0 := time.Now()
					pool.Run(n/probeChunk, probe)
					return float64(12*n) / time.Since(t0).Seconds()
				}
				for range 3 {
					triad()
					pass(ws)
					pass(ps)
				}
				var olds, news, speed []float64
				for b.Loop() {
					tri := triad()
					to := pass(ws)
					tn := pass(ps)
					olds = append(olds, float64(bytes)/to/tri)
					news = append(news, float64(bytes)/tn/tri)
					speed = append(speed, to/tn)
				}
				b.ReportMetric(median(olds), "old")
				b.ReportMetric(median(news), "new")
				b.ReportMetric(slices.Min(news), "new-lo")
				b.ReportMetric(slices.Max(news), "new-hi")
				b.ReportMetric(median(speed), "x-old")
			})
		}
	}
}
