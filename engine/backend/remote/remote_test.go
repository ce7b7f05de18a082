package remote

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/internal/testkit/peer"
)

// sharedDir is ../shared beside the checkout, where the fixtures are.
func sharedDir() string { return filepath.Join("..", "..", "..", "..", "shared") }

// freePort returns a loopback port nothing listens on.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer runs an rpc-server (ggml's, protocol 5.1.0: $ISAGI_RPC_SERVER
// or rpc-server on PATH; the test skips without one) on a loopback port for
// the test and returns its address; it is killed at the test's end. Its
// output goes to the test log when the test fails.
func startServer(t testing.TB, threads int) (addr string, cmd *exec.Cmd) {
	t.Helper()
	bin := peer.RPCServer(t)
	for try := 0; ; try++ {
		port := freePort(t)
		cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port), "-t", fmt.Sprint(threads))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = cmd.Stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Its output is block-buffered into a pipe: collect it for the log,
		// and wait for the port instead.
		log := make(chan string, 1)
		go func() {
			var sb strings.Builder
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				sb.WriteString(sc.Text() + "\n")
			}
			log <- sb.String()
		}()
		addr = fmt.Sprintf("127.0.0.1:%d", port)
		ok := false
		for i := 0; i < 2000 && !ok; i++ {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				// That connection was a client: the server serves one at a
				// time, and is free again once it sees this one close.
				c.Close()
				ok = true
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if ok {
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
				s := <-log
				if t.Failed() {
					t.Logf("rpc-server %s said:\n%s", addr, s)
				}
			})
			return addr, cmd
		}
		cmd.Process.Kill()
		cmd.Wait()
		if try == 2 {
			t.Fatalf("rpc-server did not start on %s: %s", addr, <-log)
		}
	}
}

// dialT dials a cluster of the given servers for a test.
func dialT(t testing.TB, addrs ...string) *Cluster {
	t.Helper()
	c, err := Dial(addrs, Options{Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func randVec(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// compare wants got within tol of want, relative to want's largest value.
func compare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	var worst, big float64
	at := 0
	for i := range want {
		big = max(big, math.Abs(float64(want[i])))
		if d := math.Abs(float64(got[i] - want[i])); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if worst > tol*(big+1) || math.IsNaN(worst) {
		t.Errorf("%s: differs by %.3g at %d (%g against %g; largest value %g)", what, worst, at, got[at], want[at], big)
	}
}

// f32Matrix makes an F32 matrix of random values.
func f32Matrix(t *testing.T, r *rand.Rand, rows, cols int, scale float64) *tensor.Matrix {
	raw := make([]byte, 4*rows*cols)
	copy(raw, f32bytes(randVec(r, rows*cols, scale)))
	m, err := tensor.NewMatrix(tensor.F32, rows, cols, raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOps runs every operation on an rpc-server and on the CPU backend
// from the same inputs, on one server and split over two (where each
// operation's buffers move between them).
func TestOps(t *testing.T) {
	a1, _ := startServer(t, 2)
	a2, _ := startServer(t, 2)
	for _, addrs := range [][]string{{a1}, {a1, a2}} {
		t.Run(fmt.Sprintf("%d servers", len(addrs)), func(t *testing.T) {
			c := dialT(t, addrs...)
			rb, err := c.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Close()
			opsAgree(t, c, rb)
			if err := rb.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func opsAgree(t *testing.T, c *Cluster, rb *Backend) {
	cb := cpu.New(nil)
	r := rand.New(rand.NewPCG(5, 6))
	last := len(c.servers) - 1
	type pair struct{ c, g backend.Buffer }
	alloc := func(rows, width int, v []float32) pair {
		cbuf, _ := cb.Alloc(rows, width)
		gbuf, _ := rb.Alloc(rows, width)
		if v != nil {
			cb.Write(cbuf, 0, v)
			rb.Write(gbuf, 0, v)
		}
		return pair{cbuf, gbuf}
	}
	// Weights alternate between the first and last server, so that on two
	// servers every operation reads a buffer the other one wrote.
	on := 0
	vec := func(v []float32) (backend.Vector, backend.Vector) {
		c.Place(-1+on*1000, 10)
		on = 1 - on
		cv, _ := cb.Vector(v)
		gv, err := rb.Vector(v)
		if err != nil {
			t.Fatal(err)
		}
		return cv, gv
	}
	check := func(what string, p pair, n int, tol float64) {
		t.Helper()
		want := cb.Host(p.c, 0, n)
		got := rb.Host(p.g, 0, n)
		if err := rb.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		compare(t, what, got, want, tol)
	}
	const n, D = 5, 576
	x := alloc(8, D, randVec(r, 8*D, 1))
	out := alloc(8, D, nil)
	wc, wg := vec(randVec(r, D, 1))
	cb.RMSNorm(out.c, x.c, wc, n, 1e-5)
	rb.RMSNorm(out.g, x.g, wg, n, 1e-5)
	check("RMSNorm", out, n, 1e-6)

	hc, hg := vec(randVec(r, 64, 1))
	cb.HeadRMSNorm(x.c, hc, n, 9, 1e-6)
	rb.HeadRMSNorm(x.g, hg, n, 9, 1e-6)
	check("HeadRMSNorm", x, n, 1e-6)

	bc, bg := vec(randVec(r, D, 1))
	cb.AddBias(x.c, bc, n)
	rb.AddBias(x.g, bg, n)
	// From here x carries HeadRMSNorm's float rounding (1e-6).
	check("AddBias", x, n, 2e-6)

	u := alloc(8, D, randVec(r, 8*D, 1))
	gl := alloc(8, D, randVec(r, 8*D, 3))
	cb.SwiGLU(gl.c, u.c, n)
	rb.SwiGLU(gl.g, u.g, n)
	check("SwiGLU", gl, n, 1e-5)
	ge := alloc(8, D, randVec(r, 8*D, 4))
	cb.GeGLU(ge.c, u.c, n)
	rb.GeGLU(ge.g, u.g, n)
	// ggml's GELU reads a float16 table (GeGLU's doc): its input's
	// rounding, 2⁻¹¹ relative, bounds the difference.
	check("GeGLU", ge, n, 2e-3)

	cb.Scale(x.c, n, 1.7)
	rb.Scale(x.g, n, 1.7)
	check("Scale", x, n, 2e-6)
	cb.Add(x.c, u.c, n)
	rb.Add(x.g, u.g, n)
	check("Add", x, n, 2e-6)

	freqs := make([]float32, 32)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/7
	}
	for _, rp := range []backend.Rope{
		{Base: 10000, Dim: 64},
		{Base: 1e6, Dim: 64, Neox: true},
		{Base: 500000, Dim: 64, Freqs: freqs},
		{Base: 10000, Dim: 32, Scale: 1.2, PosScale: 0.125},
	} {
		q := alloc(8, D, randVec(r, 8*D, 1))
		cb.RoPE(q.c, n, 9, 64, 1000, rp)
		rb.RoPE(q.g, n, 9, 64, 1000, rp)
		// ggml computes each pair's angle as pos·base^(−2i/Dim) by a
		// float recurrence (θ ← θ·base^(−2/Dim)), as llama.cpp does; its
		// rounding grows with the position: 1.4e-4 of the largest value at
		// position 1,000.
		check(fmt.Sprintf("RoPE %+v", rp), q, n, 3e-4)
	}

	// Products in several types, through Linear and Linears, and the logits.
	for _, ty := range []tensor.Type{tensor.F32, tensor.F16, tensor.Q8_0, tensor.Q4_K} {
		c.Place(last, 1)
		m := f32Matrix(t, r, 96, 256, 0.1)
		if ty != tensor.F32 {
			rb, _ := ty.RowBytes(256)
			raw := make([]byte, 96*int(rb))
			if err := tensor.Quantize(ty, raw, f32Of(m)); err != nil {
				t.Fatal(err)
			}
			var err error
			if m, err = tensor.NewMatrix(ty, 96, 256, raw); err != nil {
				t.Fatal(err)
			}
		}
		cm, _ := cb.Matrix(m)
		gm, err := rb.Matrix(m)
		if err != nil {
			t.Fatal(err)
		}
		in := alloc(8, 256, randVec(r, 8*256, 1))
		o1, o2 := alloc(8, 96, nil), alloc(8, 96, nil)
		cb.Linear(o1.c, cm, in.c, n)
		rb.Linear(o1.g, gm, in.g, n)
		cb.Linears(in.c, n, backend.LinearOp{Dst: o2.c, W: cm})
		rb.Linears(in.g, n, backend.LinearOp{Dst: o2.g, W: gm})
		tol := 1e-5
		if ty != tensor.F32 {
			tol = 1e-2 // 8-bit activations on both sides; see conformance
		}
		check(fmt.Sprintf("Linear %s", ty), o1, n, tol)
		check(fmt.Sprintf("Linears %s", ty), o2, n, tol)
		lc, lg := make([]float32, 3*96), make([]float32, 3*96)
		cb.Logits(lc, cm, in.c, 2, 3)
		rb.Logits(lg, gm, in.g, 2, 3)
		compare(t, fmt.Sprintf("Logits %s", ty), lg, lc, tol)
	}

	// Embedding rows of a quantised table.
	{
		c.Place(-1, 1)
		m := f32Matrix(t, r, 40, 256, 1)
		raw := make([]byte, 40*256/32*34)
		if err := tensor.Quantize(tensor.Q8_0, raw, f32Of(m)); err != nil {
			t.Fatal(err)
		}
		qm, _ := tensor.NewMatrix(tensor.Q8_0, 40, 256, raw)
		cm, _ := cb.Matrix(qm)
		gm, _ := rb.Matrix(qm)
		e := alloc(8, 256, nil)
		toks := []int32{3, 39, 0, 7}
		if err := cb.Embed(e.c, cm, toks); err != nil {
			t.Fatal(err)
		}
		if err := rb.Embed(e.g, gm, toks); err != nil {
			t.Fatal(err)
		}
		check("Embed", e, len(toks), 0)
	}

	// Attention with grouped heads, over a cache filled in three steps.
	for _, o := range []backend.AttendOptions{{}, {SoftCap: 5}, {Window: 6}, {Scale: 0.3}} {
		for _, hd := range []int{64, 256, 16} {
			a := backend.Attention{Heads: 8, KVHeads: 2, HeadDim: hd}
			kc, _ := cb.NewKV(2, 32, a)
			kg, err := rb.NewKV(2, 32, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct{ pos0, n int }{{0, 11}, {11, 5}, {16, 1}} {
				k := alloc(16, 2*hd, randVec(r, 16*2*hd, 1))
				v := alloc(16, 2*hd, randVec(r, 16*2*hd, 1))
				q := alloc(16, 8*hd, randVec(r, 16*8*hd, 1))
				o2 := alloc(16, 8*hd, nil)
				cb.StoreKV(kc, 1, step.pos0, step.n, k.c, v.c)
				rb.StoreKV(kg, 1, step.pos0, step.n, k.g, v.g)
				cb.Attend(o2.c, q.c, kc, 1, step.pos0, step.n, o)
				rb.Attend(o2.g, q.g, kg, 1, step.pos0, step.n, o)
				check(fmt.Sprintf("Attend %+v hd %d at %d", o, hd, step.pos0), o2, step.n, 1e-5)
			}
			kr, vr := make([]float32, 2*hd), make([]float32, 2*hd)
			kw, vw := make([]float32, 2*hd), make([]float32, 2*hd)
			cb.ReadKV(kc, 1, 13, kw, vw)
			rb.ReadKV(kg, 1, 13, kr, vr)
			compare(t, "ReadKV keys", kr, kw, 0)
			compare(t, "ReadKV values", vr, vw, 0)
		}
	}

	// A rank-3 projection of rows 1…3.
	c.Place(0, 1)
	bm := f32Matrix(t, r, 3, D, 0.05)
	pc, _ := cb.Matrix(bm)
	pg, _ := rb.Matrix(bm)
	cb.Project(x.c, 1, 3, pc, -0.7)
	rb.Project(x.g, 1, 3, pg, -0.7)
	check("Project", x, n, 1e-5)
}

// f32Of is an F32 matrix's values.
func f32Of(m *tensor.Matrix) []float32 {
	out := make([]float32, m.Rows*m.Cols)
	copy(f32bytes(out), m.Data)
	return out
}
