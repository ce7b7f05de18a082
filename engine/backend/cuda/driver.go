package cuda

import (
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
)

// driver is the part of the CUDA driver a Device uses once it is open:
// *cu.Driver on a GPU, and in tests a recorder that checks every launch
// against the kernels' PTX signatures, so that the host side (memory plan,
// launch dimensions, argument packing) is tested without a GPU.
type driver interface {
	SetCurrent(c cu.Context) error
	Alloc(bytes uint64) (cu.DevicePtr, error)
	Free(p cu.DevicePtr) error
	MemsetD8(p cu.DevicePtr, v byte, n uint64) error
	HtoD(dst cu.DevicePtr, src unsafe.Pointer, bytes uint64) error
	DtoH(dst unsafe.Pointer, src cu.DevicePtr, bytes uint64) error
	Launch(f cu.Function, grid, block [3]uint32, shared uint32, s cu.Stream, a *cu.Args) error
	MemGetInfo() (free, total uint64, err error)
	UnloadModule(m cu.Module) error
	ReleasePrimaryContext(dev cu.Device) error

	// The graph entry points (cu/graph.go): a decode step runs as one
	// graph where HasGraphs says the driver has them (graph.go).
	HasGraphs() bool
	MissingGraphSymbol() string
	GraphCreate() (cu.Graph, error)
	GraphAddKernelNode(g cu.Graph, dep cu.GraphNode, f cu.Function, grid, block [3]uint32, shared uint32, a *cu.Args) (cu.GraphNode, error)
	GraphInstantiate(g cu.Graph) (cu.GraphExec, error)
	GraphLaunch(e cu.GraphExec, s cu.Stream) error
	GraphExecDestroy(e cu.GraphExec) error
	GraphDestroy(g cu.Graph) error
}

var _ driver = (*cu.Driver)(nil)
