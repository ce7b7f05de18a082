//go:build cgo

package hostq

/*
#cgo CFLAGS: -O1
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include <string.h>
#include "iqtables.h" // first, as in hostq.go, so that quant.h's own include of it is skipped
#include "quant.h"
#include "ops.h"
#include "attention.h" // a link to kernels/attention.cuh, here so that the build cache sees its changes

// The emulations run a kernel's blocks one after another and, inside a
// block, each phase (the code between two barriers) for every thread in
// turn: forwards, or backwards when rev is set, so that a test can show
// that no thread of a phase reads what another writes in it. Shared memory
// starts as NaN in every block: a read of what no thread wrote shows.

#define FOR_T for (int i_ = 0; i_ < ATT_THREADS; i_++)
#define T_ (rev ? ATT_THREADS - 1 - i_ : i_)

static void *nan_block(size_t n) {
	void *p = malloc(n);
	memset(p, 0xff, n);
	return p;
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

// emu_split is attn_split over grid (kvh·ngrp, nsplit, n), cache layer 0.
static void emu_split(float *part, const float *q, int ldq, const void *kc, const void *vc, int heads, int kvh, int ctx,
                      int hd, int pos0, float scale, float softcap, int window, int chunk, int nsplit, int n, int f16,
                      int rev) {
	att_dec_sh *sh = nan_block(sizeof *sh);
	float(*acc)[ATT_DEC_ACC] = malloc(ATT_THREADS * sizeof *acc);
	int G = heads / kvh, ngrp = (G + ATT_GMAX - 1) / ATT_GMAX;
	size_t es = f16 ? 2 : 4;
	for (int r = 0; r < n; r++)
		for (int s = 0; s < nsplit; s++)
			for (int bx = 0; bx < kvh * ngrp; bx++) {
				int g = bx / ngrp, sub = bx % ngrp, p = att_pos(pos0 + r, ctx);
				int j0 = imax(s * chunk, att_first(p, window)), j1 = imin((s + 1) * chunk, p + 1);
				if (j0 >= j1) continue;
				int h0 = g * G + sub * ATT_GMAX;
				memset(sh, 0xff, sizeof *sh);
				att_dec_args a;
				a.q = q + (size_t)r * ldq + (size_t)h0 * hd;
				size_t head = (size_t)g * ctx * hd;
				a.kc = (const char *)kc + head * es;
				a.vc = (const char *)vc + head * es;
				a.nh = imin(ATT_GMAX, G - sub * ATT_GMAX);
				a.hd = hd;
				a.j0 = j0;
				a.j1 = j1;
				a.f16 = f16;
				a.scale = scale;
				a.softcap = softcap;
				for (int k0 = j0; k0 < j1; k0 += ATT_TKD) {
					int tk = imin(ATT_TKD, j1 - k0);
					FOR_T {
						if (k0 == j0) att_dec_init(sh, T_, &a, acc[T_]);
						att_load_tile(sh->kv, T_, a.kc, k0, ATT_TKD, tk, hd, f16);
					}
					FOR_T att_dec_scores(sh, T_, &a, k0);
					FOR_T {
						att_dec_softmax(sh, T_, &a);
						att_load_tile(sh->kv, T_, a.vc, k0, ATT_TKD, tk, hd, f16);
					}
					FOR_T att_dec_pv(sh, T_, &a, tk, acc[T_]);
				}
				int rs = att_dec_rec(hd);
				float *rec = part + ((size_t)(r * heads + h0) * nsplit + s) * rs;
				FOR_T att_dec_store(sh, T_, &a, acc[T_], rec, (size_t)nsplit * rs);
			}
	free(acc);
	free(sh);
}

// emu_reduce is attn_reduce over grid (heads, n).
static void emu_reduce(float *out, int ldo, const float *part, int heads, int hd, int nsplit, int chunk, int pos0,
                       int window, const float *sinks, int ctx, int n, int rev) {
	att_red_sh *sh = nan_block(sizeof *sh);
	for (int r = 0; r < n; r++)
		for (int h = 0; h < heads; h++) {
			memset(sh, 0xff, sizeof *sh);
			int s0, s1;
			att_split_range(att_pos(pos0 + r, ctx), window, chunk, nsplit, &s0, &s1);
			int ns = s1 - s0 + 1, rs = att_dec_rec(hd);
			const float *rec = part + ((size_t)(r * heads + h) * nsplit + s0) * rs;
			FOR_T att_red_load(sh, T_, rec, rs, ns);
			FOR_T att_red_merge(sh, T_, ns, sinks ? sinks + h : (const float *)0);
			FOR_T att_red_factors(sh, T_, ns);
			FOR_T att_red_out(sh, T_, rec, rs, ns, hd, out + (size_t)r * ldo + (size_t)h * hd);
		}
	free(sh);
}

// emu_tile is attn_tile over grid (kvh·ngrp, ⌈n/rpb⌉), cache layer 0:
// each phase thread by thread, but the softmax warp by warp (its lanes in
// lock step through the shuffles' butterflies, att_tile_softmax_warp).
// nobar, for a test, drops the barrier after the weighted values: a tile's
// keys are staged in the phase that still reads the tile before's values.
static void emu_tile(float *out, int ldo, const float *q, int ldq, const void *kc, const void *vc, int heads, int kvh,
                     int ctx, int hd, int pos0, float scale, float softcap, int window, const float *sinks, int n,
                     int rpb, int f16, int rev, int nobar) {
	att_tile_sh *sh = nan_block(sizeof *sh);
	float(*acc)[ATT_TACC] = malloc(ATT_THREADS * sizeof *acc);
	int ngrp, hb, rmax;
	att_tile_plan(hd, heads / kvh, &ngrp, &hb, &rmax);
	for (int by = 0; by * rpb < n; by++)
		for (int bx = 0; bx < kvh * ngrp; bx++) {
			memset(sh, 0xff, sizeof *sh);
			att_tile_args a;
			if (!att_tile_setup(&a, bx, by, out, ldo, q, ldq, kc, vc, 0, heads, kvh, ctx, hd, pos0, scale, softcap,
			                    window, sinks, n, rpb, f16))
				continue;
			int lnd = a.lnd, TK = att_tile_tk(lnd), j0, j1;
			att_tile_keys(&a, &j0, &j1);
			FOR_T att_tile_init(sh, T_, &a, acc[T_]);
			for (int k0 = j0; k0 < j1; k0 += TK) {
				int tk = imin(TK, j1 - k0);
				if (!nobar || k0 == j0) FOR_T att_tile_load(sh->kv, T_, &a, a.kc, k0, tk, lnd);
				FOR_T att_tile_scores(sh, T_, &a, k0, lnd);
				for (int w = 0; w < ATT_THREADS / 32; w++) att_tile_softmax_warp(sh, rev ? ATT_THREADS / 32 - 1 - w : w, &a, lnd);
				FOR_T att_tile_load(sh->kv, T_, &a, a.vc, k0, tk, lnd);
				FOR_T {
					att_tile_pv(sh, T_, &a, acc[T_], lnd);
					if (nobar && k0 + TK < j1) att_tile_load(sh->kv, T_, &a, a.kc, k0 + TK, imin(TK, j1 - k0 - TK), lnd);
				}
			}
			FOR_T att_tile_out(sh, T_, &a, acc[T_], lnd);
		}
	free(acc);
	free(sh);
}

// tile_grid is the grid attn_tile is launched on for n rows: att_tile_plan
// and att_tile_rows, as the backend computes them.
static void tile_grid(int hd, int heads, int kvh, int n, int *gx, int *rpb) {
	int ngrp, hb, rmax;
	att_tile_plan(hd, heads / kvh, &ngrp, &hb, &rmax);
	*gx = kvh * ngrp;
	*rpb = att_tile_rows(n, kvh, ngrp, hb, rmax);
}

static void split_plan(int ctx, int *chunk, int *ns) { att_split_plan(ctx, chunk, ns); }
static void split_range(int p, int window, int chunk, int nsplit, int *s0, int *s1) {
	att_split_range(p, window, chunk, nsplit, s0, s1);
}
static uint16_t to_f16(float x) { return f2h(x); }
static int dec_rows(void) { return ATT_DEC_ROWS; }
static int max_head(void) { return ATT_HD; }
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// Attn is one attention call for the emulated kernels: Q holds N rows of
// Heads·HeadDim values, the cache one layer laid out [KVHeads][Ctx][HeadDim]
// as float32 (K, V) or as binary16 bits (KH, VH, when F16); row i is at
// position Pos0+i. Sinks is nil or one logit per head.
type Attn struct {
	Heads, KVHeads, HeadDim, Ctx int
	Pos0, N                      int
	Scale, SoftCap               float32
	Window                       int
	Sinks                        []float32
	F16                          bool
	K, V                         []float32
	KH, VH                       []uint16
	Q                            []float32
	// RowsPerBlock, when set, is the rows an attn_tile block takes in
	// place of att_tile_rows' (at most the plan's most; a test's other
	// grids).
	RowsPerBlock int
	// noBarrier plants a fault in the emulated attn_tile: a barrier
	// dropped (emu_tile's nobar).
	noBarrier bool
}

// check says what is wrong with a, if anything.
func (a *Attn) check() error {
	w := a.KVHeads * a.Ctx * a.HeadDim
	switch {
	case a.Heads <= 0 || a.KVHeads <= 0 || a.Heads%a.KVHeads != 0 || a.HeadDim <= 0 || a.HeadDim > int(C.max_head()):
		return fmt.Errorf("heads %d over %d, width %d", a.Heads, a.KVHeads, a.HeadDim)
	case a.N <= 0 || a.Pos0 < 0 || a.Pos0+a.N > a.Ctx || len(a.Q) != a.N*a.Heads*a.HeadDim:
		return fmt.Errorf("%d rows at %d in a cache of %d", a.N, a.Pos0, a.Ctx)
	case a.F16 && (len(a.KH) != w || len(a.VH) != w), !a.F16 && (len(a.K) != w || len(a.V) != w):
		return fmt.Errorf("a cache of the wrong size")
	case a.Sinks != nil && len(a.Sinks) != a.Heads:
		return fmt.Errorf("%d sinks for %d heads", len(a.Sinks), a.Heads)
	}
	return nil
}

// cache returns the cache's pointers and its element flag.
func (a *Attn) cache() (unsafe.Pointer, unsafe.Pointer, C.int) {
	if a.F16 {
		return unsafe.Pointer(&a.KH[0]), unsafe.Pointer(&a.VH[0]), 1
	}
	return unsafe.Pointer(&a.K[0]), unsafe.Pointer(&a.V[0]), 0
}

func (a *Attn) sinks() *C.float {
	if a.Sinks == nil {
		return nil
	}
	return (*C.float)(&a.Sinks[0])
}

func cb(v bool) C.int {
	if v {
		return 1
	}
	return 0
}

// AttnSplit runs attn_split and attn_reduce as Backend.Attend launches them
// (the split plan of the cache's capacity; up to AttnDecRows rows), threads
// in reverse order in each phase when rev is set.
func AttnSplit(a Attn, rev bool) ([]float32, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if a.N > int(C.dec_rows()) {
		return nil, fmt.Errorf("%d rows; the splits take %d", a.N, int(C.dec_rows()))
	}
	return runSplit(a, rev), nil
}

// runSplit is AttnSplit without the check: a test's positions may pass
// the cache (whose slices may then hold guard values past it).
func runSplit(a Attn, rev bool) []float32 {
	chunk, ns := AttnSplitPlan(a.Ctx)
	part := make([]float32, a.N*a.Heads*ns*(a.HeadDim+2))
	for i := range part {
		part[i] = float32(math.NaN()) // a record the reduction reads but no split wrote shows
	}
	out := make([]float32, a.N*a.Heads*a.HeadDim)
	kc, vc, f16 := a.cache()
	ld := C.int(a.Heads * a.HeadDim)
	C.emu_split((*C.float)(&part[0]), (*C.float)(&a.Q[0]), ld, kc, vc, C.int(a.Heads), C.int(a.KVHeads), C.int(a.Ctx),
		C.int(a.HeadDim), C.int(a.Pos0), C.float(a.Scale), C.float(a.SoftCap), C.int(a.Window), C.int(chunk), C.int(ns),
		C.int(a.N), f16, cb(rev))
	C.emu_reduce((*C.float)(&out[0]), ld, (*C.float)(&part[0]), C.int(a.Heads), C.int(a.HeadDim), C.int(ns), C.int(chunk),
		C.int(a.Pos0), C.int(a.Window), a.sinks(), C.int(a.Ctx), C.int(a.N), cb(rev))
	return out
}

// AttnTile runs attn_tile, threads in reverse order in each phase when rev
// is set.
func AttnTile(a Attn, rev bool) ([]float32, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return runTile(a, rev), nil
}

// runTile is AttnTile without the check, as runSplit.
func runTile(a Attn, rev bool) []float32 {
	out := make([]float32, a.N*a.Heads*a.HeadDim)
	kc, vc, f16 := a.cache()
	ld := C.int(a.Heads * a.HeadDim)
	rpb := a.RowsPerBlock
	if rpb == 0 {
		_, rpb = AttnTileGrid(a.HeadDim, a.Heads, a.KVHeads, a.N)
	}
	C.emu_tile((*C.float)(&out[0]), ld, (*C.float)(&a.Q[0]), ld, kc, vc, C.int(a.Heads), C.int(a.KVHeads), C.int(a.Ctx),
		C.int(a.HeadDim), C.int(a.Pos0), C.float(a.Scale), C.float(a.SoftCap), C.int(a.Window), a.sinks(), C.int(a.N),
		C.int(rpb), f16, cb(rev), cb(a.noBarrier))
	return out
}

// AttnTileGrid is the grid the backend launches attn_tile on for n rows:
// gx blocks a row of blocks (KV heads × sub-groups), rpb rows a block
// (att_tile_plan, att_tile_rows).
func AttnTileGrid(hd, heads, kvh, n int) (gx, rpb int) {
	var x, r C.int
	C.tile_grid(C.int(hd), C.int(heads), C.int(kvh), C.int(n), &x, &r)
	return int(x), int(r)
}

// AttnSplitPlan is att_split_plan: chunk positions a split, ns splits.
func AttnSplitPlan(ctx int) (chunk, ns int) {
	var c, n C.int
	C.split_plan(C.int(ctx), &c, &n)
	return int(c), int(n)
}

// AttnSplitRange is att_split_range: the splits s0…s1 attn_reduce merges
// for a query at p.
func AttnSplitRange(p, window, chunk, nsplit int) (s0, s1 int) {
	var a, b C.int
	C.split_range(C.int(p), C.int(window), C.int(chunk), C.int(nsplit), &a, &b)
	return int(a), int(b)
}

// AttnDecRows is ATT_DEC_ROWS.
func AttnDecRows() int { return int(C.dec_rows()) }

// F2H is the kernels' rounding of a float to binary16 (f2h, host form).
func F2H(x float32) uint16 { return uint16(C.to_f16(C.float(x))) }
