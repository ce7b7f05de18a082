package cuda

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// The kernels as PTX for compute_80 (make ptx), JIT-compiled by the driver
// for the GPU at hand: Ampere, Hopper and later. Committed beside their
// source, so that building Go never needs nvcc, and gzipped: the text is
// 10 MB and compresses eightfold, and the device tool carries the work tree
// within 64 MiB (scripts/device-bundle.sh).
//
//go:embed kernels/*.ptx.gz
var ptx embed.FS

// moduleFiles are the PTX files, in load order.
func moduleFiles() []string {
	return []string{"kernels/matmul.ptx.gz", "kernels/ops.ptx.gz", "kernels/experts.ptx.gz", "kernels/attention.ptx.gz",
		"kernels/mmq.ptx.gz", "kernels/mmf.ptx.gz"}
}

// moduleSources are the PTX texts of moduleFiles, in their order.
func moduleSources() ([][]byte, error) {
	var out [][]byte
	for _, name := range moduleFiles() {
		f, err := ptx.Open(name)
		if err != nil {
			return nil, err
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		src, err := io.ReadAll(z)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		out = append(out, src)
	}
	return out, nil
}

// ErrUnavailable wraps every reason a GPU cannot be used: no driver, no
// device, a device too old, a module the driver cannot load.
var ErrUnavailable = errors.New("no usable CUDA GPU")

// Device is one GPU with the kernels loaded and the weights bound on it.
// Its Backends (NewBackend) share the weights; each Backend runs one
// State's forward pass. A Device is safe for concurrent use; its Backends
// are not (one goroutine each).
type Device struct {
	d    driver
	dev  cu.Device
	ctx  cu.Context
	name string
	cc   [2]int
	mem  uint64
	mods []cu.Module
	k    kernels
	// floatDecode keeps decode's products on the float kernels (mv_) for
	// the types that have integer ones: the GPU tests set it to compare
	// the two paths.
	floatDecode bool
	// floatBatch keeps the products of many rows (n > 1) on the float
	// kernels (mm_) for the types that have tile products on tensor cores
	// (mmq_): the GPU tests set it to compare the two.
	floatBatch bool
	// graphs says the driver has the graph entry points: a decode step
	// runs as one graph (graph.go). graphNote says once why not, and log
	// is Options.Log.
	graphs    bool
	graphNote string
	log       func(string)

	mu   sync.Mutex
	mats map[*tensor.Matrix]*mat // weights uploaded, shared by every Backend
	// stacks are the expert stacks uploaded (ExpertMatrix), by their first
	// matrix and count: a stack is not its first matrix bound alone.
	stacks map[stackKey]*mat
	vecs   []cu.DevicePtr // vectors uploaded (norms, biases), freed at Close
	open   int            // Backends not closed
	done   bool
}

// Options choose the GPU.
type Options struct {
	Ordinal int // which device (0: the first)
	// Log, when set, receives the device's notes, one sentence each: that
	// decode steps launch kernel by kernel because the driver has no CUDA
	// graphs (GraphNote).
	Log func(string)
}

// Open loads the CUDA driver, picks the device and loads the kernels. Every
// failure wraps ErrUnavailable and says why in one sentence, so that a
// caller can fall back to the CPU and tell the user.
func Open(o Options) (*Device, error) {
	d, err := cu.Load()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err := d.Init(); err != nil {
		return nil, fmt.Errorf("%w: the CUDA driver found no GPU (%w)", ErrUnavailable, err)
	}
	n, err := d.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if o.Ordinal < 0 || o.Ordinal >= n {
		return nil, fmt.Errorf("%w: GPU %d asked for, %d present", ErrUnavailable, o.Ordinal, n)
	}
	g := &Device{d: d, mats: map[*tensor.Matrix]*mat{}, log: o.Log}
	if g.dev, err = d.Device(o.Ordinal); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	g.name, _ = d.DeviceName(g.dev)
	g.mem, _ = d.TotalMem(g.dev)
	maj, err1 := d.Attribute(g.dev, cu.AttrComputeCapabilityMajor)
	mnr, err2 := d.Attribute(g.dev, cu.AttrComputeCapabilityMinor)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	g.cc = [2]int{maj, mnr}
	if maj < 8 {
		return nil, fmt.Errorf("%w: %s is compute capability %d.%d; the kernels need 8.0 (Ampere) or later", ErrUnavailable, g.name, maj, mnr)
	}
	if g.ctx, err = d.PrimaryContext(g.dev); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	err = g.with(func() error {
		srcs, err := moduleSources()
		if err != nil {
			return err
		}
		for i, src := range srcs {
			m, err := d.LoadModule(src)
			if err != nil {
				return fmt.Errorf("loading %s: %w", moduleFiles()[i], err)
			}
			g.mods = append(g.mods, m)
		}
		return g.k.resolve(func(name string) (cu.Function, error) { return findKernel(d, g.mods, srcs, name) })
	})
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	g.initGraphs()
	return g, nil
}

// initGraphs says whether decode steps may run as graphs: when the driver
// has the entry points. Without them it says so once.
func (g *Device) initGraphs() {
	g.graphs = g.d.HasGraphs()
	if !g.graphs {
		g.noteGraphs(fmt.Sprintf("the CUDA driver lacks %s: decode launches each kernel instead of one graph a step", g.d.MissingGraphSymbol()))
	}
}

// noteGraphs records, once, why decode steps do not run as graphs, and
// logs it.
func (g *Device) noteGraphs(msg string) {
	g.mu.Lock()
	first := g.graphNote == ""
	if first {
		g.graphNote = msg
	}
	g.mu.Unlock()
	if first && g.log != nil {
		g.log(msg)
	}
}

// GraphNote says why decode steps on this device do not run as CUDA
// graphs, or is "" when they do.
func (g *Device) GraphNote() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.graphNote
}

// with runs f with the device's context current on a locked OS thread:
// CUDA contexts belong to threads, and goroutines move between threads.
func (g *Device) with(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := g.d.SetCurrent(g.ctx); err != nil {
		return err
	}
	return f()
}

// Name is the GPU's name and compute capability.
func (g *Device) Name() string {
	return fmt.Sprintf("%s (sm_%d%d)", g.name, g.cc[0], g.cc[1])
}

// TotalMemory is the GPU's memory in bytes.
func (g *Device) TotalMemory() uint64 { return g.mem }

// MemInfo reports the GPU's free and total memory.
func (g *Device) MemInfo() (free, total uint64, err error) {
	err = g.with(func() error {
		var e error
		free, total, e = g.d.MemGetInfo()
		return e
	})
	return free, total, err
}

// Close frees the weights and unloads the kernels. Backends must be closed
// first; Close reports those still open.
func (g *Device) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return nil
	}
	g.done = true
	var errs []error
	if g.open > 0 {
		errs = append(errs, fmt.Errorf("cuda: %d backends still open at Close", g.open))
	}
	errs = append(errs, g.with(func() error {
		var es []error
		for _, m := range g.mats {
			es = append(es, g.d.Free(m.p))
		}
		g.mats = nil
		for _, m := range g.stacks {
			es = append(es, g.d.Free(m.p))
		}
		g.stacks = nil
		for _, p := range g.vecs {
			es = append(es, g.d.Free(p))
		}
		g.vecs = nil
		for _, m := range g.mods {
			es = append(es, g.d.UnloadModule(m))
		}
		return errors.Join(es...)
	}))
	if g.ctx != 0 {
		errs = append(errs, g.d.ReleasePrimaryContext(g.dev))
	}
	return errors.Join(errs...)
}

// typeSuffix names each weight type's kernels (mv_, mm_, rows_ + suffix).
// These are every type the CPU engine computes with (the IQ1/IQ2/IQ3 and
// ternary types included), and MXFP4 (gpt-oss's experts).
func typeSuffix(t tensor.Type) (string, bool) {
	switch t {
	case tensor.F32:
		return "f32", true
	case tensor.F16:
		return "f16", true
	case tensor.BF16:
		return "bf16", true
	case tensor.Q4_0:
		return "q4_0", true
	case tensor.Q4_1:
		return "q4_1", true
	case tensor.Q5_0:
		return "q5_0", true
	case tensor.Q5_1:
		return "q5_1", true
	case tensor.Q8_0:
		return "q8_0", true
	case tensor.IQ4_NL:
		return "iq4_nl", true
	case tensor.Q2_K:
		return "q2_k", true
	case tensor.Q3_K:
		return "q3_k", true
	case tensor.Q4_K:
		return "q4_k", true
	case tensor.Q5_K:
		return "q5_k", true
	case tensor.Q6_K:
		return "q6_k", true
	case tensor.IQ4_XS:
		return "iq4_xs", true
	case tensor.MXFP4:
		return "mxfp4", true
	case tensor.IQ1_S:
		return "iq1_s", true
	case tensor.IQ1_M:
		return "iq1_m", true
	case tensor.IQ2_XXS:
		return "iq2_xxs", true
	case tensor.IQ2_XS:
		return "iq2_xs", true
	case tensor.IQ2_S:
		return "iq2_s", true
	case tensor.IQ3_XXS:
		return "iq3_xxs", true
	case tensor.IQ3_S:
		return "iq3_s", true
	case tensor.TQ1_0:
		return "tq1_0", true
	case tensor.TQ2_0:
		return "tq2_0", true
	}
	return "", false
}

// SupportedTypes lists the weight types the kernels decode.
func SupportedTypes() []tensor.Type {
	var ts []tensor.Type
	for t := tensor.Type(0); t < 64; t++ {
		if _, ok := typeSuffix(t); ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// productKernels are one weight type's kernels.
type productKernels struct {
	mv, mm, rows cu.Function
	// mvid and mmid are the expert products (experts.cu): decode's, over
	// the k chosen experts' rows, and a batch's, over the pairs grouped by
	// expert.
	mvid, mmid cu.Function
	// act says the products read activations rounded to the CPU's 8-bit
	// grid (quant_act), as the CPU engine's quantised products do.
	act bool
	// mvq and mvqk are decode's products on integer dot products
	// (matmul.cu's mvq_rows: a warp a row, and four warps a row), for the
	// types that have them (dp4aSuffix); 0 for the others.
	mvq, mvqk cu.Function
	// mvqn and mvqnk are mvq and mvqk for 2…mvqnMax rows of activations
	// (a batch of a few decoding sequences): each row gets the bits the
	// decode kernel gives it alone.
	mvqn, mvqnk cu.Function
	// mmq is the product of many rows on tensor cores (mmq.cu's
	// mmq_rows: 64 weight rows × 64 tokens a block), for the same types.
	mmq cu.Function
	// mmf is the product of many rows on tensor cores for F16 and BF16
	// weights (mmf.cu's mmf_rows: TF32 products of split activations); 0
	// for the other types.
	mmf cu.Function
}

// dp4aType says whether decode's products of type t run on integer dot
// products (the mvq_ kernels) over activations quantised by quant_q8: the
// types of the common files (Q4_K_M, Q5_K_M, Q6_K, Q8_0, Q4_0, Q5_0) and
// every other type whose CPU dot is integer on the same 32-blocks (Q4_1,
// Q5_1, IQ4_NL, IQ4_XS, Q2_K, Q3_K; TQ1_0, TQ2_0 and the IQ1–IQ3 types).
// MXFP4 is not among them: its activation scales are float16.
func dp4aType(t tensor.Type) bool {
	switch t {
	case tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
		tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
		tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S,
		tensor.IQ1_S, tensor.IQ1_M:
		return true
	}
	return false
}

// kernels are the functions of the loaded modules.
type kernels struct {
	prod                                                map[tensor.Type]productKernels
	rmsnorm, headRMSNorm, addBias, swiglu, geglu, scale cu.Function
	add, rope, storeKV, projAdd, quantAct               cu.Function
	quantQ8, rmsnormQ8, ropeStoreKV                     cu.Function
	route, groupExperts, combine, swigluOAI             cu.Function
	affine                                              cu.Function // affine.go
	att                                                 attnKernels
}

// KernelNames lists every kernel the Go side launches: each must exist in
// the embedded PTX (a test checks this without a GPU).
func KernelNames() []string {
	names := []string{"rmsnorm", "head_rmsnorm", "add_bias", "swiglu", "geglu", "scale", "add", "rope", "store_kv", "proj_add", "quant_act",
		"route", "group_experts", "combine", "swiglu_oai_rows"}
	for _, t := range SupportedTypes() {
		s, _ := typeSuffix(t)
		names = append(names, "mv_"+s, "mm_"+s, "rows_"+s, "mvid_"+s, "mmid_"+s)
		if dp4aType(t) {
			names = append(names, "mvq_"+s, "mvqk_"+s, "mmq_"+s)
		}
		if t == tensor.F16 || t == tensor.BF16 {
			names = append(names, "mmf_"+s)
		}
	}
	names = append(names, "affine_rows")
	names = append(names, attnKernelNames()...)
	return append(names, "quant_q8", "rmsnorm_q8", "rope_store_kv")
}

// findKernel looks a kernel up in the module whose PTX (srcs, in the
// modules' order) declares it: asking the others would be failed driver
// calls, which compute-sanitizer reports.
func findKernel(d *cu.Driver, mods []cu.Module, srcs [][]byte, name string) (cu.Function, error) {
	for i, src := range srcs {
		if bytes.Contains(src, []byte(".entry "+name+"(")) {
			return d.Function(mods[i], name)
		}
	}
	return 0, fmt.Errorf("kernel %s is in none of the modules", name)
}

// resolve finds every kernel with find.
func (k *kernels) resolve(find func(name string) (cu.Function, error)) error {
	var errs []error
	get := func(dst *cu.Function, name string) {
		f, err := find(name)
		errs = append(errs, err)
		*dst = f
	}
	get(&k.rmsnorm, "rmsnorm")
	get(&k.headRMSNorm, "head_rmsnorm")
	get(&k.addBias, "add_bias")
	get(&k.swiglu, "swiglu")
	get(&k.geglu, "geglu")
	get(&k.scale, "scale")
	get(&k.add, "add")
	get(&k.rope, "rope")
	get(&k.storeKV, "store_kv")
	get(&k.projAdd, "proj_add")
	get(&k.quantAct, "quant_act")
	get(&k.quantQ8, "quant_q8")
	get(&k.rmsnormQ8, "rmsnorm_q8")
	get(&k.ropeStoreKV, "rope_store_kv")
	get(&k.route, "route")
	get(&k.groupExperts, "group_experts")
	get(&k.combine, "combine")
	get(&k.swigluOAI, "swiglu_oai_rows")
	get(&k.affine, "affine_rows")
	k.att.resolve(get)
	k.prod = map[tensor.Type]productKernels{}
	for _, t := range SupportedTypes() {
		s, _ := typeSuffix(t)
		var p productKernels
		get(&p.mv, "mv_"+s)
		get(&p.mm, "mm_"+s)
		get(&p.rows, "rows_"+s)
		get(&p.mvid, "mvid_"+s)
		get(&p.mmid, "mmid_"+s)
		p.act = t != tensor.F32 && t != tensor.F16 && t != tensor.BF16
		if dp4aType(t) {
			get(&p.mvq, "mvq_"+s)
			get(&p.mvqk, "mvqk_"+s)
			get(&p.mvqn, "mvqn_"+s)
			get(&p.mvqnk, "mvqnk_"+s)
			get(&p.mmq, "mmq_"+s)
		}
		if t == tensor.F16 || t == tensor.BF16 {
			get(&p.mmf, "mmf_"+s)
		}
		k.prod[t] = p
	}
	return errors.Join(errs...)
}

// CopyBandwidth measures the device-to-device copy bandwidth (bytes read
// plus written per second, the best of five copies of 1 GiB): the memory
// roofline's denominator, which the device check measures in the same
// run as the figures it divides.
func (g *Device) CopyBandwidth() (float64, error) {
	d, ok := g.d.(*cu.Driver)
	if !ok {
		return 0, fmt.Errorf("cuda: copy bandwidth: not a real driver")
	}
	const n = 1 << 30
	var bw float64
	err := g.with(func() error {
		a, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(a)
		c, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(c)
		best := math.Inf(1)
		for range 5 {
			start := time.Now()
			if err := d.DtoD(c, a, n); err != nil {
				return err
			}
			if err := d.Synchronize(); err != nil {
				return err
			}
			best = min(best, time.Since(start).Seconds())
		}
		bw = 2 * n / best
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: copy bandwidth: %w", err)
	}
	return bw, nil
}
