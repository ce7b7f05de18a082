package tensor

import "math"

// act is an activation vector quantised to signed 8-bit integers in blocks of
// 32, the way llama.cpp feeds quantised weights: the weights' integer codes
// then meet integer activations, so the inner loop is an int8 dot product
// (VPMADDUBSW on AVX2) instead of a dequantise-and-FMA per weight.
//
// Each block of 32 gets its own float32 scale (llama.cpp's Q8_K uses one per
// 256), so K-quant sub-blocks of 32 see a tighter activation grid. The error
// this adds is bounded by d/2 per element, well under the weights' own error.
type act struct {
	qs []int8    // n codes
	d  []float32 // n/32 scales: x ≈ d·q
	s  []float32 // n/32 block sums d·Σq, for the weights' offsets (Q4_0's −8, K-quant mins)
	// n/32 integers −8·Σq: the packed Q4_0 kernels start each block's
	// integer sum from it, so that Σ(w−8)·q comes out exact and needs no
	// float term of its own (see packQ4_0); the packed Q8_0 ones from
	// 16·m8 = −128·Σq, taking back the 128 their unsigned codes add.
	m8 []int32
	// For the packed Q6_K, Q3_K and Q2_K kernels only: per four codes,
	// −32·Σq, which starts each four-weight lane's integer sum so that
	// Σ(w−32)·q comes out exact (see packk6.go; packed Q3_K and Q2_K sum
	// four of them into a half-block's −4·Σq or −Σq, packk23.go; filled
	// by actBuf.prepM4 only where such a matrix runs, else nil). Its
	// stride per token is the codes' in bytes.
	m4 []int32

	// For the VNNI prefill kernels only, over four tokens: the codes plus
	// 128, the tokens' scales and block sums side by side per block, and
	// the codes interleaved for the Q5_0 kernel (see prepActVNNI).
	u  []uint8
	dT []float32
	sT []float32
	qX []int8
}

// quantizeAct fills a (whose slices have room for len(x) elements) from x,
// which must be a whole number of 32-blocks.
//
// Every weight type gets activations on a per-32 grid, K-quants included,
// where llama.cpp uses one grid per 256 (Q8_K). Measured on the kjv Q4_K_M/S
// fixtures, the per-32 grid gives first-step logits closer to the float32
// reference (RMS error 0.131/0.111 against 0.143/0.116 for per-256), and
// neither grid reproduces llama.cpp's greedy continuations bit for bit: both
// part from it only at near-ties (top-2 margins below 0.04).
func quantizeAct(a act, x []float32) {
	if quantizeActArch(a, x) {
		return
	}
	quantizeActGo(a, x)
}

// roundScales rounds the scales of the first rows activation rows of
// cols values to float16, and their block sums with them, as ggml's Q8_0
// activations store them (block_q8_0.d); the codes stay those taken with
// the float32 scale, as ggml takes them. MXFP4's products read their
// activations so (llama.cpp's ggml_vec_dot_mxfp4_q8_0), where every other
// type keeps the float32 scale this package has always used: on the
// gpt-oss fixture of engine/model's MoE goldens, float32 scales put the
// first-step probabilities 0.019 from llama.cpp's and parted from its
// greedy ids at a top-2 margin of 0.24; float16 scales, 0.0028 and every
// id equal.
func (b *actBuf) roundScales(rows, cols int) {
	nb := rows * cols / QK
	for i := range nb {
		d := F16ToF32(F32ToF16(b.d[i]))
		b.d[i] = d
		b.s[i] = d * float32(-b.m8[i]/8) // m8 = −8·Σq
	}
}

// f16Scales reports whether a product of type t reads activations with
// float16 scales (roundScales).
func f16Scales(t Type) bool { return t == MXFP4 }

// quantizeActGo is the portable quantiser and the definition the assembly
// must reproduce bit for bit: d = amax/127, q = round-half-even(x·(127/amax)).
func quantizeActGo(a act, x []float32) {
	for b := range len(x) / QK {
		xb := x[b*QK : b*QK+QK]
		var amax float32
		for _, v := range xb {
			amax = max(amax, abs32(v)) // max propagates NaN
		}
		qb := a.qs[b*QK : b*QK+QK]
		if !(amax >= actTiny && amax <= math.MaxFloat32) {
			// An all-zero block quantises to zeros, and so does one too
			// small for 127/amax to be finite. A block holding NaN or
			// ±Inf gets a NaN scale and sum, so every output it touches is
			// NaN and the bad input shows instead of being rounded away.
			clear(qb)
			a.m8[b] = 0
			if amax < actTiny {
				a.d[b], a.s[b] = 0, 0
			} else {
				a.d[b], a.s[b] = float32(math.NaN()), float32(math.NaN())
			}
			continue
		}
		d := amax / 127
		id := 127 / amax
		var sum int32
		for i, v := range xb {
			// |v·id| ≤ 127 up to rounding, so the code needs no clamp.
			q := int32(math.RoundToEven(float64(v * id)))
			qb[i] = int8(q)
			sum += q
		}
		a.d[b] = d
		a.s[b] = d * float32(sum)
		a.m8[b] = -8 * sum
	}
}

// actTiny is the least block maximum quantised as such: below 2⁻¹²⁰ the
// inverse scale 127/amax would overflow to +Inf, and the block (at most
// 32·7.5e−37 of any dot product) is taken as zeros instead.
const actTiny = 0x1p-120

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// actBuf owns the storage for up to cap activation rows of one width.
type actBuf struct {
	qs   []int8
	d, s []float32
	m8   []int32
	m4   []int32   // see act.m4; its length is what prepM4 filled
	u    []uint8   // see act.u
	dT   []float32 // see act.dT
	sT   []float32 // see act.sT
	qX   []int8    // see act.qX
}

// rows returns a view of n rows of cols elements each, growing the storage
// only when a larger shape than ever before is asked for.
func (b *actBuf) ensure(n, cols int) {
	if need := n * cols; cap(b.qs) < need {
		b.qs = make([]int8, need)
	}
	if need := n * cols / QK; cap(b.d) < need {
		b.d = make([]float32, need)
		b.s = make([]float32, need)
		b.m8 = make([]int32, need)
	}
	b.m4 = b.m4[:0] // this product's, if it needs them: prepM4
}

// prepM4 fills m4 for the first n activation rows of cols elements from
// their codes (see act.m4), which must be quantised first.
func (b *actBuf) prepM4(n, cols int) {
	need := n * cols / 4
	if cap(b.m4) < need {
		b.m4 = make([]int32, need)
	}
	b.m4 = b.m4[:need]
	qs := b.qs[:4*need]
	for g := range b.m4 {
		q := qs[4*g : 4*g+4]
		b.m4[g] = -32 * (int32(q[0]) + int32(q[1]) + int32(q[2]) + int32(q[3]))
	}
}

// copyRow copies quantised row src to row dst (rows of cols elements).
func (b *actBuf) copyRow(dst, src, cols int) {
	nb := cols / QK
	copy(b.qs[dst*cols:(dst+1)*cols], b.qs[src*cols:(src+1)*cols])
	copy(b.d[dst*nb:(dst+1)*nb], b.d[src*nb:(src+1)*nb])
	copy(b.s[dst*nb:(dst+1)*nb], b.s[src*nb:(src+1)*nb])
	copy(b.m8[dst*nb:(dst+1)*nb], b.m8[src*nb:(src+1)*nb])
}

// row returns activation row i of a buffer laid out as rows of cols elements.
func (b *actBuf) row(i, cols int) act {
	nb := cols / QK
	return act{
		qs: b.qs[i*cols : (i+1)*cols],
		d:  b.d[i*nb : (i+1)*nb],
		s:  b.s[i*nb : (i+1)*nb],
		m8: b.m8[i*nb : (i+1)*nb],
		m4: b.m4M(i, 1, cols),
	}
}

// m4M returns the corrections of n activation rows from row i, or nil
// where prepM4 did not fill them.
func (b *actBuf) m4M(i, n, cols int) []int32 {
	if len(b.m4) < (i+n)*cols/4 {
		return nil
	}
	return b.m4[i*cols/4 : (i+n)*cols/4]
}
