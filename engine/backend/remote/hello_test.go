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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		c.Read(buf)
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
	}()
	_, err = Dial([]string{l.Addr().String()}, Options{Timeout: 5 * time.Second})
	if err == nil {
		t.Fatal("Dial succeeded against an HTTP server")
	}
	msg := err.Error()
	if !strings.Contains(msg, "not a ggml rpc-server") || !strings.Contains(msg, l.Addr().String()) {
		t.Errorf("got %q, want it to name %s as not a ggml rpc-server", msg, l.Addr())
	}
	if strings.Contains(msg, "were expected") {
		t.Errorf("the message still reads as a length mismatch: %q", msg)
	}
}
