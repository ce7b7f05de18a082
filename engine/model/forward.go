package model

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// MaxBatch is the most prompt tokens one prefill step multiplies at once;
// longer prompts run in steps of this size. 64 tokens keep the activations
// of a 4096-wide model (and its FFN) within a few MiB.
const MaxBatch = 64

// State is one conversation's mutable state over a Model: the KV cache,
// the position, scratch buffers and hooks. It is not safe for concurrent
// use; give each conversation its own.
type State struct {
	m      *Model
	k      *tensor.Kernels
	ctx    int // KV cache capacity in positions
	pos    int // next position to compute
	hooks  hookSet
	kc, vc []float32 // [Layers][KVHeads][ctx][HeadDim]: one head's keys are contiguous

	// Activations for up to MaxBatch tokens, row-major [token][width].
	x, xb, q, kb, vb, att, g, u []float32
	hn                          []float32 // final-normed hidden state [token][Dim]
	scores                      []float32 // [Heads][ctx]
	cos, sin                    []float32 // [token][RopeDim/2]
	attn                        attnTask

	grc *GRC      // compressed products, or nil
	xt  []float32 // x̃ = Pᵀx of the group being computed [token][k]
}

// NewState allocates a state whose KV cache holds ctx positions (the model's
// own context length when ctx ≤ 0, never more). The cache is float32: it
// reproduces the reference logits exactly, where an f16 cache flips a
// near-tie in the stories260K golden at step 37. kernels may be shared by
// States that are never used at the same time; nil makes a new pool.
func (m *Model) NewState(ctx int, kernels *tensor.Kernels) (*State, error) {
	if ctx <= 0 || ctx > m.CtxLen {
		ctx = m.CtxLen
	}
	if kernels == nil {
		kernels = tensor.NewKernels(nil)
	}
	c := &m.Config
	kv := c.Layers * ctx * c.KVDim()
	if kv/c.Layers/ctx != c.KVDim() || kv > 1<<33 {
		return nil, fmt.Errorf("model: KV cache of %d positions is too large", ctx)
	}
	B := MaxBatch
	s := &State{
		m: m, k: kernels, ctx: ctx,
		kc: make([]float32, kv), vc: make([]float32, kv),
		x: make([]float32, B*c.Dim), xb: make([]float32, B*c.Dim),
		q: make([]float32, B*c.QDim()), att: make([]float32, B*c.QDim()),
		kb: make([]float32, B*c.KVDim()), vb: make([]float32, B*c.KVDim()),
		g: make([]float32, B*c.FFN), u: make([]float32, B*c.FFN),
		hn:     make([]float32, B*c.Dim),
		scores: make([]float32, c.Heads*ctx),
		cos:    make([]float32, B*c.RopeDim/2), sin: make([]float32, B*c.RopeDim/2),
	}
	s.attn.s = s
	return s, nil
}

// Model is the model this state runs.
func (s *State) Model() *Model { return s.m }

// Pos is the number of positions computed so far (the next token's position).
func (s *State) Pos() int { return s.pos }

// Cap is the KV cache capacity in positions.
func (s *State) Cap() int { return s.ctx }

// Reset forgets every position; hooks stay registered.
func (s *State) Reset() { s.pos = 0 }

// Truncate forgets positions from n on, keeping the first n (n ≤ Pos).
func (s *State) Truncate(n int) {
	if n >= 0 && n < s.pos {
		s.pos = n
	}
}

// Forward runs tokens through the model at positions Pos()…Pos()+len−1 and
// advances Pos. logits receives the logits of the last token when its length
// is Vocab, of every token when it is len(tokens)·Vocab, and nothing when it
// is empty. If the tokens would not fit in the KV cache it returns an error
// wrapping ErrContextFull and changes nothing.
func (s *State) Forward(tokens []int32, logits []float32) error {
	c := &s.m.Config
	n := len(tokens)
	all := len(logits) == n*c.Vocab && n > 1
	if len(logits) != 0 && len(logits) != c.Vocab && !all {
		return fmt.Errorf("model: logits buffer of %d floats fits neither 1 nor %d tokens of vocabulary %d", len(logits), n, c.Vocab)
	}
	if s.pos+n > s.ctx {
		return fmt.Errorf("model: %d tokens at position %d need %d positions, cache holds %d: %w", n, s.pos, s.pos+n, s.ctx, ErrContextFull)
	}
	for i, t := range tokens {
		if t < 0 || int(t) >= c.Vocab {
			return fmt.Errorf("model: token %d (index %d) is outside the vocabulary of %d", t, i, c.Vocab)
		}
	}
	for start := 0; start < n; start += MaxBatch {
		end := min(start+MaxBatch, n)
		var out []float32
		switch {
		case all:
			out = logits[start*c.Vocab : end*c.Vocab]
		case end == n && len(logits) != 0:
			out = logits
		}
		if err := s.batch(tokens[start:end], out); err != nil {
			return err
		}
	}
	return nil
}

// batch runs n ≤ MaxBatch tokens; out holds the last token's logits or every
// token's, or is empty.
func (s *State) batch(tokens []int32, out []float32) error {
	m, c, k := s.m, &s.m.Config, s.k
	n, pos0 := len(tokens), s.pos
	D, QD, KVD, F := c.Dim, c.QDim(), c.KVDim(), c.FFN
	x, xb := s.x[:n*D], s.xb[:n*D]
	q, kb, vb, att := s.q[:n*QD], s.kb[:n*KVD], s.vb[:n*KVD], s.att[:n*QD]
	g, u := s.g[:n*F], s.u[:n*F]

	for i, t := range tokens {
		if err := tensor.Dequantize(m.tokEmbd.Type, x[i*D:(i+1)*D], m.tokEmbd.Row(int(t))); err != nil {
			return fmt.Errorf("model: embedding of token %d: %w", t, err)
		}
	}
	half := c.RopeDim / 2
	for i := range n {
		ropeTables(s.cos[i*half:(i+1)*half], s.sin[i*half:(i+1)*half], pos0+i, c.RopeBase, c.RopeDim, m.ropeFreqs)
	}

	for l := range m.layers {
		L := &m.layers[l]
		// Attention: xb = norm(x); q, k, v projections; RoPE; cache; attend.
		for i := range n {
			rmsnorm(xb[i*D:(i+1)*D], x[i*D:(i+1)*D], L.attnNorm, c.Eps)
		}
		var G *grcLayer
		if s.grc != nil {
			G = &s.grc.layers[l]
		}
		wq, wk, wv, in := L.wq, L.wk, L.wv, xb
		if G != nil && G.qkv != nil { // x̃ = Pᵀx once, then the three products read x̃
			in = s.xt[:n*G.qkv.k]
			k.MatMul(in, G.qkv.in, xb, n)
			wq, wk, wv = G.qkv.out[0], G.qkv.out[1], G.qkv.out[2]
		}
		if n == 1 { // decode: one dispatch for the three products
			k.MatVecs(in, tensor.MatVecOp{Dst: q, W: wq}, tensor.MatVecOp{Dst: kb, W: wk}, tensor.MatVecOp{Dst: vb, W: wv})
		} else {
			k.MatMul(q, wq, in, n)
			k.MatMul(kb, wk, in, n)
			k.MatMul(vb, wv, in, n)
		}
		for i := range n {
			qi, ki, vi := q[i*QD:(i+1)*QD], kb[i*KVD:(i+1)*KVD], vb[i*KVD:(i+1)*KVD]
			addBias(qi, L.bq)
			addBias(ki, L.bk)
			addBias(vi, L.bv)
			cs, sn := s.cos[i*half:(i+1)*half], s.sin[i*half:(i+1)*half]
			for h := range c.Heads {
				qh := qi[h*c.HeadDim : (h+1)*c.HeadDim]
				if L.qNorm != nil {
					rmsnorm(qh, qh, L.qNorm, c.Eps)
				}
				rope(qh, cs, sn, c.RopeNeox)
			}
			for h := range c.KVHeads {
				kh := ki[h*c.HeadDim : (h+1)*c.HeadDim]
				if L.kNorm != nil {
					rmsnorm(kh, kh, L.kNorm, c.Eps)
				}
				rope(kh, cs, sn, c.RopeNeox)
			}
			for g := range c.KVHeads {
				off := ((l*c.KVHeads+g)*s.ctx + pos0 + i) * c.HeadDim
				copy(s.kc[off:off+c.HeadDim], ki[g*c.HeadDim:(g+1)*c.HeadDim])
				copy(s.vc[off:off+c.HeadDim], vi[g*c.HeadDim:(g+1)*c.HeadDim])
			}
		}
		s.attn.layer, s.attn.n, s.attn.pos0 = l, n, pos0
		k.Pool().Run(c.Heads, &s.attn)
		if G != nil && G.o != nil { // the O basis reads the attention output
			t := s.xt[:n*G.o.k]
			k.MatMul(t, G.o.in, att, n)
			k.MatMul(xb, G.o.out[0], t, n)
		} else {
			k.MatMul(xb, L.wo, att, n)
		}
		addInto(x, xb)

		// Feed-forward (SwiGLU): x += down(silu(gate·m) ⊙ up·m), m = norm(x).
		for i := range n {
			rmsnorm(xb[i*D:(i+1)*D], x[i*D:(i+1)*D], L.ffnNorm, c.Eps)
		}
		wg, wu, in := L.gate, L.up, xb
		if G != nil && G.ffn != nil { // one basis for gate and up
			in = s.xt[:n*G.ffn.k]
			k.MatMul(in, G.ffn.in, xb, n)
			wg, wu = G.ffn.out[0], G.ffn.out[1]
		}
		if n == 1 {
			k.MatVecs(in, tensor.MatVecOp{Dst: g, W: wg}, tensor.MatVecOp{Dst: u, W: wu})
		} else {
			k.MatMul(g, wg, in, n)
			k.MatMul(u, wu, in, n)
		}
		for i, v := range g {
			g[i] = v / (1 + float32(math.Exp(float64(-v)))) * u[i]
		}
		if G != nil && G.down != nil { // y = A(B h): B = V_kᵀ, A = U_kΣ_k
			t := s.xt[:n*G.down.k]
			k.MatMul(t, G.down.in, g, n)
			k.MatMul(xb, G.down.out[0], t, n)
		} else {
			k.MatMul(xb, L.down, g, n)
		}
		addInto(x, xb)

		for _, h := range s.hooks.block {
			for i := range n {
				h.AfterBlock(l, pos0+i, x[i*D:(i+1)*D])
			}
		}
	}

	// Output: final norm and classifier for the positions that need them.
	first := n - 1
	if len(out) == n*c.Vocab || len(s.hooks.norm) > 0 {
		first = 0
	}
	for i := first; i < n; i++ {
		hn := s.hn[i*D : (i+1)*D]
		rmsnorm(hn, x[i*D:(i+1)*D], m.outNorm, c.Eps)
		for _, h := range s.hooks.norm {
			h.AfterNorm(pos0+i, hn)
		}
	}
	s.pos += n
	switch {
	case len(out) == n*c.Vocab && n > 1:
		k.MatMul(out, m.output, s.hn[:n*D], n)
		for _, h := range s.hooks.logits {
			for i := range n {
				h.Logits(pos0+i, out[i*c.Vocab:(i+1)*c.Vocab])
			}
		}
	case len(out) == c.Vocab:
		k.MatVec(out, m.output, s.hn[(n-1)*D:n*D])
		for _, h := range s.hooks.logits {
			h.Logits(pos0+n-1, out)
		}
	}
	return nil
}

// Classify turns n residual-stream states — the last block's output,
// n×Dim row-major, n ≤ MaxBatch — into logits (n×Vocab) with the final
// RMSNorm and the classifier, exactly as Forward does for its positions.
// A caller that edits only the last block's output (a projector there)
// can rescore stored states with it without running the blocks again. It
// uses the state's scratch space and leaves the KV cache and position
// alone; hooks are not called.
func (s *State) Classify(x, out []float32) error {
	c := &s.m.Config
	D := c.Dim
	n := len(x) / D
	if n == 0 || n > MaxBatch || len(x) != n*D || len(out) != n*c.Vocab {
		return fmt.Errorf("model: classify: %d states and %d logits for width %d, vocabulary %d (at most %d states)", len(x), len(out), D, c.Vocab, MaxBatch)
	}
	for i := range n {
		rmsnorm(s.hn[i*D:(i+1)*D], x[i*D:(i+1)*D], s.m.outNorm, c.Eps)
	}
	if n == 1 {
		s.k.MatVec(out, s.m.output, s.hn[:D])
		return nil
	}
	s.k.MatMul(out, s.m.output, s.hn[:n*D], n)
	return nil
}

func addBias(x, b []float32) {
	if b != nil {
		addInto(x, b)
	}
}

func addInto(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}

// Kernels is the compute the state runs on.
func (s *State) Kernels() *tensor.Kernels { return s.k }
