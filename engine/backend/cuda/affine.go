package cuda

import (
	"fmt"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Affine implements backend.Affiner with affine_rows, one block per row:
// a Snipe projector or a Safe OGD step applied where the rows are, so that
// the hooks that steer by one (engine/model.AffineHook) need no copy of
// the residual stream to the host and back.
func (b *Backend) Affine(x backend.Buffer, row0, n int, basis backend.Matrix, mu, dir backend.Vector, alpha float32) {
	if n <= 0 || !b.enter() {
		return
	}
	defer b.leave()
	s, m := db(x), dv(mu)
	// A basis or direction the map does not read is passed as μ: every
	// pointer argument points at live memory (the recording driver checks
	// that), and the kernel reads B only when k > 0, dir only when
	// alpha ≠ 0.
	q, k := m.p, 0
	if basis != nil {
		B := dm(basis)
		if B.t != tensor.F32 || B.cols != s.width {
			b.fail("affine map", fmt.Errorf("a basis of %d×%d %s for rows of %d; want F32 rows of the buffer's width", B.rows, B.cols, B.t, s.width))
			return
		}
		q, k = B.p, B.rows
	}
	if m.n != s.width {
		b.fail("affine map", fmt.Errorf("a centre of %d for rows of %d", m.n, s.width))
		return
	}
	v := m.p
	if alpha != 0 {
		if dir == nil || dv(dir).n != s.width {
			b.fail("affine map", fmt.Errorf("a step of %v with no direction of the rows' width %d", alpha, s.width))
			return
		}
		v = dv(dir).p
	}
	xp := s.p + cu.DevicePtr(4*row0*s.width)
	b.args.Reset().Ptr(xp).I32(int32(s.width)).Ptr(q).I32(int32(k)).I32(int32(s.width)).Ptr(m.p).Ptr(v).F32(alpha)
	b.launch("affine_rows", b.g.k.affine, [3]uint32{uint32(n), 1, 1}, [3]uint32{256, 1, 1})
}
