package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/backend/remote"
)

// DeviceFlags choose what runs the model: the GPU when one is usable, else
// the CPU (the default), or one of them by --gpu or --cpu, or llama.cpp's
// rpc-servers by --rpc.
type DeviceFlags struct {
	gpu, cpu bool
	// rpc is --rpc: the rpc-servers' addresses, checked as the flag is
	// parsed; nil when it was not given.
	rpc []string
	// rpcTimeout bounds every network operation with the servers (0:
	// remote's default). Tests shorten it.
	rpcTimeout time.Duration
	// dial connects to the servers (nil: remote.Dial). Tests replace it:
	// a test of the flag's handling of addresses that are not loopback
	// must not send them any traffic.
	dial func(addrs []string, o remote.Options) (*remote.Cluster, error)
	// warn receives the warning about addresses that are not loopback:
	// the flag set's output, which is the command's stderr.
	warn io.Writer

	once sync.Once
	// dev is the opened GPU, or nil; cluster the rpc-servers, or nil;
	// note says in one line why the CPU runs the model when the GPU was
	// not asked for by name.
	dev     *cuda.Device
	cluster *remote.Cluster
	err     error
	note    string
}

const (
	gpuHelp = "run the model on the CUDA GPU, and fail if there is none (default: the GPU when one is usable, else the CPU)"
	cpuHelp = "run the model on the CPU even when a GPU is present"
	// The backquotes name the value in the help ("-rpc host:port") and
	// are left out of the text.
	rpcHelp = "run the model on llama.cpp rpc-servers, split by layers across them (`host:port`,…); the protocol is unauthenticated: use it on a network you trust"
)

// Register registers --gpu, --cpu and --rpc.
func (d *DeviceFlags) Register(fs *flag.FlagSet) {
	fs.BoolVar(&d.gpu, "gpu", false, gpuHelp)
	fs.BoolVar(&d.cpu, "cpu", false, cpuHelp)
	fs.Func("rpc", rpcHelp, func(v string) error {
		addrs, err := parseRPC(v)
		if err != nil {
			return err
		}
		d.rpc = addrs
		return nil
	})
	// Taken now: ParseFlags silences the flag set's output while it
	// parses, and every command sets it to its stderr before registering.
	d.warn = fs.Output()
}

// resolve opens the GPU when the flags let it, or connects to the
// rpc-servers of --rpc, once per command. It returns the backend
// constructor for session.Options.Backend (nil: the CPU), and an error
// when --gpu was given and no GPU can be used, when the rpc-servers cannot
// be used, or when the flags contradict each other.
func (d *DeviceFlags) resolve() (func(threads int) (backend.Backend, error), error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if d.rpc != nil {
		return d.resolveRPC()
	}
	if d.cpu {
		return nil, nil
	}
	d.once.Do(func() { d.dev, d.err = cuda.Open(cuda.Options{}) })
	if d.err != nil {
		if d.gpu {
			return nil, fmt.Errorf("--gpu: %w", d.err)
		}
		d.note = "CPU: " + gpuAbsence(d.err)
		return nil, nil
	}
	dev := d.dev
	return func(int) (backend.Backend, error) { return dev.NewBackend() }, nil
}

// check refuses device flags that contradict each other: a mistake in the
// command line (exit 2), found before anything is opened.
func (d *DeviceFlags) check() error {
	switch {
	case d.gpu && d.cpu:
		return Usagef("--gpu and --cpu: choose one")
	case d.rpc != nil && d.gpu:
		return Usagef("--rpc and --gpu: choose one")
	case d.rpc != nil && d.cpu:
		return Usagef("--rpc and --cpu: choose one")
	}
	return nil
}

// resolveRPC is resolve for --rpc: it warns about the addresses that are
// not loopback before anything is sent to them, then dials every server.
func (d *DeviceFlags) resolveRPC() (func(threads int) (backend.Backend, error), error) {
	d.once.Do(func() {
		w := d.warn
		if w == nil {
			w = os.Stderr
		}
		for _, line := range insecureWarnings(d.rpc) {
			fmt.Fprintln(w, line)
		}
		dial := d.dial
		if dial == nil {
			dial = remote.Dial
		}
		d.cluster, d.err = dial(d.rpc, remote.Options{Timeout: d.rpcTimeout})
	})
	if d.err != nil {
		return nil, rpcError{d.err}
	}
	c := d.cluster
	return func(int) (backend.Backend, error) { return c.NewBackend() }, nil
}

// Close disconnects from the rpc-servers, if --rpc connected to them, so
// that each frees what this command allocated there; a command defers it
// before it opens the model, so that it runs after the model's states
// are closed. The GPU is left to the process's exit, as before.
func (d *DeviceFlags) Close() {
	if d.cluster != nil {
		d.cluster.Close()
		d.cluster = nil
	}
}

// Note says in one line why the CPU runs the model when the GPU was not
// asked for by name ("" when it was, or when the GPU runs it).
func (d *DeviceFlags) Note() string { return d.note }

// Describe is what the compute label shows under the backend's name: with
// --rpc one line per server (ServerLines) for a model of layers layers,
// else why the CPU runs the model when the GPU was passed over (note).
func (d *DeviceFlags) Describe(layers int) string {
	if d.cluster == nil {
		return d.note
	}
	// The pane is narrow: each server's address on a line, its layers
	// and memory indented on the next.
	var lines []string
	for _, l := range ServerLines(d.cluster.Servers(layers), layers) {
		addr, rest, ok := strings.Cut(l, " · ")
		lines = append(lines, addr)
		if ok {
			lines = append(lines, "  "+rest)
		}
	}
	return strings.Join(lines, "\n")
}

// ServerLines describe the rpc-servers that run a model of layers layers
// (0: not known), one line each, for the Hardware pane and bench:
// "127.0.0.1:50052 · layers 0–14 · 23.50 GiB free of 23.50 GiB". Free is
// what the server reported when it was connected to.
func ServerLines(servers []remote.ServerInfo, layers int) []string {
	lines := make([]string, len(servers))
	for i, s := range servers {
		l := s.Addr
		switch {
		case s.LayersCount == 1:
			l += fmt.Sprintf(" · layer %d", s.FirstLayer)
		case s.LayersCount > 1:
			l += fmt.Sprintf(" · layers %d–%d", s.FirstLayer, s.FirstLayer+s.LayersCount-1)
		case layers > 0:
			// Too little memory for a layer of its share: it may still
			// hold the embedding (the first server) or the output (the
			// last).
			l += " · no layers"
		}
		if s.Total > 0 {
			l += fmt.Sprintf(" · %s free of %s", HumanBytes(s.Free), HumanBytes(s.Total))
		}
		if s.Version != "" {
			l += " · protocol " + s.Version
		}
		if s.Uploaded+s.Cached > 0 {
			l += fmt.Sprintf(" · uploaded %s in %.1f s", HumanBytes(s.Uploaded), s.Upload.Seconds())
			if s.Cached > 0 {
				l += fmt.Sprintf(", %s from its cache", HumanBytes(s.Cached))
			}
		}
		lines[i] = l
	}
	return lines
}

// rpcPort is the port llama.cpp's rpc-server listens on by default, for
// the example in a message.
const rpcPort = "50052"

// parseRPC reads --rpc: comma-separated host:port addresses, each named
// once. A mistake is one sentence naming the address at fault.
func parseRPC(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, errors.New("no address given: want host:port[,host:port…]")
	}
	items := strings.Split(v, ",")
	addrs := make([]string, 0, len(items))
	seen := map[string]bool{}
	for i, it := range items {
		a := strings.TrimSpace(it)
		if a == "" {
			return nil, fmt.Errorf("address %d of %d is empty: want host:port[,host:port…]", i+1, len(items))
		}
		host, port, err := net.SplitHostPort(a)
		switch {
		case err != nil && strings.Contains(err.Error(), "missing port"), err == nil && port == "":
			return nil, fmt.Errorf("%q has no port: want host:port, e.g. %s:%s", a, strings.TrimSuffix(a, ":"), rpcPort)
		case err != nil:
			return nil, fmt.Errorf("%q is not host:port (an IPv6 address goes in brackets: [::1]:%s)", a, rpcPort)
		case host == "":
			return nil, fmt.Errorf("%q has no host: want host:port, e.g. 127.0.0.1%s", a, a)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("%q: the port %q is not a number from 1 to 65535", a, port)
		}
		if seen[a] {
			return nil, fmt.Errorf("%q is named twice: an rpc-server serves one client", a)
		}
		seen[a] = true
		addrs = append(addrs, a)
	}
	return addrs, nil
}

// insecureWarnings are the lines that warn, once per address, about the
// addresses of addrs that are not loopback: ggml's RPC protocol has no
// authentication and no encryption.
func insecureWarnings(addrs []string) []string {
	var out []string
	for _, a := range remote.Insecure(addrs) {
		out = append(out, fmt.Sprintf("isagi: warning: %s is not a loopback address; ggml's RPC protocol has no authentication or encryption — anyone who can reach it can read and change the model and the conversation", a))
	}
	return out
}

// rpcError is a failure to use the rpc-servers, said as "--rpc: rpc server
// HOST:PORT: cannot connect: …": remote.ErrUnavailable's words would only
// repeat what the flag's name says. It still wraps the error.
type rpcError struct{ err error }

// Error is the failure without remote.ErrUnavailable's words.
func (e rpcError) Error() string {
	return "--rpc: " + strings.TrimPrefix(e.err.Error(), remote.ErrUnavailable.Error()+": ")
}

// Unwrap is the failure.
func (e rpcError) Unwrap() error { return e.err }

// gpuAbsence says in a few words why no GPU runs the model.
func gpuAbsence(err error) string {
	var r cu.Result
	switch {
	case errors.As(err, &r) && r == cu.ErrNoDevice:
		return "no CUDA GPU found"
	case strings.Contains(err.Error(), "no CUDA driver"):
		return "no CUDA driver (libcuda.so.1)"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, cuda.ErrUnavailable.Error()+": ")
	return "GPU not usable: " + msg
}
