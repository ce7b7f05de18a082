package cu

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Graph is a CUgraph: a graph of kernel nodes being built (GraphCreate,
// GraphAddKernelNode), turned into a GraphExec by GraphInstantiate.
type Graph uintptr

// GraphNode is a CUgraphNode, one node of a Graph.
type GraphNode uintptr

// GraphExec is a CUgraphExec: an instantiated graph, launched as a whole
// by GraphLaunch, as often as wanted.
type GraphExec uintptr

// graphSymbols are the graph entry points. Unlike the symbols of table they
// are optional: a driver without them (CUDA before 11.4 lacks
// cuGraphInstantiateWithFlags) loads, and HasGraphs says false.
type graphSymbols struct {
	create, addKernelNode, instantiate, launch, execDestroy, destroy uintptr
}

// graphTable lists the graph symbols. cuGraphAddKernelNode is the entry
// point of CUDA_KERNEL_NODE_PARAMS_v1 (kernelNodeParams below), which
// every driver since CUDA 10 keeps.
func (s *graphSymbols) graphTable() []symbol {
	return []symbol{
		{"cuGraphCreate", &s.create},
		{"cuGraphAddKernelNode", &s.addKernelNode},
		{"cuGraphInstantiateWithFlags", &s.instantiate},
		{"cuGraphLaunch", &s.launch},
		{"cuGraphExecDestroy", &s.execDestroy},
		{"cuGraphDestroy", &s.destroy},
	}
}

// HasGraphs says whether the driver has every graph entry point; when it
// does not, MissingGraphSymbol names the first one missing.
func (d *Driver) HasGraphs() bool { return d.graphMissing == "" && d.gsym.launch != 0 }

// MissingGraphSymbol names the graph entry point the driver lacks, or is
// "" when it has them all.
func (d *Driver) MissingGraphSymbol() string { return d.graphMissing }

// kernelNodeParams is CUDA_KERNEL_NODE_PARAMS_v1 (cuda.h): the function,
// grid and block sizes, dynamic shared bytes, and the kernelParams array
// (extra is left null).
type kernelNodeParams struct {
	fn                     uintptr
	gridX, gridY, gridZ    uint32
	blockX, blockY, blockZ uint32
	shared                 uint32
	params                 unsafe.Pointer
	extra                  unsafe.Pointer
}

// GraphCreate creates an empty graph (cuGraphCreate).
func (d *Driver) GraphCreate() (Graph, error) {
	var g Graph
	if r := d.call2(d.gsym.create, uintptr(unsafe.Pointer(&g)), 0); r != 0 {
		return 0, d.err("cuGraphCreate", r)
	}
	return g, nil
}

// GraphAddKernelNode adds a kernel node to g that runs after dep (none
// when dep is 0), with the launch's grid, block, dynamic shared bytes and
// arguments as Launch takes them. The driver copies the arguments, so a
// may be repacked as soon as the call returns.
func (d *Driver) GraphAddKernelNode(g Graph, dep GraphNode, f Function, grid, block [3]uint32, shared uint32, a *Args) (GraphNode, error) {
	p := &kernelNodeParams{fn: uintptr(f), gridX: grid[0], gridY: grid[1], gridZ: grid[2],
		blockX: block[0], blockY: block[1], blockZ: block[2], shared: shared}
	if a != nil {
		if a.dropped > 0 {
			return 0, fmt.Errorf("cuGraphAddKernelNode: %d kernel arguments given, more than the %d an Args holds", a.n+a.dropped, maxArgs)
		}
		a.fill()
		p.params = unsafe.Pointer(&a.ptrs[0])
	}
	var n GraphNode
	deps, ndeps := uintptr(0), uintptr(0)
	if dep != 0 {
		deps, ndeps = uintptr(unsafe.Pointer(&dep)), 1
	}
	r := d.call5(d.gsym.addKernelNode, uintptr(unsafe.Pointer(&n)), uintptr(g), deps, ndeps, uintptr(unsafe.Pointer(p)))
	runtime.KeepAlive(a)
	if r != 0 {
		return 0, d.err(fmt.Sprintf("cuGraphAddKernelNode(grid %v, block %v)", grid, block), r)
	}
	return n, nil
}

// GraphInstantiate makes an executable graph of g
// (cuGraphInstantiateWithFlags, no flags). g may be destroyed after.
func (d *Driver) GraphInstantiate(g Graph) (GraphExec, error) {
	var e GraphExec
	if r := d.call3(d.gsym.instantiate, uintptr(unsafe.Pointer(&e)), uintptr(g), 0); r != 0 {
		return 0, d.err("cuGraphInstantiateWithFlags", r)
	}
	return e, nil
}

// GraphLaunch queues e on stream s, ordered there like a launch. It
// allocates nothing.
func (d *Driver) GraphLaunch(e GraphExec, s Stream) error {
	if r := d.call2(d.gsym.launch, uintptr(e), uintptr(s)); r != 0 {
		return d.err("cuGraphLaunch", r)
	}
	return nil
}

// GraphExecDestroy destroys an executable graph.
func (d *Driver) GraphExecDestroy(e GraphExec) error {
	if r := d.call1(d.gsym.execDestroy, uintptr(e)); r != 0 {
		return d.err("cuGraphExecDestroy", r)
	}
	return nil
}

// GraphDestroy destroys a graph (its executable graphs live on).
func (d *Driver) GraphDestroy(g Graph) error {
	if r := d.call1(d.gsym.destroy, uintptr(g)); r != 0 {
		return d.err("cuGraphDestroy", r)
	}
	return nil
}
