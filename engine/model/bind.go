package model

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// bindings are the model's dense weights bound on each backend domain
// (backend.Backend.Domain) that a State has run on, so that every State
// of a domain — a conversation, its drafter, a server's forks on shared
// backends — reads one binding instead of uploading the weights again.
// They belong to the model: no State releases them, and they are dropped
// with the Model (a device backend frees its memory when it is closed).
// The mutex lets States be made on several goroutines at once.
type bindings struct {
	mu sync.Mutex
	by map[any]*bound
}

// bound is the model's dense weights on one domain: read-only once made.
type bound struct {
	// by is the backend that bound them and mats every matrix it bound
	// (once each), for Model.Close to release on a backend that can.
	by   backend.Backend
	mats []backend.Matrix
	w    stateWeights
	// lin is every block's dense products; a State copies it and replaces
	// the slots a projection compresses.
	lin []blockLinears
}

// bind returns the model's weights on b's domain, binding them through b
// the first time the domain is seen.
func (m *Model) bind(b backend.Backend) (*bound, error) {
	d := b.Domain()
	if d == nil || !reflect.TypeOf(d).Comparable() {
		return nil, fmt.Errorf("model: backend %s reports a weight domain of type %T, which is not comparable", b.Name(), d)
	}
	m.binds.mu.Lock()
	defer m.binds.mu.Unlock()
	if w := m.binds.by[d]; w != nil {
		return w, nil
	}
	w, err := m.bindOn(b)
	if err != nil {
		return nil, err
	}
	if m.binds.by == nil {
		m.binds.by = map[any]*bound{}
	}
	m.binds.by[d] = w
	return w, nil
}

// bindOn puts the model's weights on b. A failure releases what it bound
// (when b can), so that a refused backend keeps nothing of the model.
func (m *Model) bindOn(b backend.Backend) (*bound, error) {
	var (
		err  error // the first failure; later calls do nothing
		mats []backend.Matrix
	)
	mat := func(t *tensor.Matrix) backend.Matrix {
		if t == nil || err != nil {
			return nil
		}
		w, e := b.Matrix(t)
		if e != nil {
			err = fmt.Errorf("model: putting the weights on %s: %w", b.Name(), e)
			return nil
		}
		mats = append(mats, w)
		return w
	}
	vec := func(v []float32) backend.Vector {
		if v == nil || err != nil {
			return nil
		}
		w, e := b.Vector(v)
		if e != nil {
			err = fmt.Errorf("model: putting the weights on %s: %w", b.Name(), e)
		}
		return w
	}
	// A backend over several devices puts each layer's weights where the
	// layer runs.
	place := func(int) int { return 0 }
	if p, ok := b.(backend.Placer); ok {
		place = func(l int) int { return p.Place(l, len(m.layers)) }
	}
	// Expert stacks bind through the backend's expert operations.
	ex, _ := b.(backend.Experts)
	stack := func(ts []*tensor.Matrix) backend.Matrix {
		if ts == nil || err != nil {
			return nil
		}
		if ex == nil {
			err = fmt.Errorf("model: backend %s cannot run mixture-of-experts layers", b.Name())
			return nil
		}
		w, e := ex.ExpertMatrix(ts)
		if e != nil {
			err = fmt.Errorf("model: putting the experts on %s: %w", b.Name(), e)
			return nil
		}
		mats = append(mats, w)
		return w
	}
	w := &bound{by: b}
	first := place(-1)
	w.w = stateWeights{tokEmbd: mat(m.tokEmbd)}
	last := place(len(m.layers))
	w.w.outNorm = vec(m.outNorm)
	// A tied classifier is the embedding table: bound once, unless the
	// output runs on another device than the embedding (the hidden state
	// would otherwise travel back to the first device for every token).
	if m.output == m.tokEmbd && first == last {
		w.w.output = w.w.tokEmbd
	} else {
		w.w.output = mat(m.output)
	}
	w.w.blocks = make([]blockWeights, len(m.layers))
	w.lin = make([]blockLinears, len(m.layers))
	for l := range m.layers {
		place(l)
		L := &m.layers[l]
		w.w.blocks[l] = blockWeights{
			attnNorm: vec(L.attnNorm), ffnNorm: vec(L.ffnNorm),
			bq: vec(L.bq), bk: vec(L.bk), bv: vec(L.bv), qNorm: vec(L.qNorm), kNorm: vec(L.kNorm),
			postAttnNorm: vec(L.postAttnNorm), postFFNNorm: vec(L.postFFNNorm),
		}
		if L.moe != nil {
			w.w.blocks[l].moe = bindMoE(b, L.moe, mat, vec, stack)
		}
		w.lin[l] = blockLinears{
			qkv:  linear{out: []backend.Matrix{mat(L.wq), mat(L.wk), mat(L.wv)}},
			o:    linear{out: []backend.Matrix{mat(L.wo)}},
			ffn:  linear{out: []backend.Matrix{mat(L.gate), mat(L.up)}},
			down: linear{out: []backend.Matrix{mat(L.down)}},
		}
	}
	if err != nil {
		if r, ok := b.(backend.Releaser); ok {
			for _, x := range mats {
				r.Release(x)
			}
		}
		return nil, err
	}
	w.mats = mats
	return w, nil
}

// release gives the backend back the matrices, when it can take them.
func (w *bound) release() {
	if r, ok := w.by.(backend.Releaser); ok {
		for _, x := range w.mats {
			r.Release(x)
		}
	}
	w.mats = nil
}
