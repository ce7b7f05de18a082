package cu

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// DevicePtr is a CUdeviceptr: an address in device memory. It is a number,
// not a Go pointer, so the garbage collector neither traces nor frees it;
// Free does.
type DevicePtr uint64

// Device is a CUdevice: the driver's handle for a GPU, obtained from its
// ordinal with Driver.Device.
type Device int32

// Context is a CUcontext handle. The package only uses primary contexts
// (PrimaryContext), the one context per device that the runtime API and
// other libraries share.
type Context uintptr

// Module is a CUmodule handle: a loaded PTX or cubin image.
type Module uintptr

// Function is a CUfunction handle: a kernel in a loaded Module.
type Function uintptr

// Stream is a CUstream handle. The zero Stream is the legacy default stream,
// which synchronises with every other blocking stream.
type Stream uintptr

// Event is a CUevent handle, used to order streams and time GPU work.
type Event uintptr

// DeviceAttribute is a CUdevice_attribute, the property Attribute asks for.
type DeviceAttribute int32

// The device attributes the backend reads to size its kernels and to
// estimate memory bandwidth (values from cuda.h).
const (
	// AttrClockRate is the typical SM clock in kHz.
	AttrClockRate DeviceAttribute = 13
	// AttrMultiprocessorCount is the number of SMs, which sizes grids.
	AttrMultiprocessorCount DeviceAttribute = 16
	// AttrMemoryClockRate is the peak memory clock in kHz.
	AttrMemoryClockRate DeviceAttribute = 36
	// AttrGlobalMemoryBusWidth is the memory bus width in bits; with the
	// memory clock it gives the peak bandwidth.
	AttrGlobalMemoryBusWidth DeviceAttribute = 37
	// AttrComputeCapabilityMajor is the major compute capability (9 for
	// Hopper).
	AttrComputeCapabilityMajor DeviceAttribute = 75
	// AttrComputeCapabilityMinor is the minor compute capability.
	AttrComputeCapabilityMinor DeviceAttribute = 76
	// AttrMaxSharedMemoryPerBlockOptin is the most dynamic shared memory a
	// block may use after SetMaxDynamicShared opts in, beyond the default
	// 48 KiB.
	AttrMaxSharedMemoryPerBlockOptin DeviceAttribute = 97
)

// Flags and option codes passed to the driver (values from cuda.h).
const (
	streamNonBlocking             = 1 // CU_STREAM_NON_BLOCKING
	eventDefault                  = 0 // CU_EVENT_DEFAULT: timing enabled, for EventElapsed
	funcAttrMaxDynamicSharedBytes = 8 // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	jitErrorLogBuffer             = 5 // CU_JIT_ERROR_LOG_BUFFER
	jitErrorLogBufferSizeBytes    = 6 // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
	jitErrorLogSize               = 16 << 10
)

// Driver is a loaded CUDA driver: the addresses of the driver functions this
// package calls. Make one with Load and use it by pointer. Its function table
// is never modified after Load, so one Driver may be used from many
// goroutines at once (the driver API itself is thread-safe).
//
// Thread binding: the CUDA context a call acts on is the one current on the
// calling OS thread, and a goroutine may move to another thread between any
// two calls. Every call that works in a context (memory, modules, streams,
// launches, Synchronize, MemGetInfo) must therefore be issued from a
// goroutine locked to its thread (runtime.LockOSThread) on which SetCurrent
// has been called, for the whole group of calls. WithContext does this
// around a function. Init, DriverVersion and the device queries need no
// context.
type Driver struct {
	lib  string // the library name that dlopen accepted, for messages
	sym  symbols
	bufs sync.Pool // *argBuf for purego.SyscallN; see call.go
	// gsym are the optional graph entry points (graph.go); graphMissing
	// names the first one the driver lacks, "" when it has them all.
	gsym         graphSymbols
	graphMissing string
	// profStart and profStop are cuProfilerStart and cuProfilerStop, 0
	// when the driver lacks them (profile.go).
	profStart, profStop uintptr
}

// symbols holds the address of each driver function; Load fills every field
// and fails if any is missing.
type symbols struct {
	getErrorName, getErrorString                                            uintptr
	init, driverGetVersion                                                  uintptr
	deviceGetCount, deviceGet, deviceGetName, deviceTotalMem, deviceGetAttr uintptr
	primaryCtxRetain, primaryCtxRelease, ctxSetCurrent, ctxSynchronize      uintptr
	memGetInfo, memAlloc, memFree                                           uintptr
	memcpyHtoD, memcpyDtoH, memcpyDtoD, memcpyHtoDAsync, memcpyDtoHAsync    uintptr
	memsetD8, memsetD32Async                                                uintptr
	moduleLoadDataEx, moduleUnload, moduleGetFunction, funcSetAttribute     uintptr
	streamCreate, streamDestroy, streamSynchronize                          uintptr
	eventCreate, eventRecord, eventSynchronize, eventElapsed, eventDestroy  uintptr
	memAllocHost, memFreeHost                                               uintptr
	launchKernel                                                            uintptr
}

// symbol pairs a driver export with the field that receives its address.
type symbol struct {
	name string
	fn   *uintptr
}

// table lists every symbol Load resolves. The names are the ones cuda.h's
// macros map the API to (the _v2 entry points take 64-bit sizes and
// pointers); the unsuffixed names of those calls are the old 32-bit ABI.
func (s *symbols) table() []symbol {
	return []symbol{
		{"cuGetErrorName", &s.getErrorName},
		{"cuGetErrorString", &s.getErrorString},
		{"cuInit", &s.init},
		{"cuDriverGetVersion", &s.driverGetVersion},
		{"cuDeviceGetCount", &s.deviceGetCount},
		{"cuDeviceGet", &s.deviceGet},
		{"cuDeviceGetName", &s.deviceGetName},
		{"cuDeviceTotalMem_v2", &s.deviceTotalMem},
		{"cuDeviceGetAttribute", &s.deviceGetAttr},
		{"cuDevicePrimaryCtxRetain", &s.primaryCtxRetain},
		{"cuDevicePrimaryCtxRelease_v2", &s.primaryCtxRelease},
		{"cuCtxSetCurrent", &s.ctxSetCurrent},
		{"cuCtxSynchronize", &s.ctxSynchronize},
		{"cuMemGetInfo_v2", &s.memGetInfo},
		{"cuMemAlloc_v2", &s.memAlloc},
		{"cuMemFree_v2", &s.memFree},
		{"cuMemcpyHtoD_v2", &s.memcpyHtoD},
		{"cuMemcpyDtoH_v2", &s.memcpyDtoH},
		{"cuMemcpyDtoD_v2", &s.memcpyDtoD},
		{"cuMemcpyHtoDAsync_v2", &s.memcpyHtoDAsync},
		{"cuMemcpyDtoHAsync_v2", &s.memcpyDtoHAsync},
		{"cuMemsetD8_v2", &s.memsetD8},
		{"cuMemsetD32Async", &s.memsetD32Async},
		{"cuModuleLoadDataEx", &s.moduleLoadDataEx},
		{"cuModuleUnload", &s.moduleUnload},
		{"cuModuleGetFunction", &s.moduleGetFunction},
		{"cuFuncSetAttribute", &s.funcSetAttribute},
		{"cuStreamCreate", &s.streamCreate},
		{"cuStreamDestroy_v2", &s.streamDestroy},
		{"cuStreamSynchronize", &s.streamSynchronize},
		{"cuEventCreate", &s.eventCreate},
		{"cuEventRecord", &s.eventRecord},
		{"cuEventSynchronize", &s.eventSynchronize},
		{"cuEventElapsedTime", &s.eventElapsed},
		{"cuEventDestroy_v2", &s.eventDestroy},
		{"cuMemAllocHost_v2", &s.memAllocHost},
		{"cuMemFreeHost", &s.memFreeHost},
		{"cuLaunchKernel", &s.launchKernel},
	}
}

// Init initialises the driver (cuInit(0)). It must succeed before any other
// call except DriverVersion. On a machine with a driver but no GPU it
// returns an error wrapping ErrNoDevice.
func (d *Driver) Init() error {
	if r := d.call1(d.sym.init, 0); r != 0 {
		return d.err("cuInit", r)
	}
	return nil
}

// DriverVersion returns the CUDA version the driver supports, as 1000*major
// + 10*minor (12020 is CUDA 12.2). It works before Init, so it can report
// the driver even where Init finds no device.
func (d *Driver) DriverVersion() (int, error) {
	var v int32
	if r := d.call1(d.sym.driverGetVersion, uintptr(unsafe.Pointer(&v))); r != 0 {
		return 0, d.err("cuDriverGetVersion", r)
	}
	return int(v), nil
}

// DeviceCount returns how many CUDA devices the driver sees.
func (d *Driver) DeviceCount() (int, error) {
	var n int32
	if r := d.call1(d.sym.deviceGetCount, uintptr(unsafe.Pointer(&n))); r != 0 {
		return 0, d.err("cuDeviceGetCount", r)
	}
	return int(n), nil
}

// Device returns the handle of the device with the given ordinal
// (0 ≤ ordinal < DeviceCount).
func (d *Driver) Device(ordinal int) (Device, error) {
	var dev Device
	if r := d.call2(d.sym.deviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal)); r != 0 {
		return 0, d.err(fmt.Sprintf("cuDeviceGet(%d)", ordinal), r)
	}
	return dev, nil
}

// DeviceName returns the product name of dev, such as "NVIDIA H100 80GB
// HBM3".
func (d *Driver) DeviceName(dev Device) (string, error) {
	var buf [256]byte
	if r := d.call3(d.sym.deviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(dev)); r != 0 {
		return "", d.err(fmt.Sprintf("cuDeviceGetName(device %d)", dev), r)
	}
	return string(buf[:cLen(buf[:])]), nil
}

// TotalMem returns the total memory of dev in bytes.
func (d *Driver) TotalMem(dev Device) (uint64, error) {
	var n uint64
	if r := d.call2(d.sym.deviceTotalMem, uintptr(unsafe.Pointer(&n)), uintptr(dev)); r != 0 {
		return 0, d.err(fmt.Sprintf("cuDeviceTotalMem_v2(device %d)", dev), r)
	}
	return n, nil
}

// Attribute returns one property of dev, such as AttrMultiprocessorCount.
func (d *Driver) Attribute(dev Device, attr DeviceAttribute) (int, error) {
	var v int32
	if r := d.call3(d.sym.deviceGetAttr, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev)); r != 0 {
		return 0, d.err(fmt.Sprintf("cuDeviceGetAttribute(attribute %d, device %d)", attr, dev), r)
	}
	return int(v), nil
}

// PrimaryContext retains dev's primary context and returns it; it is not
// made current (SetCurrent does that). Each successful call must be matched
// by a ReleasePrimaryContext.
func (d *Driver) PrimaryContext(dev Device) (Context, error) {
	var c Context
	if r := d.call2(d.sym.primaryCtxRetain, uintptr(unsafe.Pointer(&c)), uintptr(dev)); r != 0 {
		return 0, d.err(fmt.Sprintf("cuDevicePrimaryCtxRetain(device %d)", dev), r)
	}
	return c, nil
}

// ReleasePrimaryContext drops one retain of dev's primary context; the
// context, and all memory in it, is destroyed when the last retain goes.
func (d *Driver) ReleasePrimaryContext(dev Device) error {
	if r := d.call1(d.sym.primaryCtxRelease, uintptr(dev)); r != 0 {
		return d.err(fmt.Sprintf("cuDevicePrimaryCtxRelease_v2(device %d)", dev), r)
	}
	return nil
}

// SetCurrent makes c the current context of the calling OS thread. The
// goroutine must stay locked to that thread (runtime.LockOSThread) for as
// long as it relies on c being current; see Driver.
func (d *Driver) SetCurrent(c Context) error {
	if r := d.call1(d.sym.ctxSetCurrent, uintptr(c)); r != 0 {
		return d.err("cuCtxSetCurrent", r)
	}
	return nil
}

// WithContext runs f with c current: it locks the goroutine to its OS
// thread, calls SetCurrent(c), runs f and unlocks. It returns SetCurrent's
// error (without running f) or f's. c stays current on that thread
// afterwards, which is harmless: the next user of the thread sets its own.
// Locks nest, so f may itself call WithContext.
//
// WithContext allocates nothing; f should be a method value or closure made
// once beforehand, since making a capturing closure per call may allocate.
func (d *Driver) WithContext(c Context, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.SetCurrent(c); err != nil {
		return err
	}
	return f()
}

// Synchronize waits until all work in the current context has finished,
// and reports the first asynchronous error (such as a faulting kernel).
func (d *Driver) Synchronize() error {
	if r := d.call0(d.sym.ctxSynchronize); r != 0 {
		return d.err("cuCtxSynchronize", r)
	}
	return nil
}

// MemGetInfo returns the free and total memory, in bytes, of the current
// context's device.
func (d *Driver) MemGetInfo() (free, total uint64, err error) {
	if r := d.call2(d.sym.memGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))); r != 0 {
		return 0, 0, d.err("cuMemGetInfo_v2", r)
	}
	return free, total, nil
}

// Alloc allocates bytes of device memory in the current context. The
// memory is not cleared. Failure for lack of memory wraps ErrOutOfMemory.
func (d *Driver) Alloc(bytes uint64) (DevicePtr, error) {
	var p DevicePtr
	if r := d.call2(d.sym.memAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes)); r != 0 {
		return 0, d.err(fmt.Sprintf("cuMemAlloc_v2(%d bytes)", bytes), r)
	}
	return p, nil
}

// Free releases device memory from Alloc.
func (d *Driver) Free(p DevicePtr) error {
	if r := d.call1(d.sym.memFree, uintptr(p)); r != 0 {
		return d.err(fmt.Sprintf("cuMemFree_v2(%#x)", uint64(p)), r)
	}
	return nil
}

// HtoD copies bytes from host memory at src to device memory at dst and
// returns when the copy is done. src may be Go memory (Go's heap does not
// move); the caller keeps it alive.
func (d *Driver) HtoD(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	if r := d.call3(d.sym.memcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes)); r != 0 {
		return d.err(fmt.Sprintf("cuMemcpyHtoD_v2(%d bytes)", bytes), r)
	}
	return nil
}

// DtoH copies bytes from device memory at src to host memory at dst and
// returns when the copy is done.
func (d *Driver) DtoH(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	if r := d.call3(d.sym.memcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes)); r != 0 {
		return d.err(fmt.Sprintf("cuMemcpyDtoH_v2(%d bytes)", bytes), r)
	}
	return nil
}

// DtoD copies bytes between device buffers. It is asynchronous with respect
// to the host: it is ordered on the default stream.
func (d *Driver) DtoD(dst, src DevicePtr, bytes uint64) error {
	if r := d.call3(d.sym.memcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes)); r != 0 {
		return d.err(fmt.Sprintf("cuMemcpyDtoD_v2(%d bytes)", bytes), r)
	}
	return nil
}

// HtoDAsync queues a copy of bytes from host src to device dst on stream s.
// It is only truly asynchronous when src is pinned (MemAllocHost); either
// way src must stay alive and unchanged until s has been synchronised.
func (d *Driver) HtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes uint64, s Stream) error {
	if r := d.call4(d.sym.memcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s)); r != 0 {
		return d.err(fmt.Sprintf("cuMemcpyHtoDAsync_v2(%d bytes)", bytes), r)
	}
	return nil
}

// DtoHAsync queues a copy of bytes from device src to host dst on stream s.
// dst should be pinned (MemAllocHost); it must not be read, and must stay
// alive, until s has been synchronised.
func (d *Driver) DtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes uint64, s Stream) error {
	if r := d.call4(d.sym.memcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s)); r != 0 {
		return d.err(fmt.Sprintf("cuMemcpyDtoHAsync_v2(%d bytes)", bytes), r)
	}
	return nil
}

// MemsetD8 sets n bytes of device memory at p to v.
func (d *Driver) MemsetD8(p DevicePtr, v byte, n uint64) error {
	if r := d.call3(d.sym.memsetD8, uintptr(p), uintptr(v), uintptr(n)); r != 0 {
		return d.err(fmt.Sprintf("cuMemsetD8_v2(%d bytes)", n), r)
	}
	return nil
}

// MemsetD32Async queues setting n 32-bit words (not bytes) at p to v on
// stream s; p must be 4-byte aligned. Zeroing float32 buffers is its main
// use (0.0 is all zero bits).
func (d *Driver) MemsetD32Async(p DevicePtr, v uint32, n uint64, s Stream) error {
	if r := d.call4(d.sym.memsetD32Async, uintptr(p), uintptr(v), uintptr(n), uintptr(s)); r != 0 {
		return d.err(fmt.Sprintf("cuMemsetD32Async(%d words)", n), r)
	}
	return nil
}

// jitValues is the optionValues array of cuModuleLoadDataEx for the options
// {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}: a void*[2]
// whose second slot holds a number, not a pointer. Typing the slots
// separately keeps the number out of a pointer field the garbage collector
// would scan, and, because the value escapes through the call, makes the log
// buffer it points at escape to the heap as well.
type jitValues struct {
	errLog     unsafe.Pointer
	errLogSize uintptr
}

// LoadModule loads a module image into the current context: PTX text,
// JIT-compiled for the device, or a cubin. PTX must end with a NUL byte;
// one is added (to a copy) when missing. If the load fails, the error
// includes the JIT compiler's error log.
func (d *Driver) LoadModule(image []byte) (Module, error) {
	if len(image) == 0 {
		return 0, fmt.Errorf("cuModuleLoadDataEx: empty module image")
	}
	if image[len(image)-1] != 0 {
		// A copy, not append: append could write the NUL into spare
		// capacity of the caller's array.
		img := make([]byte, len(image)+1)
		copy(img, image)
		image = img
	}
	log := make([]byte, jitErrorLogSize)
	opts := [2]uint32{jitErrorLogBuffer, jitErrorLogBufferSizeBytes}
	vals := &jitValues{errLog: unsafe.Pointer(&log[0]), errLogSize: uintptr(len(log))}
	var m Module
	r := d.call5(d.sym.moduleLoadDataEx,
		uintptr(unsafe.Pointer(&m)),
		uintptr(unsafe.Pointer(&image[0])),
		uintptr(len(opts)),
		uintptr(unsafe.Pointer(&opts[0])),
		uintptr(unsafe.Pointer(vals)))
	runtime.KeepAlive(log)
	if r != 0 {
		err := d.err(fmt.Sprintf("cuModuleLoadDataEx(%d-byte image)", len(image)), r)
		if msg := strings.TrimSpace(string(log[:cLen(log)])); msg != "" {
			return 0, fmt.Errorf("%w; JIT log:\n%s", err, msg)
		}
		return 0, err
	}
	return m, nil
}

// UnloadModule unloads m from the current context; its Functions become
// invalid.
func (d *Driver) UnloadModule(m Module) error {
	if r := d.call1(d.sym.moduleUnload, uintptr(m)); r != 0 {
		return d.err("cuModuleUnload", r)
	}
	return nil
}

// Function looks up the kernel called name in m. Kernels written in CUDA
// C++ must be declared extern "C" to keep their names unmangled.
func (d *Driver) Function(m Module, name string) (Function, error) {
	cname := make([]byte, len(name)+1)
	copy(cname, name)
	var f Function
	if r := d.call3(d.sym.moduleGetFunction, uintptr(unsafe.Pointer(&f)), uintptr(m), uintptr(unsafe.Pointer(&cname[0]))); r != 0 {
		return 0, d.err(fmt.Sprintf("cuModuleGetFunction(%q)", name), r)
	}
	return f, nil
}

// SetMaxDynamicShared lets f be launched with up to bytes of dynamic shared
// memory. Launches asking for more than 48 KiB fail without this opt-in;
// the device limit is AttrMaxSharedMemoryPerBlockOptin.
func (d *Driver) SetMaxDynamicShared(f Function, bytes int) error {
	if r := d.call3(d.sym.funcSetAttribute, uintptr(f), funcAttrMaxDynamicSharedBytes, uintptr(bytes)); r != 0 {
		return d.err(fmt.Sprintf("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d)", bytes), r)
	}
	return nil
}

// StreamCreate creates a stream in the current context. It is
// non-blocking (CU_STREAM_NON_BLOCKING): it does not synchronise with the
// legacy default stream, so work on it overlaps work that other code queues
// there.
func (d *Driver) StreamCreate() (Stream, error) {
	var s Stream
	if r := d.call2(d.sym.streamCreate, uintptr(unsafe.Pointer(&s)), streamNonBlocking); r != 0 {
		return 0, d.err("cuStreamCreate", r)
	}
	return s, nil
}

// StreamDestroy destroys s once its queued work completes; the call itself
// does not wait.
func (d *Driver) StreamDestroy(s Stream) error {
	if r := d.call1(d.sym.streamDestroy, uintptr(s)); r != 0 {
		return d.err("cuStreamDestroy_v2", r)
	}
	return nil
}

// StreamSynchronize waits until all work queued on s has finished, and
// reports the first asynchronous error.
func (d *Driver) StreamSynchronize(s Stream) error {
	if r := d.call1(d.sym.streamSynchronize, uintptr(s)); r != 0 {
		return d.err("cuStreamSynchronize", r)
	}
	return nil
}

// EventCreate creates an event in the current context, with timing enabled
// so that EventElapsed can measure between two events.
func (d *Driver) EventCreate() (Event, error) {
	var e Event
	if r := d.call2(d.sym.eventCreate, uintptr(unsafe.Pointer(&e)), eventDefault); r != 0 {
		return 0, d.err("cuEventCreate", r)
	}
	return e, nil
}

// EventRecord queues e on stream s: it completes when the work queued on s
// before it has completed.
func (d *Driver) EventRecord(e Event, s Stream) error {
	if r := d.call2(d.sym.eventRecord, uintptr(e), uintptr(s)); r != 0 {
		return d.err("cuEventRecord", r)
	}
	return nil
}

// EventSynchronize waits until e has completed.
func (d *Driver) EventSynchronize(e Event) error {
	if r := d.call1(d.sym.eventSynchronize, uintptr(e)); r != 0 {
		return d.err("cuEventSynchronize", r)
	}
	return nil
}

// EventElapsed returns the GPU time in milliseconds between two completed
// events (resolution about half a microsecond).
func (d *Driver) EventElapsed(start, end Event) (ms float32, err error) {
	if r := d.call3(d.sym.eventElapsed, uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end)); r != 0 {
		return 0, d.err("cuEventElapsedTime", r)
	}
	return ms, nil
}

// EventDestroy destroys e.
func (d *Driver) EventDestroy(e Event) error {
	if r := d.call1(d.sym.eventDestroy, uintptr(e)); r != 0 {
		return d.err("cuEventDestroy_v2", r)
	}
	return nil
}

// MemAllocHost allocates bytes of page-locked (pinned) host memory in the
// current context, which the GPU reads and writes directly, so that async
// copies overlap other work. It is C memory: the garbage collector ignores
// it and MemFreeHost must release it. View it as a Go slice with
// unsafe.Slice.
func (d *Driver) MemAllocHost(bytes uint64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if r := d.call2(d.sym.memAllocHost, uintptr(unsafe.Pointer(&p)), uintptr(bytes)); r != 0 {
		return nil, d.err(fmt.Sprintf("cuMemAllocHost_v2(%d bytes)", bytes), r)
	}
	return p, nil
}

// MemFreeHost releases pinned memory from MemAllocHost.
func (d *Driver) MemFreeHost(p unsafe.Pointer) error {
	if r := d.call1(d.sym.memFreeHost, uintptr(p)); r != 0 {
		return d.err("cuMemFreeHost", r)
	}
	return nil
}

// Launch queues kernel f on stream s with the given grid and block sizes
// (in blocks and threads, x y z), shared bytes of dynamic shared memory and
// the arguments packed in a (nil for a kernel without parameters). The
// arguments are copied by the driver during the call, so a may be reset and
// repacked as soon as Launch returns. Launch allocates nothing. An Args that
// overflowed its capacity is reported here, before anything is queued.
// Launch errors are only the ones detected at queue time; faults inside the
// kernel surface at the next synchronisation.
func (d *Driver) Launch(f Function, grid, block [3]uint32, shared uint32, s Stream, a *Args) error {
	var r Result
	if a == nil {
		r = d.call11(d.sym.launchKernel, uintptr(f),
			uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
			uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
			uintptr(shared), uintptr(s), 0, 0)
	} else {
		if a.dropped > 0 {
			return fmt.Errorf("cuLaunchKernel: %d kernel arguments given, more than the %d an Args holds", a.n+a.dropped, maxArgs)
		}
		a.fill()
		r = d.call11(d.sym.launchKernel, uintptr(f),
			uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
			uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
			uintptr(shared), uintptr(s), uintptr(unsafe.Pointer(&a.ptrs[0])), 0)
		runtime.KeepAlive(a)
	}
	if r != 0 {
		return d.err(fmt.Sprintf("cuLaunchKernel(grid %v, block %v, shared %d)", grid, block, shared), r)
	}
	return nil
}

// cLen returns the length of the NUL-terminated string in b (all of b if it
// has no NUL).
func cLen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}
