package base

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/remote"
)

// TestRPCInsecureWarning: each address that is not loopback is warned
// about once, before it is dialled, however often the device is resolved;
// loopback addresses are not.
func TestRPCInsecureWarning(t *testing.T) {
	got := insecureWarnings([]string{"127.0.0.1:1", "localhost:2", "[::1]:3", "10.255.255.1:1", "gpu-box:50052"})
	want := []string{
		"isagi: warning: 10.255.255.1:1 is not a loopback address; ggml's RPC protocol has no authentication or encryption — anyone who can reach it can read and change the model and the conversation",
		"isagi: warning: gpu-box:50052 is not a loopback address; ggml's RPC protocol has no authentication or encryption — anyone who can reach it can read and change the model and the conversation",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("insecureWarnings = %q, want %q", got, want)
	}

	var d DeviceFlags
	var out bytes.Buffer
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(&out)
	d.Register(fs)
	if err := fs.Parse([]string{"--rpc", "10.255.255.1:1,10.255.255.2:1"}); err != nil {
		t.Fatal(err)
	}
	// No traffic goes to those addresses: the dial is a stand-in that
	// fails as an unreachable server does, and counts its calls.
	dials := 0
	d.dial = func(addrs []string, _ remote.Options) (*remote.Cluster, error) {
		dials++
		return nil, fmt.Errorf("%w: rpc server %s: cannot connect: no route to host", remote.ErrUnavailable, addrs[0])
	}
	for range 2 {
		b, err := d.resolve()
		if b != nil || err == nil || !strings.HasPrefix(err.Error(), "--rpc: rpc server 10.255.255.1:1") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("resolve: %v", err)
		}
	}
	if dials != 1 {
		t.Errorf("two resolves dialled %d times: the dial is not done once", dials)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "10.255.255.1:1 is not a loopback address") || !strings.Contains(lines[1], "10.255.255.2:1 is not a loopback address") {
		t.Errorf("warnings:\n%s", out.String())
	}
	d.Close() // nothing connected: a no-op
}
