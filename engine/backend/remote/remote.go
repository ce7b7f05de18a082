// Package remote is a compute backend (engine/backend) that runs the
// forward pass on llama.cpp's RPC servers: ggml's rpc-server, one per
// machine, each computing with ggml's own kernels on its CPU or GPU. A
// model too large for one machine is split by layers across several
// servers; the activations pass between them through this client.
//
// Backend operations are recorded as ggml graph nodes, not sent one by
// one: a server receives one graph per point where the host must see a
// result (the logits, the rows a hook reads), so decoding a token is one
// round trip per server, and a decode graph equal to the previous one
// runs again with GRAPH_RECOMPUTE. Weights are uploaded once per cluster
// (by hash, when the server keeps a cache), and the KV cache lives on the
// server that runs its layer.
//
// The protocol is ggml's proof of concept: unauthenticated and
// unencrypted. Use it on a network you trust (Insecure names the
// addresses that are not loopback, for the caller to warn about).
// docs/remote.md has the protocol facts, the measurements and the limits.
package remote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Options configure a cluster.
type Options struct {
	// Timeout bounds every network read and write. A reply waits for the
	// graph before it to compute, so it must cover a prompt batch on the
	// slowest server. 0 means 2 minutes.
	Timeout time.Duration
	// MicroBatch is the most prompt tokens one step runs (0: 512 on one
	// server, which the model caps at its own step, and DefaultMicroBatch
	// when the model is split over several). The servers of a split work
	// on a prompt at once, each on a different micro-batch, so a smaller
	// one fills and drains the pipeline sooner, at a round trip per
	// micro-batch and server.
	MicroBatch int
	// InTurn runs the servers of a split strictly one after the other:
	// before a server computes rows another reads, the reader finishes
	// what it has (one more round trip). The same graphs run in the same
	// order on each server, so the results are the same as pipelined; it
	// is the baseline for measurements and tests.
	InTurn bool
}

// DefaultMicroBatch is the prompt step of a split model: 64 tokens. Two
// servers of a 512-token prompt then work at once for 7 of the 9 steps
// of the pipeline (16/9 = 1.8× one server at best, against 1.33× with
// the model's own step of 256), while a step of 64 still multiplies each
// weight by a matrix of activations (ggml's kernels read a weight block
// once for the batch) and costs the servers one more round trip and one
// hidden-state transfer (64 × Dim floats) each: under a millisecond on a
// network, against the step's hundreds.
const DefaultMicroBatch = 64

// Cluster is a connection to one or more rpc-servers that together run
// one model: its layers are spread over them in proportion to the memory
// each reports free. Its Backends (NewBackend) share the weights bound on
// it. A Cluster is safe for concurrent use; each Backend is used by one
// goroutine at a time.
type Cluster struct {
	servers []*server
	opts    Options

	// io serialises the conversation with the servers: backends on several
	// goroutines share the connections (a server serves one client).
	io sync.Mutex

	mu     sync.Mutex
	cur    int // the server that binds the next weights (Place)
	closed bool
}

// server is one rpc-server.
type server struct {
	addr        string
	k           *conn
	align       uint64
	free, total uint64
	// uploaded and cached count the weight bytes sent to the server and
	// those it had already by hash (a server started with a cache
	// directory); upload is the time spent uploading.
	uploaded, cached uint64
	upload           time.Duration
}

// ServerInfo describes one server of a cluster, for the Hardware pane and
// isagi bench.
type ServerInfo struct {
	Addr string `json:"addr"`
	// Version is the ggml RPC protocol version the server speaks.
	Version string `json:"protocol"`
	Free    uint64 `json:"free_bytes"`
	Total   uint64 `json:"total_bytes"`
	// Uploaded and Cached are the weight bytes sent to the server and
	// those it already held by hash (started with a cache directory,
	// rpc-server -c); Upload the time the upload took.
	Uploaded    uint64        `json:"uploaded_bytes"`
	Cached      uint64        `json:"cached_bytes"`
	Upload      time.Duration `json:"upload_ns"`
	FirstLayer  int           `json:"first_layer"` // of the layers it runs, given Layers
	LayersCount int           `json:"layers"`
}

// ErrUnavailable wraps every reason a cluster cannot be used.
var ErrUnavailable = errors.New("rpc servers not usable")

// Dial connects to every address (host:port), checks each server's
// protocol version and reads its memory. A failure names the server and
// says why in one sentence; nothing stays connected.
func Dial(addrs []string, o Options) (*Cluster, error) {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: no server addresses", ErrUnavailable)
	}
	c := &Cluster{opts: o}
	seen := map[string]bool{}
	for _, a := range addrs {
		a = strings.TrimSpace(a)
		if _, _, err := net.SplitHostPort(a); err != nil {
			c.Close()
			return nil, fmt.Errorf("%w: %q is not host:port", ErrUnavailable, a)
		}
		if seen[a] {
			c.Close()
			return nil, fmt.Errorf("%w: %s is named twice (one rpc-server serves one client)", ErrUnavailable, a)
		}
		seen[a] = true
		k, err := dial(a, o.Timeout)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		s := &server{addr: a, k: k}
		c.servers = append(c.servers, s)
		s.align, err = k.alignment()
		if err == nil {
			s.free, s.total, err = k.memory()
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	return c, nil
}

// Insecure returns the addresses that are not loopback: ggml's RPC
// protocol has no authentication and no encryption, and the caller says
// so once for them.
func Insecure(addrs []string) []string {
	var out []string
	for _, a := range addrs {
		h, _, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			continue
		}
		if h == "localhost" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Close disconnects; each server then frees what this client allocated.
func (c *Cluster) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.io.Lock()
	defer c.io.Unlock()
	for _, s := range c.servers {
		s.k.close()
	}
	return nil
}

// Name says what runs the model, e.g. "rpc 127.0.0.1:50052" or
// "rpc × 2 (a:1, b:2)".
func (c *Cluster) Name() string {
	addrs := make([]string, len(c.servers))
	for i, s := range c.servers {
		addrs[i] = s.addr
	}
	if len(addrs) == 1 {
		return "rpc " + addrs[0]
	}
	return fmt.Sprintf("rpc × %d (%s)", len(addrs), strings.Join(addrs, ", "))
}

// Servers describes the servers and the layers each runs of a model of
// layers layers.
func (c *Cluster) Servers(layers int) []ServerInfo {
	out := make([]ServerInfo, len(c.servers))
	for i, s := range c.servers {
		out[i] = ServerInfo{Addr: s.addr, Version: s.k.d.version(), Free: s.free, Total: s.total, FirstLayer: -1,
			Uploaded: s.uploaded, Cached: s.cached, Upload: s.upload}
	}
	for l := range layers {
		si := &out[c.serverFor(l, layers)]
		if si.FirstLayer < 0 {
			si.FirstLayer = l
		}
		si.LayersCount++
	}
	return out
}

// Stats sums what was sent to and received from every server.
func (c *Cluster) Stats() Stats {
	var t Stats
	c.io.Lock()
	defer c.io.Unlock()
	for _, s := range c.servers {
		st := s.k.stats
		t.Requests += st.Requests
		t.RoundTrips += st.RoundTrips
		t.Sent += st.Sent
		t.Received += st.Received
		t.Graphs += st.Graphs
		t.Recomputes += st.Recomputes
		t.Wait += st.Wait
	}
	return t
}

// serverFor is the server that runs layer l of layers: contiguous ranges,
// sized in proportion to each server's free memory when it was dialled.
// The embedding (l < 0) goes on the first, the output (l ≥ layers) on the
// last.
func (c *Cluster) serverFor(l, layers int) int {
	n := len(c.servers)
	switch {
	case n == 1 || l < 0:
		return 0
	case l >= layers:
		return n - 1
	}
	var total float64
	for _, s := range c.servers {
		total += float64(max(s.free, 1))
	}
	var cum float64
	for i, s := range c.servers {
		cum += float64(max(s.free, 1))
		if float64(l) < float64(layers)*cum/total || i == n-1 {
			return i
		}
	}
	return n - 1
}

// Place says which layer's weights are bound next (backend.Placer), and
// returns the server that runs it.
func (c *Cluster) Place(layer, layers int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur = c.serverFor(layer, layers)
	return c.cur
}

// NewBackend returns a backend for one State.
func (c *Cluster) NewBackend() (*Backend, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("remote: the cluster is closed")
	}
	b := &Backend{c: c, g: make([]*graph, len(c.servers))}
	for i, s := range c.servers {
		b.g[i] = newGraph(s.k)
	}
	return b, nil
}

// rmem is an allocation on one server.
type rmem struct{ handle, base uint64 }

// matrix is a weight on the server that runs its layer.
type matrix struct {
	s          int
	mem        rmem
	typ        uint32
	rows, cols int
	blockBytes uint64
	rowBytes   uint64
}

// Shape implements backend.Matrix.
func (m *matrix) Shape() (int, int) { return m.rows, m.cols }

// leaf is the matrix as a graph tensor [cols × rows].
func (m *matrix) leaf(g *graph) uint64 {
	ne := [4]uint32{uint32(m.cols), uint32(m.rows), 1, 1}
	nb := [4]uint32{uint32(m.blockBytes), uint32(m.rowBytes), uint32(m.rowBytes) * uint32(m.rows), uint32(m.rowBytes) * uint32(m.rows)}
	return g.leaf(m.typ, m.mem.handle, m.mem.base, ne, nb)
}

// desc is the matrix as an rpc_tensor, for the upload commands.
func (m *matrix) desc(withBuffer bool) []byte {
	b := make([]byte, tensorSize)
	t := rt{typ: m.typ, ne: [4]uint32{uint32(m.cols), uint32(m.rows), 1, 1}}
	t.nb = [4]uint32{uint32(m.blockBytes), uint32(m.rowBytes), uint32(m.rowBytes) * uint32(m.rows), uint32(m.rowBytes) * uint32(m.rows)}
	if withBuffer {
		t.buffer, t.data = m.mem.handle, m.mem.base
	}
	putTensor(b, 1, &t, 0)
	return b
}

// vector is a norm's weights or a bias.
type vector struct {
	s   int
	n   int
	mem rmem
}

// Len implements backend.Vector.
func (v *vector) Len() int { return v.n }

func (v *vector) leaf(g *graph) uint64 {
	ne := [4]uint32{uint32(v.n), 1, 1, 1}
	return g.leaf(typeF32, v.mem.handle, v.mem.base, ne, contiguous(ne, 4))
}

// Matrix uploads m to the server that runs the layer being bound (Place).
func (c *Cluster) Matrix(m *tensor.Matrix) (backend.Matrix, error) {
	c.mu.Lock()
	si := c.cur
	c.mu.Unlock()
	s := c.servers[si]
	w := &matrix{s: si, typ: uint32(m.Type), rows: m.Rows, cols: m.Cols,
		blockBytes: uint64(m.Type.BlockBytes()), rowBytes: uint64(m.RowBytes())}
	size := uint64(len(m.Data))
	// A CUDA server pads quantised rows that are not a multiple of 512
	// (ggml-rpc asks it how much to allocate, and lets it initialise the
	// tensor); a CPU server answers with the plain size.
	padded := m.Type != tensor.F32 && m.Type != tensor.F16 && m.Type != tensor.BF16 && m.Cols%512 != 0
	c.io.Lock()
	defer c.io.Unlock()
	t0 := time.Now()
	defer func() { s.upload += time.Since(t0) }()
	k := s.k
	if padded {
		req := make([]byte, 4+tensorSize*(1+maxSrc))
		copy(req[4:], w.desc(false))
		n, err := k.u64(cmdGetAllocSize, req)
		if err != nil {
			return nil, err
		}
		size = max(size, n)
	}
	h, base, err := k.alloc(size)
	if err != nil {
		return nil, err
	}
	w.mem = rmem{h, base}
	if padded {
		if err := k.command(cmdInitTensor, w.desc(true)); err != nil {
			return nil, err
		}
	}
	cache := len(m.Data) > k.d.hashAbove
	if cache {
		req := make([]byte, tensorSize+16)
		copy(req, w.desc(true))
		binary.LittleEndian.PutUint64(req[tensorSize+8:], fnv1a(m.Data))
		var ok [1]byte
		if err := k.call(cmdSetTensorHash, req, ok[:]); err != nil {
			return nil, err
		}
		if ok[0] == 1 {
			s.cached += uint64(len(m.Data))
			return w, nil
		}
	}
	s.uploaded += uint64(len(m.Data))
	if err := k.send(cmdSetTensor, w.desc(true), k.setPrefix(cache), m.Data); err != nil {
		return nil, err
	}
	return w, nil
}

// fnv1a is ggml-rpc's content hash (64-bit FNV-1a).
func fnv1a(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, x := range b {
		h ^= uint64(x)
		h *= 0x100000001b3
	}
	return h
}

// Vector uploads v to the server that runs the layer being bound.
func (c *Cluster) Vector(v []float32) (backend.Vector, error) {
	c.mu.Lock()
	si := c.cur
	c.mu.Unlock()
	s := c.servers[si]
	k := s.k
	c.io.Lock()
	defer c.io.Unlock()
	h, base, err := k.alloc(uint64(4 * max(len(v), 1)))
	if err != nil {
		return nil, err
	}
	w := &vector{s: si, n: len(v), mem: rmem{h, base}}
	// Norms and biases are small: sent every time, counted with the
	// weights.
	s.uploaded += uint64(4 * len(v))
	if err := k.setRaw(h, base, f32bytes(v)); err != nil {
		return nil, err
	}
	return w, nil
}

// WriteVector rewrites a vector on its server (backend.VectorWriter).
func (c *Cluster) WriteVector(v backend.Vector, data []float32) error {
	w, ok := v.(*vector)
	if !ok || w.mem.handle == 0 {
		return fmt.Errorf("remote: writing a vector this cluster did not make, or freed")
	}
	if len(data) != w.n {
		return fmt.Errorf("remote: writing %d values into a vector of %d", len(data), w.n)
	}
	k := c.servers[w.s].k
	c.io.Lock()
	defer c.io.Unlock()
	return k.setRaw(w.mem.handle, w.mem.base, f32bytes(data))
}

// ReleaseVector frees a vector (backend.VectorWriter).
func (c *Cluster) ReleaseVector(v backend.Vector) {
	if w, ok := v.(*vector); ok {
		c.free(w.s, &w.mem)
	}
}

// Release frees a weight (backend.Releaser).
func (c *Cluster) Release(m backend.Matrix) {
	if w, ok := m.(*matrix); ok {
		c.free(w.s, &w.mem)
	}
}

// free frees an allocation on server s, once.
func (c *Cluster) free(s int, mem *rmem) {
	if mem.handle == 0 {
		return
	}
	k := c.servers[s].k
	c.io.Lock()
	defer c.io.Unlock()
	_ = k.free(mem.handle)
	*mem = rmem{}
}

// f32bytes views floats as their bytes (little-endian hosts, as every
// machine ggml's RPC serves).
func f32bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
