package cu

import (
	"strconv"
	"unsafe"
)

// Result is a CUresult, the status code every driver call returns. Zero is
// success; any other value is an error, which is why Result implements error
// and is what the errors from Driver methods unwrap to.
type Result int32

// The CUresult codes that callers are expected to test for (values from
// cuda.h). Driver errors wrap them, so errors.Is(err, ErrNoDevice) works.
const (
	// ErrInvalidValue: a parameter was out of range (CUDA_ERROR_INVALID_VALUE).
	ErrInvalidValue Result = 1
	// ErrOutOfMemory: a device or pinned host allocation failed
	// (CUDA_ERROR_OUT_OF_MEMORY); the backend can fall back to the CPU.
	ErrOutOfMemory Result = 2
	// ErrNotInitialized: cuInit has not succeeded, or the Driver did not come
	// from Load (CUDA_ERROR_NOT_INITIALIZED).
	ErrNotInitialized Result = 3
	// ErrStubLibrary: the libcuda found is the toolkit's link stub, not a real
	// driver (CUDA_ERROR_STUB_LIBRARY); treat it like no device.
	ErrStubLibrary Result = 34
	// ErrNoDevice: the driver is installed but sees no CUDA device
	// (CUDA_ERROR_NO_DEVICE), the usual answer of cuInit on a machine
	// without a GPU.
	ErrNoDevice Result = 100
	// ErrInvalidPTX: the JIT rejected a PTX image (CUDA_ERROR_INVALID_PTX).
	ErrInvalidPTX Result = 218
	// ErrNotFound: a named symbol, such as a kernel, is not in the module
	// (CUDA_ERROR_NOT_FOUND).
	ErrNotFound Result = 500
	// ErrLaunchOutOfResources: a launch asked for more registers, threads or
	// shared memory than the device has (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
	ErrLaunchOutOfResources Result = 701
)

// name returns the cuda.h name of the codes this package declares, so that a
// Result prints usefully even without a driver to ask.
func (r Result) name() string {
	switch r {
	case 0:
		return "CUDA_SUCCESS"
	case ErrInvalidValue:
		return "CUDA_ERROR_INVALID_VALUE"
	case ErrOutOfMemory:
		return "CUDA_ERROR_OUT_OF_MEMORY"
	case ErrNotInitialized:
		return "CUDA_ERROR_NOT_INITIALIZED"
	case ErrStubLibrary:
		return "CUDA_ERROR_STUB_LIBRARY"
	case ErrNoDevice:
		return "CUDA_ERROR_NO_DEVICE"
	case ErrInvalidPTX:
		return "CUDA_ERROR_INVALID_PTX"
	case ErrNotFound:
		return "CUDA_ERROR_NOT_FOUND"
	case ErrLaunchOutOfResources:
		return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
	}
	return ""
}

// Error describes r without a driver: "CUDA_ERROR_NO_DEVICE (CUDA error
// 100)" for the codes this package declares, "CUDA error N" for the rest.
// Errors returned by Driver methods carry the driver's own name and
// description instead (cuGetErrorName, cuGetErrorString). Error is meant for
// r != 0; for 0 it says CUDA_SUCCESS.
func (r Result) Error() string {
	code := "CUDA error " + strconv.Itoa(int(r))
	if n := r.name(); n != "" {
		return n + " (" + code + ")"
	}
	return code
}

// callError is a failed driver call: which call (with its arguments where
// they help), the code, and the driver's name and description of the code
// when it could give them. It unwraps to the Result so errors.Is and
// errors.As see the code.
type callError struct {
	call string
	code Result
	name string // cuGetErrorName, "" if unavailable
	text string // cuGetErrorString, "" if unavailable
}

func (e *callError) Error() string {
	if e.name == "" {
		return e.call + ": " + e.code.Error()
	}
	if e.text == "" {
		return e.call + ": " + e.name
	}
	return e.call + ": " + e.name + ": " + e.text
}

func (e *callError) Unwrap() error { return e.code }

// err builds the error for a failed call, asking the driver to name the
// code. Only the failure path comes here, so the lookups and the string
// building cost nothing on success.
func (d *Driver) err(op string, r Result) error {
	e := &callError{call: op, code: r}
	var p *byte
	if d.call2(d.sym.getErrorName, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
		e.name = goString(p)
	}
	p = nil
	if d.call2(d.sym.getErrorString, uintptr(r), uintptr(unsafe.Pointer(&p))) == 0 {
		e.text = goString(p)
	}
	return e
}

// goString copies the NUL-terminated C string at p, which lives in the
// driver's static memory, into a Go string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
