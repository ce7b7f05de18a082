//go:build cgo

// Package hostq builds the CUDA kernels' weight decoders (engine/backend/cuda/kernels/
// quant.cuh) with the host C compiler, so that tests compare them with the
// CPU engine's decoders without a GPU. It exists for tests only: nothing in
// the product imports it, and without cgo it is empty (the tests skip).
package hostq

/*
#cgo CFLAGS: -O1
#cgo LDFLAGS: -lm
#include "iqtables.h" // a link to kernels/iqtables.cuh (the IQ codebooks), included first so that quant.h's own include of it is skipped and the build cache sees its changes
#include "quant.h" // a link to engine/backend/cuda/kernels/quant.cuh, here so that the build cache sees its changes
#include "ops.h"   // likewise kernels/ops.cuh

static int unit(int t, const uint8_t *row, int u, float *y) { return dq_unit(t, row, u, y); }
static float elem(int t, const uint8_t *row, int u, int l) { return de_elem(t, row, u, l); }

// product runs a warp's row product lane by lane, for rows of x from t0
// (NT of them; rows xi[t0]… when xi is not null), and adds up the lanes as
// the warp's shuffles do.
static void product(int t, int nt, int e, int u, int nk, const uint8_t *row, int cols, const float *x, const int *xi,
                    int n, int t0, float *out) {
	float sum[MM_MAXNT] = {0};
	for (int wk = 0; wk < nk; wk++) {
		for (int lane = 0; lane < 32; lane++) {
			float acc[MM_MAXNT];
			mm_lane(t, nt, e, u, row, cols, x, xi, n, t0, lane, 0, wk, nk, acc);
			for (int k = 0; k < nt; k++) sum[k] += acc[k];
		}
	}
	for (int k = 0; k < nt; k++) out[k] = sum[k];
}
static int block_bytes(int t) { return type_block_bytes(t); }
static int block_len(int t) { return type_block_len(t); }

static void route(float *v, float *s, int ne, const float *mask, const float *sbias, int gating, int k, int norm,
                  float scale, int *ids, float *w) {
	route_row(v, s, ne, mask, sbias, gating, k, norm, scale, ids, w);
}
static void group(const int *ids, int np, int ne, int *cnt, int *order, int *tiles) {
	group_pairs(ids, np, ne, cnt, order, tiles);
}
static float swiglu(float g, float u, float alpha, float limit) { return swiglu_oai(g, u, alpha, limit); }
static float combine(const float *y, int ldy, const float *w, int k, int r, int c) { return combine_at(y, ldy, w, k, r, c); }
static void rope(int i, int pos, float base, int dim, float fdiv, float mscale, float posScale, int yarn, float ext,
                 float attn, float corr0, float corr1, float *c, float *s) {
	rope_cs(i, pos, base, dim, fdiv, mscale, posScale, yarn, ext, attn, corr0, corr1, c, s);
}
static void merge(const float *wm, const float *wl, int nw, const float *sink, float *M, float *L) {
	att_merge(wm, wl, nw, sink, M, L);
}
static int route_max(void) { return ROUTE_MAX; }
static int group_tile(void) { return GROUP_TILE; }

// qact8 is quant_q8 over count values, its warps emulated lane by lane:
// the maximum and the code sum as the kernel's butterflies form them.
static void qact8(const float *x, int count, int8_t *xq, float *xd, float *xs) {
	for (int b0 = 0; b0 < count; b0 += 32) {
		float a[32], na[32];
		int q[32], s[32], ns[32];
		for (int l = 0; l < 32; l++) a[l] = fabsf(x[b0 + l]);
		for (int o = 16; o > 0; o >>= 1) {
			for (int l = 0; l < 32; l++) na[l] = qa_max(a[l], a[l ^ o]);
			for (int l = 0; l < 32; l++) a[l] = na[l];
		}
		for (int l = 0; l < 32; l++) {
			q[l] = qa_lane(x[b0 + l], a[l]);
			xq[b0 + l] = (int8_t)q[l];
			s[l] = q[l];
		}
		for (int o = 16; o > 0; o >>= 1) {
			for (int l = 0; l < 32; l++) ns[l] = s[l] + s[l ^ o];
			for (int l = 0; l < 32; l++) s[l] = ns[l];
		}
		qa_scales(a[0], s[0], xd + (b0 >> 5), xs + (b0 >> 5));
	}
}

static int mvq_p(int t) { return mvq_lanes(t); }
static int mvq_w(int t) { return mvq_width(t); }

// piece_sums adds the integer sums of piece p's lanes (the kernel's
// shuffles) and returns them with the piece's float terms.
static void piece(int t, const uint8_t *row, const int8_t *xq, const float *xd, const float *xs, int p, int *A, int *B,
                  float *acc, float *accm) {
	int P = mvq_lanes(t);
	*A = *B = 0;
	for (int pl = 0; pl < P; pl++) {
		int a, b;
		mvq_isum(t, row, xq, p, pl, &a, &b);
		*A += a, *B += b;
	}
	// −0 + v is v, a −0 term's sign included; a type without offsets
	// leaves accm at +0, as the engine's Go does.
	*acc = -0.f, *accm = mvq_minc(t) != 0.f ? -0.f : 0.f;
	mvq_term(t, row, xd, xs, p, *A, *B, acc, accm);
}

// rowq is what mvq_rows<t, S, U> writes for one row (beta 0), its warps
// emulated lane by lane in the kernel's order: pieces by mvq_piece, each
// piece's lanes added, the first lane's terms accumulated, the warps'
// butterflies, then the S warps' partial sums in warp order. visits[p]
// counts the times piece p was taken.
static float rowq(int t, int S, int U, const uint8_t *row, int cols, const int8_t *xq, const float *xd, const float *xs,
                  int *visits) {
	int P = mvq_lanes(t), np = cols / mvq_width(t), iters = mvq_iters(np, P, S, U);
	float pacc[4], paccm[4];
	if (S < 1 || S > 4) return f32_bits(0x7fc00000u); // the kernels' blocks are 4 warps
	for (int wk = 0; wk < S; wk++) {
		float acc[32], accm[32], na[32], nm[32];
		for (int lane = 0; lane < 32; lane++) {
			acc[lane] = accm[lane] = 0.f;
			for (int it = 0; it < iters; it++) {
				for (int s = 0; s < U; s++) {
					int p = mvq_piece(P, S, U, wk, lane, it, s);
					if (p >= np || lane % P != 0) continue;
					int A = 0, B = 0;
					for (int pl = 0; pl < P; pl++) {
						int a, b;
						// lane + pl is the same piece's lane pl.
						if (mvq_piece(P, S, U, wk, lane + pl, it, s) != p) return f32_bits(0x7fc00000u);
						mvq_isum(t, row, xq, p, pl, &a, &b);
						A += a, B += b;
					}
					mvq_term(t, row, xd, xs, p, A, B, &acc[lane], &accm[lane]);
					visits[p]++;
				}
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			for (int l = 0; l < 32; l++) na[l] = acc[l] + acc[l ^ o], nm[l] = accm[l] + accm[l ^ o];
			for (int l = 0; l < 32; l++) acc[l] = na[l], accm[l] = nm[l];
		}
		pacc[wk] = acc[0], paccm[wk] = accm[0];
	}
	float acc = pacc[0], accm = paccm[0];
	for (int k = 1; k < S; k++) acc += pacc[k], accm += paccm[k];
	return acc - qmul(mvq_minc(t), accm);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// Available says whether the decoders were built (cgo is on).
const Available = true

// DecodeRow decodes a row of cols weights of type t (cols a multiple of 32)
// the way the device kernels do, unit by unit.
func DecodeRow(t tensor.Type, row []byte, cols int) ([]float32, error) {
	if cols%32 != 0 || cols <= 0 {
		return nil, fmt.Errorf("hostq: %d columns are not whole units of 32", cols)
	}
	bl, bb := int(C.block_len(C.int(t))), int(C.block_bytes(C.int(t)))
	if bb == 0 {
		return nil, fmt.Errorf("hostq: the kernels do not decode %v", t)
	}
	if cols%bl != 0 || len(row) < cols/bl*bb {
		return nil, fmt.Errorf("hostq: a row of %d %v weights needs %d bytes, got %d", cols, t, cols/bl*bb, len(row))
	}
	out := make([]float32, cols)
	for u := range cols / 32 {
		if C.unit(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(u), (*C.float)(unsafe.Pointer(&out[32*u]))) == 0 {
			return nil, fmt.Errorf("hostq: the kernels do not decode %v", t)
		}
	}
	return out, nil
}

// DecodeElems decodes the same row one weight at a time, as the product
// kernels do (de_elem).
func DecodeElems(t tensor.Type, row []byte, cols int) []float32 {
	out := make([]float32, cols)
	for i := range out {
		out[i] = float32(C.elem(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(i/32), C.int(i%32)))
	}
	return out
}

// RowProduct is what the product kernels compute for one weight row
// against n rows of x (cols each), the warps emulated lane by lane with the
// kernels' own lane function (mm_lane): nt rows of x per warp, e weights a
// lane, u steps in flight, nk warps sharing the row.
func RowProduct(t tensor.Type, row []byte, cols int, x []float32, n, nt, e, u, nk int) []float32 {
	out := make([]float32, n+nt)
	for t0 := 0; t0 < n; t0 += nt {
		C.product(C.int(t), C.int(nt), C.int(e), C.int(u), C.int(nk), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(cols),
			(*C.float)(unsafe.Pointer(&x[0])), nil, C.int(n), C.int(t0), (*C.float)(unsafe.Pointer(&out[t0])))
	}
	return out[:n]
}

// RowProductGather is RowProduct against the rows xi of x, in that order,
// as the batched expert products read the rows of the pairs that chose an
// expert (one warp call per nt of them).
func RowProductGather(t tensor.Type, row []byte, cols int, x []float32, xi []int32, nt, e, u, nk int) []float32 {
	n := len(xi)
	out := make([]float32, n+nt)
	for t0 := 0; t0 < n; t0 += nt {
		C.product(C.int(t), C.int(nt), C.int(e), C.int(u), C.int(nk), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(cols),
			(*C.float)(unsafe.Pointer(&x[0])), (*C.int)(unsafe.Pointer(&xi[0])), C.int(n), C.int(t0), (*C.float)(unsafe.Pointer(&out[t0])))
	}
	return out[:n]
}

// RouteMax is the most experts the route kernel takes; GroupTile the pairs
// of one tile of the batched expert products.
func RouteMax() int { return int(C.route_max()) }

// GroupTile is the most pairs one tile of an expert's rows holds.
func GroupTile() int { return int(C.group_tile()) }

// RouteRow is the route kernel's choice for one row of router logits:
// gating is backend.Gating's value, mask and sbias may be nil. It returns
// the k ids in rank order and their weights.
func RouteRow(logits, mask, sbias []float32, gating, k int, norm bool, scale float32) ([]int32, []float32) {
	ne := len(logits)
	v, s := append([]float32(nil), logits...), make([]float32, ne)
	ids, w := make([]int32, k), make([]float32, k)
	fp := func(x []float32) *C.float {
		if x == nil {
			return nil
		}
		return (*C.float)(unsafe.Pointer(&x[0]))
	}
	nb := 0
	if norm {
		nb = 1
	}
	C.route(fp(v), fp(s), C.int(ne), fp(mask), fp(sbias), C.int(gating), C.int(k), C.int(nb), C.float(scale),
		(*C.int)(unsafe.Pointer(&ids[0])), fp(w))
	return ids, w
}

// GroupPairs is group_experts's sort of a batch's pair ids over ne
// experts: the pairs in expert order, and the tiles (expert, first index
// into order, pairs).
func GroupPairs(ids []int32, ne int) ([]int32, [][3]int32) {
	np := len(ids)
	cnt, order := make([]int32, ne), make([]int32, np)
	tiles := make([]int32, 1+3*((np+7)/8+min(ne, np)))
	C.group((*C.int)(unsafe.Pointer(&ids[0])), C.int(np), C.int(ne), (*C.int)(unsafe.Pointer(&cnt[0])),
		(*C.int)(unsafe.Pointer(&order[0])), (*C.int)(unsafe.Pointer(&tiles[0])))
	out := make([][3]int32, tiles[0])
	for t := range out {
		out[t] = [3]int32{tiles[1+3*t], tiles[2+3*t], tiles[3+3*t]}
	}
	return order, out
}

// SwiGLUOAI is the swiglu_oai_rows kernel's value for one gate and up value.
func SwiGLUOAI(g, u, alpha, limit float32) float32 {
	return float32(C.swiglu(C.float(g), C.float(u), C.float(alpha), C.float(limit)))
}

// Combine is the combine kernel's value at row r, column c, from y (rows
// of ldy values, k a row of the output) and the route's weights w.
func Combine(y []float32, ldy int, w []float32, k, r, c int) float32 {
	return float32(C.combine((*C.float)(unsafe.Pointer(&y[0])), C.int(ldy), (*C.float)(unsafe.Pointer(&w[0])), C.int(k), C.int(r), C.int(c)))
}

// RopeYaRN are the rope kernel's YaRN arguments (yarn on, ext, attn and
// the correction dimensions).
type RopeYaRN struct {
	On                      bool
	Ext, Attn, Corr0, Corr1 float32
}

// RopeCS is the rope kernel's cos and sin of pair i at position pos.
func RopeCS(i, pos int, base float32, dim int, fdiv, mscale, posScale float32, y RopeYaRN) (float32, float32) {
	var c, s C.float
	on := 0
	if y.On {
		on = 1
	}
	C.rope(C.int(i), C.int(pos), C.float(base), C.int(dim), C.float(fdiv), C.float(mscale), C.float(posScale), C.int(on),
		C.float(y.Ext), C.float(y.Attn), C.float(y.Corr0), C.float(y.Corr1), &c, &s)
	return float32(c), float32(s)
}

// AttMerge is the attention kernel's merge of its warps' online softmaxes
// (maxima wm, sums wl) with an optional sink logit: the maximum and the
// denominator.
func AttMerge(wm, wl []float32, sink *float32) (float32, float32) {
	var M, L C.float
	C.merge((*C.float)(unsafe.Pointer(&wm[0])), (*C.float)(unsafe.Pointer(&wl[0])), C.int(len(wm)), (*C.float)(unsafe.Pointer(sink)), &M, &L)
	return float32(M), float32(L)
}

// QuantAct8 is the quant_q8 kernel's quantisation of x (a whole number
// of blocks of 32): the int8 codes, and per block the scale d and the sum
// d·Σq.
func QuantAct8(x []float32) ([]int8, []float32, []float32) {
	n := len(x) &^ 31
	q, d, s := make([]int8, n), make([]float32, n/32), make([]float32, n/32)
	if n == 0 {
		return q, d, s
	}
	C.qact8((*C.float)(unsafe.Pointer(&x[0])), C.int(n), (*C.int8_t)(unsafe.Pointer(&q[0])), (*C.float)(unsafe.Pointer(&d[0])), (*C.float)(unsafe.Pointer(&s[0])))
	return q, d, s
}

// MVQLanes is the lanes of the mvq_ kernels that share a piece of a row
// of type t, MVQWidth the piece's weights.
func MVQLanes(t tensor.Type) int { return int(C.mvq_p(C.int(t))) }

// MVQWidth is the weights one float term of the mvq_ kernels covers.
func MVQWidth(t tensor.Type) int { return int(C.mvq_w(C.int(t))) }

// Piece is one piece of an mvq_ product: its integer sums, added over
// its lanes, and the float terms its first lane adds from them.
type Piece struct {
	A, B      int32
	Acc, AccM float32
}

// Pieces runs the mvq_ lane arithmetic over every piece of a row of type
// t against activations quantised by QuantAct8.
func Pieces(t tensor.Type, row []byte, cols int, xq []int8, xd, xs []float32) []Piece {
	out := make([]Piece, cols/MVQWidth(t))
	for p := range out {
		var a, b C.int
		var acc, accm C.float
		C.piece(C.int(t), (*C.uint8_t)(unsafe.Pointer(&row[0])), (*C.int8_t)(unsafe.Pointer(&xq[0])), (*C.float)(unsafe.Pointer(&xd[0])),
			(*C.float)(unsafe.Pointer(&xs[0])), C.int(p), &a, &b, &acc, &accm)
		out[p] = Piece{int32(a), int32(b), float32(acc), float32(accm)}
	}
	return out
}

// RowProductQ8 is what the mvq_ kernels write for one row (beta 0) with
// s warps sharing the row and u pieces a lane a step, the warps emulated
// lane by lane in the kernel's order, and how many times each piece was
// taken.
func RowProductQ8(t tensor.Type, row []byte, cols int, xq []int8, xd, xs []float32, s, u int) (float32, []int32) {
	visits := make([]int32, cols/MVQWidth(t))
	y := C.rowq(C.int(t), C.int(s), C.int(u), (*C.uint8_t)(unsafe.Pointer(&row[0])), C.int(cols), (*C.int8_t)(unsafe.Pointer(&xq[0])),
		(*C.float)(unsafe.Pointer(&xd[0])), (*C.float)(unsafe.Pointer(&xs[0])), (*C.int)(unsafe.Pointer(&visits[0])))
	return float32(y), visits
}

// BlockBytes and BlockLen are the kernels' idea of t's block, which must be
// the engine's.
func BlockBytes(t tensor.Type) int { return int(C.block_bytes(C.int(t))) }

// BlockLen is the number of weights of one block of t in the kernels.
func BlockLen(t tensor.Type) int { return int(C.block_len(C.int(t))) }
