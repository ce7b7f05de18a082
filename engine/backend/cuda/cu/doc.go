// Package cu is the part of the CUDA driver API that the CUDA backend needs,
// loaded at run time from libcuda.so.1 without cgo.
//
// # Why it is built this way
//
// The isagi binary must start on every machine, most of which have no NVIDIA
// GPU and no NVIDIA driver. So nothing here links against CUDA: Load opens
// the driver library with dlopen (through github.com/ebitengine/purego) and
// resolves each entry point by name, and every failure — no libcuda.so.1, a
// driver without a symbol, a driver that reports no device — comes back as
// an error. Nothing in this package exits or panics on such a machine.
//
// Two alternatives were rejected:
//
//   - gorgonia.org/cu calls os.Exit from its package init when no device is
//     present (measured), so merely linking it would kill the binary on a
//     CPU-only machine.
//   - cgo against cuda.h would make the default build need the CUDA headers
//     and a C toolchain. With purego the package builds with CGO_ENABLED=0
//     and with CGO_ENABLED=1 (as CI and the race detector use), and needs
//     neither the toolkit nor a GPU at build time.
//
// One cost of purego: it reaches dlopen through the C library, so a
// CGO_ENABLED=0 binary that imports this package is dynamically linked
// against glibc's libc.so.6 and libdl.so.2 instead of being fully static.
//
// Only linux/amd64 and linux/arm64 load a driver; on every other platform
// Load returns an error, which keeps cross-compiles of the binary working.
//
// # Threads and contexts
//
// A CUDA context is current per OS thread, while goroutines move between
// threads at any function call. A call made after the goroutine has moved
// would run against whatever context the new thread has (usually none, and
// the call fails with CUDA_ERROR_INVALID_CONTEXT). Callers therefore pin the
// goroutine with runtime.LockOSThread, call SetCurrent, issue a group of
// calls and then unlock; Driver.WithContext does exactly that.
//
// # Graphs
//
// The CUDA graph entry points (graph.go) are optional: Load resolves them
// apart from the others, a driver without them still loads, and HasGraphs
// says false (MissingGraphSymbol names the one missing). Graphs are built
// node by node (cuGraphAddKernelNode) rather than by stream capture, so
// that building one never interferes with other threads' work on the
// device, and each node is exactly the launch it replaces.
//
// # Errors
//
// When the driver fails a call, the Driver method returns an error that
// names the driver call and, where the driver can say, the CUDA error name
// and description (from cuGetErrorName and cuGetErrorString), such as
// "cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected". It
// wraps a Result, so callers test for particular codes with
// errors.Is(err, cu.ErrNoDevice) or pull the code out with errors.As.
//
// # Allocation
//
// Copies, memsets, launches (with a reused Args), synchronisation and
// WithContext allocate nothing per call (measured on an H100 with
// testing.AllocsPerRun; graph launches are checked the same way by
// TestGPUGraph, not run on a GPU yet); see call.go for how. Under the race detector
// sync.Pool drops items on purpose, so there they allocate now and then.
package cu
