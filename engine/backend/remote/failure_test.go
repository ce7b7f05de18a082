package remote

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// TestUnreachable: a port nothing listens on is one sentence naming it.
func TestUnreachable(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	t0 := time.Now()
	_, err := Dial([]string{addr}, Options{Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("got %v, want a refusal naming %s", err, addr)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("a refused connection took %v", d)
	}
	for _, bad := range []string{"", "localhost", "a:1,a:1"} {
		if _, err := Dial(strings.Split(bad, ","), Options{}); err == nil {
			t.Errorf("Dial(%q) succeeded", bad)
		}
	}
}

// TestWrongVersion: a server of another protocol version is refused by
// name (a listener that answers HELLO only: no rpc-server of another
// version is at hand).
func TestWrongVersion(t *testing.T) {
	addr := answerOnce(t, func(c net.Conn) {
		hdr := make([]byte, 9+connCapsSize)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return
		}
		rsp := make([]byte, 8+4+connCapsSize)
		binary.LittleEndian.PutUint64(rsp, 4+connCapsSize)
		rsp[8], rsp[9], rsp[10] = 5, 2, 0
		c.Write(rsp)
		io.Copy(io.Discard, c)
	})
	_, err := Dial([]string{addr}, Options{Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "5.2.0") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("got %v, want a refusal of protocol 5.2.0 naming the server", err)
	}
}

// TestBusyServer: an rpc-server serves one client at a time; a second
// client is told so within the timeout, not left waiting.
func TestBusyServer(t *testing.T) {
	a, _ := startServer(t, 1)
	c := dialT(t, a)
	defer c.Close()
	t0 := time.Now()
	_, err := Dial([]string{a}, Options{Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "one client at a time") {
		t.Fatalf("got %v, want the server named busy", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("a busy server took %v to report", d)
	}
}

// TestServerDies kills the server in the middle of a reply: Forward fails
// with one sentence naming it, promptly, leaves the position where it was,
// and every later call fails the same way.
func TestServerDies(t *testing.T) {
	a, cmd := startServer(t, 1)
	c := dialT(t, a)
	m, err := model.Open(filepath.Join(sharedDir(), "fixtures", "kjv", "kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b, err := c.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.NewStateOn(256, b)
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Config.Vocab)
	if err := st.Forward([]int32{1, 2, 3}, logits); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	pos := st.Pos()
	t0 := time.Now()
	err = st.Forward([]int32{4}, logits)
	if err == nil || !strings.Contains(err.Error(), a) {
		t.Fatalf("got %v, want an error naming %s", err, a)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("a dead server took %v to report", d)
	}
	if st.Pos() != pos {
		t.Errorf("position %d after the failure, want %d", st.Pos(), pos)
	}
	if err2 := st.Forward([]int32{4}, logits); err2 == nil {
		t.Error("a later Forward succeeded")
	}
	if strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("the error is not one line: %q", err)
	}
	b.Close()
}

// TestInsecure names the addresses that are not loopback.
func TestInsecure(t *testing.T) {
	got := Insecure([]string{"127.0.0.1:1", "localhost:2", "[::1]:3", "10.0.0.2:4", "example.org:5"})
	if strings.Join(got, ",") != "10.0.0.2:4,example.org:5" {
		t.Errorf("Insecure = %v", got)
	}
}

// FuzzHandshake feeds the greeting and the first queries arbitrary
// replies: the client fails with an error or succeeds, and never panics
// or hangs.
func FuzzHandshake(f *testing.F) {
	ok := make([]byte, 8+4+connCapsSize)
	binary.LittleEndian.PutUint64(ok, 4+connCapsSize)
	ok[8], ok[9] = dialects[0].major, dialects[0].minor
	f.Add(ok)
	f.Add(append(append([]byte{}, ok...), 8, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0))
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, reply []byte) {
		client, server := net.Pipe()
		defer client.Close()
		go func() {
			defer server.Close()
			go io.Copy(io.Discard, server)
			server.Write(reply)
		}()
		k, err := handshake(client, "fuzz:1", 200*time.Millisecond)
		if err != nil {
			return
		}
		if _, err := k.alignment(); err != nil {
			return
		}
		k.memory()
	})
}

// TestDialects: which versions a server may report, and what each says
// differently; an unknown one is refused in one sentence naming the
// versions spoken.
func TestDialects(t *testing.T) {
	for _, c := range []struct {
		v          [3]byte
		ok, quiet  bool
		supportsOp bool
	}{
		{[3]byte{5, 1, 0}, true, false, false},
		{[3]byte{7, 0, 1}, true, true, true},
		{[3]byte{7, 0, 0}, true, true, false},
		{[3]byte{5, 2, 0}, false, false, false},
		{[3]byte{5, 0, 0}, false, false, false},
		{[3]byte{7, 0, 2}, false, false, false},
		{[3]byte{7, 1, 0}, false, false, false},
		{[3]byte{6, 0, 1}, false, false, false},
	} {
		d, ok := dialectOf(c.v[0], c.v[1], c.v[2])
		if ok != c.ok {
			t.Errorf("%v: accepted %v", c.v, ok)
			continue
		}
		if !ok {
			continue
		}
		if d.answers(cmdFreeBuffer) == c.quiet || d.supportsOp != c.supportsOp || d.cacheFlag != c.quiet {
			t.Errorf("%v: %+v", c.v, d)
		}
		if d.version() != fmt.Sprintf("%d.%d.%d", c.v[0], c.v[1], c.v[2]) {
			t.Errorf("%v reads as %s", c.v, d.version())
		}
	}
	if s := spoken(); !strings.Contains(s, "5.1.0") || !strings.Contains(s, "7.0.1") {
		t.Errorf("the versions spoken read %q", s)
	}
}

// TestUnsupportedOp: a 7.0.1 server that says it cannot compute a node is
// one sentence naming the operation and its types, asked once per kind of
// node; the graph is not sent.
func TestUnsupportedOp(t *testing.T) {
	client, srv := net.Pipe()
	defer client.Close()
	asked := make(chan int, 1)
	go func() {
		n := 0
		hdr := make([]byte, 9)
		for {
			if _, err := io.ReadFull(srv, hdr); err != nil {
				asked <- n
				return
			}
			body := make([]byte, binary.LittleEndian.Uint64(hdr[1:]))
			if _, err := io.ReadFull(srv, body); err != nil {
				asked <- n
				return
			}
			if hdr[0] == cmdSupportsOp {
				n++
				srv.Write([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0}) // one byte: 0, not supported
			}
		}
	}()
	k := &conn{addr: "test:1", timeout: 5 * time.Second, c: client, r: bufio.NewReader(client), w: bufio.NewWriter(client)}
	k.d, _ = dialectOf(7, 0, 1)
	g := newGraph(k)
	w := g.leaf(uint32(tensor.IQ2_XXS), 1, 4096, [4]uint32{256, 4, 1, 1}, [4]uint32{66, 66, 264, 264})
	x := g.leaf(typeF32, 1, 8192, [4]uint32{256, 1, 1, 1}, contiguous([4]uint32{256, 1, 1, 1}, 4))
	g.node(opMulMat, 1, 9216, [4]uint32{4, 1, 1, 1}, contiguous([4]uint32{4, 1, 1, 1}, 4), w, x)
	for range 2 {
		g.serialize()
		err := g.checkOps()
		if err == nil || !strings.Contains(err.Error(), "MUL_MAT on IQ2_XXS × F32") || !strings.Contains(err.Error(), "test:1") {
			t.Fatalf("got %v", err)
		}
	}
	client.Close()
	if n := <-asked; n != 1 {
		t.Errorf("the server was asked %d times for one kind of node", n)
	}
}
