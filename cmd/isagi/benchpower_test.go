package main

import (
	"testing"

	"github.com/isagi-lab/isagi/session"
)

func TestComputeLabel(t *testing.T) {
	for _, c := range []struct {
		i    session.Info
		note string
		want string
	}{
		{session.Info{Backend: "CUDA · NVIDIA H100", Kernels: "avx2", Threads: 4}, "", "CUDA · NVIDIA H100"},
		{session.Info{Kernels: "avx2", Threads: 2}, "", "cpu avx2 × 2 threads"},
		{session.Info{Kernels: "go"}, "", "cpu go"},
		{session.Info{Backend: "cpu avx2 × 2 threads"}, "CPU: no CUDA GPU found", "cpu avx2 × 2 threads\nno CUDA GPU found"},
	} {
		if got := computeLabel(c.i, c.note); got != c.want {
			t.Errorf("computeLabel(%+v) = %q, want %q", c.i, got, c.want)
		}
	}
}
