package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// MaxBatch is the most prompt tokens one prefill step multiplies at once;
// longer prompts run in steps of this size (or of the backend's
// BatchSize, when it is smaller). Each step reads every weight once, so a
// longer step reads them less often per token: on the CPU, 256 against 64
// took a 1B-shaped F16 prompt of 512 tokens from 97–102 to 126–128 tok/s
// (2 vCPUs; llama.cpp's own micro-batch is 512). The activations cost
// 256 × (3·Dim + 2·(QDim + KVDim + FFN)) floats a State: 52 MB at an 8B
// shape, 6.5 MB at SmolLM2's.
const MaxBatch = 256

// State is one conversation's mutable state over a Model: the KV cache,
// the position, the activations, the products each slot runs and the
// hooks, all on one backend. It is not safe for concurrent use; give each
// conversation its own, and each State that runs concurrently with
// another its own backend (backend.Backend.Share).
//
// The model's dense weights are bound once per backend domain and shared
// by every State of it; the projected weights of SetProjections are the
// State's own, released (backend.Releaser) when replaced and by Close.
type State struct {
	m   *Model
	b   backend.Backend
	k   *tensor.Kernels // the CPU backend's kernels, or nil
	ctx int             // KV cache capacity in entries (slots)
	pos int             // next position to compute
	// n is the number of cached entries: pos until an eviction (Evict)
	// drops some, pos − evicted after. maxPos is the most positions the
	// state runs to: ctx, or more with eviction (SetMaxPos).
	n, maxPos int
	ev        evictState
	batch     int // the most tokens one step runs: MaxBatch or the backend's less
	hooks     hookSet
	aff       []boundAffine // the hooks' affine maps bound on b (affine.go)
	kv        backend.KV
	kvType    backend.KVType // how kv stores keys and values (StateOptions.KV)
	dense     *bound         // the model's weights on this backend's domain, shared
	w         stateWeights
	// lay is, per block, how it rotates and attends in this state: set
	// once, so that a block reads its own and branches on nothing.
	lay []layerRun
	// lin is, per block, the product each slot runs: the model's dense
	// weights, or a projection and projected weights (SetProjections).
	lin []blockLinears

	// Activations for up to batch tokens, one row per token.
	x, xb, q, kb, vb, att, g, u backend.Buffer
	hn                          backend.Buffer // final-normed hidden state
	xt                          backend.Buffer // x̃ = Pᵀx of a compressed slot, or nil
	ops                         [3]backend.LinearOp

	proj Projections // what the products run through, or nil (dense)
	// owned are the projected matrices this state bound (SetProjections),
	// by the host matrix they came from: its to release.
	owned  map[*tensor.Matrix]backend.Matrix
	closed bool

	// KV-cache projection (kvproj.go): the projection the cache is stored
	// in, its matrices on the backend and its activations, or nil.
	kvp *kvRun
	// bp is the sink bypass of the projections in use (bypass.go), or nil.
	bp *bypassRun
	// moe runs the mixture-of-experts layers (moe.go), nil for a dense
	// model.
	moe *moeRun

	// joined is the Batcher this state joined (its Forwards run in the
	// batcher's steps), with the state's place in it; nil: Forward runs
	// here (batch.go).
	joined *member
	// seqs, set only on a Batcher's carrier state during a step, are the
	// sequences whose rows the step runs: the attention takes each one's
	// rows on its own cache and positions.
	seqs []seqRun

	// steer is the steering added after each block (steer.go), or nil.
	steer *steerRun
}

// stateWeights are the model's weights as the state's backend holds them.
type stateWeights struct {
	tokEmbd, output backend.Matrix
	outNorm         backend.Vector
	blocks          []blockWeights
}

// blockWeights are one block's vectors on the backend (absent ones nil).
type blockWeights struct {
	attnNorm, ffnNorm         backend.Vector
	bq, bk, bv                backend.Vector
	qNorm, kNorm              backend.Vector
	postAttnNorm, postFFNNorm backend.Vector
	moe                       *boundMoE // the mixture of experts, or nil (dense)
	bo, sinks                 backend.Vector
}

// layerRun is how one layer rotates and attends.
type layerRun struct {
	rope   backend.Rope
	attend backend.AttendOptions
}

// layerRuns sets every layer's RoPE and attention for a state of ctx
// positions: LongRoPE's long factors when the window exceeds the context
// the model was first trained at (as llama.cpp chooses), and on the
// sliding layers (Config.SWAPeriod) the window and the local RoPE base.
func (m *Model) layerRuns(ctx int) []layerRun {
	c := &m.Config
	freqs := m.ropeFreqs
	if m.ropeLong != nil && ctx > c.RopeOrigCtx {
		freqs = m.ropeLong
	} else if m.ropeShort != nil {
		freqs = m.ropeShort
	}
	var scale float32
	if m.arch.queryScale != nil {
		scale = m.arch.queryScale(c)
	}
	runs := make([]layerRun, len(m.layers))
	for l := range runs {
		r := &runs[l]
		// YaRN (Config.RopeYaRN) on every layer, the sliding ones included:
		// llama.cpp passes them the same ext_factor and attn_factor, and
		// with their PosScale of 1 the ramp mixes equal angles.
		r.rope = backend.Rope{Base: c.RopeBase, Dim: c.RopeDim, Freqs: freqs, Neox: c.RopeNeox, Scale: c.RopeScale, PosScale: c.RopePosScale, YaRN: c.RopeYaRN}
		r.attend = backend.AttendOptions{Scale: scale, SoftCap: c.AttnSoftCap}
		if c.SlidingWindow > 0 && (c.SWAAll || c.SWAPeriod > 0 && l%c.SWAPeriod < c.SWAPeriod-1) {
			r.attend.Window = c.SlidingWindow
			if c.RopeLocalBase != 0 {
				r.rope.Base, r.rope.PosScale = c.RopeLocalBase, 1
			}
		}
	}
	return runs
}

// linear is one slot's product as a state runs it: the dense weights (in
// nil), or a projection of the input to k dimensions, x̃ = Pᵀx, from which
// the slot's projected weights read.
type linear struct {
	in  backend.Matrix
	out []backend.Matrix
}

// blockLinears are a block's slots: Q/K/V (one input), O, gate/up (one
// input) and down.
type blockLinears struct {
	qkv, o, ffn, down linear
}

// NewStateOn allocates a state whose KV cache holds ctx positions (the
// model's own context length when ctx ≤ 0, never more), running on backend
// b (engine/backend/cpu's New for the host). The model's weights are bound
// on b's domain the first time a State is made there, and shared after.
func (m *Model) NewStateOn(ctx int, b backend.Backend) (*State, error) {
	return m.NewStateWith(ctx, b, StateOptions{})
}

// StateOptions are what NewStateWith varies in a state beyond its size and
// backend. The zero value is NewStateOn's state.
type StateOptions struct {
	// KV is how the state's KV cache stores keys and values: float32 (the
	// zero value, the reference), f16 or q8_0 (see backend.KVType). It is
	// fixed for the state's life: a KV projection (SetKVProjection)
	// reallocates the cache in the same type. A backend that cannot store
	// the type, or a q8_0 cache of heads that are not a multiple of 32
	// values, fails NewStateWith.
	KV backend.KVType
}

// NewStateWith is NewStateOn with options: the KV cache's type.
func (m *Model) NewStateWith(ctx int, b backend.Backend, o StateOptions) (*State, error) {
	if b == nil {
		return nil, fmt.Errorf("model: no backend")
	}
	if ctx <= 0 || ctx > m.CtxLen {
		ctx = m.CtxLen
	}
	c := &m.Config
	if min(MaxBatch, b.BatchSize()) < 1 {
		return nil, fmt.Errorf("model: backend %s takes batches of %d rows", b.Name(), b.BatchSize())
	}
	s, err := m.newBare(b, min(MaxBatch, b.BatchSize()))
	if err != nil {
		return nil, err
	}
	s.ctx, s.maxPos, s.lay, s.kvType = ctx, ctx, m.layerRuns(ctx), o.KV
	if s.kv, err = b.NewKV(c.Layers, ctx, backend.Attention{Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim, KV: o.KV}); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	for l := range s.lay {
		// The sinks are weights, bound per domain; the rest of a layer's
		// attention options come from the configuration.
		s.lay[l].attend.Sinks = s.w.blocks[l].sinks
	}
	return s, nil
}

// newBare makes a state on b without a KV cache: the model's weights bound
// on b's domain (shared with its other States) and activations for rows
// rows. NewStateWith adds the cache and the layers' options; a Batcher's
// carrier runs on it as it is (each sequence brings its own cache).
func (m *Model) newBare(b backend.Backend, rows int) (*State, error) {
	c := &m.Config
	s := &State{m: m, b: b, batch: rows}
	if h, ok := b.(interface{ Kernels() *tensor.Kernels }); ok { // the CPU backend
		s.k = h.Kernels()
	}
	var err error
	if s.dense, err = m.bind(b); err != nil {
		return nil, err
	}
	s.w = s.dense.w
	s.lin = slices.Clone(s.dense.lin)
	for _, a := range []struct {
		dst   *backend.Buffer
		width int
	}{
		{&s.x, c.Dim}, {&s.xb, c.Dim}, {&s.q, c.QDim()}, {&s.att, c.QDim()},
		{&s.kb, c.KVDim()}, {&s.vb, c.KVDim()}, {&s.g, c.FFN}, {&s.u, c.FFN}, {&s.hn, c.Dim},
	} {
		if *a.dst, err = b.Alloc(rows, a.width); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	if c.IsMoE() {
		if err := s.newMoERun(rows); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Model is the model this state runs.
func (s *State) Model() *Model { return s.m }

// KVType is how the state's KV cache stores keys and values
// (StateOptions.KV): states made to continue or mirror this one (a
// drafter, a copy for CopyFrom) take the same.
func (s *State) KVType() backend.KVType { return s.kvType }

// BatchSize is the most tokens one step of Forward runs: MaxBatch, or the
// backend's BatchSize when that is smaller.
func (s *State) BatchSize() int { return s.batch }

// Close releases what the state bound for itself on a backend that
// implements backend.Releaser: the projected matrices of SetProjections.
// The model's dense weights stay bound for the other States of the
// domain. The state must not be used after; Close again does nothing.
func (s *State) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.joined != nil {
		s.joined.q.Leave(s)
	}
	s.releaseOwned(nil)
	s.owned, s.proj, s.bp = nil, nil, nil
	s.lin = slices.Clone(s.dense.lin)
	s.kvp.release(s.b)
	s.kvp = nil
	s.steer.release(s.b)
	s.steer = nil
	s.releaseAffines()
}

// Pos is the number of positions computed so far (the next token's position).
func (s *State) Pos() int { return s.pos }

// Cap is the KV cache capacity in entries: the positions a state holds,
// unless it evicts (SetMaxPos, Evict).
func (s *State) Cap() int { return s.ctx }

// Reset forgets every position (RewindHooks are told, as by Truncate);
// hooks stay registered.
func (s *State) Reset() { s.Truncate(0) }

// Truncate forgets positions from n on, keeping the first n (n ≤ Pos).
// Hooks that implement RewindHook are told, so that what they kept of the
// forgotten positions goes too. After an eviction only positions from
// TruncateFloor on can be forgotten alone: a lower n (but 0) forgets every
// position, as the entries the eviction kept are not the first n
// positions.
func (s *State) Truncate(n int) {
	if n < 0 || n >= s.pos {
		return
	}
	if n < s.TruncateFloor() {
		n = 0
	}
	s.n -= s.pos - n
	s.pos = n
	if n == 0 {
		s.n = 0
		s.uncompact()
	}
	s.hooks.rewind(n)
}

// KVAt copies the cached keys and values of layer at pos (each
// KVHeads·HeadDim wide, KVHeads·r with a KV projection) into k and v, for
// tests and tools that compare caches. It fails for a position not
// computed yet, or on a backend that cannot read its cache back.
func (s *State) KVAt(layer, pos int, k, v []float32) error {
	c := &s.m.Config
	r, ok := s.b.(backend.KVReader)
	switch {
	case !ok:
		return fmt.Errorf("model: backend %s cannot read its KV cache back", s.b.Name())
	case layer < 0 || layer >= c.Layers || pos < s.TruncateFloor() || pos >= s.pos:
		return fmt.Errorf("model: no cached position %d of layer %d (%d positions, %d layers, %d evicted)", pos, layer, s.pos, c.Layers, s.pos-s.n)
	case len(k) != c.KVHeads*s.kvHeadDim() || len(v) != c.KVHeads*s.kvHeadDim():
		return fmt.Errorf("model: KVAt needs buffers of %d values, got %d and %d", c.KVHeads*s.kvHeadDim(), len(k), len(v))
	}
	r.ReadKV(s.kv, layer, pos-(s.pos-s.n), k, v)
	return nil
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
	if s.closed {
		return fmt.Errorf("model: the state is closed")
	}
	if s.n+n > s.ctx || s.pos+n > s.maxPos {
		if s.maxPos == s.ctx {
			return fmt.Errorf("model: %d tokens at position %d need %d positions, cache holds %d: %w", n, s.pos, s.pos+n, s.ctx, ErrContextFull)
		}
		return fmt.Errorf("model: %d tokens at position %d (%d cached) need %d entries and %d positions, cache holds %d entries and %d positions: %w",
			n, s.pos, s.n, s.n+n, s.pos+n, s.ctx, s.maxPos, ErrContextFull)
	}
	for i, t := range tokens {
		if t < 0 || int(t) >= c.Vocab {
			return fmt.Errorf("model: token %d (index %d) is outside the vocabulary of %d", t, i, c.Vocab)
		}
	}
	if s.joined != nil && n > 0 {
		return s.joined.q.forward(s, tokens, logits)
	}
	return s.forward(tokens, logits)
}

// forward is Forward once checked, run on the state's own backend.
func (s *State) forward(tokens []int32, logits []float32) error {
	c := &s.m.Config
	n := len(tokens)
	all := len(logits) == n*c.Vocab && n > 1
	for start := 0; start < n; start += s.batch {
		end := min(start+s.batch, n)
		var out []float32
		switch {
		case all:
			out = logits[start*c.Vocab : end*c.Vocab]
		case end == n && len(logits) != 0:
			out = logits
		}
		if err := s.step(tokens[start:end], out); err != nil {
			return err
		}
	}
	return nil
}

// step runs n ≤ s.batch tokens; out holds the last token's logits or every
// token's, or is empty. It reads like the equations: every operation is one
// call on the backend.
func (s *State) step(tokens []int32, out []float32) error {
	m, c, b := s.m, &s.m.Config, s.b
	n, pos0, D := len(tokens), s.pos, c.Dim
	if err := b.Embed(s.x, s.w.tokEmbd, tokens); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if m.arch.gemma {
		b.Scale(s.x, n, float32(math.Sqrt(float64(D))))
	}
	for l := range m.layers {
		if s.bp != nil {
			s.flagSinks(l, n)
		}
		m.arch.block(s, l, n, pos0)
		if v := s.steerAt(l); v != nil {
			b.AddBias(s.x, v, n) // a control vector: x ← x + v_l (steer.go)
		}
		if l < len(s.hooks.at) && len(s.hooks.at[l]) > 0 {
			s.afterBlock(l, n, pos0)
		}
	}

	// Output: the final norm, then the classifier for the positions that
	// need it.
	b.RMSNorm(s.hn, s.x, s.w.outNorm, n, c.Eps)
	if len(s.hooks.norm) > 0 {
		rows := b.Host(s.hn, 0, n)
		for _, h := range s.hooks.norm {
			for i := range n {
				h.AfterNorm(pos0+i, rows[i*D:(i+1)*D])
			}
		}
	}
	s.pos += n
	s.n += n
	switch {
	case len(out) == n*c.Vocab && n > 1:
		b.Logits(out, s.w.output, s.hn, 0, n)
		softCap(out, c.LogitSoftCap)
		for _, h := range s.hooks.logits {
			for i := range n {
				h.Logits(pos0+i, out[i*c.Vocab:(i+1)*c.Vocab])
			}
		}
	case len(out) == c.Vocab:
		b.Logits(out, s.w.output, s.hn, n-1, 1)
		softCap(out, c.LogitSoftCap)
		for _, h := range s.hooks.logits {
			h.Logits(pos0+n-1, out)
		}
	}
	// A device reports a failed operation late (its operations return
	// nothing): the step's positions are then not counted, and its logits
	// are not to be read.
	if f, ok := b.(backend.Failer); ok {
		if err := f.Err(); err != nil {
			s.pos = pos0
			s.n -= n
			return fmt.Errorf("model: %w", err)
		}
	}
	return nil
}

// attention rotates the step's queries and keys, caches the keys and
// values, and attends, leaving the heads' outputs in s.att: the state's
// own rows at pos0, or on a Batcher's carrier each sequence's rows on its
// own cache at its own positions (batch.go).
func (s *State) attention(l, n, pos0 int) {
	if s.seqs != nil {
		s.attentionSeqs(l)
		return
	}
	c, b, A := &s.m.Config, s.b, &s.lay[l]
	if rs, ok := b.(backend.RoPEStorer); ok && s.kvp == nil && len(s.hooks.query) == 0 &&
		rs.RoPEStoreKV(s.q, s.kb, s.vb, s.kv, l, s.n, pos0, n, c.Heads, c.KVHeads, c.HeadDim, A.rope) {
		// The rotations and the store in one call: nothing reads the
		// rotated rows in between (no query hook, no KV projection).
		b.Attend(s.att, s.q, s.kv, l, s.n, n, A.attend)
		return
	}
	b.RoPE(s.q, n, c.Heads, c.HeadDim, pos0, A.rope)
	b.RoPE(s.kb, n, c.KVHeads, c.HeadDim, pos0, A.rope)
	q, k, v, att, o := s.kvIn(l, n, A.attend) // the state's own, or in a KV projection's basis
	if len(s.hooks.query) > 0 {
		s.hooks.queries(b, l, pos0, q, n, o.Scale, c.HeadDim)
	}
	b.StoreKV(s.kv, l, s.n, n, k, v) // slots: positions until an eviction
	b.Attend(att, q, s.kv, l, s.n, n, o)
	s.kvOut(l, n)
}

// afterBlock runs the block hooks of layer l on the batch's rows: copied
// to the host once for all of them, in registration order (a later hook
// reads what an earlier one wrote), and written back once, only if one of
// them may have written.
func (s *State) afterBlock(l, n, pos0 int) { s.blockHooks(&s.hooks, l, 0, n, pos0) }

// blockHooks runs the block hooks h has at layer l on rows row0…row0+n−1
// of s.x, which are positions pos0…: a state's own rows (afterBlock), or
// one sequence's rows of a Batcher's carrier (batch.go).
//
// A hook whose write is an Affine map (AffineHook), on a backend that
// applies one (backend.Affiner), is applied there: the host rows are
// written back first if an earlier hook wrote them, copied only if the
// hook also reads them, and copied again for a later host hook.
func (s *State) blockHooks(h *hookSet, l, row0, n, pos0 int) {
	D := s.m.Dim
	var rows []float32 // the host copy, nil until a hook needs it
	wrote := false
	af, _ := s.b.(backend.Affiner)
	for _, e := range h.at[l] {
		if e.af != nil && af != nil {
			m, reads := e.af.AffineAt(l)
			var a *boundAffine
			if m != nil {
				var err error
				if a, err = s.affineFor(m); err != nil {
					a = nil // a map the backend cannot bind runs on the host
				}
			}
			if m == nil || a != nil {
				if reads {
					if rows == nil {
						rows = s.b.Host(s.x, row0, n)
					}
					for i := range n {
						e.af.ReadBlock(l, pos0+i, rows[i*D:(i+1)*D])
					}
				}
				if a != nil {
					if wrote {
						s.b.Sync(s.x, row0, rows)
						wrote = false
					}
					af.Affine(s.x, row0, n, a.basis, a.mu, a.dir, m.Alpha)
					rows = nil // the backend's rows changed
				}
				continue
			}
		}
		if rows == nil {
			rows = s.b.Host(s.x, row0, n)
		}
		wrote = wrote || e.ro == nil || !e.ro.ReadOnly()
		for i := range n {
			e.h.AfterBlock(l, pos0+i, rows[i*D:(i+1)*D])
		}
	}
	if wrote {
		s.b.Sync(s.x, row0, rows)
	}
}

// softCap bounds logits smoothly to ±cap, z ← cap·tanh(z/cap) (gemma2's
// final soft-cap); cap 0 leaves them alone.
func softCap(z []float32, cap float32) {
	if cap <= 0 {
		return
	}
	for i, v := range z {
		z[i] = cap * float32(math.Tanh(float64(v/cap)))
	}
}

// ffn runs layer l's feed-forward block on the n rows of s.xb (the normed
// stream), leaving its output in s.xb and, when res is not nil, adding it
// to res: the dense gate, up and down with act (SwiGLU, GeGLU), or the
// layer's mixture of experts. A backend that fuses the gate, the up and
// act (backend.Gated), or the down product and the sum (backend.Residual),
// gets them in one call when the slot is not compressed.
func (s *State) ffn(l, n int, act backend.GLU, res backend.Buffer) {
	if s.w.blocks[l].moe != nil {
		s.moeFFN(l, n)
		if res != nil {
			s.b.Add(res, s.xb, n)
		}
		return
	}
	L := &s.lin[l]
	gb, ok := s.b.(backend.Gated)
	if !ok || L.ffn.in != nil || len(L.ffn.out) != 2 || !gb.Gated(s.g, s.u, L.ffn.out[0], L.ffn.out[1], s.xb, n, act) {
		s.linear(&L.ffn, s.xb, n, s.g, s.u)
		if act == backend.GLUGELU {
			s.b.GeGLU(s.g, s.u, n)
		} else {
			s.b.SwiGLU(s.g, s.u, n)
		}
	}
	if res == nil {
		s.linear(&L.down, s.g, n, s.xb)
		return
	}
	s.linearAdd(&L.down, s.g, n, s.xb, res)
}

// linearAdd runs a slot of one product into y and adds y to dst: in one
// call on a backend.Residual when the slot is not compressed.
func (s *State) linearAdd(L *linear, x backend.Buffer, n int, y, dst backend.Buffer) {
	if rb, ok := s.b.(backend.Residual); ok && L.in == nil && len(L.out) == 1 && rb.LinearAdd(dst, y, L.out[0], x, n) {
		return
	}
	s.linear(L, x, n, y)
	s.b.Add(dst, y, n)
}

// linear runs a slot: dst[i] = W_i·x for its products, through its
// projection x̃ = Pᵀx when the slot is compressed. One input's products go
// to the backend together (one dispatch when decoding). Rows the sink
// bypass flagged for this block get the dense products instead.
func (s *State) linear(L *linear, x backend.Buffer, n int, dst ...backend.Buffer) {
	var dense *linear
	if s.bp != nil && len(s.bp.rows) > 0 && L.in != nil {
		dense = s.denseOf(L)
		if len(s.bp.rows) == n && dense != nil {
			// Every row a sink (decoding one, always): the group runs
			// dense, nothing projected.
			L, dense = dense, nil
		}
	}
	s.product(L, x, n, dst)
	if dense != nil {
		s.bypassRows(dense, x, dst)
	}
}

// product is linear's products, dense or through the projection.
func (s *State) product(L *linear, x backend.Buffer, n int, dst []backend.Buffer) {
	in := x
	if L.in != nil {
		s.b.Linear(s.xt, L.in, x, n)
		in = s.xt
	}
	if len(dst) == 1 {
		s.b.Linear(dst[0], L.out[0], in, n)
		return
	}
	for i, d := range dst {
		s.ops[i] = backend.LinearOp{Dst: d, W: L.out[i]}
	}
	s.b.Linears(in, n, s.ops[:len(dst)]...)
	clear(s.ops[:])
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
	if s.closed {
		return fmt.Errorf("model: classify: the state is closed")
	}
	// In steps of the backend's batch, which may be smaller than MaxBatch.
	for i := 0; i < n; i += s.batch {
		r := min(s.batch, n-i)
		s.b.Write(s.xb, 0, x[i*D:(i+r)*D])
		s.b.RMSNorm(s.hn, s.xb, s.w.outNorm, r, c.Eps)
		s.b.Logits(out[i*c.Vocab:(i+r)*c.Vocab], s.w.output, s.hn, 0, r)
	}
	softCap(out, c.LogitSoftCap)
	return nil
}

// Kernels are the CPU kernels the state runs on (nil on another backend).
func (s *State) Kernels() *tensor.Kernels { return s.k }

// Backend is what the state runs on.
func (s *State) Backend() backend.Backend { return s.b }
