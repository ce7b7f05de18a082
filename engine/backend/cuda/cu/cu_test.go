package cu

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// loadDriver returns the machine's driver, or skips: most machines that run
// these tests have none, and that is a supported configuration.
func loadDriver(t *testing.T) *Driver {
	t.Helper()
	d, err := Load()
	if err != nil {
		t.Skipf("no CUDA driver here: %v", err)
	}
	return d
}

func TestResultError(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{ErrNoDevice, "CUDA_ERROR_NO_DEVICE (CUDA error 100)"},
		{ErrOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY (CUDA error 2)"},
		{Result(4242), "CUDA error 4242"},
	} {
		if got := c.r.Error(); got != c.want {
			t.Errorf("Result(%d).Error() = %q, want %q", int32(c.r), got, c.want)
		}
	}
}

// A Driver that did not come from Load must fail cleanly, not crash: every
// call reports ErrNotInitialized.
func TestZeroDriverFailsCleanly(t *testing.T) {
	d := &Driver{}
	err := d.Init()
	if !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("Init on a zero Driver: %v, want ErrNotInitialized", err)
	}
	if want := "cuInit: CUDA_ERROR_NOT_INITIALIZED (CUDA error 3)"; err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
	if _, err := d.Alloc(16); !errors.Is(err, ErrNotInitialized) || !strings.Contains(err.Error(), "16 bytes") {
		t.Errorf("Alloc on a zero Driver: %v", err)
	}
	ran := false
	if err := d.WithContext(0, func() error { ran = true; return nil }); err == nil || ran {
		t.Errorf("WithContext on a zero Driver: err %v, f ran %v; want an error and f not run", err, ran)
	}
	if err := d.Launch(0, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, new(Args).I32(1)); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("Launch on a zero Driver: %v", err)
	}
}

// Load either fails with one clear sentence or succeeds; after it succeeds,
// Init either works or reports a CUDA error (ErrNoDevice on a machine with a
// driver but no GPU) — the process never exits.
func TestLoadAndInit(t *testing.T) {
	d, err := Load()
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "no CUDA driver (") && !strings.HasPrefix(msg, "CUDA driver ") {
			t.Fatalf("Load error %q does not say that the CUDA driver is missing", msg)
		}
		t.Logf("Load: %v", err)
		return
	}
	v, err := d.DriverVersion()
	if err != nil || v < 1000 {
		t.Fatalf("DriverVersion = %d, %v", v, err)
	}
	t.Logf("driver %s, CUDA %d.%d", d.lib, v/1000, v%1000/10)
	if err := d.Init(); err != nil {
		var r Result
		if !errors.As(err, &r) {
			t.Fatalf("Init error %v does not wrap a Result", err)
		}
		t.Logf("Init: %v", err)
		if _, err := d.DeviceCount(); err == nil {
			t.Errorf("DeviceCount succeeded after a failed Init")
		}
		return
	}
	n, err := d.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Init succeeded, %d device(s)", n)
}

// The driver's own name and description make up the error text.
func TestDriverNamesErrors(t *testing.T) {
	d := loadDriver(t)
	err := d.err("cuInit", ErrNoDevice)
	if !errors.Is(err, ErrNoDevice) {
		t.Errorf("%v does not match ErrNoDevice", err)
	}
	if err.(*callError).name == "" {
		t.Skipf("this driver cannot name CUDA errors: %v", err)
	}
	if want := "cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"; err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
	// A code the driver does not know falls back to the number.
	if err := d.err("cuX", Result(4242)); err.Error() != "cuX: CUDA error 4242" {
		t.Errorf("unknown code: %q", err)
	}
}

// A driver call allocates nothing once its arguments are on the heap.
func TestCallDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so calls allocate")
	}
	d := loadDriver(t)
	v := new(int32)
	n := testing.AllocsPerRun(1000, func() {
		if r := d.call1(d.sym.driverGetVersion, uintptr(unsafe.Pointer(v))); r != 0 {
			t.Fatal(r)
		}
	})
	if n != 0 {
		t.Errorf("a driver call allocates %v times", n)
	}
	if *v < 1000 {
		t.Errorf("cuDriverGetVersion wrote %d", *v)
	}
	runtime.KeepAlive(v)
}
