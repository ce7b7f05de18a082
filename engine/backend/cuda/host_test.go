package cuda

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// These tests run the host side of the backend — memory plan, launch
// dimensions, argument packing, kernel names — on a machine without a GPU:
// a recording driver stands in for libcuda, checks every launch against
// the parameter list of its kernel in the embedded PTX, and emulates device
// memory with host bytes (kernels do not run, so values are not checked:
// that is the device check's job, scripts/device-check.sh).

// ptxParams parses the embedded PTX: for every kernel, the kinds of its
// parameters in order ('p' for a 64-bit pointer, 'i' for a 32-bit integer,
// 'f' for a float).
func ptxParams(t testing.TB) map[string][]byte {
	t.Helper()
	entry := regexp.MustCompile(`^\.visible \.entry (\w+)\($`)
	param := regexp.MustCompile(`^\s*\.param \.(u64|u32|s32|f32) \w+,?$`)
	out := map[string][]byte{}
	srcs, err := moduleSources()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		sc := bufio.NewScanner(strings.NewReader(string(src)))
		cur := ""
		for sc.Scan() {
			line := sc.Text()
			if m := entry.FindStringSubmatch(line); m != nil {
				cur = m[1]
				out[cur] = []byte{}
				continue
			}
			if cur == "" {
				continue
			}
			if m := param.FindStringSubmatch(line); m != nil {
				out[cur] = append(out[cur], map[string]byte{"u64": 'p', "u32": 'i', "s32": 'i', "f32": 'f'}[m[1]])
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(line), ")") {
				cur = ""
			}
		}
	}
	return out
}

func TestKernelNamesExistInPTX(t *testing.T) {
	params := ptxParams(t)
	if len(params) == 0 {
		t.Fatal("no kernels found in the embedded PTX")
	}
	for _, n := range KernelNames() {
		if _, ok := params[n]; !ok {
			t.Errorf("kernel %s is launched by the backend but missing from the PTX", n)
		}
	}
}

// launch is one recorded kernel launch.
type launch struct {
	name        string
	grid, block [3]uint32
}

// fakeDriver records launches and checks them, and keeps device memory as
// host byte slices at fake addresses.
type fakeDriver struct {
	t        testing.TB
	names    []string // Function handle i+1 is names[i]
	params   map[string][]byte
	mem      map[cu.DevicePtr][]byte
	next     cu.DevicePtr
	launches []launch
	record   bool
	fail     error // returned by every launch while set
	errs     []string
	copies   int // HtoD and DtoH calls
	// inspect, when set, sees every launch's kernel and arguments.
	inspect func(name string, grid, block [3]uint32, a *cu.Args)
	// gr is the recorder's CUDA graphs (graph_test.go).
	gr fakeGraphs
}

func newFakeDevice(t testing.TB) (*Device, *fakeDriver) {
	f := &fakeDriver{t: t, params: ptxParams(t), mem: map[cu.DevicePtr][]byte{}, next: 1 << 20}
	g := &Device{d: f, name: "fake", cc: [2]int{9, 0}, mats: map[*tensor.Matrix]*mat{}}
	err := g.k.resolve(func(name string) (cu.Function, error) {
		if _, ok := f.params[name]; !ok {
			return 0, fmt.Errorf("kernel %s not in the PTX", name)
		}
		f.names = append(f.names, name)
		return cu.Function(len(f.names)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g.initGraphs() // the recorder has graphs: decode steps run as one
	return g, f
}

func (f *fakeDriver) errorf(format string, a ...any) {
	if len(f.errs) < 20 {
		f.errs = append(f.errs, fmt.Sprintf(format, a...))
	}
}

// find returns the allocation holding p and p's offset in it.
func (f *fakeDriver) find(p cu.DevicePtr) ([]byte, int, bool) {
	for base, b := range f.mem {
		if p >= base && p < base+cu.DevicePtr(len(b)) {
			return b, int(p - base), true
		}
	}
	return nil, 0, false
}

func (f *fakeDriver) SetCurrent(cu.Context) error { return nil }
func (f *fakeDriver) Alloc(n uint64) (cu.DevicePtr, error) {
	p := f.next
	f.mem[p] = make([]byte, n)
	f.next += cu.DevicePtr((n + 255) &^ 255)
	return p, nil
}
func (f *fakeDriver) Free(p cu.DevicePtr) error {
	if _, ok := f.mem[p]; !ok {
		f.errorf("free of %#x, which is not an allocation", p)
	}
	delete(f.mem, p)
	return nil
}
func (f *fakeDriver) MemsetD8(p cu.DevicePtr, v byte, n uint64) error {
	b, off, ok := f.find(p)
	if !ok || off+int(n) > len(b) {
		f.errorf("memset of %d bytes at %#x outside an allocation", n, p)
		return nil
	}
	for i := range int(n) {
		b[off+i] = v
	}
	return nil
}
func (f *fakeDriver) HtoD(dst cu.DevicePtr, src unsafe.Pointer, n uint64) error {
	f.copies++
	b, off, ok := f.find(dst)
	if !ok || off+int(n) > len(b) {
		f.errorf("copy of %d bytes to %#x outside an allocation", n, dst)
		return nil
	}
	copy(b[off:], unsafe.Slice((*byte)(src), n))
	return nil
}
func (f *fakeDriver) DtoH(dst unsafe.Pointer, src cu.DevicePtr, n uint64) error {
	f.copies++
	b, off, ok := f.find(src)
	if !ok || off+int(n) > len(b) {
		f.errorf("copy of %d bytes from %#x outside an allocation", n, src)
		return nil
	}
	copy(unsafe.Slice((*byte)(dst), n), b[off:])
	return nil
}
func (f *fakeDriver) MemGetInfo() (uint64, uint64, error) {
	var used uint64
	for _, b := range f.mem {
		used += uint64(len(b))
	}
	return 80<<30 - used, 80 << 30, nil
}
func (f *fakeDriver) UnloadModule(cu.Module) error          { return nil }
func (f *fakeDriver) ReleasePrimaryContext(cu.Device) error { return nil }

// Launch checks the launch against the kernel's PTX signature and CUDA's
// limits: argument count and kinds, pointers inside live allocations (or
// null where a kernel takes an optional table), grid and block sizes.
func (f *fakeDriver) Launch(fn cu.Function, grid, block [3]uint32, shared uint32, s cu.Stream, a *cu.Args) error {
	if fn < 1 || int(fn) > len(f.names) {
		f.errorf("launch of an unknown function %d", fn)
		return nil
	}
	if f.fail != nil {
		return f.fail
	}
	if !f.gr.replaying {
		f.gr.direct++
	}
	name := f.names[fn-1]
	want := f.params[name]
	if a.Len() != len(want) {
		f.errorf("%s: %d arguments packed, the kernel takes %d", name, a.Len(), len(want))
		return nil
	}
	for i, k := range want {
		if got := a.Kind(i); got != k {
			f.errorf("%s: argument %d packed as %c, the kernel's is %c", name, i, got, k)
		}
		if k == 'p' {
			p := cu.DevicePtr(a.Value(i))
			if _, _, ok := f.find(p); !ok && !(p == 0 && nullable(name, i)) {
				f.errorf("%s: argument %d is %#x, not inside an allocation", name, i, p)
			}
		}
	}
	// No kernel asks for dynamic shared memory beyond the 48 KiB every
	// GPU gives without an opt-in (the static arrays are the PTX's,
	// which ptxas -v reports).
	if shared > 48<<10 {
		f.errorf("%s: %d bytes of dynamic shared memory", name, shared)
	}
	if f.inspect != nil {
		f.inspect(name, grid, block, a)
	}
	threads := block[0] * block[1] * block[2]
	if threads == 0 || threads > 1024 || threads%32 != 0 {
		f.errorf("%s: a block of %v threads", name, block)
	}
	if grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[1] > 65535 || grid[2] > 65535 {
		f.errorf("%s: a grid of %v", name, grid)
	}
	if f.record {
		f.launches = append(f.launches, launch{name, grid, block})
	}
	return nil
}

// nullable says whether argument i of kernel name is an optional table
// that may be null: RoPE's divisors, an embedding's ids (a single token
// outside a decode step is passed itself), the position in device memory
// of RoPE, the cache store and the attention (outside a decode step), the
// attention's sinks, a router's mask and selection
// bias, an expert product's biases, a decode or batch product's gate row
// (Gated).
func nullable(name string, i int) bool {
	switch {
	case name == "rope":
		return i == 7 || i == 16 // the divisors; the position in device memory
	case strings.HasPrefix(name, "rows_"):
		return i == 3
	case name == "store_kv" || name == "store_kv_f16":
		return i == 11
	case name == "rope_store_kv" || name == "rope_store_kv_f16":
		return i == 17 || i == 26 || i == 27 // the divisors; the position and the slot in device memory
	case strings.HasPrefix(name, "attn_split_"):
		return i == 16 // the position in device memory
	case name == "attn_reduce":
		return i == 9 || i == 10 // the sinks; the position
	case strings.HasPrefix(name, "attn_tile_"):
		return i == 15 || i == 16 // the sinks; the position
	case name == "route":
		return i == 3 || i == 4
	case strings.HasPrefix(name, "mvid_"):
		return i == 8
	case strings.HasPrefix(name, "mmid_"):
		return i == 9
	case strings.HasPrefix(name, "mvqn"):
		return i == 10 // as mvq_'s, after the row count
	case strings.HasPrefix(name, "mvq"):
		return i == 9 // the gate's row, for an up product without the gated epilogue
	case strings.HasPrefix(name, "mmq_"):
		return i == 10 // as mvq_'s
	}
	return false
}

// promptOnRecorder runs one prompt of MaxBatch tokens of the model at path
// on a backend of the recording driver, calling inspect (given the fake
// driver, so that it can check arguments against allocations) for every
// launch, and fails on any error the driver or the backend reported.
func promptOnRecorder(t *testing.T, path string, inspect func(f *fakeDriver, name string, grid, block [3]uint32, a *cu.Args)) {
	t.Helper()
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g, f := newFakeDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.NewStateOn(MaxBatch, b)
	if err != nil {
		t.Fatal(err)
	}
	f.inspect = func(name string, grid, block [3]uint32, a *cu.Args) { inspect(f, name, grid, block, a) }
	prompt := make([]int32, MaxBatch)
	for i := range prompt {
		prompt[i] = int32(1 + (7*i)%(m.Config.Vocab-1))
	}
	logits := make([]float32, m.Config.Vocab)
	if err := st.Forward(prompt, logits); err != nil {
		t.Fatal(err)
	}
	for _, e := range f.errs {
		t.Error(e)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}

func fixture(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{fixtureDir()}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s is missing (the tests read ../shared/fixtures): %v", p, err)
	}
	return p
}

// TestForwardOnRecorder runs prompts and decode steps of several models
// through the backend on the recording driver: every launch must match its
// kernel, and a decode step launches a fixed sequence.
func TestForwardOnRecorder(t *testing.T) {
	for _, path := range []string{
		fixture(t, "kjv", "kjv-q8_0.gguf"),
		fixture(t, "quants", "qwen2-q4_k_m.gguf"),
		fixture(t, "archs", "qwen3.gguf"),
		fixture(t, "archs", "gemma2.gguf"),
		fixture(t, "archs", "llama-rope-freqs-f16.gguf"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, err := model.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			g, f := newFakeDevice(t)
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			st, err := m.NewStateOn(128, b)
			if err != nil {
				t.Fatal(err)
			}
			logits := make([]float32, m.Config.Vocab)
			prompt := []int32{1, 5, 9, 13, 17, 21, 25, 29, 33, 37}
			if err := st.Forward(prompt, logits); err != nil {
				t.Fatal(err)
			}
			f.record = true
			if err := st.Forward([]int32{7}, logits); err != nil {
				t.Fatal(err)
			}
			first := append([]launch(nil), f.launches...)
			f.launches = f.launches[:0]
			if err := st.Forward([]int32{8}, logits); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(first) != fmt.Sprint(f.launches) {
				t.Errorf("two decode steps launched differently:\n%v\n%v", first, f.launches)
			}
			if len(first) == 0 {
				t.Fatal("a decode step launched nothing")
			}
			for _, e := range f.errs {
				t.Error(e)
			}
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			// A decode step allocates nothing on the host.
			tok := []int32{3}
			if n := testing.AllocsPerRun(20, func() {
				st.Truncate(st.Pos() - 1)
				if err := st.Forward(tok, logits); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("a decode step allocates %v times", n)
			}
			st.Close()
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			// Everything but the shared weights is freed with the backend;
			// the weights go with the device.
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			if len(f.mem) != 0 {
				t.Errorf("%d allocations left after Close", len(f.mem))
			}
			counts := map[string]int{}
			for _, l := range first {
				counts[l.name]++
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			t.Logf("decode step: %d launches %v", len(first), counts)
		})
	}
}

// TestBindOnce: two backends of one device share one upload of a matrix,
// and it is freed when the last lets go.
func TestBindOnce(t *testing.T) {
	g, f := newFakeDevice(t)
	m, err := tensor.NewMatrix(tensor.Q8_0, 4, 64, make([]byte, 4*2*34))
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := g.NewBackend()
	b2, _ := g.NewBackend()
	before := len(f.mem)
	w1, err := b1.Matrix(m)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := b2.Matrix(m)
	if err != nil {
		t.Fatal(err)
	}
	if w1 != w2 || len(f.mem) != before+1 {
		t.Fatalf("two binds of one matrix made %d uploads", len(f.mem)-before)
	}
	b1.Release(w1)
	if len(f.mem) != before+1 {
		t.Fatal("the matrix was freed while another backend holds it")
	}
	b2.Release(w2)
	if len(f.mem) != before {
		t.Fatal("the matrix outlived its last holder")
	}
	// Q8_K is an activation format, which no weight file holds and no
	// kernel will decode.
	if _, err := b1.Matrix(&tensor.Matrix{Type: tensor.Q8_K, Rows: 1, Cols: 256, Data: make([]byte, 292)}); err == nil {
		t.Fatal("a Q8_K matrix was accepted; the kernels do not decode it")
	}
}

// TestSharesOnRecorder is the device check's leak test on the recorder:
// generations on backends shared from one root, each closed after use,
// must launch only on live memory (the weights outlive the backend that
// bound them) and leave the device's allocations where the first left them.
func TestSharesOnRecorder(t *testing.T) {
	m, err := model.Open(fixture(t, "kjv", "kjv-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g, f := newFakeDevice(t)
	root, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	gen := func() {
		sb, err := root.Share()
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.NewStateOn(32, sb)
		if err != nil {
			t.Fatal(err)
		}
		logits := make([]float32, m.Config.Vocab)
		if err := st.Forward([]int32{1, 40, 50, 60}, logits); err != nil {
			t.Fatal(err)
		}
		if err := st.Forward([]int32{7}, logits); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if err := sb.(*Backend).Close(); err != nil {
			t.Fatal(err)
		}
	}
	gen()
	after1 := len(f.mem)
	for range 5 {
		gen()
	}
	for _, e := range f.errs {
		t.Error(e)
	}
	if len(f.mem) != after1 {
		t.Errorf("%d allocations after one generation, %d after six", after1, len(f.mem))
	}
	// Closing the model hands its matrices back: the device frees them.
	m.Close()
	if len(g.mats) != 0 {
		t.Errorf("%d matrices stay on the device after the model closed", len(g.mats))
	}
}

// TestDocsListTheTypes keeps docs/gpu.md's list of the weight types the
// kernels decode in step with the code.
func TestDocsListTheTypes(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "gpu.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, typ := range SupportedTypes() {
		names = append(names, typ.String())
	}
	if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), strings.Join(names, ", ")) {
		t.Errorf("docs/gpu.md does not list the decoded types as %q", strings.Join(names, ", "))
	}
}

// TestDeviceFailureStopsForward: a launch that fails makes Forward return
// the error without counting the step's positions, and the backend stays
// failed (CUDA's errors are sticky).
func TestDeviceFailureStopsForward(t *testing.T) {
	m, err := model.Open(fixture(t, "archs", "qwen2.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g, f := newFakeDevice(t)
	b, _ := g.NewBackend()
	st, err := m.NewStateOn(32, b)
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, m.Config.Vocab)
	if err := st.Forward([]int32{1, 2, 3}, logits); err != nil {
		t.Fatal(err)
	}
	f.fail = fmt.Errorf("CUDA_ERROR_ILLEGAL_ADDRESS (planted)")
	err = st.Forward([]int32{4}, logits)
	if err == nil || !strings.Contains(err.Error(), "planted") {
		t.Fatalf("Forward after a failed launch returned %v", err)
	}
	if st.Pos() != 3 {
		t.Errorf("a failed step moved the position to %d", st.Pos())
	}
	f.fail = nil
	if err := st.Forward([]int32{4}, logits); err == nil {
		t.Error("the backend ran again after a device error")
	}
}

// suiteConfig is how this backend runs the conformance suite: every type
// the kernels decode that the CPU computes with, at the default tolerances (float32 throughout, and a
// quantised product's activations on the CPU's grid). values is false on
// the recording driver, whose kernels do not run.
func suiteConfig(values bool) backendtest.Config {
	var types []tensor.Type
	for _, t := range SupportedTypes() {
		// The suite compares with the CPU backend, so it checks the types
		// the CPU engine computes with (MXFP4 once it does).
		if t.Computable() {
			types = append(types, t)
		}
	}
	return backendtest.Config{Tol: backendtest.DefaultTolerances(), Types: types, NoValues: !values, SinksYaRN: true}
}

// TestSuiteOnRecorder runs the conformance suite (engine/backend/backendtest)
// on the recording driver: every operation of the interface, for every type
// the kernels decode, must launch kernels that match their PTX signatures
// on live memory, every kernel must be launched by some check, and copies
// must round-trip; the values are
// TestGPUBackend's to check, on a GPU. Closing the backend and the device
// frees everything the suite allocated.
func TestSuiteOnRecorder(t *testing.T) {
	g, f := newFakeDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	f.record = true
	backendtest.Run(t, b, suiteConfig(false))
	// The expert operations for every type, and MXFP4's products, which the
	// suite checks only where the CPU reference runs them.
	t.Run("Experts", func(t *testing.T) { exerciseExperts(t, b) })
	// Decode's float products of the types that have integer ones, as
	// TestGPUBackend's float-decode runs them, and the integer products of
	// tall matrices (mvq_), as its int-decode does.
	t.Run("FloatDecode", func(t *testing.T) {
		// And the float products of batches (mm_), which the tile
		// products (mmq_) replace for the same types.
		g.floatDecode, g.floatBatch = true, true
		defer func() { g.floatDecode, g.floatBatch = false, false }()
		backendtest.Run(t, b, floatDecodeConfig(false))
	})
	t.Run("IntDecodeTall", func(t *testing.T) { exerciseIntDecode(t, b) })
	t.Run("RoPEStoreKV", func(t *testing.T) { exerciseRoPEStore(t, b) })
	t.Run("RoPEStoreKVF16", func(t *testing.T) { exerciseRoPEStoreF16(t, b) })
	for _, e := range f.errs {
		t.Error(e)
	}
	names := map[string]bool{}
	for _, l := range f.launches {
		names[l.name] = true
	}
	for _, n := range KernelNames() {
		if !names[n] {
			t.Errorf("the suite never launched kernel %s: an operation or type goes unchecked on the GPU", n)
		}
	}
	t.Logf("%d launches of %d kernels", len(f.launches), len(names))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.mem) != 0 {
		t.Errorf("%d allocations left after Close", len(f.mem))
	}
}
