package session

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
)

// dying is the CPU backend that fails for good once killed, as a remote
// backend does when its server dies (its Err is sticky).
type dying struct {
	backend.Backend
	dead *atomic.Bool
}

func (d dying) Err() error {
	if d.dead.Load() {
		return errors.New("rpc server 127.0.0.1:1 closed the connection during GRAPH_COMPUTE")
	}
	return nil
}

func (d dying) Share() (backend.Backend, error) {
	b, err := d.Backend.Share()
	return dying{b, d.dead}, err
}

// TestDeadBackendSaysSo: once the backend fails, the turn says the failure
// lasts and how to recover, every later turn says so at once (on forks
// too), and BackendErr reports it.
func TestDeadBackendSaysSo(t *testing.T) {
	var dead atomic.Bool
	o := Options{Settings: greedy(), Backend: func(threads int) (backend.Backend, error) {
		return dying{cpu.New(nil), &dead}, nil
	}}
	s := open(t, fixture(t, "kjv/kjv-q8_0.gguf"), o)
	send(t, s, "And God said")
	if err := s.BackendErr(); err != nil {
		t.Fatalf("BackendErr on a working backend: %v", err)
	}
	f, err := s.Fork(0, greedy())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	dead.Store(true)
	_, err = s.Send(context.Background(), "And the LORD", func(Event) {})
	if !errors.Is(err, ErrBackendDead) || !strings.Contains(err.Error(), "restart isagi") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("the failing turn: %v, want the failure said as lasting, with how to recover", err)
	}
	for i, sess := range []*Session{s, f} {
		_, err := sess.Send(context.Background(), "again", func(Event) {})
		if !errors.Is(err, ErrBackendDead) {
			t.Errorf("turn after the failure (session %d): %v, want ErrBackendDead", i, err)
		}
		if err := sess.BackendErr(); !errors.Is(err, ErrBackendDead) || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("BackendErr (session %d): %v", i, err)
		}
	}
}
