package cu

import (
	"errors"
	"testing"
	"unsafe"
)

// TestKernelNodeParamsLayout: the struct handed to cuGraphAddKernelNode is
// CUDA_KERNEL_NODE_PARAMS_v1 of cuda.h on a 64-bit machine: the function at
// 0, seven unsigned ints from 8, kernelParams at 40, extra at 48, 56 bytes.
func TestKernelNodeParamsLayout(t *testing.T) {
	var p kernelNodeParams
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"size", unsafe.Sizeof(p), 56},
		{"gridDimX", unsafe.Offsetof(p.gridX), 8},
		{"blockDimX", unsafe.Offsetof(p.blockX), 20},
		{"sharedMemBytes", unsafe.Offsetof(p.shared), 32},
		{"kernelParams", unsafe.Offsetof(p.params), 40},
		{"extra", unsafe.Offsetof(p.extra), 48},
	} {
		if c.got != c.want {
			t.Errorf("CUDA_KERNEL_NODE_PARAMS %s at %d, want %d", c.what, c.got, c.want)
		}
	}
}

// TestGraphsOnZeroDriver: a Driver that did not come from Load has no
// graphs, and its graph calls fail with ErrNotInitialized rather than
// crash.
func TestGraphsOnZeroDriver(t *testing.T) {
	var d Driver
	if d.HasGraphs() {
		t.Error("a zero Driver says it has graphs")
	}
	if _, err := d.GraphCreate(); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphCreate: %v", err)
	}
	if _, err := d.GraphAddKernelNode(0, 0, 0, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, new(Args).I32(1)); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphAddKernelNode: %v", err)
	}
	if _, err := d.GraphInstantiate(0); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphInstantiate: %v", err)
	}
	if err := d.GraphLaunch(0, 0); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphLaunch: %v", err)
	}
	if err := d.GraphExecDestroy(0); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphExecDestroy: %v", err)
	}
	if err := d.GraphDestroy(0); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("GraphDestroy: %v", err)
	}
	a := new(Args)
	for range maxArgs + 1 {
		a.I32(0)
	}
	if _, err := d.GraphAddKernelNode(0, 0, 0, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, a); err == nil {
		t.Error("GraphAddKernelNode took an overflowed Args")
	}
}
