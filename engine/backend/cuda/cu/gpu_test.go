package cu

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// axpbPTX is nvcc 11.8's PTX (-arch=compute_52, .version lowered to 7.0)
// for
//
//	extern "C" __global__ void axpb(float* y, const float* x, float a, int n, unsigned int b) {
//	    extern __shared__ float tile[];
//	    int i = blockIdx.x * blockDim.x + threadIdx.x;
//	    if (i < n) {
//	        tile[threadIdx.x] = a * x[i];
//	        y[i] = tile[threadIdx.x] + (float)b;
//	    }
//	}
//
// Its parameters mix 8- and 4-byte kinds, and it uses dynamic shared memory.
const axpbPTX = `
.version 7.0
.target sm_52
.address_size 64

.extern .shared .align 16 .b8 tile[];

.visible .entry axpb(
	.param .u64 axpb_param_0,
	.param .u64 axpb_param_1,
	.param .f32 axpb_param_2,
	.param .u32 axpb_param_3,
	.param .u32 axpb_param_4
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<6>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [axpb_param_0];
	ld.param.u64 	%rd2, [axpb_param_1];
	ld.param.f32 	%f1, [axpb_param_2];
	ld.param.u32 	%r4, [axpb_param_3];
	ld.param.u32 	%r3, [axpb_param_4];
	mov.u32 	%r5, %ctaid.x;
	mov.u32 	%r6, %ntid.x;
	mov.u32 	%r1, %tid.x;
	mad.lo.s32 	%r2, %r5, %r6, %r1;
	setp.ge.s32 	%p1, %r2, %r4;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd3, %rd2;
	mul.wide.s32 	%rd4, %r2, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f2, [%rd5];
	mul.f32 	%f3, %f2, %f1;
	shl.b32 	%r7, %r1, 2;
	mov.u32 	%r8, tile;
	add.s32 	%r9, %r8, %r7;
	st.shared.f32 	[%r9], %f3;
	cvt.rn.f32.u32 	%f4, %r3;
	add.f32 	%f5, %f3, %f4;
	cvta.to.global.u64 	%rd6, %rd1;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.f32 	[%rd7], %f5;

$L__BB0_2:
	ret;
}
`

// gpuDriver returns an initialised driver with at least one device, or
// skips saying why there is none.
func gpuDriver(t *testing.T) *Driver {
	t.Helper()
	d := loadDriver(t)
	if err := d.Init(); err != nil {
		t.Skipf("no usable GPU: %v", err)
	}
	n, err := d.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no usable GPU: the driver reports 0 devices")
	}
	return d
}

// primary retains device 0's primary context, makes it current on this
// test's thread (locked for the rest of the test) and releases it at the
// end.
func primary(t *testing.T, d *Driver) (Device, Context) {
	t.Helper()
	dev, err := d.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.ReleasePrimaryContext(dev); err != nil {
			t.Error(err)
		}
	})
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	if err := d.SetCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	return dev, ctx
}

func TestGPUDevice(t *testing.T) {
	d := gpuDriver(t)
	dev, _ := primary(t, d)
	name, err := d.DeviceName(dev)
	if err != nil || name == "" {
		t.Fatalf("DeviceName = %q, %v", name, err)
	}
	total, err := d.TotalMem(dev)
	if err != nil || total == 0 {
		t.Fatalf("TotalMem = %d, %v", total, err)
	}
	attrs := map[string]DeviceAttribute{
		"cc major": AttrComputeCapabilityMajor, "cc minor": AttrComputeCapabilityMinor,
		"SMs": AttrMultiprocessorCount, "smem optin": AttrMaxSharedMemoryPerBlockOptin,
		"mem clock kHz": AttrMemoryClockRate, "bus bits": AttrGlobalMemoryBusWidth,
		"clock kHz": AttrClockRate,
	}
	for k, a := range attrs {
		v, err := d.Attribute(dev, a)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		// The minor capability is often 0 (9.0 is Hopper) and newer drivers
		// may report 0 for the clocks; the rest must be positive.
		if v < 0 || v == 0 && a != AttrComputeCapabilityMinor && a != AttrMemoryClockRate && a != AttrClockRate {
			t.Errorf("%s = %d", k, v)
		}
		t.Logf("%s = %d", k, v)
	}
	free, tot, err := d.MemGetInfo()
	if err != nil || free > tot || tot == 0 {
		t.Fatalf("MemGetInfo = %d, %d, %v", free, tot, err)
	}
	t.Logf("%s: %d MiB, %d MiB free", name, total>>20, free>>20)
}

func TestGPUMemoryRoundTrip(t *testing.T) {
	d := gpuDriver(t)
	primary(t, d)
	const n = 1 << 20
	a, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(a)
	b, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)

	// Memset, then read back.
	if err := d.MemsetD8(a, 0xab, n); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := d.DtoH(unsafe.Pointer(&got[0]), a, n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{0xab}, n)) {
		t.Fatal("MemsetD8 then DtoH did not give 0xab everywhere")
	}

	// Host -> a -> b -> host.
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	if err := d.HtoD(a, unsafe.Pointer(&src[0]), n); err != nil {
		t.Fatal(err)
	}
	if err := d.DtoD(b, a, n); err != nil {
		t.Fatal(err)
	}
	clear(got)
	if err := d.DtoH(unsafe.Pointer(&got[0]), b, n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("HtoD, DtoD, DtoH round trip changed the data")
	}

	// The same through a stream and pinned memory, timed with events.
	s, err := d.StreamCreate()
	if err != nil {
		t.Fatal(err)
	}
	defer d.StreamDestroy(s)
	pin, err := d.MemAllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.MemFreeHost(pin)
	start, err := d.EventCreate()
	if err != nil {
		t.Fatal(err)
	}
	defer d.EventDestroy(start)
	end, err := d.EventCreate()
	if err != nil {
		t.Fatal(err)
	}
	defer d.EventDestroy(end)

	if err := d.EventRecord(start, s); err != nil {
		t.Fatal(err)
	}
	if err := d.MemsetD32Async(a, math.Float32bits(1.5), n/4, s); err != nil {
		t.Fatal(err)
	}
	if err := d.DtoHAsync(pin, a, n, s); err != nil {
		t.Fatal(err)
	}
	if err := d.EventRecord(end, s); err != nil {
		t.Fatal(err)
	}
	if err := d.StreamSynchronize(s); err != nil {
		t.Fatal(err)
	}
	if err := d.EventSynchronize(end); err != nil {
		t.Fatal(err)
	}
	for i, v := range unsafe.Slice((*float32)(pin), n/4) {
		if v != 1.5 {
			t.Fatalf("pinned[%d] = %v after MemsetD32Async+DtoHAsync, want 1.5", i, v)
		}
	}
	ms, err := d.EventElapsed(start, end)
	if err != nil || ms < 0 {
		t.Fatalf("EventElapsed = %v, %v", ms, err)
	}
	copy(unsafe.Slice((*byte)(pin), n), src)
	if err := d.HtoDAsync(b, pin, n, s); err != nil {
		t.Fatal(err)
	}
	if err := d.StreamSynchronize(s); err != nil {
		t.Fatal(err)
	}
	clear(got)
	if err := d.DtoH(unsafe.Pointer(&got[0]), b, n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("HtoDAsync from pinned memory changed the data")
	}
	t.Logf("1 MiB memset + DtoH on a stream: %.3f ms", ms)

	// Out of memory is reported, and matches ErrOutOfMemory.
	if _, err := d.Alloc(1 << 60); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("Alloc(1<<60): %v, want ErrOutOfMemory", err)
	}
}

func TestGPUKernel(t *testing.T) {
	d := gpuDriver(t)
	dev, ctx := primary(t, d)
	m, err := d.LoadModule([]byte(axpbPTX))
	if err != nil {
		t.Fatal(err)
	}
	defer d.UnloadModule(m)
	f, err := d.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Function(m, "no_such_kernel"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no_such_kernel") {
		t.Errorf("missing kernel: %v", err)
	}

	// Broken PTX: the error carries the JIT log.
	_, err = d.LoadModule([]byte(".version 7.0\n.target sm_52\n.address_size 64\nthis is not PTX;\n"))
	if err == nil || !strings.Contains(err.Error(), "JIT log") {
		t.Errorf("broken PTX: %v, want an error with the JIT log", err)
	} else {
		t.Logf("broken PTX: %v", err)
	}

	const n = 1000
	const block = 256
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	dx, err := d.Alloc(n * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(dx)
	dy, err := d.Alloc(n * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(dy)
	if err := d.HtoD(dx, unsafe.Pointer(&x[0]), n*4); err != nil {
		t.Fatal(err)
	}
	// Opt in to more than the default 48 KiB of dynamic shared memory, and
	// use it, to exercise SetMaxDynamicShared.
	optin, err := d.Attribute(dev, AttrMaxSharedMemoryPerBlockOptin)
	if err != nil {
		t.Fatal(err)
	}
	shared := uint32(block * 4)
	if optin > 48<<10 {
		if err := d.SetMaxDynamicShared(f, optin); err != nil {
			t.Fatal(err)
		}
		shared = uint32(optin)
	}
	args := new(Args)
	args.Reset().Ptr(dy).Ptr(dx).F32(2.5).I32(n).U32(3)
	grid := [3]uint32{(n + block - 1) / block, 1, 1}
	if err := d.Launch(f, grid, [3]uint32{block, 1, 1}, shared, 0, args); err != nil {
		t.Fatal(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	y := make([]float32, n)
	if err := d.DtoH(unsafe.Pointer(&y[0]), dy, n*4); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if want := 2.5*float32(i) + 3; y[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, y[i], want)
		}
	}

	// Too much dynamic shared memory fails at launch, as an error.
	if err := d.Launch(f, grid, [3]uint32{block, 1, 1}, 1<<30, 0, args); err == nil {
		t.Error("a launch with 1 GiB of shared memory succeeded")
	}

	// The hot path allocates nothing: WithContext around pack, launch,
	// copy and synchronise, with the function value made beforehand.
	s, err := d.StreamCreate()
	if err != nil {
		t.Fatal(err)
	}
	defer d.StreamDestroy(s)
	w := &work{d: d, f: f, args: args, grid: grid, dx: dx, dy: dy, x: x, y: y, s: s}
	step := w.step
	allocs := testing.AllocsPerRun(100, func() {
		if err := d.WithContext(ctx, step); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("hot path: %v allocations per run (race detector: %v)", allocs, raceEnabled)
	if allocs != 0 && !raceEnabled {
		t.Errorf("WithContext + HtoD + MemsetD32Async + Launch + DtoHAsync + StreamSynchronize allocate %v times per run", allocs)
	}
	if y[n-1] != 2.5*float32(n-1)+3 {
		t.Errorf("y[n-1] = %v after the allocation runs", y[n-1])
	}
}

// work is one step of a hot loop, stored so that its method value is made
// once.
type work struct {
	d      *Driver
	f      Function
	args   *Args
	grid   [3]uint32
	dx, dy DevicePtr
	x, y   []float32
	s      Stream
}

func (w *work) step() error {
	d := w.d
	n := len(w.x)
	if err := d.HtoD(w.dx, unsafe.Pointer(&w.x[0]), uint64(n*4)); err != nil {
		return err
	}
	if err := d.MemsetD32Async(w.dy, 0, uint64(n), w.s); err != nil {
		return err
	}
	w.args.Reset().Ptr(w.dy).Ptr(w.dx).F32(2.5).I32(int32(n)).U32(3)
	if err := d.Launch(w.f, w.grid, [3]uint32{256, 1, 1}, 256*4, w.s, w.args); err != nil {
		return err
	}
	if err := d.DtoHAsync(unsafe.Pointer(&w.y[0]), w.dy, uint64(n*4), w.s); err != nil {
		return err
	}
	return d.StreamSynchronize(w.s)
}

// Several goroutines share one Driver and one context, each binding the
// context to whatever thread it runs on with WithContext.
func TestGPUConcurrent(t *testing.T) {
	d := gpuDriver(t)
	_, ctx := primary(t, d)
	const workers, rounds, n = 4, 20, 4096
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			src := bytes.Repeat([]byte{byte(w + 1)}, n)
			dst := make([]byte, n)
			errs <- d.WithContext(ctx, func() error {
				for range rounds {
					p, err := d.Alloc(n)
					if err != nil {
						return err
					}
					if err := d.HtoD(p, unsafe.Pointer(&src[0]), n); err != nil {
						return err
					}
					if err := d.DtoH(unsafe.Pointer(&dst[0]), p, n); err != nil {
						return err
					}
					if err := d.Free(p); err != nil {
						return err
					}
					if !bytes.Equal(dst, src) {
						return errors.New("round trip changed the data")
					}
				}
				return nil
			})
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
