package remote

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// ggml's numbering at protocol 5.1.0 (include/ggml.h of ggml d99724f2;
// GGML_OP_COUNT is 101 there). Only what the backend records.
const (
	opNone         = 0
	opAdd          = 2
	opMul          = 7
	opRMSNorm      = 25
	opMulMat       = 29
	opScale        = 32
	opCpy          = 34
	opGetRows      = 40
	opSetRows      = 42
	opRope         = 48
	opFlashAttnExt = 74
	opGLU          = 100

	gluGeGLU  = 1
	gluSwiGLU = 2

	ropeNeox = 2

	typeF32 = 0
	typeF16 = 1
	typeI8  = 24
	typeI32 = 26
	typeI64 = 27

	// flagCompute marks a node ggml must run: the CPU backend skips nodes
	// without it (ggml_graph_compute_thread).
	flagCompute = 16

	maxSrc     = 10
	tensorSize = 296 // sizeof(rpc_tensor), packed
)

// rt is one tensor of a graph, as rpc_tensor carries it. Sources are the
// tensors' ids (index+1; 0 is none).
type rt struct {
	typ      uint32
	buffer   uint64
	data     uint64
	ne, nb   [4]uint32
	op       uint32
	params   [16]int32
	src      [maxSrc]uint64
	viewSrc  uint64
	viewOffs uint64
	node     bool
}

// graph records one server's operations until the host needs a result,
// then sends them as one GRAPH_COMPUTE (or GRAPH_RECOMPUTE when it is the
// graph the server ran last). Nodes run in the order recorded, and each
// writes into memory the backend owns (an activation buffer, the KV
// cache, or this graph's scratch), so the order of the calls on the
// Backend is the order of the writes, as on the CPU.
//
// A graph owns two arenas on its server: inputs (token ids, positions,
// attention masks: staged on the host and uploaded in one SET_TENSOR
// before the graph) and scratch (intermediate results, such as the
// logits before they are read). Both are bump-allocated and reset at each
// send, so that a decode step lays them out the same way every token and
// its graph repeats byte for byte.
type graph struct {
	k *conn

	ts    []rt
	nodes []uint64
	uses  []int32

	in        []byte // staged inputs, uploaded at send
	inArena   arena
	scrArena  arena
	scrUsed   uint64
	msg       []byte
	positions map[[2]int]uint64   // (pos0, n) → input offset of the I32 positions
	rowIdx    map[[2]int]uint64   // (pos0, n) → input offset of the I64 row indices
	masks     map[[4]int]uint64   // (pos0, n, window, kvLen) → input offset of an F16 mask
	freqs     map[*float32]uint64 // RoPE's divisors by their slice → input offset
}

// arena is a buffer on the server.
type arena struct {
	handle, base, size uint64
}

func newGraph(k *conn) *graph {
	return &graph{k: k, positions: map[[2]int]uint64{}, rowIdx: map[[2]int]uint64{}, masks: map[[4]int]uint64{}, freqs: map[*float32]uint64{}}
}

// empty says whether nothing is recorded.
func (g *graph) empty() bool { return len(g.nodes) == 0 }

// reserve makes room for an operation's inputs and scratch before it
// records anything: when an arena is too small, what is recorded is sent
// first and the arena grows (its address changes, which the recorded
// tensors must not see).
func (g *graph) reserve(in, scr uint64) error {
	needIn := uint64(len(g.in)) + align64(in)
	needScr := g.scrUsed + align64(scr)
	if needIn <= g.inArena.size && needScr <= g.scrArena.size {
		return nil
	}
	if err := g.send(); err != nil {
		return err
	}
	if err := g.grow(&g.inArena, align64(in)); err != nil {
		return err
	}
	return g.grow(&g.scrArena, align64(scr))
}

// grow makes a at least need bytes (doubling, so that growth is rare).
func (g *graph) grow(a *arena, need uint64) error {
	if need <= a.size {
		return nil
	}
	size := max(need, 2*a.size, 64<<10)
	if a.handle != 0 {
		if err := g.k.free(a.handle); err != nil {
			return err
		}
		*a = arena{}
	}
	h, base, err := g.k.alloc(size)
	if err != nil {
		return err
	}
	*a = arena{handle: h, base: base, size: size}
	return nil
}

// release frees the arenas.
func (g *graph) release() {
	for _, a := range []*arena{&g.inArena, &g.scrArena} {
		if a.handle != 0 {
			_ = g.k.free(a.handle)
			*a = arena{}
		}
	}
}

func align64(n uint64) uint64 { return (n + 63) &^ 63 }

// input stages n bytes of input and returns their address on the server
// and the host bytes to fill. reserve must have made room.
func (g *graph) input(n uint64) (addr uint64, b []byte) {
	off := uint64(len(g.in))
	end := off + align64(n)
	if uint64(cap(g.in)) < end {
		g.in = append(make([]byte, 0, 2*end), g.in...)
	}
	g.in = g.in[:end]
	clear(g.in[off:end])
	return g.inArena.base + off, g.in[off : off+n]
}

// scratch returns the address of n bytes of this graph's scratch.
func (g *graph) scratch(n uint64) uint64 {
	off := g.scrUsed
	g.scrUsed += align64(n)
	return g.scrArena.base + off
}

// add appends a tensor and returns its id.
func (g *graph) add(t rt) uint64 {
	g.ts = append(g.ts, t)
	return uint64(len(g.ts))
}

// leaf is a tensor over existing memory: a view of a buffer, a weight.
func (g *graph) leaf(typ uint32, buffer, data uint64, ne, nb [4]uint32) uint64 {
	return g.add(rt{typ: typ, buffer: buffer, data: data, ne: ne, nb: nb})
}

// node records an operation writing an F32 result of shape ne (contiguous
// unless nb is given) at data, inside buffer.
func (g *graph) node(op uint32, buffer, data uint64, ne, nb [4]uint32, src ...uint64) uint64 {
	t := rt{typ: typeF32, buffer: buffer, data: data, ne: ne, nb: nb, op: op, node: true}
	copy(t.src[:], src)
	id := g.add(t)
	g.nodes = append(g.nodes, id)
	return id
}

// setF32 stores a float parameter.
func (g *graph) setF32(id uint64, i int, v float32) {
	g.ts[id-1].params[i] = int32(math.Float32bits(v))
}

// setI32 stores an integer parameter.
func (g *graph) setI32(id uint64, i int, v int32) { g.ts[id-1].params[i] = v }

// contiguous returns nb for a contiguous tensor of ne with elements of
// size es.
func contiguous(ne [4]uint32, es uint32) [4]uint32 {
	nb := [4]uint32{es}
	for i := 1; i < 4; i++ {
		nb[i] = nb[i-1] * ne[i-1]
	}
	return nb
}

// positionsFor stages the I32 positions pos0…pos0+n−1 (RoPE's), once per
// graph.
func (g *graph) positionsFor(pos0, n int) uint64 {
	key := [2]int{pos0, n}
	if a, ok := g.positions[key]; ok {
		return a
	}
	a, b := g.input(uint64(4 * n))
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(pos0+i)))
	}
	g.positions[key] = a
	return a
}

// rowsFor stages the I64 row indices pos0…pos0+n−1 (SET_ROWS's), once per
// graph.
func (g *graph) rowsFor(pos0, n int) uint64 {
	key := [2]int{pos0, n}
	if a, ok := g.rowIdx[key]; ok {
		return a
	}
	a, b := g.input(uint64(8 * n))
	for i := range n {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(pos0+i))
	}
	g.rowIdx[key] = a
	return a
}

// f16 of 0 and of −∞.
const (
	f16Zero   = 0x0000
	f16NegInf = 0xfc00
)

// maskFor stages the attention mask of n queries at pos0… over kvLen
// cached positions: 0 where a query sees a key (causal, and within window
// when window > 0), −∞ elsewhere (positions not written yet included).
func (g *graph) maskFor(pos0, n, window, kvLen int) uint64 {
	key := [4]int{pos0, n, window, kvLen}
	if a, ok := g.masks[key]; ok {
		return a
	}
	a, b := g.input(uint64(2 * n * kvLen))
	for i := range n {
		p := pos0 + i
		row := b[2*i*kvLen:]
		for j := range kvLen {
			v := uint16(f16NegInf)
			if j <= p && (window <= 0 || j > p-window) {
				v = f16Zero
			}
			binary.LittleEndian.PutUint16(row[2*j:], v)
		}
	}
	g.masks[key] = a
	return a
}

// send uploads the staged inputs and queues the graph (or its recompute)
// on the connection, without waiting: the next command that reads a reply
// flushes them. The caller holds the connection's lock.
func (g *graph) send() error {
	if len(g.nodes) == 0 {
		g.reset()
		return g.k.err
	}
	k := g.k
	if len(g.in) > 0 {
		if err := k.setRaw(g.inArena.handle, g.inArena.base, g.in); err != nil {
			return err
		}
	}
	g.serialize()
	var err error
	if bytes.Equal(g.msg, k.last) {
		err = k.send(cmdGraphRecompute, k.zero[:4])
		k.stats.Recomputes++
	} else {
		if err = g.checkOps(); err == nil {
			err = k.send(cmdGraphCompute, g.msg)
			k.last = append(k.last[:0], g.msg...)
			k.stats.Graphs++
		}
	}
	g.reset()
	return err
}

// opNames name the operations the graphs use, for messages.
var opNames = map[uint32]string{
	opAdd: "ADD", opMul: "MUL", opRMSNorm: "RMS_NORM", opMulMat: "MUL_MAT", opScale: "SCALE", opCpy: "CPY",
	opGetRows: "GET_ROWS", opSetRows: "SET_ROWS", opRope: "ROPE", opFlashAttnExt: "FLASH_ATTN_EXT", opGLU: "GLU",
}

// checkOps asks a server that can say (GET_DEVICE_SUPPORTS_OP, 7.0.1)
// whether it computes each kind of node of the serialized graph — an
// operation on sources of given types — the first time the kind is sent,
// so that a backend without a kernel (a GPU server lacking a quantisation)
// is one sentence naming the operation and the types, not a crash of the
// server mid-generation. The answers are kept per connection.
func (g *graph) checkOps() error {
	k := g.k
	if !k.d.supportsOp {
		return nil
	}
	le := binary.LittleEndian
	at := 4 + 4 + 8*len(g.nodes) + 4 // the first rpc_tensor in g.msg
	desc := func(id uint64) []byte { return g.msg[at+int(id-1)*tensorSize : at+int(id)*tensorSize] }
	for _, id := range g.nodes {
		t := &g.ts[id-1]
		key := uint64(t.op) | uint64(t.typ)<<8
		for j, s := range t.src[:3] {
			if s != 0 {
				key |= uint64(g.ts[s-1].typ+1) << (16 + 8*j)
			}
		}
		if ok, seen := k.ops[key]; seen {
			if !ok {
				return g.unsupported(t)
			}
			continue
		}
		req := k.opReq[:]
		clear(req)
		copy(req[4:], desc(id))
		for j, s := range t.src {
			if s != 0 {
				copy(req[4+tensorSize*(1+j):], desc(s))
			}
		}
		le.PutUint32(req[0:], 0)
		var out [1]byte
		if err := k.call(cmdSupportsOp, req, out[:]); err != nil {
			return err
		}
		if k.ops == nil {
			k.ops = map[uint64]bool{}
		}
		k.ops[key] = out[0] != 0
		if out[0] == 0 {
			return g.unsupported(t)
		}
	}
	return nil
}

// unsupported is the sentence for a node the server cannot compute.
func (g *graph) unsupported(t *rt) error {
	var types []string
	for _, s := range t.src {
		if s != 0 {
			types = append(types, tensor.Type(g.ts[s-1].typ).String())
		}
	}
	name := opNames[t.op]
	if name == "" {
		name = fmt.Sprintf("operation %d", t.op)
	}
	return fmt.Errorf("rpc server %s cannot compute %s on %s (its backend says it has no kernel for it): run the model on a server whose backend supports that type, or quantise it to another",
		g.k.addr, name, strings.Join(types, " × "))
}

// reset forgets what was recorded (the arenas stay).
func (g *graph) reset() {
	g.ts, g.nodes, g.in, g.scrUsed = g.ts[:0], g.nodes[:0], g.in[:0], 0
	clear(g.positions)
	clear(g.rowIdx)
	clear(g.masks)
	clear(g.freqs)
}

// serialize writes the graph as GRAPH_COMPUTE takes it:
// | device u32 | n_nodes u32 | node ids u64… | n_tensors u32 | rpc_tensor… |
func (g *graph) serialize() {
	n := 4 + 4 + 8*len(g.nodes) + 4 + tensorSize*len(g.ts)
	if cap(g.msg) < n {
		g.msg = make([]byte, n)
	}
	m := g.msg[:n]
	clear(m)
	le := binary.LittleEndian
	le.PutUint32(m[4:], uint32(len(g.nodes)))
	o := 8
	for _, id := range g.nodes {
		le.PutUint64(m[o:], id)
		o += 8
	}
	le.PutUint32(m[o:], uint32(len(g.ts)))
	o += 4
	// use_count: how many nodes read each tensor (ggml fuses a node into
	// the next only when nothing else reads it).
	if cap(g.uses) < len(g.ts) {
		g.uses = make([]int32, len(g.ts), 2*len(g.ts))
	}
	g.uses = g.uses[:len(g.ts)]
	clear(g.uses)
	for _, id := range g.nodes {
		for _, s := range g.ts[id-1].src {
			if s != 0 {
				g.uses[s-1]++
			}
		}
	}
	for i := range g.ts {
		putTensor(m[o:o+tensorSize], uint64(i+1), &g.ts[i], g.uses[i])
		o += tensorSize
	}
	g.msg = m
}

// putTensor writes one rpc_tensor (see ggml-rpc.cpp for the layout).
func putTensor(b []byte, id uint64, t *rt, uses int32) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], id)
	le.PutUint32(b[8:], t.typ)
	le.PutUint64(b[12:], t.buffer)
	for i := range 4 {
		le.PutUint32(b[20+4*i:], t.ne[i])
		le.PutUint32(b[36+4*i:], t.nb[i])
	}
	le.PutUint32(b[52:], t.op)
	for i, p := range t.params {
		le.PutUint32(b[56+4*i:], uint32(p))
	}
	if t.node {
		le.PutUint32(b[120:], flagCompute)
	}
	for i, s := range t.src {
		le.PutUint64(b[124+8*i:], s)
	}
	le.PutUint64(b[204:], t.viewSrc)
	le.PutUint64(b[212:], t.viewOffs)
	le.PutUint64(b[220:], t.data)
	// name (228…291) stays zero
	le.PutUint32(b[292:], uint32(uses))
}

// putRaw describes n bytes at data inside buffer handle as a
// one-dimensional I8 tensor, for SET_TENSOR and GET_TENSOR, into b.
func putRaw(b []byte, handle, data, n uint64) {
	ne := [4]uint32{uint32(n), 1, 1, 1}
	t := rt{typ: typeI8, buffer: handle, data: data, ne: ne, nb: contiguous(ne, 1)}
	putTensor(b, 1, &t, 0)
}
