// ops.cuh — the arithmetic of the operations other than the products where
// it decides what a model computes (RoPE's angles, the attention sinks'
// share of the softmax, the routing of a mixture of experts, gpt-oss's
// SwiGLU, the experts' weighted sum), written once for two compilers as
// quant.cuh is: nvcc builds it into ops.cu and experts.cu, and the host C
// compiler into engine/backend/cuda/internal/hostq, whose Go tests check it
// against float64 references without a GPU. Include it after quant.cuh
// (QFN, qmul).
#ifndef ISAGI_OPS_CUH
#define ISAGI_OPS_CUH

#ifndef __CUDACC__
#include <math.h>
#endif

// ---- RoPE ----

// rope_cs is the rotation of pair i (0…dim/2−1) at position pos, as
// engine/backend's Rope says: the angle pos·base^(−2i/dim)/fdiv in double
// (as the CPU's tables), times posScale (0: 1), and cos and sin times
// mscale (0: 1). With yarn, the angle is YaRN's mix of the interpolated
// (posScale·θ) and the extrapolated (θ) angle by the ramp over the
// correction dimensions corr0…corr1, scaled by ext, and the magnitude is
// attn·(1 + 0.1·ln(1/posScale)) when ext ≠ 0, else attn (ggml's rope_yarn;
// mscale is then not applied).
QFN void rope_cs(int i, int pos, float base, int dim, float fdiv, float mscale, float posScale, int yarn, float ext,
                 float attn, float corr0, float corr1, float *c, float *s) {
	double theta, m = 1.0;
	double ps = posScale != 0.f ? (double)posScale : 1.0;
	if (!yarn) {
		double p = (double)pos * ps;
		theta = p * pow((double)base, -2.0 * i / (double)dim) / (double)fdiv;
		if (mscale != 0.f) m = mscale;
	} else {
		double te = (double)pos * pow((double)base, -2.0 * i / (double)dim) / (double)fdiv;
		theta = ps * te;
		m = attn;
		if (ext != 0.f) {
			double y = ((double)i - corr0) / fmax(0.001, (double)corr1 - corr0);
			double mix = (1.0 - fmin(1.0, fmax(0.0, y))) * ext;
			theta = theta * (1.0 - mix) + te * mix;
			m *= 1.0 + 0.1 * log(1.0 / ps);
		}
	}
	double sn, cs;
#ifdef __CUDA_ARCH__
	sincos(theta, &sn, &cs);
#else
	sn = sin(theta);
	cs = cos(theta);
#endif
	*c = (float)(cs * m);
	*s = (float)(sn * m);
}

// ---- attention ----

// att_merge merges nw partial online softmaxes (each a running maximum wm
// and a sum wl of e^{s−wm}; wm = −∞ for one that saw no key) into the
// maximum *M and the denominator *L, with, when sink is not null, the
// head's sink logit as one more column of no value (gpt-oss's attention
// sinks, ggml_soft_max_add_sinks): it raises the maximum and adds e^{sink−M}
// to the denominator only.
QFN void att_merge(const float *wm, const float *wl, int nw, const float *sink, float *M, float *L) {
	float m = -INFINITY;
	for (int w = 0; w < nw; w++) m = fmaxf(m, wm[w]);
	if (sink) m = fmaxf(m, *sink);
	float l = 0.f;
	for (int w = 0; w < nw; w++)
		if (wm[w] != -INFINITY) l += wl[w] * expf(wm[w] - m);
	if (sink) l += expf(*sink - m);
	*M = m;
	*L = l;
}

// ---- mixture of experts ----

// Gating codes are engine/backend's Gating values.
enum { GATE_SOFTMAX = 0, GATE_SOFTMAX_WEIGHT = 1, GATE_SIGMOID = 2 };

// ROUTE_MAX is the most experts a router may have (route's shared memory).
#define ROUTE_MAX 1024
// GROUP_TILE is the pairs one tile of an expert's rows holds: the NT of
// the batched expert product (mmid_, experts.cu).
#define GROUP_TILE 8

// softmax_row is ggml's CPU softmax of n values in place: the maximum,
// e^{v−max} in float summed in double, then every value times the float
// of 1/sum.
QFN void softmax_row(float *v, int n) {
	float m = -INFINITY;
	for (int i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
	double sum = 0;
	for (int i = 0; i < n; i++) {
		float e = expf(v[i] - m);
		sum += e;
		v[i] = e;
	}
	float is = (float)(1.0 / sum);
	for (int i = 0; i < n; i++) v[i] = v[i] * is;
}

// route_before says whether expert ia with selection value a ranks before
// expert ib with b: the larger value first, a number before NaN, the
// lower index on a tie — a total order, so that top-k is one answer
// whatever order the values are visited in.
QFN int route_before(float a, int ia, float b, int ib) {
	int an = a != a, bn = b != b;
	if (an != bn) return bn;
	if (!an && a != b) return a > b;
	return ia < ib;
}

// route_row chooses k of the ne experts of one row from its router logits
// v (modified: it ends as the gate's probabilities), as engine/backend's
// RouteOptions say: mask (or null) added to the logits first; p =
// softmax(v) (GATE_SOFTMAX), σ(v) (GATE_SIGMOID) or v (GATE_SOFTMAX_WEIGHT);
// the k largest p + sbias (sbias null: p) chosen, into ids in rank order;
// their weights p, or the softmax of their p over the k (GATE_SOFTMAX_WEIGHT),
// divided by their sum (at least 6.103515625e-5, f16's smallest normal, as
// llama.cpp clamps it) when norm, times scale unless it is 0 or 1. s is
// scratch of ne floats. k ≤ ne.
QFN void route_row(float *v, float *s, int ne, const float *mask, const float *sbias, int gating, int k, int norm,
                   float scale, int *ids, float *w) {
	if (mask)
		for (int e = 0; e < ne; e++) v[e] += mask[e];
	if (gating == GATE_SOFTMAX) {
		softmax_row(v, ne);
	} else if (gating == GATE_SIGMOID) {
		for (int e = 0; e < ne; e++) v[e] = 1.f / (1.f + expf(-v[e]));
	}
	for (int e = 0; e < ne; e++) s[e] = sbias ? v[e] + sbias[e] : v[e];
	// Each choice is the best of the experts ranked after the previous
	// one: k passes over the row, with no marks to clear.
	for (int j = 0; j < k; j++) {
		int best = -1, prev = j > 0 ? ids[j - 1] : -1;
		for (int e = 0; e < ne; e++) {
			if (prev >= 0 && !route_before(s[prev], prev, s[e], e)) continue;
			if (best < 0 || route_before(s[e], e, s[best], best)) best = e;
		}
		ids[j] = best;
		w[j] = v[best];
	}
	if (gating == GATE_SOFTMAX_WEIGHT) softmax_row(w, k);
	if (norm) {
		double sum = 0;
		for (int j = 0; j < k; j++) sum += w[j];
		float fs = (float)sum;
		if (!(fs >= 6.103515625e-5f)) fs = 6.103515625e-5f;
		for (int j = 0; j < k; j++) w[j] = w[j] / fs;
	}
	if (scale != 0.f && scale != 1.f)
		for (int j = 0; j < k; j++) w[j] = w[j] * scale;
}

// group_pairs sorts the np (row, slot) pairs of a batch by the expert ids
// chose for them (a stable counting sort: order holds the pair indices,
// each expert's in pair order) and cuts each expert's run into tiles of at
// most GROUP_TILE pairs: tiles[0] is their count and tile t is tiles[1+3t]
// (expert), tiles[2+3t] (its first index into order) and tiles[3+3t] (its
// pairs). The batched expert product then decodes each expert's weights
// once per tile. cnt is scratch of ne ints; every id is in 0…ne−1. There
// are at most ⌈np/GROUP_TILE⌉ + min(ne, np) tiles.
QFN void group_pairs(const int *ids, int np, int ne, int *cnt, int *order, int *tiles) {
	for (int e = 0; e < ne; e++) cnt[e] = 0;
	for (int p = 0; p < np; p++) cnt[ids[p]]++;
	int at = 0;
	for (int e = 0; e < ne; e++) {
		int c = cnt[e];
		cnt[e] = at;
		at += c;
	}
	for (int p = 0; p < np; p++) order[cnt[ids[p]]++] = p;
	int nt = 0, start = 0;
	for (int e = 0; e < ne; e++) {
		int end = cnt[e];
		for (int f = start; f < end; f += GROUP_TILE) {
			tiles[1 + 3 * nt] = e;
			tiles[2 + 3 * nt] = f;
			tiles[3 + 3 * nt] = end - f < GROUP_TILE ? end - f : GROUP_TILE;
			nt++;
		}
		start = end;
	}
	tiles[0] = nt;
}

// swiglu_oai is gpt-oss's clamped SwiGLU of one gate value g and up value
// u (ggml_swiglu_oai): x = min(g, limit), y = clamp(u, −limit, limit),
// x·σ(alpha·x)·(y + 1), with std::min's and std::clamp's NaN behaviour.
QFN float swiglu_oai(float g, float u, float alpha, float limit) {
	float x = limit < g ? limit : g;
	float y = u < -limit ? -limit : (limit < u ? limit : u);
	float glu = x / (1.f + expf(alpha * (-x)));
	return glu * (y + 1.f);
}

// combine_at is output column c of row r of an expert block: Σ_j w_rj ·
// y[r·k+j][c], each product rounded before the sum and the sum in slot
// order, as llama.cpp adds the weighted experts one view at a time.
QFN float combine_at(const float *y, int ldy, const float *w, int k, int r, int c) {
	const float *wr = w + (size_t)r * k;
	const float *yr = y + (size_t)r * k * ldy + c;
	float s = qmul(wr[0], yr[0]);
	for (int j = 1; j < k; j++) s = s + qmul(wr[j], yr[(size_t)j * ldy]);
	return s;
}

#endif
