package remote

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// The protocol versions this package speaks, each as what it says
// differently (a dialect), chosen per server from its HELLO. The numbering
// of ggml's operations changes when ggml adds one, and a server's version
// moves with it, so a server must report one of these versions exactly
// (for 7.0, a patch up to the one listed): another would read our graph's
// operation numbers as other operations.
type dialect struct {
	major, minor, patch byte
	// from says where a server of this version comes from, for messages.
	from string
	// quiet lists the commands the server does not answer: 5.1.0 sends an
	// empty reply to FREE_BUFFER, BUFFER_CLEAR and INIT_TENSOR, 7.x none.
	quiet []byte
	// cacheFlag: SET_TENSOR carries a byte after the tensor asking the
	// server to keep the data in its cache (7.x): | rpc_tensor |
	// cache_flag u8 | offset u64 | data |.
	cacheFlag bool
	// supportsOp: GET_DEVICE_SUPPORTS_OP is answered (7.0 from patch 1).
	supportsOp bool
	// hashAbove is the size above which a weight is first asked for by
	// hash (SET_TENSOR_HASH), so that a server started with a cache
	// directory skips the transfer: 5.1.0 caches only what is over 10 MiB
	// (ggml's own client's threshold); 7.x caches whatever the client
	// flags, and every weight matrix of a small model is under 10 MiB.
	hashAbove int
}

// dialects are the versions spoken, oldest first.
var dialects = [...]dialect{
	{major: 5, minor: 1, patch: 0, from: "rpc-server from ggml-org/ggml d99724f2", hashAbove: 10 << 20},
	{major: 7, minor: 0, patch: 1, from: "rpc-server from ggml-org/llama.cpp (2026)",
		quiet: []byte{cmdFreeBuffer, cmdBufferClear, cmdInitTensor, cmdMemsetTensor}, cacheFlag: true, supportsOp: true,
		hashAbove: 64 << 10},
}

// dialectOf is the dialect a server reporting version major.minor.patch
// speaks, or false.
func dialectOf(major, minor, patch byte) (dialect, bool) {
	for _, d := range dialects {
		switch {
		case major != d.major || minor != d.minor:
		case patch == d.patch:
			return d, true
		case major == 7 && patch < d.patch:
			// 7.0.0 lacks only GET_DEVICE_SUPPORTS_OP.
			d.patch, d.supportsOp = patch, false
			return d, true
		}
	}
	return dialect{}, false
}

// spoken lists the versions for messages: "5.1.0 (…) or 7.0.1 (…)".
func spoken() string {
	var b strings.Builder
	for i, d := range dialects {
		if i > 0 {
			b.WriteString(" or ")
		}
		fmt.Fprintf(&b, "%d.%d.%d (%s)", d.major, d.minor, d.patch, d.from)
	}
	return b.String()
}

// answers reports whether the server replies to cmd.
func (d *dialect) answers(cmd byte) bool {
	for _, q := range d.quiet {
		if q == cmd {
			return false
		}
	}
	return true
}

// version prints the dialect's version.
func (d *dialect) version() string { return fmt.Sprintf("%d.%d.%d", d.major, d.minor, d.patch) }

// Commands (enum rpc_cmd).
const (
	cmdAllocBuffer     = 0
	cmdGetAlignment    = 1
	cmdGetMaxSize      = 2
	cmdBufferGetBase   = 3
	cmdFreeBuffer      = 4
	cmdBufferClear     = 5
	cmdSetTensor       = 6
	cmdSetTensorHash   = 7
	cmdGetTensor       = 8
	cmdCopyTensor      = 9
	cmdGraphCompute    = 10
	cmdGetDeviceMemory = 11
	cmdInitTensor      = 12
	cmdGetAllocSize    = 13
	cmdHello           = 14
	cmdDeviceCount     = 15
	cmdGraphRecompute  = 16
	cmdMemsetTensor    = 17
	// cmdSupportsOp is GET_DEVICE_SUPPORTS_OP (7.0.1): | device u32 | op
	// rpc_tensor | srcs rpc_tensor[10] | → u8.
	cmdSupportsOp = 19
)

// connCapsSize is the transport capabilities field of HELLO (RDMA
// negotiation); we offer none, so the connection stays plain TCP.
const connCapsSize = 24

// helloTimeout bounds the wait for a server's greeting.
const helloTimeout = 10 * time.Second

// Stats count what a connection sent and received: requests (commands
// sent), bytes each way, and round trips (commands that waited for a
// reply). docs/remote.md reports them per decoded token.
type Stats struct {
	Requests, RoundTrips int64
	Sent, Received       int64
	Graphs, Recomputes   int64
	// Wait is the time spent waiting for replies: the servers' compute,
	// the transfers, and the network.
	Wait time.Duration
}

// conn is one TCP connection to one rpc-server. The server serves one
// client at a time and keeps that client's buffers until it disconnects,
// so every backend of a cluster shares this one connection, under the
// cluster's io lock.
// The first failure sticks: every later command fails with it, so a
// broken server gives one error, naming it, and never a hang (each read
// has a deadline).
type conn struct {
	addr    string
	timeout time.Duration
	// d is the protocol version the server speaks.
	d dialect
	// ops holds the server's answers to GET_DEVICE_SUPPORTS_OP, by kind
	// of node (graph.checkOps), and opReq is the request's scratch.
	ops   map[uint64]bool
	opReq [4 + tensorSize*(1+maxSrc)]byte

	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	err error

	// last is the last graph sent with GRAPH_COMPUTE: the server keeps it,
	// and a graph equal to it runs again with GRAPH_RECOMPUTE.
	last  []byte
	stats Stats

	// Scratch for the commands of every token, so that decode allocates
	// nothing: a tensor description, a request, zeros (offsets, device 0).
	hdr  [9]byte
	desc [tensorSize]byte
	req  [tensorSize + 16]byte
	zero [8]byte
	sz   [8]byte
	pre  [9]byte
}

// setPrefix is what SET_TENSOR carries between the tensor and the data:
// the offset (0), after 7.x's cache flag (cache: keep the data in the
// server's cache, for a weight the server did not have by hash).
func (k *conn) setPrefix(cache bool) []byte {
	if !k.d.cacheFlag {
		return k.zero[:]
	}
	k.pre = [9]byte{}
	if cache {
		k.pre[0] = 1
	}
	return k.pre[:]
}

// command sends a command that returns nothing: waiting for the empty
// reply where the server's version sends one, queued where it does not.
func (k *conn) command(cmd byte, in []byte) error {
	if k.d.answers(cmd) {
		return k.call(cmd, in, nil)
	}
	return k.send(cmd, in)
}

// raw describes n bytes at data inside buffer handle, in k's scratch.
func (k *conn) raw(handle, data, n uint64) []byte {
	putRaw(k.desc[:], handle, data, n)
	return k.desc[:]
}

// setRaw queues bytes for data inside buffer handle (no reply).
func (k *conn) setRaw(handle, data uint64, b []byte) error {
	return k.send(cmdSetTensor, k.raw(handle, data, uint64(len(b))), k.setPrefix(false), b)
}

// getRaw reads len(dst) bytes at data inside buffer handle.
func (k *conn) getRaw(handle, data uint64, dst []byte) error {
	putRaw(k.req[:tensorSize], handle, data, uint64(len(dst)))
	binary.LittleEndian.PutUint64(k.req[tensorSize:], 0)
	binary.LittleEndian.PutUint64(k.req[tensorSize+8:], uint64(len(dst)))
	if err := k.send(cmdGetTensor, k.req[:]); err != nil {
		return err
	}
	return k.reply(cmdGetTensor, dst)
}

// dial connects to addr and checks the server's protocol version.
func dial(addr string, timeout time.Duration) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, min(timeout, 10*time.Second))
	if err != nil {
		return nil, fmt.Errorf("rpc server %s: cannot connect: %w", addr, plainNetErr(err))
	}
	if tc, ok := c.(*net.TCPConn); ok {
		// Decode sends a small graph and waits for the logits: Nagle's
		// algorithm would hold the graph back for the previous reply's ACK.
		_ = tc.SetNoDelay(true)
	}
	return handshake(c, addr, timeout)
}

// handshake greets the server on c and checks its protocol version.
func handshake(c net.Conn, addr string, timeout time.Duration) (*conn, error) {
	k := &conn{addr: addr, timeout: timeout, c: c, r: bufio.NewReaderSize(c, 1<<16), w: bufio.NewWriterSize(c, 1<<16)}
	var req [connCapsSize]byte
	var rsp [4 + connCapsSize]byte
	// The server serves one client at a time and answers a second only
	// when the first leaves: a busy server is told apart from a slow one
	// by a short wait here.
	k.timeout = min(timeout, helloTimeout)
	err := k.call(cmdHello, req[:], rsp[:])
	k.timeout = timeout
	if err != nil {
		c.Close()
		// A greeting answered with a length no rpc-server sends (an HTTP
		// server's "HTTP/1.1" read as a length) is another service.
		if rs := (*replySizeError)(nil); errors.As(err, &rs) {
			return nil, fmt.Errorf("%s is not a ggml rpc-server: it answered the greeting with %d bytes where an rpc-server answers %d (another service on that port?)", addr, rs.got, rs.want)
		}
		if isTimeout(errors.Unwrap(err)) || strings.Contains(err.Error(), "did not answer") {
			return nil, fmt.Errorf("rpc server %s accepted the connection but did not answer within %s: it serves one client at a time — is another isagi or llama.cpp connected to it?", addr, helloTimeout)
		}
		return nil, err
	}
	d, ok := dialectOf(rsp[0], rsp[1], rsp[2])
	if !ok {
		c.Close()
		return nil, fmt.Errorf("rpc server %s speaks ggml RPC protocol %d.%d.%d; isagi speaks %s: run a server of one of those versions",
			addr, rsp[0], rsp[1], rsp[2], spoken())
	}
	k.d = d
	return k, nil
}

// plainNetErr drops Go's "dial tcp 127.0.0.1:1:" prefix, which repeats the
// address the message already names.
func plainNetErr(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	// "connect: connection refused": the call's name says nothing more.
	var sc *os.SyscallError
	if errors.As(err, &sc) && sc.Err != nil {
		err = sc.Err
	}
	return err
}

// close ends the connection; the server then frees everything this client
// allocated.
func (k *conn) close() {
	if k.c != nil {
		k.c.Close()
		k.c = nil
	}
	if k.err == nil {
		k.err = fmt.Errorf("rpc server %s: the connection is closed", k.addr)
	}
}

// fail records the first failure, in words that name the server, and
// closes the connection (what was sent after a failure means nothing).
func (k *conn) fail(what string, err error) error {
	if k.err != nil {
		return k.err
	}
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err):
		k.err = fmt.Errorf("rpc server %s closed the connection during %s (it stopped, or refused the request: its log says which)", k.addr, what)
	case isTimeout(err):
		k.err = fmt.Errorf("rpc server %s did not answer %s within %s", k.addr, what, k.timeout)
	default:
		k.err = fmt.Errorf("rpc server %s: %s: %w", k.addr, what, plainNetErr(err))
	}
	if k.c != nil {
		k.c.Close()
		k.c = nil
	}
	return k.err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isReset(err error) bool {
	s := err.Error()
	return strings.Contains(s, "connection reset") || strings.Contains(s, "broken pipe")
}

// cmdName names a command for messages.
func cmdName(cmd byte) string {
	switch cmd {
	case cmdAllocBuffer:
		return "ALLOC_BUFFER"
	case cmdGetAlignment:
		return "GET_ALIGNMENT"
	case cmdGetMaxSize:
		return "GET_MAX_SIZE"
	case cmdBufferGetBase:
		return "BUFFER_GET_BASE"
	case cmdFreeBuffer:
		return "FREE_BUFFER"
	case cmdBufferClear:
		return "BUFFER_CLEAR"
	case cmdSetTensor:
		return "SET_TENSOR"
	case cmdSetTensorHash:
		return "SET_TENSOR_HASH"
	case cmdGetTensor:
		return "GET_TENSOR"
	case cmdGraphCompute:
		return "GRAPH_COMPUTE"
	case cmdGetDeviceMemory:
		return "GET_DEVICE_MEMORY"
	case cmdInitTensor:
		return "INIT_TENSOR"
	case cmdGetAllocSize:
		return "GET_ALLOC_SIZE"
	case cmdHello:
		return "HELLO"
	case cmdGraphRecompute:
		return "GRAPH_RECOMPUTE"
	case cmdMemsetTensor:
		return "MEMSET_TENSOR"
	case cmdSupportsOp:
		return "GET_DEVICE_SUPPORTS_OP"
	}
	return fmt.Sprintf("command %d", cmd)
}

// send queues a command without waiting: | cmd (1) | size (8) | payload |.
// parts are written one after the other, so that a large upload is not
// copied into one buffer first. Commands without a reply (SET_TENSOR,
// GRAPH_COMPUTE, GRAPH_RECOMPUTE) stay in the write buffer until a command
// that waits flushes it: decode sends its inputs, its graph and its
// logits request in one write.
func (k *conn) send(cmd byte, parts ...[]byte) error {
	if k.err != nil {
		return k.err
	}
	if k.c == nil {
		return k.fail(cmdName(cmd), io.EOF)
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	k.hdr[0] = cmd
	binary.LittleEndian.PutUint64(k.hdr[1:], uint64(n))
	_ = k.c.SetWriteDeadline(time.Now().Add(k.writeTimeout(n)))
	if _, err := k.w.Write(k.hdr[:]); err != nil {
		return k.fail(cmdName(cmd), err)
	}
	for _, p := range parts {
		if _, err := k.w.Write(p); err != nil {
			return k.fail(cmdName(cmd), err)
		}
	}
	k.stats.Requests++
	k.stats.Sent += int64(9 + n)
	return nil
}

// writeTimeout allows a large upload the time it needs at 10 MB/s on top
// of the connection's timeout.
func (k *conn) writeTimeout(n int) time.Duration {
	return k.timeout + time.Duration(n/(10<<20))*time.Second
}

// replySizeError is a reply whose length is not the command's: the peer
// speaks another protocol, or is not an rpc-server at all.
type replySizeError struct {
	got  uint64
	want int
}

func (e *replySizeError) Error() string {
	return fmt.Sprintf("reply of %d bytes where %d were expected", e.got, e.want)
}

// call sends a command and reads its reply, which must be len(out) bytes.
func (k *conn) call(cmd byte, in []byte, out []byte) error {
	if err := k.send(cmd, in); err != nil {
		return err
	}
	return k.reply(cmd, out)
}

// reply flushes what is queued and reads one reply of len(out) bytes.
func (k *conn) reply(cmd byte, out []byte) error {
	t0 := time.Now()
	defer func() { k.stats.Wait += time.Since(t0) }()
	if err := k.w.Flush(); err != nil {
		return k.fail(cmdName(cmd), err)
	}
	_ = k.c.SetReadDeadline(time.Now().Add(k.timeout + time.Duration(len(out)/(10<<20))*time.Second))
	if _, err := io.ReadFull(k.r, k.sz[:]); err != nil {
		return k.fail(cmdName(cmd), err)
	}
	if n := binary.LittleEndian.Uint64(k.sz[:]); n != uint64(len(out)) {
		return k.fail(cmdName(cmd), &replySizeError{got: n, want: len(out)})
	}
	if _, err := io.ReadFull(k.r, out); err != nil {
		return k.fail(cmdName(cmd), err)
	}
	k.stats.RoundTrips++
	k.stats.Received += int64(8 + len(out))
	return nil
}

// flush writes what is queued without waiting for anything: a graph then
// starts on the server while the client waits on another.
func (k *conn) flush() error {
	if k.err != nil {
		return k.err
	}
	if k.c == nil {
		return k.fail("a queued command", io.EOF)
	}
	if err := k.w.Flush(); err != nil {
		return k.fail("a queued command", err)
	}
	return nil
}

// Device queries, each one round trip.

func (k *conn) u64(cmd byte, in []byte) (uint64, error) {
	var out [8]byte
	if err := k.call(cmd, in, out[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(out[:]), nil
}

func (k *conn) alignment() (uint64, error) {
	return k.u64(cmdGetAlignment, k.zero[:4])
}

func (k *conn) memory() (free, total uint64, err error) {
	var out [16]byte
	if err := k.call(cmdGetDeviceMemory, k.zero[:4], out[:]); err != nil {
		return 0, 0, err
	}
	return binary.LittleEndian.Uint64(out[:]), binary.LittleEndian.Uint64(out[8:]), nil
}

// alloc allocates size bytes on the server's device 0 and returns the
// buffer's handle and its base address (the data pointers our tensors
// carry are addresses in the server's memory).
func (k *conn) alloc(size uint64) (handle, base uint64, err error) {
	var in [12]byte
	binary.LittleEndian.PutUint64(in[4:], size)
	var out [16]byte
	if err := k.call(cmdAllocBuffer, in[:], out[:]); err != nil {
		return 0, 0, err
	}
	handle = binary.LittleEndian.Uint64(out[:])
	if handle == 0 {
		return 0, 0, fmt.Errorf("rpc server %s could not allocate %s", k.addr, bytesString(size))
	}
	var h [8]byte
	binary.LittleEndian.PutUint64(h[:], handle)
	base, err = k.u64(cmdBufferGetBase, h[:])
	if err != nil {
		return 0, 0, err
	}
	// A new buffer holds what the server's allocator left there; the
	// backend's buffers start at zero, as the CPU's do.
	var clr [9]byte
	binary.LittleEndian.PutUint64(clr[:], handle)
	if err := k.command(cmdBufferClear, clr[:]); err != nil {
		return 0, 0, err
	}
	return handle, base, nil
}

// free gives a buffer back: at once where the server's version answers
// FREE_BUFFER (its empty reply is waited for), else flushed now so that
// the server does not hold the memory until the next round trip.
func (k *conn) free(handle uint64) error {
	var in [8]byte
	binary.LittleEndian.PutUint64(in[:], handle)
	if err := k.command(cmdFreeBuffer, in[:]); err != nil || k.d.answers(cmdFreeBuffer) {
		return err
	}
	if err := k.w.Flush(); err != nil {
		return k.fail(cmdName(cmdFreeBuffer), err)
	}
	return nil
}

// bytesString prints a size for messages.
func bytesString(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
