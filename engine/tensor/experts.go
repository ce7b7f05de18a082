package tensor

import "fmt"

// VecOp is one product of MatVecsEach: Dst = W·(row In of the inputs).
type VecOp struct {
	Dst []float32
	W   *Matrix
	In  int
}

// eachTask is MatVecsEach's work: its products' rows numbered
// consecutively, as mvTask's, each product with its own input.
type eachTask struct {
	ops  []mvOp
	ins  []int // input row of each op
	rows int
	x    []float32 // the inputs, rows of cols
	cols int
	abuf *actBuf
}

func (t *eachTask) Run(lo, hi int) {
	for i := range t.ops {
		op := &t.ops[i]
		if op.start >= hi || op.start+op.w.Rows <= lo {
			continue
		}
		in := t.ins[i]
		var a act
		if t.abuf != nil {
			a = t.abuf.row(in, t.cols)
		}
		op.run(lo, hi, t.x[in*t.cols:(in+1)*t.cols], a)
	}
}

// MatVecsEach computes products of several one-token inputs in one
// dispatch to the pool: op i sets Dst = W·x_In, with x_j row j of x (rows
// of cols values). Each input is quantised once whatever the number of
// products that read it. A mixture-of-experts layer decoding one token
// runs its chosen experts' gate and up products (one input) and then
// their down products (one input per expert) this way: two dispatches a
// layer instead of one or more per expert. Every W must have cols
// columns. The op list is kept between calls (ops is not retained), so a
// decode step allocates nothing once it has run.
func (k *Kernels) MatVecsEach(x []float32, cols int, ops []VecOp) {
	if len(ops) == 0 {
		return
	}
	if cols <= 0 || len(x)%cols != 0 {
		panic(fmt.Sprintf("tensor: MatVecsEach over %d values in rows of %d", len(x), cols))
	}
	nIn := len(x) / cols
	t := &k.each
	t.ops, t.ins = t.ops[:0], t.ins[:0]
	t.rows, t.x, t.cols, t.abuf = 0, x, cols, nil
	quant, m4, f16 := false, false, false
	for _, op := range ops {
		if op.In < 0 || op.In >= nIn {
			panic(fmt.Sprintf("tensor: MatVecsEach op reads input %d of %d", op.In, nIn))
		}
		checkShape(op.W, op.Dst, x[op.In*cols:(op.In+1)*cols], 1)
		o := mvOp{w: op.W, dst: op.Dst, rows: k.rows[op.W.Type], start: t.rows}
		if op.W.packedRows > 0 {
			o.prows = k.prows[op.W.Type]
		}
		t.ops = append(t.ops, o)
		t.ins = append(t.ins, op.In)
		t.rows += op.W.Rows
		quant = quant || usesAct(op.W.Type)
		m4 = m4 || readsM4(o.prows, op.W.Type)
		f16 = f16 || f16Scales(op.W.Type)
	}
	if quant {
		k.abuf.ensure(nIn, cols)
		k.quantizeRows(x, nIn, cols)
		if f16 {
			k.abuf.roundScales(nIn, cols)
		}
		if m4 {
			k.abuf.prepM4(nIn, cols)
		}
		t.abuf = &k.abuf
	}
	k.pool.Run(t.rows, t)
	clear(t.ops) // drop the references to the matrices and outputs
	t.x, t.abuf = nil, nil
}
