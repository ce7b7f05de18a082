package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// backendCounts are what a testBackend and its Shares saw.
type backendCounts struct {
	states, shares, closes int
}

// testBackend is the CPU under another name, counting the States made on
// it (one KV cache each), its Shares and its Closes.
type testBackend struct {
	backend.Backend
	n *backendCounts
}

func (b *testBackend) Name() string { return "test backend" }

func (b *testBackend) NewKV(layers, ctx int, a backend.Attention) (backend.KV, error) {
	b.n.states++
	return b.Backend.NewKV(layers, ctx, a)
}

func (b *testBackend) Share() (backend.Backend, error) {
	b.n.shares++
	inner, err := b.Backend.Share()
	if err != nil {
		return nil, err
	}
	return &testBackend{Backend: inner, n: b.n}, nil
}

func (b *testBackend) Close() error {
	b.n.closes++
	return nil
}

// TestOptionsBackend: the backend Options.Backend makes runs every State
// the session makes — the conversation's, MCR's calibration, the
// drafter's, Hidden's — and a fork's runs on a Share of it; Info names
// it; Close closes each once. A constructor's error fails Open.
func TestOptionsBackend(t *testing.T) {
	path := fixture(t, "kjv/kjv-f32.gguf")
	n := &backendCounts{}
	var made *testBackend
	threads := 0
	o := Options{Settings: greedy(), Threads: 1, Backend: func(th int) (backend.Backend, error) {
		threads = th
		pool := tensor.NewPool(th)
		t.Cleanup(pool.Close)
		made = &testBackend{Backend: cpu.New(tensor.NewKernels(pool)), n: n}
		return made, nil
	}}
	s, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if threads != 1 || n.states != 1 {
		t.Fatalf("the constructor got %d threads and %d states were made, want 1 and 1", threads, n.states)
	}
	if i := s.Info(); i.Backend != "test backend" || i.Kernels != "" {
		t.Fatalf("Info names backend %q, kernels %q", i.Backend, i.Kernels)
	}
	if src := s.gm.CalibrationSource(); src.Backend != backend.Backend(made) {
		t.Fatalf("calibration runs on %v, not the session's backend", src.Backend)
	}
	// An MCR drafter: the calibration pass and the drafter, one state each.
	if err := s.Set("draft", "rank:64,qkv,mcr"); err != nil {
		t.Fatal(err)
	}
	if n.states != 3 {
		t.Fatalf("%d states after /set draft with MCR, want 3", n.states)
	}
	if turn := send(t, s, "And God said"); turn.Spec == nil || turn.Spec.Drafter == "" {
		t.Fatalf("no speculation on the test backend: %+v", turn.Spec)
	}
	if _, err := s.pr.Hidden(context.Background(), "In the beginning", []int{0}, 0); err != nil {
		t.Fatal(err)
	}
	if n.states != 4 {
		t.Fatalf("%d states after Hidden, want 4", n.states)
	}
	f, err := s.Fork(0, greedy())
	if err != nil {
		t.Fatal(err)
	}
	if n.shares != 1 || n.states != 5 {
		t.Fatalf("a fork: %d shares and %d states in all, want 1 and 5", n.shares, n.states)
	}
	send(t, f, "And God said")
	f.Close()
	if n.closes != 1 {
		t.Fatalf("closing the fork closed %d backends, want its share", n.closes)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n.closes != 2 {
		t.Fatalf("%d closes in all, want 2", n.closes)
	}

	refuse := errors.New("no device")
	o.Backend = func(int) (backend.Backend, error) { return nil, refuse }
	if _, err := Open(path, o); !errors.Is(err, refuse) || !strings.HasPrefix(err.Error(), "session: ") {
		t.Fatalf("a refused backend: %v", err)
	}
}
