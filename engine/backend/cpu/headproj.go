package cpu

import (
	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// headProjMinWork is the multiply-adds below which HeadProject runs on the
// calling goroutine: a decode step's projections of a small model are a few
// thousand, less than what waking the pool costs, while a prefill batch's
// are worth spreading.
const headProjMinWork = 1 << 15

// headProjTask is HeadProject over units of (row, head), so that a batch's
// rows and a step's heads alike spread over the pool; each unit writes its
// own slice of dst.
type headProjTask struct {
	dst, src   *buf
	m          []float32 // the stacked blocks, G·r rows of w
	heads, per int
	r, w       int
	transpose  bool
}

// HeadProject implements backend.HeadProjector. An F32 m is read in place
// (the model binds its KV projections as F32); another type is a
// programming error the model never makes, and projects nothing.
func (b *Backend) HeadProject(dst, src backend.Buffer, n, heads, perHead int, m backend.Matrix, transpose bool) {
	M := hm(m).m
	if M.Type != tensor.F32 || heads <= 0 || perHead <= 0 || heads%perHead != 0 {
		return
	}
	groups := heads / perHead
	if M.Rows%groups != 0 {
		return
	}
	t := &b.hproj
	*t = headProjTask{dst: hb(dst), src: hb(src), m: asF32(M.Data)[:M.Rows*M.Cols], heads: heads, per: perHead, r: M.Rows / groups, w: M.Cols, transpose: transpose}
	if units := n * heads; units*t.r*t.w < headProjMinWork {
		t.Run(0, units)
	} else {
		b.k.Pool().Run(units, t)
	}
	*t = headProjTask{} // drop the references until the next call
}

func (t *headProjTask) Run(lo, hi int) {
	r, w := t.r, t.w
	for u := lo; u < hi; u++ {
		i, h := u/t.heads, u%t.heads
		blk := t.m[(h/t.per)*r*w : (h/t.per+1)*r*w]
		srow, drow := t.src.data[i*t.src.width:], t.dst.data[i*t.dst.width:]
		if t.transpose {
			// out = Σ_j c_j · row j of the block: Mᵀc, rows added in order.
			tensor.WeightedSum(drow[h*w:(h+1)*w], blk, srow[h*r:(h+1)*r])
			continue
		}
		tensor.DotRows(blk, srow[h*w:(h+1)*w], drow[h*r:(h+1)*r])
	}
}

var _ backend.HeadProjector = (*Backend)(nil)
