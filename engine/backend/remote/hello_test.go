package remote

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestNotAnRPCServer: a port where another service answers (an HTTP
// server, whose "HTTP/1.1 …" reads as a huge reply length) is named as not
// an rpc-server, in one sentence without the raw length arithmetic.
func TestNotAnRPCServer(t *testing.T) {
	addr := answerOnce(t, func(c net.Conn) {
		buf := make([]byte, 64)
		c.Read(buf)
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
	})
	_, err := Dial([]string{addr}, Options{Timeout: 5 * time.Second})
	if err == nil {
		t.Fatal("Dial succeeded against an HTTP server")
	}
	msg := err.Error()
	if !strings.Contains(msg, "not a ggml rpc-server") || !strings.Contains(msg, addr) {
		t.Errorf("got %q, want it to name %s as not a ggml rpc-server", msg, addr)
	}
	if strings.Contains(msg, "were expected") {
		t.Errorf("the message still reads as a length mismatch: %q", msg)
	}
}

// answerOnce listens on a loopback port for the test, hands the first
// connection to serve (closed after it), and returns the address: a
// stand-in for a server that is not a ggml rpc-server of ours.
func answerOnce(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return l.Addr().String()
}
