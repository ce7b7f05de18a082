package cuda

import (
	"fmt"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// The attention kernels' shapes, as kernels/attention.cuh defines them.
const (
	attThreads  = 128 // ATT_THREADS: every attention block
	attGMax     = 8   // ATT_GMAX: query heads a split block serves
	attTS       = 64  // ATT_TS: the most (row, head) slots a prefill block serves
	attMinBlock = 256 // ATT_MIN_BLOCKS: the prefill grid below which blocks take fewer rows
	attDecRows  = 4   // ATT_DEC_ROWS: the most rows Attend splits over the keys
	attChunk    = 128 // ATT_CHUNK: the fewest positions a split
	attMaxSplit = 512 // ATT_MAX_SPLIT: the most splits
)

// maxKVValues bounds the keys (as many values again) a cache holds. The
// kernels index a cache in 64 bits (store_kv, rope_store_kv, attn_*: the
// head's offset as a size_t), so it is only a guard against nonsense
// sizes: an 80-layer model with 8 KV heads of 128 values at 131072
// positions (80·8·128·131072 ≈ 1.07·10^10 keys, 21 GB a side in f16) fits,
// which the 2^33 of the CPU backend's cache refuses.
const maxKVValues = 1 << 36

// kvRows says what is wrong with an operation on rows pos0…pos0+n−1 of
// a cache whose buffers xs hold those rows, heads heads of the cache's
// width each, if anything: the kernels address the cache at those
// positions and the buffers' rows without bounds of their own, and a
// position past the capacity is another head's memory, or no memory at
// all (an illegal address ends the CUDA context), as is a row past a
// buffer.
func kvRows(c *kv, pos0, n, heads int, xs ...*buf) error {
	if pos0 < 0 || n < 0 || pos0+n > c.ctx {
		return fmt.Errorf("%d rows at position %d of a cache of %d", n, pos0, c.ctx)
	}
	for _, x := range xs {
		if x.rows < n || x.width < heads*c.a.HeadDim {
			return fmt.Errorf("a buffer of %d rows of %d values for %d rows of %d heads of %d", x.rows, x.width, n, heads, c.a.HeadDim)
		}
	}
	return nil
}

// attnKernels are attention.cu's kernels and the f16 forms of the cache
// stores (ops.cu), indexed by the cache's element where there are two:
// 0 float32, 1 binary16.
type attnKernels struct {
	split, tile              [2]cu.Function
	reduce                   cu.Function
	storeKV16, ropeStoreKV16 cu.Function
}

// attnKernelNames are attnKernels' kernels, for KernelNames.
func attnKernelNames() []string {
	return []string{"attn_split_f32", "attn_split_f16", "attn_tile_f32", "attn_tile_f16", "attn_reduce",
		"store_kv_f16", "rope_store_kv_f16"}
}

// resolve finds the kernels with get (kernels.resolve's).
func (k *attnKernels) resolve(get func(dst *cu.Function, name string)) {
	get(&k.split[0], "attn_split_f32")
	get(&k.split[1], "attn_split_f16")
	get(&k.tile[0], "attn_tile_f32")
	get(&k.tile[1], "attn_tile_f16")
	get(&k.reduce, "attn_reduce")
	get(&k.storeKV16, "store_kv_f16")
	get(&k.ropeStoreKV16, "rope_store_kv_f16")
}

// kvElemBytes is the bytes a cached value takes on the device.
func kvElemBytes(t backend.KVType) int {
	if t == backend.KVF16 {
		return 2
	}
	return 4
}

// splitPlan is att_split_plan: a cache of ctx positions is split into
// nsplit runs of chunk positions. It depends on the capacity only, so a
// decode step launches the same grid at every length and its CUDA graph
// stays valid; the splits past a row's keys exit at once.
func splitPlan(ctx int) (chunk, nsplit int) {
	chunk = attChunk
	if (ctx+chunk-1)/chunk > attMaxSplit {
		chunk = (ctx + attMaxSplit - 1) / attMaxSplit
	}
	return chunk, (ctx + chunk - 1) / chunk
}

// partFloats is the split attention's scratch for a cache: a record of
// the head's width + 2 floats per (row, query head, split).
func partFloats(ctx int, a backend.Attention) int {
	_, ns := splitPlan(ctx)
	return attDecRows * a.Heads * ns * (a.HeadDim + 2)
}

// growPart grows the backend's split scratch to a cache's need: by NewKV
// once per cache, and by attend once for a cache made on another backend
// (then possibly inside a step, which then launches differently from the
// one before, as when any scratch grows). The old scratch stays owned (a
// recorded graph may name it) and goes with Close.
func (b *Backend) growPart(ctx int, a backend.Attention) error {
	need := partFloats(ctx, a)
	if need <= b.npart {
		return nil
	}
	p, err := b.alloc(4 * need)
	if err != nil {
		return fmt.Errorf("the attention's scratch: %w", err)
	}
	b.part, b.npart = p, need
	return nil
}

// attend launches the attention of n rows (Attend's arguments resolved):
// for up to attDecRows rows, attn_split over the cache's capacity and
// attn_reduce; for more, attn_tile on tileGrid's grid. posp, when set, is the position in
// device memory (pos0 is then 0).
func (b *Backend) attend(c *kv, out, q *buf, layer, pos0, n int, scale float32, o backend.AttendOptions, sinks, posp cu.DevicePtr) {
	e := 0
	if c.a.KV == backend.KVF16 {
		e = 1
	}
	heads, kvh, hd := c.a.Heads, c.a.KVHeads, c.a.HeadDim
	if n <= attDecRows && partFloats(c.ctx, c.a) > b.npart && !b.noPart {
		// A cache made on another backend of the device: a Batcher's
		// carrier is a Share of its States' backends and makes no cache
		// of its own, and without the scratch every decode step would
		// walk the whole cache in attn_tile, one block a head. Grown once
		// (a step that grows it launches differently from the one before,
		// so no graph is made of it). When the memory is not there the
		// tiles serve, as they can, and the allocation is not retried at
		// every layer of every step.
		if b.growPart(c.ctx, c.a) != nil {
			b.noPart = true
		}
	}
	if n <= attDecRows && partFloats(c.ctx, c.a) <= b.npart {
		chunk, ns := splitPlan(c.ctx)
		ngrp := (heads/kvh + attGMax - 1) / attGMax
		b.args.Reset().Ptr(b.part).Ptr(q.p).I32(int32(q.width)).Ptr(c.k).Ptr(c.v).I32(int32(layer)).
			I32(int32(heads)).I32(int32(kvh)).I32(int32(c.ctx)).I32(int32(hd)).I32(int32(pos0)).F32(scale).
			F32(o.SoftCap).I32(int32(o.Window)).I32(int32(chunk)).I32(int32(ns)).Ptr(posp)
		b.launch([2]string{"attn_split_f32", "attn_split_f16"}[e], b.g.k.att.split[e],
			[3]uint32{uint32(kvh * ngrp), uint32(ns), uint32(n)}, [3]uint32{attThreads, 1, 1})
		b.args.Reset().Ptr(out.p).I32(int32(out.width)).Ptr(b.part).I32(int32(heads)).I32(int32(hd)).
			I32(int32(ns)).I32(int32(chunk)).I32(int32(pos0)).I32(int32(o.Window)).Ptr(sinks).Ptr(posp).I32(int32(c.ctx))
		b.launch("attn_reduce", b.g.k.att.reduce, [3]uint32{uint32(heads), uint32(n), 1}, [3]uint32{attThreads, 1, 1})
		return
	}
	gx, rpb := tileGrid(hd, heads, kvh, n)
	b.args.Reset().Ptr(out.p).I32(int32(out.width)).Ptr(q.p).I32(int32(q.width)).Ptr(c.k).Ptr(c.v).
		I32(int32(layer)).I32(int32(heads)).I32(int32(kvh)).I32(int32(c.ctx)).I32(int32(hd)).I32(int32(pos0)).
		F32(scale).F32(o.SoftCap).I32(int32(o.Window)).Ptr(sinks).Ptr(posp).I32(int32(n)).I32(int32(rpb))
	b.launch([2]string{"attn_tile_f32", "attn_tile_f16"}[e], b.g.k.att.tile[e],
		[3]uint32{uint32(gx), blocks(n, rpb), 1}, [3]uint32{attThreads, 1, 1})
}

// tileGrid is attn_tile's grid for n rows (att_tile_plan and
// att_tile_rows): gx blocks a row of blocks, each KV head's group of
// query heads in ⌈G/S⌉ sub-groups of hb heads, S = 64, 32 or 16 (row,
// head) slots a block as the width is up to 64, 128 or 256; rpb rows a
// block, the most that fit S slots, halved while the grid is under
// attMinBlock blocks and a block keeps 16 slots.
func tileGrid(hd, heads, kvh, n int) (gx, rpb int) {
	lnd := 1
	for 32<<lnd < hd {
		lnd++
	}
	S, G := attThreads>>lnd, heads/kvh
	ngrp := (G + S - 1) / S
	hb := (G + ngrp - 1) / ngrp
	rpb = S / hb
	for rpb > 1 && rpb/2*hb >= 16 && kvh*ngrp*((n+rpb-1)/rpb) < attMinBlock {
		rpb /= 2
	}
	return kvh * ngrp, rpb
}

// readKV16 is ReadKV of a binary16 cache: each head's row copied and
// widened exactly (tensor.DecodeF16), as the CPU's ReadKV decodes its own.
// The rows pass through the backend's kv16 scratch, grown once: ReadKV
// runs inside steps (the eviction's masking, hooks), which allocate
// nothing.
func (b *Backend) readKV16(c *kv, layer, pos int, k, v []float32) {
	HD := c.a.HeadDim
	if len(b.kv16) < HD {
		b.kv16 = make([]uint16, HD)
	}
	h := b.kv16[:HD]
	read := func(src cu.DevicePtr, dst []float32) bool {
		if err := b.g.d.DtoH(unsafe.Pointer(&h[0]), src, uint64(2*HD)); err != nil {
			b.fail("reading the KV cache", err)
			return false
		}
		tensor.DecodeF16(dst, h)
		return true
	}
	for g := range c.a.KVHeads {
		off := cu.DevicePtr(((layer*c.a.KVHeads+g)*c.ctx + pos) * HD * 2)
		if !read(c.k+off, k[g*HD:(g+1)*HD]) || !read(c.v+off, v[g*HD:(g+1)*HD]) {
			return
		}
	}
}
