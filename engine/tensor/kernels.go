package tensor

import (
	"fmt"
	"unsafe"
)

// Matrix is a weight matrix in its GGUF encoding: Rows rows of Cols elements,
// each row RowBytes long and stored contiguously (GGUF's ne[0] is Cols,
// ne[1] is Rows). Data usually aliases a memory-mapped model file.
type Matrix struct {
	Type       Type
	Rows, Cols int
	Data       []byte
	rowBytes   int
	// packed is rows 0…packedRows−1 in the interleaved layout of the
	// type's packer (see Kernels.Pack; nil when it made none),
	// packedGroup bytes per group of sixteen rows; set once, before any
	// product reads the matrix.
	packed      []byte
	packedRows  int
	packedGroup int
	// evict, when set, is told which bytes of Data a packed copy stands in
	// for (see SetEvict).
	evict func([]byte)
}

// SetEvict gives m a function that Kernels.Pack calls with the rows of Data
// its packed copy replaces in the products, so that a mapped file's pages
// need not stay resident beside the copy (gguf.File.Evict). Data must stay
// readable after the call: other readers (embedding lookups, GRC, device
// uploads) still read it. Set it before the matrix is packed, and only on
// a matrix whose Data lies in a file mapping: Pack copies such an F16 or
// BF16 matrix into huge pages (there is a page cache to refault from).
func (m *Matrix) SetEvict(f func([]byte)) { m.evict = f }

// NewMatrix checks that data holds exactly rows×cols elements of type t and
// that this package can compute with t.
func NewMatrix(t Type, rows, cols int, data []byte) (*Matrix, error) {
	if !t.Computable() {
		return nil, fmt.Errorf("tensor: matrix type %s has no CPU kernel", t)
	}
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("tensor: matrix shape %d×%d is empty", rows, cols)
	}
	rb, err := t.RowBytes(uint64(cols))
	if err != nil {
		return nil, fmt.Errorf("tensor: matrix %d×%d: %w", rows, cols, err)
	}
	if uint64(len(data))/rb != uint64(rows) || uint64(len(data))%rb != 0 {
		return nil, fmt.Errorf("tensor: %s matrix %d×%d needs %d bytes, have %d", t, rows, cols, rb*uint64(rows), len(data))
	}
	return &Matrix{Type: t, Rows: rows, Cols: cols, Data: data, rowBytes: int(rb)}, nil
}

// RowBytes is the encoded size of one row.
func (m *Matrix) RowBytes() int { return m.rowBytes }

// Row returns the encoded bytes of row r.
func (m *Matrix) Row(r int) []byte { return m.Data[r*m.rowBytes : (r+1)*m.rowBytes] }

// usesAct reports whether a type's kernel takes 8-bit quantised activations
// (integer dots) rather than float32 ones.
func usesAct(t Type) bool {
	switch t {
	case F32, F16, BF16:
		return false
	}
	return true
}

// typeSlots sizes the kernel tables, which are indexed by Type: one slot
// per id up to the last computable one (MXFP4).
const typeSlots = MXFP4 + 1

// dotFn is one row's dot product. Float types read x; quantised types read a.
type dotFn func(w []byte, x []float32, a act) float32

// rowsFn computes out[i] = (row i of w)·x for the len(out) consecutive rows
// that w holds.
type rowsFn func(w []byte, x []float32, a act, out []float32)

// gemm4Fn is a prefill kernel: for the rows consecutive rows that w holds
// and four tokens whose inputs are x (float types) or a (quantised types),
// each four rows laid end to end, it sets out[t·ostride+r] = (row r of
// w)·(token t). Its results are bit for bit the rowsFn's for each token alone.
type gemm4Fn func(w []byte, x []float32, a act, rows int, out []float32, ostride int)

// perRow turns a one-row dot product into a rowsFn.
func perRow(dot dotFn) rowsFn {
	return func(w []byte, x []float32, a act, out []float32) {
		rb := len(w) / len(out)
		for r := range out {
			out[r] = dot(w[r*rb:(r+1)*rb], x, a)
		}
	}
}

// ptr is the address of b's first byte (b is non-empty).
func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }

// Kernels runs matrix products on a Pool with the fastest dot products the
// CPU supports, chosen once at construction. It owns reusable scratch space,
// so a call allocates nothing; in exchange one Kernels must not be used by two
// goroutines at once (give each its own; they may share a Pool).
type Kernels struct {
	pool  *Pool
	path  string
	gpath string // the prefill kernels' path, "" when there are none
	rows  [typeSlots]rowsFn
	gemm4 [typeSlots]gemm4Fn
	gemmU [typeSlots]vnniAct // what of prepActVNNI's gemm4 reads
	// The packed kernels by type (pack.go, packk.go), nil where there
	// are none.
	prows  [typeSlots]packedRowsFn
	pgemm4 [typeSlots]packedGemm4Fn
	// The packed layouts the packed kernels read where a type's is not
	// its default (pack.go), zero elsewhere.
	playout [typeSlots]packLayout
	// Sixteen-token packed prefill kernels (AMX, packk_amx_amd64.s), nil
	// where there are none; per token bit for bit pgemm4's.
	pgemm16 [typeSlots]packedGemm4Fn
	abuf    actBuf
	mv      mvTask
	mm      mmTask
	each    eachTask // MatVecsEach's, its op lists reused
	qt      quantTask
	owned   bool
	// A batch whose last group has three tokens runs it padded to four
	// through the four-token kernel (one pass over the weights instead of
	// three): the group's four outputs per row land here.
	opad []float32
	// arena holds the packed copies that Pack makes (hugearena.go).
	arena hugeArena
}

// NewKernels returns kernels running on pool, or on a new pool of
// GOMAXPROCS workers when pool is nil (Close then stops it).
func NewKernels(pool *Pool) *Kernels {
	return newKernels(pool, true)
}

func newKernels(pool *Pool, useAsm bool) *Kernels {
	return newKernelsVNNI(pool, useAsm, true)
}

// newKernelsVNNI is newKernels with the VNNI prefill kernels allowed or not,
// so that tests can run the AVX2 ones on a CPU that has both.
func newKernelsVNNI(pool *Pool, useAsm, vnni bool) *Kernels {
	k := &Kernels{pool: pool}
	if pool == nil {
		k.pool = NewPool(0)
		k.owned = true
	}
	k.path = "go"
	for t, dot := range map[Type]dotFn{
		F32: dotF32Go, F16: dotF16Go, BF16: dotBF16Go, Q8_0: dotQ8_0Go,
		Q4_0: dotQ4_0Go, Q4_K: dotQ4KGo, Q5_K: dotQ5KGo, Q6_K: dotQ6KGo,
		Q4_1: dotQ4_1Go, Q5_0: dotQ5_0Go, Q5_1: dotQ5_1Go, IQ4_NL: dotIQ4NLGo,
		Q2_K: dotQ2KGo, Q3_K: dotQ3KGo, IQ4_XS: dotIQ4XSGo, MXFP4: dotMXFP4Go,
		IQ2_XXS: dotIQ2XXSGo, IQ2_XS: dotIQ2XSGo, IQ2_S: dotIQ2SGo,
		IQ3_XXS: dotIQ3XXSGo, IQ3_S: dotIQ3SGo,
		IQ1_S: dotIQ1SGo, IQ1_M: dotIQ1MGo, TQ1_0: dotTQ1Go, TQ2_0: dotTQ2Go,
	} {
		k.rows[t] = perRow(dot)
	}
	if useAsm {
		k.path = useArchDots(&k.rows, k.path)
		k.gpath = useArchGemm4(&k.gemm4, &k.gemmU, vnni)
		usePacked(&k.prows, &k.pgemm4, &k.playout, vnni)
		if vnni && useAMX(&k.pgemm16) {
			k.gpath += "+amx"
		}
	}
	return k
}

// Path names the one-token (decode) kernels in use, for logs and bench
// reports: "avx512vnni" where some types run 512-bit VNNI kernels (the
// others AVX2), "avx2", or "go" for the portable ones.
func (k *Kernels) Path() string { return k.path }

// PrefillPath names the batched (prefill) kernels in use: "avx512vnni"
// (with "+amx" where some types' run on the AMX tiles), "avx2", or ""
// when prefill runs the one-token kernels.
func (k *Kernels) PrefillPath() string { return k.gpath }

// Pool is the worker pool the kernels run on.
func (k *Kernels) Pool() *Pool { return k.pool }

// Close stops the pool if NewKernels created it.
func (k *Kernels) Close() {
	if k.owned {
		k.pool.Close()
	}
}

// checkShape panics on caller bugs, never on file input: a Matrix has
// already been validated by NewMatrix, so a mismatch here is a programming error.
func checkShape(w *Matrix, dst, x []float32, n int) {
	if len(x) != n*w.Cols || len(dst) != n*w.Rows {
		panic(fmt.Sprintf("tensor: %d×%d %s matrix times %d vectors: x has %d elements, dst %d",
			w.Rows, w.Cols, w.Type, n, len(x), len(dst)))
	}
}

// MatVec computes dst = W·x: dst[r] = Σ_c W[r,c]·x[c]. len(x) must be
// w.Cols and len(dst) w.Rows. Quantised types quantise x to 8 bits first.
func (k *Kernels) MatVec(dst []float32, w *Matrix, x []float32) {
	k.MatVecs(x, MatVecOp{Dst: dst, W: w})
}

// MatVecOp is one product of a fused MatVecs call: Dst = W·x.
type MatVecOp struct {
	Dst []float32
	W   *Matrix
}

// maxFused is how many products one MatVecs call can fuse.
const maxFused = 4

// MatVecs computes several products of the same vector x (Q, K and V of one
// token; or the FFN's gate and up) in one dispatch to the pool, quantising x
// once. Decoding a small model is dominated by per-call costs, not by the
// weights, so fusing the calls that share an input matters there. Every W
// must have len(x) columns; at most 4 products.
func (k *Kernels) MatVecs(x []float32, ops ...MatVecOp) {
	if len(ops) > maxFused {
		panic(fmt.Sprintf("tensor: MatVecs fuses at most %d products, got %d", maxFused, len(ops)))
	}
	t := &k.mv
	*t = mvTask{x: x}
	quant := false
	for i, op := range ops {
		checkShape(op.W, op.Dst, x, 1)
		t.ops[i] = mvOp{w: op.W, dst: op.Dst, rows: k.rows[op.W.Type], start: t.rows}
		if op.W.packedRows > 0 {
			t.ops[i].prows = k.prows[op.W.Type]
		}
		t.rows += op.W.Rows
		quant = quant || usesAct(op.W.Type)
	}
	t.n = len(ops)
	if quant {
		k.abuf.ensure(1, len(x))
		t.a = k.abuf.row(0, len(x))
		quantizeAct(t.a, x)
		for _, op := range ops {
			if f16Scales(op.W.Type) {
				k.abuf.roundScales(1, len(x))
				break
			}
		}
		if needM4(t.ops[:t.n]) {
			k.abuf.prepM4(1, len(x))
			t.a.m4 = k.abuf.m4
		}
	}
	k.pool.Run(t.rows, t)
	*t = mvTask{}
}

// needM4 reports whether one of ops runs packed Q6_K, Q3_K or Q2_K.
func needM4(ops []mvOp) bool {
	for i := range ops {
		if readsM4(ops[i].prows, ops[i].w.Type) {
			return true
		}
	}
	return false
}

// readsM4 reports whether a product of type t on packed kernel prows (nil:
// unpacked) reads act.m4: packed Q6_K's, Q3_K's and Q2_K's do.
func readsM4(prows packedRowsFn, t Type) bool {
	return prows != nil && (t == Q6_K || t == Q3_K || t == Q2_K)
}

type mvOp struct {
	w     *Matrix
	dst   []float32
	rows  rowsFn
	prows packedRowsFn // non-nil: rows below w.packedRows run packed
	start int          // first global row of this product
}

// mvTask is a set of products over one vector, with rows numbered
// consecutively across them so the pool splits the total work evenly.
type mvTask struct {
	ops  [maxFused]mvOp
	n    int
	rows int
	x    []float32
	a    act
}

func (t *mvTask) Run(lo, hi int) {
	for i := range t.n {
		t.ops[i].run(lo, hi, t.x, t.a)
	}
}

// run computes the op's rows that fall in the global rows lo…hi−1 of its
// task, on input x (quantised as a).
func (op *mvOp) run(lo, hi int, x []float32, a act) {
	{
		r0, r1 := max(lo, op.start)-op.start, min(hi, op.start+op.w.Rows)-op.start
		if op.prows != nil && r0 < r1 {
			// The packed kernel runs whole groups: a range runs the
			// groups that start in it, rows past hi included, and
			// leaves the group it starts inside to the range before.
			pr := op.w.packedRows
			g0, g1 := (r0+packRows-1)/packRows, (min(r1, pr)+packRows-1)/packRows
			if g0 < g1 {
				gb := op.w.packedGroup
				op.prows(op.w.packed[g0*gb:g1*gb], a, op.dst[g0*packRows:g1*packRows])
			}
			r0 = max(r0, pr)
		}
		if r0 < r1 {
			rb := op.w.rowBytes
			op.rows(op.w.Data[r0*rb:r1*rb], x, a, op.dst[r0:r1])
		}
	}
}

// mmTile is how many weight rows one pass over the activations reuses: 64
// rows of a 4096-wide Q4_K matrix are 147 KiB, which stays in L2 while every
// activation row streams past it.
const mmTile = 64

// MatMul computes dst = X·Wᵀ for n activation rows: X is n×w.Cols row-major
// (one token per row) and dst is n×w.Rows row-major, so dst row i equals
// MatVec of X row i. Prefill uses it to read each weight once per n tokens.
func (k *Kernels) MatMul(dst []float32, w *Matrix, x []float32, n int) {
	k.MatMuls(x, n, MatMulOp{Dst: dst, W: w})
}

// MatMulOp is one product of a fused MatMuls call: Dst = X·Wᵀ.
type MatMulOp struct {
	Dst []float32
	W   *Matrix
}

// MatMuls is MatMul for several matrices that read the same n rows x (a
// batch's Q, K and V; or its gate and up), in one dispatch to the pool and
// with x quantised once: the quantisation runs on one thread while the
// others wait, so doing it once instead of three times is time the whole
// pool gets back. Every W must have the same columns; at most 4 products.
// Each Dst is bit for bit what MatMul gives alone.
func (k *Kernels) MatMuls(x []float32, n int, ops ...MatMulOp) {
	if len(ops) > maxFused || len(ops) == 0 {
		panic(fmt.Sprintf("tensor: MatMuls fuses 1 to %d products, got %d", maxFused, len(ops)))
	}
	if n == 1 {
		var mv [maxFused]MatVecOp
		for i, op := range ops {
			mv[i] = MatVecOp(op)
		}
		k.MatVecs(x, mv[:len(ops)]...)
		return
	}
	t := &k.mm
	*t = mmTask{x: x, n: n, nops: len(ops)}
	cols := ops[0].W.Cols
	full := n &^ 3
	quant, pad := false, false
	var vnni vnniAct
	for i, op := range ops {
		if op.W.Cols != cols {
			panic(fmt.Sprintf("tensor: MatMuls of %d- and %d-column matrices", cols, op.W.Cols))
		}
		checkShape(op.W, op.Dst, x, n)
		o := mmOp{w: op.W, dst: op.Dst, rows: k.rows[op.W.Type], gemm4: k.gemm4[op.W.Type], quant: usesAct(op.W.Type), tile0: t.tiles}
		if op.W.packedRows > 0 && k.prows[op.W.Type] != nil {
			o.prows, o.pgemm4, o.pgemm16 = k.prows[op.W.Type], k.pgemm4[op.W.Type], k.pgemm16[op.W.Type]
		}
		// A last group of three tokens of a quantised type goes through
		// the four-token kernel with the third token repeated: the
		// kernel's results per token are the one-token kernel's bit for
		// bit, and it reads the weights once instead of three times (a
		// speculative verifier's γ = 2 batch is one such group:
		// SmolLM2-shaped Q8_0, 8.9 → 6.7 ms). A remainder of one or two
		// stays on the one-token kernel, whose second pass finds the tile
		// in cache; so does F16, whose AVX2 "four-token" kernel is two
		// two-token passes (padding measured slower: 13 → 16 ms; not
		// measured with the 512-bit four-token kernel).
		o.pad = o.gemm4 != nil && o.quant && n-full == 3
		if o.pad {
			o.opad0 = t.padRows
			t.padRows += op.W.Rows
		}
		quant = quant || o.quant
		// A packed matrix needs the VNNI activations only for its
		// unpacked tail rows.
		if o.prows == nil || op.W.packedRows < op.W.Rows {
			vnni |= k.gemmU[op.W.Type]
		}
		pad = pad || o.pad
		t.ops[i] = o
		t.tiles += (op.W.Rows + mmTile - 1) / mmTile
	}
	rowsIn := n // activation rows, the padded one included
	if pad {
		rowsIn = full + 4
	}
	if quant {
		k.abuf.ensure(rowsIn, cols)
		t.abuf = &k.abuf
		k.quantizeRows(x, n, cols)
		for _, op := range ops {
			if f16Scales(op.W.Type) {
				k.abuf.roundScales(n, cols)
				break
			}
		}
		if pad {
			k.abuf.copyRow(n, n-1, cols)
		}
		for i := range t.nops {
			if readsM4(t.ops[i].prows, t.ops[i].w.Type) {
				k.abuf.prepM4(rowsIn, cols)
				break
			}
		}
		if groups := rowsIn &^ 3; vnni != 0 && groups >= 4 {
			prepActVNNI(&k.abuf, groups, cols, vnni)
			t.vnni = vnni
		}
	}
	if pad {
		if need := 4 * t.padRows; cap(k.opad) < need {
			k.opad = make([]float32, need)
		}
		t.opad = k.opad[:4*t.padRows]
	}
	k.pool.Run(t.tiles, t)
	for i := range t.nops {
		if o := &t.ops[i]; o.pad {
			// opad holds four rows of padRows outputs; this product's
			// are columns opad0… of each.
			for j := range 3 {
				src := t.opad[j*t.padRows+o.opad0:][:o.w.Rows]
				copy(o.dst[(full+j)*o.w.Rows:(full+j+1)*o.w.Rows], src)
			}
		}
	}
	*t = mmTask{}
}

// quantizeRows quantises n rows of x into k.abuf, across the pool when the
// batch is large enough to pay for a dispatch.
func (k *Kernels) quantizeRows(x []float32, n, cols int) {
	if n < 16 || k.pool.Size() == 1 {
		for i := range n {
			quantizeAct(k.abuf.row(i, cols), x[i*cols:(i+1)*cols])
		}
		return
	}
	q := &k.qt
	*q = quantTask{b: &k.abuf, x: x, cols: cols}
	k.pool.Run(n, q)
	*q = quantTask{}
}

// quantTask quantises a range of activation rows.
type quantTask struct {
	b    *actBuf
	x    []float32
	cols int
}

func (q *quantTask) Run(lo, hi int) {
	for i := lo; i < hi; i++ {
		quantizeAct(q.b.row(i, q.cols), q.x[i*q.cols:(i+1)*q.cols])
	}
}

// vnniAct says which of prepActVNNI's activations a four-token kernel
// reads, so that a MatMuls prepares only those.
type vnniAct uint8

const (
	actDT vnniAct = 1 << iota // the four tokens' block scales side by side
	actU                      // the codes plus 128
	actST                     // the four tokens' block sums side by side
	actQX                     // the codes interleaved for the Q5_0 kernel (byPairs)
)

// mmOp is one product of an mmTask; its tiles are numbered from tile0 in
// the task's global tile range.
type mmOp struct {
	w     *Matrix
	dst   []float32
	rows  rowsFn
	gemm4 gemm4Fn
	quant bool
	tile0 int
	// Non-nil for a packed matrix: rows below w.packedRows run on these.
	prows   packedRowsFn
	pgemm4  packedGemm4Fn
	pgemm16 packedGemm4Fn // nil: none; else whole groups of sixteen tokens run on it
	// pad: the last three tokens run as a group of four (the third
	// repeated in abuf), their outputs to the task's opad, at column
	// opad0 of its rows.
	pad   bool
	opad0 int
}

type mmTask struct {
	ops   [maxFused]mmOp
	nops  int
	tiles int
	x     []float32
	n     int
	abuf  *actBuf
	vnni  vnniAct // what abuf holds of prepActVNNI's
	// opad is four rows of padRows outputs: the padded groups of every
	// padding product, side by side.
	padRows int
	opad    []float32
}

func (t *mmTask) Run(lo, hi int) {
	for tile := lo; tile < hi; tile++ {
		o := &t.ops[0]
		for i := 1; i < t.nops && tile >= t.ops[i].tile0; i++ {
			o = &t.ops[i]
		}
		t.runTile(o, tile-o.tile0)
	}
}

// runTile runs product o's tile of rows.
func (t *mmTask) runTile(o *mmOp, tile int) {
	w, cols, rows := o.w, o.w.Cols, o.w.Rows
	rb := w.rowBytes
	r0, r1 := tile*mmTile, min((tile+1)*mmTile, rows)
	if o.prows != nil && r0 < w.packedRows {
		// mmTile is a multiple of packRows: the tile's packed rows are
		// whole groups.
		pr := min(r1, w.packedRows)
		t.runPacked(o, r0, pr)
		r0 = pr
		if r0 == r1 {
			return
		}
	}
	i0 := 0
	if o.gemm4 != nil {
		// Four tokens per pass over the tile's rows, then the
		// remainder one by one.
		for ; i0+4 <= t.n; i0 += 4 {
			var x []float32
			if !o.quant {
				x = t.x[i0*cols : (i0+4)*cols]
			}
			o.gemm4(w.Data[r0*rb:r1*rb], x, t.group(o, i0), r1-r0, o.dst[i0*rows+r0:], rows)
		}
		if o.pad {
			o.gemm4(w.Data[r0*rb:r1*rb], nil, t.group(o, i0), r1-r0, t.opad[o.opad0+r0:], t.padRows)
			return // every token of this tile is done
		}
	}
	for i := i0; i < t.n; i++ {
		var a act
		var xi []float32
		if o.quant {
			a = t.abuf.row(i, cols)
		} else {
			xi = t.x[i*cols : (i+1)*cols]
		}
		o.rows(w.Data[r0*rb:r1*rb], xi, a, o.dst[i*rows+r0:i*rows+r1])
	}
}

// runPacked runs product o's rows r0…r1−1, whole groups of its packed
// copy, for every token: four at a time, then the rest one by one.
func (t *mmTask) runPacked(o *mmOp, r0, r1 int) {
	w, rows := o.w, o.w.Rows
	gb := w.packedGroup
	p := w.packed[r0/packRows*gb : r1/packRows*gb]
	groups := (r1 - r0) / packRows
	i0 := 0
	if o.pgemm16 != nil {
		for ; i0+16 <= t.n; i0 += 16 {
			o.pgemm16(p, t.group16(o, i0), groups, o.dst[i0*rows+r0:], rows)
		}
	}
	for ; i0+4 <= t.n; i0 += 4 {
		o.pgemm4(p, t.group(o, i0), groups, o.dst[i0*rows+r0:], rows)
	}
	if o.pad {
		o.pgemm4(p, t.group(o, i0), groups, t.opad[o.opad0+r0:], t.padRows)
		return
	}
	for i := i0; i < t.n; i++ {
		o.prows(p, t.abuf.row(i, w.Cols), o.dst[i*rows+r0:i*rows+r1])
	}
}

// group16 is the quantised activations of tokens i0…i0+15 for product o,
// as the sixteen-token packed kernels read them (codes, scales, sums).
func (t *mmTask) group16(o *mmOp, i0 int) act {
	cols := o.w.Cols
	nb := cols / QK
	return act{
		qs: t.abuf.qs[i0*cols : (i0+16)*cols],
		d:  t.abuf.d[i0*nb : (i0+16)*nb],
		s:  t.abuf.s[i0*nb : (i0+16)*nb],
	}
}

// group is the quantised activations of tokens i0…i0+3 for product o (the
// zero act for float types, which read x).
func (t *mmTask) group(o *mmOp, i0 int) act {
	if !o.quant {
		return act{}
	}
	cols := o.w.Cols
	nb := cols / QK
	a := act{
		qs: t.abuf.qs[i0*cols : (i0+4)*cols],
		d:  t.abuf.d[i0*nb : (i0+4)*nb],
		s:  t.abuf.s[i0*nb : (i0+4)*nb],
		m8: t.abuf.m8[i0*nb : (i0+4)*nb],
		m4: t.abuf.m4M(i0, 4, cols),
	}
	if t.vnni&actU != 0 {
		a.u = t.abuf.u[i0*cols : (i0+4)*cols]
	}
	if t.vnni&actDT != 0 {
		a.dT = t.abuf.dT[i0*nb : (i0+4)*nb]
	}
	if t.vnni&actST != 0 {
		a.sT = t.abuf.sT[i0*nb : (i0+4)*nb]
	}
	if t.vnni&actQX != 0 {
		a.qX = t.abuf.qX[i0*cols : (i0+4)*cols]
	}
	return a
}

// asF32 views little-endian float32 weights in place. GGUF aligns tensor data
// to at least 4 bytes, and x86 tolerates misalignment anyway.
func asF32(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// asU16 views little-endian 16-bit weights (F16, BF16) in place.
func asU16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// asBytes views float32s as their little-endian bytes.
func asBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 4*len(f))
}

// Dot returns Σ a[i]·b[i] over len(a) elements (b must be at least as long),
// with the fastest float32 dot product the CPU has: the attention scores and
// geometry projections use it.
func Dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return dotF32Fast(a, b[:len(a)])
}

// Axpy adds alpha·x to y element-wise over len(x) elements (y must be at
// least as long): the attention's weighted sum of values.
func Axpy(alpha float32, x, y []float32) {
	axpyFast(alpha, x, y[:len(x)])
}

// WeightedSum sets out = Σ_j w[j]·v[j·n:(j+1)·n] with n = len(out), over
// the len(w) rows of v, adding in key order (so it equals clearing out and
// calling Axpy(w[j], row j, out) for each j): attention's weighted sum of
// values.
func WeightedSum(out, v, w []float32) {
	n := len(out)
	if len(w) == 0 {
		clear(out)
		return
	}
	_ = v[len(w)*n-1]
	if hasAVX2 && n%8 == 0 {
		weightedSumAVX2(&out[0], &v[0], &w[0], n, len(w))
		return
	}
	clear(out)
	for j, a := range w {
		axpyFast(a, v[j*n:(j+1)*n], out)
	}
}

// DotRows sets out[i] = m[i·n:(i+1)·n]·x for the len(out) consecutive rows of
// n = len(x) floats in m: attention scores of one query against a run of
// cached keys, in one call.
func DotRows(m, x, out []float32) {
	if len(out) == 0 {
		return
	}
	n := len(x)
	_ = m[len(out)*n-1]
	dotRowsF32(m[:len(out)*n], x, out)
}
