package remote

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// steer is a writing hook on some layers: it damps the residual stream's
// first coordinates, as an ablation does, and records what it saw.
type steer struct {
	layers []int
	seen   float64
}

func (h *steer) HookLayers() []int { return h.layers }

func (h *steer) AfterBlock(layer, pos int, x []float32) {
	for i := range 16 {
		h.seen += float64(x[i])
		x[i] *= 0.25
	}
}

// gauge is a read-only hook that sums the final hidden state.
type gauge struct{ sum float64 }

func (g *gauge) AfterNorm(pos int, h []float32) {
	for _, v := range h {
		g.sum += float64(v)
	}
}

// projections is a hand-made low-rank FFN for every block.
type projections struct{ blocks []model.BlockProjections }

func (p projections) Layers() int                        { return len(p.blocks) }
func (p projections) Block(l int) model.BlockProjections { return p.blocks[l] }

// TestLiving runs what the living features ask of a backend through one
// and two rpc-servers, each beside the CPU engine from the same inputs: a
// prompt longer than one batch and past a padding step of the attended
// length, hooks that write and read on chosen layers, projected products
// (GRC), and a rollback to an earlier position (speculative decoding), and
// wants the same logits.
func TestLiving(t *testing.T) {
	a1, _ := startServer(t, 2)
	a2, _ := startServer(t, 2)
	path := filepath.Join(sharedDir(), "fixtures", "stories260k", "stories260K-f32.gguf") // 512 positions
	for _, split := range [][]string{{a1}, {a1, a2}} {
		t.Run(fmt.Sprintf("%d servers", len(split)), func(t *testing.T) {
			c := dialT(t, split...)
			defer c.Close()
			m, err := model.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			rb, err := c.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Close()
			rs, err := m.NewStateOn(512, rb)
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			cs, err := m.NewStateOn(512, cpu.New(nil))
			if err != nil {
				t.Fatal(err)
			}
			V := m.Config.Vocab
			rl, cl := make([]float32, V), make([]float32, V)
			both := func(what string, f func(s *model.State, logits []float32) error) {
				t.Helper()
				if err := f(rs, rl); err != nil {
					t.Fatalf("%s: remote: %v", what, err)
				}
				if err := f(cs, cl); err != nil {
					t.Fatalf("%s: cpu: %v", what, err)
				}
				var worst, scale float64
				for i := range cl {
					worst = max(worst, math.Abs(float64(rl[i]-cl[i])))
					scale = max(scale, math.Abs(float64(cl[i])))
				}
				if worst > logitTolFloat*max(scale, 1) || math.IsNaN(worst) {
					t.Errorf("%s: logits differ by %g (largest %g)", what, worst, scale)
				}
				if backendtest.Argmax(rl) != backendtest.Argmax(cl) {
					t.Errorf("%s: the server's best token %d, the CPU's %d", what, backendtest.Argmax(rl), backendtest.Argmax(cl))
				}
			}
			prompt := make([]int32, 250) // 4 batches of 64; decode then passes 256 attended positions
			for i := range prompt {
				prompt[i] = int32((i*7919 + 13) % V)
			}
			both("a 300-token prompt", func(s *model.State, l []float32) error { return s.Forward(prompt, l) })
			for i := range 10 {
				both(fmt.Sprintf("decode %d", i), func(s *model.State, l []float32) error { return s.Forward([]int32{int32(i*37 + 5)}, l) })
			}

			// Hooks: a writer on two layers, a reader of the final norm.
			L := m.Config.Layers
			hr, hc := &steer{layers: []int{1, L - 1}}, &steer{layers: []int{1, L - 1}}
			gr, gc := &gauge{}, &gauge{}
			var removes []func()
			for _, p := range []struct {
				s    *model.State
				h, g any
			}{{rs, hr, gr}, {cs, hc, gc}} {
				for _, h := range []any{p.h, p.g} {
					rm, err := p.s.AddHook(h)
					if err != nil {
						t.Fatal(err)
					}
					removes = append(removes, rm)
				}
			}
			both("hooked prompt", func(s *model.State, l []float32) error { return s.Forward(prompt[:70], l) })
			both("hooked decode", func(s *model.State, l []float32) error { return s.Forward([]int32{11}, l) })
			if math.Abs(hr.seen-hc.seen) > 1e-3*math.Abs(hc.seen)+1e-3 || math.Abs(gr.sum-gc.sum) > 1e-3*math.Abs(gc.sum)+1e-2 {
				t.Errorf("hooks saw %g and %g on the server, %g and %g on the CPU", hr.seen, gr.sum, hc.seen, gc.sum)
			}
			for _, rm := range removes {
				rm()
			}

			// Rollback: forget the last 40 positions, continue elsewhere.
			back := rs.Pos() - 40
			rs.Truncate(back)
			cs.Truncate(back)
			both("after a rollback", func(s *model.State, l []float32) error { return s.Forward([]int32{3, 1, 4, 1, 5}, l) })

			// Projected FFN products in every block (rank 24).
			r := rand.New(rand.NewPCG(7, 8))
			c0 := m.Config
			p := projections{blocks: make([]model.BlockProjections, L)}
			for l := range L {
				in := f32Matrix(t, r, 24, c0.Dim, 0.2)
				p.blocks[l].FFN = &model.Projection{In: in, Out: []*tensor.Matrix{f32Matrix(t, r, c0.FFN, 24, 0.2), f32Matrix(t, r, c0.FFN, 24, 0.2)}}
			}
			for _, s := range []*model.State{rs, cs} {
				if err := s.SetProjections(p); err != nil {
					t.Fatal(err)
				}
			}
			both("projected decode", func(s *model.State, l []float32) error { return s.Forward([]int32{9, 2, 6}, l) })
			// Each block's projected weights sit on the block's server: a
			// decoded token still crosses between servers once.
			before := c.Stats().RoundTrips
			both("one projected token", func(s *model.State, l []float32) error { return s.Forward([]int32{7}, l) })
			if rt := c.Stats().RoundTrips - before; rt != int64(len(split)) {
				t.Errorf("a projected token took %d round trips through %d servers", rt, len(split))
			}
			if err := rb.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDecodeAllocs: decoding a token through a server allocates nothing
// (the requests are written from scratch the connection keeps).
func TestDecodeAllocs(t *testing.T) {
	a, _ := startServer(t, 1)
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
	defer b.Close()
	st, err := m.NewStateOn(256, b)
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Config.Vocab)
	next := []int32{1}
	if err := st.Forward([]int32{1, 2, 3}, logits); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := st.Forward(next, logits); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per decoded token", allocs)
	}
}

// TestConcurrentStates decodes on two States of one cluster from two
// goroutines at once, as isagi serve's conversations do (Share): the
// server serves one connection, which they share, and each must get the
// logits it would alone.
func TestConcurrentStates(t *testing.T) {
	a, _ := startServer(t, 2)
	c := dialT(t, a)
	m, err := model.Open(filepath.Join(sharedDir(), "fixtures", "kjv", "kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	first, err := c.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	run := func(b *Backend, seed int) ([]int32, error) {
		st, err := m.NewStateOn(256, b)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		logits := make([]float32, m.Config.Vocab)
		next := []int32{1, int32(seed + 2), int32(seed + 3)}
		var out []int32
		for range 24 {
			if err := st.Forward(next, logits); err != nil {
				return nil, err
			}
			next = []int32{int32(backendtest.Argmax(logits))}
			out = append(out, next[0])
		}
		return out, nil
	}
	want := make([][]int32, 2)
	for i := range want {
		if want[i], err = run(first, 10*i); err != nil {
			t.Fatal(err)
		}
	}
	shared, err := first.Share()
	if err != nil {
		t.Fatal(err)
	}
	defer shared.(*Backend).Close()
	got := make([][]int32, 2)
	errs := make([]error, 2)
	done := make(chan int)
	for i, b := range []*Backend{first, shared.(*Backend)} {
		go func() {
			got[i], errs[i] = run(b, 10*i)
			done <- i
		}()
	}
	<-done
	<-done
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			t.Errorf("conversation %d decoded %v beside another, %v alone", i, got[i], want[i])
		}
	}
}
