package cu

import (
	"testing"
	"unsafe"
)

// TestGPUGraph builds a graph of two axpb launches, the second reading the
// first's output (y = 2.5x+3, then z = 2.5y+3), launches it twice on the
// legacy stream, and wants the values of the plain launches; a graph
// launch allocates nothing.
func TestGPUGraph(t *testing.T) {
	d := gpuDriver(t)
	_, ctx := primary(t, d)
	if !d.HasGraphs() {
		t.Skipf("the driver lacks %s", d.MissingGraphSymbol())
	}
	m, err := d.LoadModule([]byte(axpbPTX))
	if err != nil {
		t.Fatal(err)
	}
	defer d.UnloadModule(m)
	f, err := d.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	const n, block = 1000, 256
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	var bufs [3]DevicePtr
	for i := range bufs {
		if bufs[i], err = d.Alloc(n * 4); err != nil {
			t.Fatal(err)
		}
		defer d.Free(bufs[i])
	}
	if err := d.HtoD(bufs[0], unsafe.Pointer(&x[0]), n*4); err != nil {
		t.Fatal(err)
	}
	g, err := d.GraphCreate()
	if err != nil {
		t.Fatal(err)
	}
	grid := [3]uint32{(n + block - 1) / block, 1, 1}
	args := new(Args)
	var prev GraphNode
	for i := range 2 {
		args.Reset().Ptr(bufs[i+1]).Ptr(bufs[i]).F32(2.5).I32(n).U32(3)
		if prev, err = d.GraphAddKernelNode(g, prev, f, grid, [3]uint32{block, 1, 1}, block*4, args); err != nil {
			t.Fatal(err)
		}
	}
	e, err := d.GraphInstantiate(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.GraphDestroy(g); err != nil {
		t.Fatal(err)
	}
	defer d.GraphExecDestroy(e)
	z := make([]float32, n)
	for range 2 {
		if err := d.GraphLaunch(e, 0); err != nil {
			t.Fatal(err)
		}
		if err := d.DtoH(unsafe.Pointer(&z[0]), bufs[2], n*4); err != nil {
			t.Fatal(err)
		}
		for i := range z {
			if want := 2.5*(2.5*float32(i)+3) + 3; z[i] != want {
				t.Fatalf("z[%d] = %v, want %v", i, z[i], want)
			}
		}
	}
	launch := func() error { return d.GraphLaunch(e, 0) }
	allocs := testing.AllocsPerRun(100, func() {
		if err := d.WithContext(ctx, launch); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("a graph launch allocates %v times", allocs)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
}
